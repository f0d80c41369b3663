//! Every fenced block of the READMEs and docs/*.md is checked, or marked
//! skipped with a reason: shell sessions against the output they show,
//! scripts and synopses, C and C++ compiled and run, Python run as
//! doctests (`.ci/python` gives the interpreter), Rust by rustdoc, and
//! text that names files or quotes them against the repository. The
//! `<!-- doctest: ... -->` comments are described in docs/testing.md.

mod blocks;
mod native;
mod python;
mod scratch;
mod shell;
mod text;

use std::path::{Path, PathBuf};

use blocks::{Block, Kind};
use scratch::Scratch;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the repository")
        .to_path_buf()
}

/// What a run of some docs' blocks found.
#[derive(Default)]
struct Report {
    passed: usize,
    xfailed: Vec<String>,
    failures: Vec<String>,
}

/// Runs, doc by doc in a scratch directory of its own, the blocks `takes`
/// accepts, each after its set-ups and the doc's `file` blocks before it.
/// An `xfail` block must fail (a known bug), and one that passes is a
/// failure, so that its mark goes.
fn run(
    blocks: &[Block],
    docs: &[String],
    takes: impl Fn(&Kind) -> bool,
    check: impl Fn(&Scratch, &Block, &Kind) -> Result<(), String>,
) -> Report {
    let mut report = Report::default();
    for doc in docs {
        let scratch = Scratch::new();
        for block in blocks.iter().filter(|b| &b.doc == doc) {
            let Ok(kind) = block.kind() else { continue };
            let file = matches!(kind, Kind::File(_));
            if !file && !takes(&kind) {
                continue;
            }
            let result = scratch.prepare(block).and_then(|()| {
                if file {
                    Ok(())
                } else {
                    check(&scratch, block, &kind)
                }
            });
            if file && result.is_ok() {
                continue;
            }
            match (result, block.xfail()) {
                (Ok(()), None) => report.passed += 1,
                (Err(e), None) => report.failures.push(e),
                (Err(_), Some(why)) => report.xfailed.push(format!("{}: {why}", block.place())),
                (Ok(()), Some(_)) => report.failures.push(format!(
                    "{}: marked xfail, but it passes now: remove the mark",
                    block.place()
                )),
            }
        }
    }
    report
}

/// Runs the blocks `takes` accepts of every doc (or of the one doc
/// `JUMPSHARD_DOCTEST_ONLY` names), and fails listing every failure.
fn run_docs(
    what: &str,
    takes: impl Fn(&Kind) -> bool,
    check: impl Fn(&Scratch, &Block, &Kind) -> Result<(), String>,
) {
    let only = std::env::var("JUMPSHARD_DOCTEST_ONLY").ok();
    let docs: Vec<String> = blocks::docs(&root())
        .into_iter()
        .filter(|d| only.as_ref().is_none_or(|o| d == o))
        .collect();
    let report = run(&blocks::all(&root()), &docs, takes, check);
    eprintln!(
        "doc examples, {what}: {} passed, {} expected failures",
        report.passed,
        report.xfailed.len()
    );
    for x in &report.xfailed {
        eprintln!("  xfail {x}");
    }
    let n = report.failures.len();
    assert!(
        n == 0,
        "{n} doc examples failed:\n\n{}",
        report.failures.join("\n\n")
    );
}

#[test]
fn an_xfail_block_must_fail() {
    let text = "```console\n$ echo a\na\n```\n\
                <!-- doctest: xfail a known bug -->\n```console\n$ false\n```\n\
                <!-- doctest: xfail fixed since -->\n```console\n$ true\n```\n";
    let blocks = blocks::parse("d.md", text).unwrap();
    let session = |s: &Scratch, b: &Block, _: &Kind| shell::session(s, b);
    let report = run(&blocks, &["d.md".into()], |k| *k == Kind::Session, session);
    assert_eq!(report.passed, 1);
    assert_eq!(report.xfailed, ["d.md:6: a known bug"]);
    assert_eq!(
        report.failures,
        ["d.md:10: marked xfail, but it passes now: remove the mark"]
    );
}

/// Every block is of a kind that is checked, or skipped with a reason;
/// prints how many of each there are.
#[test]
fn every_block_is_checked_or_skipped_with_a_reason() {
    let blocks = blocks::all(&root());
    let mut counts = std::collections::BTreeMap::new();
    let mut errors = Vec::new();
    for block in &blocks {
        match block.kind() {
            Ok(Kind::Skipped(reason)) => {
                eprintln!("skipped {}: {reason}", block.place());
                *counts.entry("skipped").or_insert(0) += 1;
            }
            Ok(kind) => *counts.entry(kind.name()).or_insert(0) += 1,
            Err(e) => errors.push(e),
        }
    }
    eprintln!("doc blocks: {} in all, {counts:?}", blocks.len());
    assert!(
        errors.is_empty(),
        "blocks that nothing checks:\n{}",
        errors.join("\n")
    );
}

/// Shell sessions, scripts and synopses against the CLI the tests built;
/// directory trees and excerpts against the repository.
#[test]
fn shell_and_text_examples() {
    let takes = |k: &Kind| {
        matches!(
            k,
            Kind::Session | Kind::Script | Kind::Synopsis | Kind::Paths | Kind::Excerpt(_)
        )
    };
    run_docs("shell and text", takes, |scratch, block, kind| match kind {
        Kind::Session => shell::session(scratch, block),
        Kind::Script => shell::script(scratch, block),
        Kind::Synopsis => shell::synopsis(scratch, block),
        Kind::Paths => text::paths(&root(), block),
        Kind::Excerpt(file) => text::excerpt(&root(), block, file),
        _ => unreachable!(),
    });
}

/// C and C++ blocks, compiled; programs linked with the static library
/// `.ci/consumers` builds, and run, when it names it.
#[test]
fn c_and_cpp_examples() {
    let library = std::env::var_os(native::LIBRARY_ENV).map(PathBuf::from);
    if library.is_none() {
        eprintln!(
            "C examples compiled, not run: {} is not set (.ci/consumers sets it)",
            native::LIBRARY_ENV
        );
    }
    let takes = |k: &Kind| matches!(k, Kind::Native { .. });
    run_docs("C and C++", takes, |scratch, block, kind| match kind {
        Kind::Native { cpp } => native::check(scratch, block, *cpp, library.as_deref()),
        _ => unreachable!(),
    });
}

/// Python blocks, with the interpreter `.ci/python` names (its fresh
/// environment with the wheel); without one they are left to it.
#[test]
fn python_examples() {
    let Some(python) = std::env::var_os(python::PYTHON_ENV) else {
        eprintln!(
            "Python doc examples not run: {} is not set (.ci/python sets it)",
            python::PYTHON_ENV
        );
        return;
    };
    let python = python.to_string_lossy().into_owned();
    run_docs(
        "Python",
        |k| *k == Kind::Python,
        |scratch, block, _| python::check(&python, scratch, block),
    );
}

/// Rust blocks run as rustdoc tests of the core crate: every doc that has
/// one is included by src/lib.rs.
#[test]
fn rust_examples_are_doctests() {
    let lib = std::fs::read_to_string(root().join("src/lib.rs")).expect("read src/lib.rs");
    let mut missing: Vec<String> = blocks::all(&root())
        .iter()
        .filter(|b| b.kind() == Ok(Kind::Rust))
        .map(|b| b.doc.clone())
        .filter(|doc| !lib.contains(&format!("include_str!(\"../{doc}\")")))
        .collect();
    missing.dedup();
    assert!(
        missing.is_empty(),
        "Rust examples rustdoc does not run (include them in src/lib.rs): {missing:?}"
    );
}
