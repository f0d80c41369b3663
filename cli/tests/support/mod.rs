//! Running the `jumpshard` binary from the streaming tests, and the files
//! they feed it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub const BIN: &str = env!("CARGO_BIN_EXE_jumpshard");

/// A command that runs the binary.
pub fn command() -> Command {
    Command::new(BIN)
}

/// Runs the binary with `args` and nothing on standard input.
pub fn run(args: &[&str]) -> Output {
    run_with_stdin(args, &[])
}

/// Runs the binary with `args`, feeding it `stdin`.
pub fn run_with_stdin(args: &[&str], stdin: &[u8]) -> Output {
    run_command(command().args(args), stdin)
}

/// Runs a prepared command, feeding it `stdin`; stdout and stderr are pipes.
pub fn run_command(command: &mut Command, stdin: &[u8]) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("run {BIN}: {e}"));
    let mut pipe = child.stdin.take().unwrap();
    let input = stdin.to_vec();
    // A writer thread, so that a child that stops reading early cannot
    // deadlock the test on a full pipe.
    let feeder = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let output = child.wait_with_output().expect("wait for jumpshard");
    feeder.join().unwrap();
    output
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts success, showing stderr otherwise, and that nothing (no
/// progress bar) went to stderr, which is a pipe here.
pub fn assert_ok(o: &Output) {
    assert!(o.status.success(), "failed: {}", stderr(o));
    assert!(
        o.stderr.is_empty(),
        "stderr is not a terminal, yet: {}",
        stderr(o)
    );
}

/// Asserts a clean failure: non-zero exit, a `jumpshard:` message with
/// every one of `words`, and no panic.
pub fn assert_fails(o: &Output, words: &[&str]) {
    let err = stderr(o);
    assert!(!o.status.success(), "succeeded; stdout: {}", stdout(o));
    assert!(
        err.starts_with("jumpshard:") || err.starts_with("error:"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    for w in words {
        assert!(err.contains(w), "{w:?} not in: {err}");
    }
}

/// A fresh directory, readable by everyone (the permission tests run the
/// binary as another user).
pub fn dir() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    set_mode(d.path(), 0o755);
    d
}

pub fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// `keys` as a u64le file.
pub fn u64le_file(dir: &Path, name: &str, keys: &[u64]) -> PathBuf {
    let path = dir.join(name);
    let bytes: Vec<u8> = keys.iter().flat_map(|k| k.to_le_bytes()).collect();
    std::fs::write(&path, bytes).unwrap();
    path
}

pub fn keys(seed: u64, n: usize) -> Vec<u64> {
    jumpshard::verify::SplitMix64::new(seed).keys(n)
}

/// The names in `dir`, sorted, to show that no temporary file was left.
pub fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

pub fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Writes a node table `name` into `dir`.
pub fn table(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// The JSON summary a command printed.
pub fn json(o: &Output) -> serde_json::Value {
    serde_json::from_str(&stdout(o)).unwrap_or_else(|e| panic!("{e}: {}", stdout(o)))
}

/// `assign --buckets 1000` of `input_args` as text.
pub fn assign(input_args: &[&str]) -> String {
    let mut args = vec!["assign", "--buckets", "1000"];
    args.extend(input_args);
    let o = run(&args);
    assert_ok(&o);
    stdout(&o)
}

/// What `assign --buckets 1000` prints for `keys`.
pub fn want(keys: &[u64]) -> String {
    let n = jumpshard::BucketCount::new(1000).unwrap();
    keys.iter()
        .map(|&k| format!("{}\n", jumpshard::bucket(k, n)))
        .collect()
}
