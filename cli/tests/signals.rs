//! Interrupting a streaming command: the process ends by the signal, as
//! its default action would, and leaves no temporary file behind (none
//! even when killed outright, where the system makes unnamed temporary
//! files); each output is either as it was or complete.

use crate::support;

use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use support::*;

/// Waits until `child` has a file open in `dir` (an output, named or not;
/// its inputs are elsewhere or already closed), or has ended.
fn wait_for_output(child: &mut Child, dir: &Path) {
    let fds = PathBuf::from(format!("/proc/{}/fd", child.id()));
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return;
        }
        let open = std::fs::read_dir(&fds).into_iter().flatten().any(|fd| {
            fd.ok()
                .and_then(|fd| std::fs::read_link(fd.path()).ok())
                .is_some_and(|target| target.starts_with(dir))
        });
        if open {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no output file was opened"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Sends `signal` to `child`.
fn kill(child: &Child, signal: i32) {
    // SAFETY: `kill` with a valid signal number only sends the signal; the
    // child is not yet waited for, so its id is still its own.
    assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
}

/// Whether this system makes unnamed temporary files (`O_TMPFILE`) in
/// `dir`, so that not even SIGKILL can leave one.
fn unnamed_files(dir: &Path) -> bool {
    std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_TMPFILE)
        .open(dir)
        .is_ok()
}

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
    // The signal comes mid-stream.
    wait_for_output(&mut child, d.path());
    std::thread::sleep(Duration::from_millis(100));
    kill(&child, signal);
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

/// The files of a kill test: node tables, and a move list and a plot that
/// already exist.
struct Scene {
    dir: tempfile::TempDir,
    tables: tempfile::TempDir,
    format: &'static str,
}

const PRECIOUS: &[u8] = b"precious";

impl Scene {
    fn new(format: &'static str) -> Scene {
        let scene = Scene {
            dir: dir(),
            tables: dir(),
            format,
        };
        table(scene.tables.path(), "old", "a\nb\nc\n");
        table(scene.tables.path(), "new", "a\nb\nc\nd\n");
        scene.reset();
        scene
    }

    fn moves(&self) -> PathBuf {
        self.dir.path().join(format!("moves.{}", self.format))
    }

    fn plot(&self) -> PathBuf {
        self.dir.path().join("plot.svg")
    }

    /// Puts the old outputs back.
    fn reset(&self) {
        std::fs::write(self.moves(), PRECIOUS).unwrap();
        std::fs::write(self.plot(), PRECIOUS).unwrap();
    }

    /// `reshard` between the tables, writing both outputs; `named` forces
    /// named temporary files.
    fn command(&self, named: bool) -> Command {
        let mut c = command();
        c.args([
            "reshard",
            "--from-nodes",
            path_str(&self.tables.path().join("old")),
            "--to-nodes",
            path_str(&self.tables.path().join("new")),
            "--generate",
            "400000",
            "--output",
            path_str(&self.moves()),
            "--output-format",
            self.format,
            "--plot",
            path_str(&self.plot()),
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
        if named {
            c.env("JUMPSHARD_TEMP", "named");
        }
        c
    }
}

/// `reshard` writing a move list (CSV, then Parquet) and a plot, stopped by
/// SIGINT, SIGTERM, SIGHUP or SIGKILL at moments spread over a run: every
/// output is either the old one or the complete new one, and the directory
/// holds no temporary file, with unnamed temporary files and with named
/// ones (but for SIGKILL, which no handler sees).
#[test]
fn killed_at_any_moment_outputs_are_old_or_complete() {
    for format in ["csv", "parquet"] {
        let scene = Scene::new(format);
        let names = listing(scene.dir.path());
        // The complete outputs, and how long a run takes.
        let start = Instant::now();
        let status = scene.command(false).status().unwrap();
        let took = start.elapsed();
        assert!(status.success());
        let moves = std::fs::read(scene.moves()).unwrap();
        let plot = std::fs::read(scene.plot()).unwrap();
        assert!(moves != PRECIOUS && plot != PRECIOUS);
        let unnamed = unnamed_files(scene.dir.path());
        let mut cases = vec![];
        for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGKILL] {
            if signal != libc::SIGKILL || unnamed {
                cases.push((false, signal));
            }
        }
        cases.extend([(true, libc::SIGINT), (true, libc::SIGTERM)]);
        for (named, signal) in cases {
            // From the output's opening on, which comes after start-up.
            for percent in [0, 25, 50, 75, 95] {
                scene.reset();
                let mut child = scene.command(named).spawn().unwrap();
                wait_for_output(&mut child, scene.dir.path());
                std::thread::sleep(took * percent / 100);
                kill(&child, signal);
                let status = child.wait().unwrap();
                let case = format!("{format}, named {named}, signal {signal} at {percent}%");
                assert!(
                    status.success() || status.signal() == Some(signal),
                    "{case}: {status:?}"
                );
                assert_eq!(listing(scene.dir.path()), names, "{case}");
                for (path, new) in [(scene.moves(), &moves), (scene.plot(), &plot)] {
                    let now = std::fs::read(&path).unwrap();
                    match status.success() {
                        true => assert!(now == *new, "{case}: {path:?} not the new one"),
                        false => assert!(
                            now == PRECIOUS || now == *new,
                            "{case}: {path:?} neither old nor complete"
                        ),
                    }
                }
            }
        }
    }
}

/// Waits until `child` has written at least `bytes` to an output file in
/// `dir` (named or not: its size is read through the descriptor), or has
/// ended.
fn wait_for_bytes(child: &mut Child, dir: &Path, bytes: u64) {
    let fds = PathBuf::from(format!("/proc/{}/fd", child.id()));
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return;
        }
        let written = std::fs::read_dir(&fds).into_iter().flatten().any(|fd| {
            fd.ok().is_some_and(|fd| {
                std::fs::read_link(fd.path()).is_ok_and(|t| t.starts_with(dir))
                    && std::fs::metadata(fd.path()).is_ok_and(|m| m.len() >= bytes)
            })
        });
        if written {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "{bytes} bytes were never written"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A command writing an endless output `out` in the format `format`.
fn endless(command_name: &str, format: &str, out: &Path) -> Command {
    let mut c = command();
    match command_name {
        "reshard" => c.args(["reshard", "--from", "12", "--to", "11"]),
        _ => c.args(["assign", "--buckets", "1000"]),
    };
    c.args([
        "--generate",
        "1000000000000",
        "--output",
        path_str(out),
        "--output-format",
        format,
    ])
    .stdin(Stdio::null())
    .stdout(Stdio::null())
    .stderr(Stdio::null());
    c
}

/// SIGKILL in the middle of a large output, in every format of every
/// command that streams one: where the system makes unnamed temporary
/// files, nothing is left beside the output, which is as it was.
#[test]
fn sigkill_during_a_large_output_leaves_nothing() {
    let d = dir();
    if !unnamed_files(d.path()) {
        // Named temporary files: the next test shows their removal.
        return;
    }
    for (command_name, format) in [
        ("reshard", "csv"),
        ("reshard", "binary"),
        ("reshard", "parquet"),
        ("assign", "text"),
        ("assign", "binary"),
    ] {
        let out = d.path().join("out");
        std::fs::write(&out, PRECIOUS).unwrap();
        let mut child = endless(command_name, format, &out).spawn().unwrap();
        wait_for_bytes(&mut child, d.path(), 48 << 20);
        kill(&child, libc::SIGKILL);
        let status = child.wait().unwrap();
        let case = format!("{command_name} {format}");
        assert_eq!(status.signal(), Some(libc::SIGKILL), "{case}: {status:?}");
        assert_eq!(listing(d.path()), ["out"], "{case}");
        assert_eq!(std::fs::read(&out).unwrap(), PRECIOUS, "{case}");
    }
}

/// With named temporary files (no `O_TMPFILE`), SIGKILL leaves one, which
/// the next output made in the same directory removes; never a temporary
/// file whose process lives, nor any file that is not surely a dead one of
/// ours.
#[test]
fn a_killed_runs_temporary_file_is_removed_by_the_next_run() {
    let d = dir();
    let temps = |d: &Path| -> Vec<String> {
        listing(d)
            .into_iter()
            .filter(|n| n.starts_with(".jumpshard-"))
            .collect()
    };
    // A run killed outright leaves its named temporary file.
    let moves = d.path().join("moves.csv");
    let mut killed = endless("reshard", "csv", &moves);
    let mut killed = killed.env("JUMPSHARD_TEMP", "named").spawn().unwrap();
    wait_for_bytes(&mut killed, d.path(), 1 << 20);
    kill(&killed, libc::SIGKILL);
    killed.wait().unwrap();
    let left = temps(d.path());
    assert_eq!(left.len(), 1, "{left:?}");
    // `.jumpshard-PID-HOST-COUNT-TIME.tmp`.
    let fields: Vec<&str> = left[0].split('-').collect();
    let (dead, host) = (fields[1], fields[2]);

    // Files that are not surely dead ones of ours.
    let decoys = [
        format!(".jumpshard-1-{host}-0-0.tmp"), // a live process (init)
        format!(".jumpshard-{dead}-0000000000000001-0-0.tmp"), // another host
        format!(".jumpshard-{dead}-{host}-0-0.tmp.keep"),
        format!(".jumpshard-{dead}-{host}-x-0.tmp"),
        "notes.tmp".to_string(),
    ];
    for name in &decoys {
        std::fs::write(d.path().join(name), "mine").unwrap();
    }
    let dir_like = format!(".jumpshard-{dead}-{host}-1-0.tmp");
    std::fs::create_dir(d.path().join(&dir_like)).unwrap();
    let link = format!(".jumpshard-{dead}-{host}-2-0.tmp");
    std::os::unix::fs::symlink("notes.tmp", d.path().join(&link)).unwrap();

    // A live run's temporary file.
    let mut live = endless("reshard", "csv", &d.path().join("other.csv"));
    let mut live = live.env("JUMPSHARD_TEMP", "named").spawn().unwrap();
    let live_prefix = format!(".jumpshard-{}-", live.id());
    let start = Instant::now();
    while !temps(d.path()).iter().any(|n| n.starts_with(&live_prefix)) {
        assert!(start.elapsed() < Duration::from_secs(60));
        std::thread::sleep(Duration::from_millis(5));
    }

    // The next output made in the directory.
    let o = run(&[
        "assign",
        "--buckets",
        "10",
        "--generate",
        "10",
        "--output",
        path_str(&d.path().join("small.txt")),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let now = listing(d.path());
    assert!(
        !now.contains(&left[0]),
        "the dead run's file stays: {now:?}"
    );
    for name in decoys.iter().chain([&dir_like, &link]) {
        assert!(now.contains(name), "{name} was removed: {now:?}");
    }
    assert!(
        now.iter().any(|n| n.starts_with(&live_prefix)),
        "the live run's file was removed: {now:?}"
    );
    kill(&live, libc::SIGTERM);
    live.wait().unwrap();
    assert!(!temps(d.path()).iter().any(|n| n.starts_with(&live_prefix)));
}
