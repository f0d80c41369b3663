//! Shell examples: `$ command` sessions against the output they show,
//! scripts that must succeed, and synopses whose options must exist.

use crate::blocks::Block;
use crate::scratch::Scratch;

/// A command of a session and the output lines shown after it.
struct Step {
    command: String,
    expected: Vec<String>,
}

/// Commands written for a checkout run the CLI the tests built.
fn as_built(command: &str) -> String {
    command.replace("cargo run --release -- ", "jumpshard ")
}

/// The steps of a session: `$ ` starts a command (a line ending in `\`
/// goes on on the next), and the lines up to the next `$ ` are its output.
fn steps(block: &Block) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    let mut continued = false;
    for line in &block.lines {
        if continued {
            let step = steps.last_mut().expect("a command before its continuation");
            step.command.push('\n');
            step.command.push_str(line);
            continued = line.ends_with('\\');
        } else if let Some(command) = line.strip_prefix("$ ") {
            steps.push(Step {
                command: command.to_string(),
                expected: Vec::new(),
            });
            continued = command.ends_with('\\');
        } else if let Some(step) = steps.last_mut() {
            step.expected.push(line.trim_end().to_string());
        }
    }
    steps
}

/// Whether `line` matches `pattern`, in which `[..]` stands for any text.
fn line_matches(pattern: &str, line: &str) -> bool {
    let mut parts = pattern.split("[..]");
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = line.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    for (i, part) in parts.iter().enumerate() {
        if i + 1 == parts.len() {
            return rest.ends_with(part);
        }
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.is_empty()
}

/// Whether the output `lines` match the `expected` ones, where a line
/// `...` stands for any number of lines (none included).
pub fn matches(expected: &[String], lines: &[String]) -> bool {
    match expected.split_first() {
        None => lines.is_empty(),
        Some((first, rest)) if first.trim() == "..." => {
            (0..=lines.len()).any(|skip| matches(rest, &lines[skip..]))
        }
        Some((first, rest)) => {
            lines.first().is_some_and(|l| line_matches(first, l)) && matches(rest, &lines[1..])
        }
    }
}

/// Lines without trailing blanks or trailing empty lines.
fn tidy(lines: impl Iterator<Item = String>) -> Vec<String> {
    let mut v: Vec<String> = lines.map(|l| l.trim_end().to_string()).collect();
    while v.last().is_some_and(|l| l.is_empty()) {
        v.pop();
    }
    v
}

/// Runs a session's commands in order; each must succeed and print (on
/// standard output and error, as a terminal shows them) what is shown.
pub fn session(scratch: &Scratch, block: &Block) -> Result<(), String> {
    for step in steps(block) {
        let command = as_built(&step.command);
        let out = scratch
            .shell(&format!("exec 2>&1\n{command}"))
            .output()
            .expect("run sh");
        let got = tidy(
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .map(str::to_string),
        );
        let expected = tidy(step.expected.into_iter());
        if !out.status.success() || !matches(&expected, &got) {
            return Err(format!(
                "{}: `$ {}` ({})\n--- shown:\n{}\n--- printed:\n{}",
                block.place(),
                step.command,
                out.status,
                expected.join("\n"),
                got.join("\n")
            ));
        }
    }
    Ok(())
}

/// Runs a script block with `sh -e`: it must succeed.
pub fn script(scratch: &Scratch, block: &Block) -> Result<(), String> {
    let text = as_built(&block.lines.join("\n"));
    let out = scratch
        .shell(&format!("set -e\nexec 2>&1\n{text}"))
        .output()
        .expect("run sh");
    if out.status.success() {
        return Ok(());
    }
    Err(format!(
        "{}: the script failed ({}):\n{text}\n--- printed:\n{}",
        block.place(),
        out.status,
        String::from_utf8_lossy(&out.stdout)
    ))
}

/// A synopsis (`jumpshard bench [--keys N] ...`): each line's command must
/// exist and each `--option` it names must be in that command's `--help`.
pub fn synopsis(scratch: &Scratch, block: &Block) -> Result<(), String> {
    for line in &block.lines {
        let line = as_built(line);
        let line = line.split(" #").next().unwrap_or("");
        let Some(args) = line.trim().strip_prefix("jumpshard ") else {
            continue;
        };
        let words: Vec<&str> = args.split_whitespace().collect();
        let Some(command) = words.first().filter(|w| !w.starts_with(['-', '['])) else {
            return Err(format!("{}: `{line}` names no command", block.place()));
        };
        let out = scratch
            .shell(&format!("jumpshard {command} --help"))
            .output()
            .expect("run");
        let help = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() {
            return Err(format!(
                "{}: `jumpshard {command} --help` failed",
                block.place()
            ));
        }
        for word in &words[1..] {
            for option in word
                .split(['[', ']', '|', '='])
                .filter(|w| w.starts_with("--"))
            {
                let known = help
                    .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                    .any(|w| w == option);
                if !known {
                    return Err(format!(
                        "{}: `{option}` is not an option of `jumpshard {command}`",
                        block.place()
                    ));
                }
            }
        }
    }
    Ok(())
}

#[test]
fn wildcards() {
    let s = |v: &[&str]| v.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    assert!(matches(&s(&["a", "...", "d"]), &s(&["a", "b", "c", "d"])));
    assert!(matches(&s(&["a", "...", "d"]), &s(&["a", "d"])));
    assert!(!matches(&s(&["a", "...", "d"]), &s(&["a", "b"])));
    assert!(matches(
        &s(&["x [..] s ([..])"]),
        &s(&["x 0.25 s (3 M keys/s)"])
    ));
    assert!(!matches(&s(&["x [..] s"]), &s(&["x 0.25 ms!"])));
    assert!(matches(&s(&["[..]"]), &s(&[""])));
    assert!(!matches(&s(&["a"]), &s(&["a", "b"])));
}

#[test]
fn a_session_fails_on_output_it_does_not_show() {
    let scratch = Scratch::new();
    let block = |lines: &[&str]| Block {
        doc: "d.md".into(),
        line: 1,
        lang: "console".into(),
        lines: lines.iter().map(|l| l.to_string()).collect(),
        directives: Vec::new(),
    };
    assert_eq!(
        session(&scratch, &block(&["$ echo a; echo b >&2", "a", "b"])),
        Ok(())
    );
    assert!(session(&scratch, &block(&["$ echo a", "b"])).is_err());
    assert!(session(&scratch, &block(&["$ echo a", "a", "b"])).is_err());
    assert!(session(&scratch, &block(&["$ false"])).is_err());
    assert_eq!(
        synopsis(&scratch, &block(&["jumpshard verify [--keys N] [--json]"])),
        Ok(())
    );
    assert!(synopsis(&scratch, &block(&["jumpshard verify [--kees N]"])).is_err());
    assert!(synopsis(&scratch, &block(&["jumpshard verifies"])).is_err());
    assert!(session(
        &scratch,
        &block(&["$ jumpshard bucket 1253737204188795044 \\", "  100", "86"])
    )
    .is_ok());
}
