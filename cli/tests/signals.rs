//! Interrupting a streaming command: the process ends by the signal, as
//! its default action would, and leaves neither the output nor its
//! temporary file behind; an existing output stays as it was.

mod support;

use std::os::unix::process::ExitStatusExt;
use std::process::Stdio;
use std::time::{Duration, Instant};

use support::*;

fn interrupted_by(signal: i32) {
    let d = dir();
    let out = d.path().join("moves.bin");
    std::fs::write(&out, "precious").unwrap();
    let mut child = command()
        .args([
            "reshard",
            "--from",
            "12",
            "--to",
            "11",
            // Far more than can finish before the signal, even natively.
            "--generate",
            "1000000000000",
            "--output",
            path_str(&out),
            "--output-format",
            "binary",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for the temporary file, so that the signal comes mid-stream.
    let start = Instant::now();
    while listing(d.path()).len() < 2 {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no temporary file appeared"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(100));
    // SAFETY: `kill` with a valid signal number only sends the signal.
    assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(signal), "{status:?}");
    assert_eq!(listing(d.path()), ["moves.bin"]);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "precious");
}

#[test]
fn ctrl_c_removes_the_temporary_file() {
    interrupted_by(libc::SIGINT);
}

#[test]
fn sigterm_removes_the_temporary_file() {
    interrupted_by(libc::SIGTERM);
}

/// A reader that stops early (`| head`) ends the command by SIGPIPE, as it
/// ends other Unix tools, without an error message.
#[test]
fn a_closed_pipe_ends_the_command_quietly() {
    use std::io::Read;

    let mut child = command()
        .args(["assign", "--buckets", "10", "--generate", "1000000000000"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 64];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let output = child.wait_with_output().unwrap();
    assert_eq!(
        output.status.signal(),
        Some(libc::SIGPIPE),
        "{:?}",
        output.status
    );
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
