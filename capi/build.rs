//! Gives the shared library its SONAME on Linux, `libjumpshard.so.ABI`, with
//! ABI the number in `capi/ABI`: separate from the version, it changes only
//! when the ABI breaks (docs/release.md states the policy), so a release
//! that only adds keeps the SONAME that programs were linked against.

use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=ABI");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        let abi = abi(&Path::new(&env("CARGO_MANIFEST_DIR")).join("ABI"));
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libjumpshard.so.{abi}");
    }
}

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("cargo sets {name}"))
}

/// The ABI number of `path`: its one line that is not a `#` comment, `0.N`
/// or `M` (N, M from 1). It names the first release of the ABI, so it may
/// not be later than this version's own `0.MINOR` or `MAJOR`: a number from
/// the future is a typo that would give the library a SONAME no release has.
fn abi(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .collect();
    let number = |s: &str| {
        s.parse::<u64>()
            .ok()
            .filter(|n| *n > 0 && !s.starts_with('0'))
    };
    let parsed = match lines.as_slice() {
        [line] => match line.split_once('.') {
            Some(("0", minor)) => number(minor).map(|minor| (0, minor)),
            Some(_) => None,
            None => number(line).map(|major| (major, 0)),
        },
        _ => None,
    };
    let Some((major, minor)) = parsed else {
        panic!(
            "{}: the ABI number must be one line, 0.N or M (N, M from 1), besides # comments",
            path.display()
        );
    };
    let version_major: u64 = env("CARGO_PKG_VERSION_MAJOR").parse().expect("a number");
    let version_minor: u64 = env("CARGO_PKG_VERSION_MINOR").parse().expect("a number");
    let series = if version_major == 0 {
        (0, version_minor)
    } else {
        (version_major, 0)
    };
    assert!(
        (major, minor) <= series,
        "{}: ABI {} is later than version {}: it names the first release of the ABI, this one or an earlier one",
        path.display(),
        lines[0],
        env("CARGO_PKG_VERSION"),
    );
    lines[0].to_string()
}
