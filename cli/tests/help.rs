//! Every command's `--help` ends with examples, and each example names
//! only options its command has: the help cannot teach a flag that was
//! renamed or dropped.

use crate::support;

use support::{run, stderr, stdout};

/// The commands `help` lists under "Commands:", but `help` itself.
fn commands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|&c| c != "help")
        .map(str::to_owned)
        .collect()
}

/// `jumpshard WORDS... --help`, which must succeed.
fn help(words: &[&str]) -> String {
    let mut args = words.to_vec();
    args.push("--help");
    let o = run(&args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    stdout(&o)
}

/// Every command path: `bucket`, ..., `table`, `table fingerprint`, `table diff`.
fn command_paths() -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    for command in commands(&help(&[])) {
        let subcommands = commands(&help(&[&command]));
        for sub in subcommands {
            paths.push(vec![command.clone(), sub]);
        }
        paths.push(vec![command]);
    }
    paths
}

/// The example commands after the "Example:" or "Examples:" line, a line
/// ending in `\` joined to the next, comments after `#` dropped.
fn examples(help: &str) -> Vec<String> {
    let block = help
        .split_once("\nExample")
        .map(|(_, block)| block)
        .unwrap_or_else(|| panic!("no Example in:\n{help}"));
    let mut commands = Vec::new();
    let mut line = String::new();
    for text in block.lines().skip(1) {
        let text = text.split(" #").next().unwrap().trim();
        let text = text.strip_prefix("$ ").unwrap_or(text);
        if line.is_empty() && !text.starts_with("jumpshard ") && !text.contains(" jumpshard ") {
            continue;
        }
        match text.strip_suffix('\\') {
            Some(start) => line.push_str(start),
            None => commands.push(std::mem::take(&mut line) + text),
        }
    }
    commands
}

#[test]
fn every_command_help_has_an_example() {
    let paths = command_paths();
    assert!(paths.len() >= 13, "{paths:?}");
    assert!(!examples(&help(&[])).is_empty());
    // Continued lines are one command.
    let reshard = examples(&help(&["reshard"]));
    assert!(
        reshard
            .iter()
            .any(|e| e.starts_with("jumpshard reshard --from 12")
                && e.ends_with("--output-format binary --json")),
        "{reshard:?}"
    );
    for path in paths {
        let words: Vec<&str> = path.iter().map(String::as_str).collect();
        let text = help(&words);
        assert!(
            !examples(&text).is_empty(),
            "{words:?} --help shows no example command:\n{text}"
        );
    }
}

#[test]
fn examples_use_only_options_their_command_has() {
    let mut paths = command_paths();
    paths.push(Vec::new());
    let known = command_paths();
    for path in paths {
        let words: Vec<&str> = path.iter().map(String::as_str).collect();
        for example in examples(&help(&words)) {
            let argv: Vec<&str> = example
                .split_whitespace()
                .skip_while(|w| *w != "jumpshard")
                .skip(1)
                .collect();
            // The command the example runs, which may be another one
            // (restore's help shows the reshard that follows it).
            let target = known
                .iter()
                .filter(|p| argv.starts_with(&p.iter().map(String::as_str).collect::<Vec<_>>()))
                .max_by_key(|p| p.len())
                .unwrap_or_else(|| panic!("{words:?}: example of no command: {example}"));
            let target: Vec<&str> = target.iter().map(String::as_str).collect();
            // The help above its examples, which name the options too.
            let help = help(&target);
            let options = help.split("\nExample").next().unwrap();
            for option in argv.iter().filter(|w| w.starts_with("--")) {
                let name = option.split('=').next().unwrap();
                assert!(
                    options.contains(&format!("{name} ")) || options.contains(&format!("{name}\n")),
                    "{words:?}: example `{example}` uses {name}, which `{}` lacks",
                    target.join(" ")
                );
            }
        }
    }
}
