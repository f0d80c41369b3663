//! Bad input and unwritable output: a clear message naming the problem, a
//! non-zero exit, and never a partial output file (an existing one stays as
//! it was, and no temporary file is left behind).

use crate::support;

use std::path::Path;
use std::process::{Command, Output};

use support::*;

/// `reshard` and `assign` with the same input arguments, writing to `out`.
fn both(input_args: &[&str], out: &Path, stdin: &[u8]) -> [Output; 2] {
    let out = path_str(out);
    let mut reshard = vec!["reshard", "--from", "10", "--to", "12"];
    reshard.extend(input_args);
    reshard.extend(["--output", out]);
    let mut assign = vec!["assign", "--buckets", "10"];
    assign.extend(input_args);
    assign.extend(["--output", out]);
    [
        run_with_stdin(&reshard, stdin),
        run_with_stdin(&assign, stdin),
    ]
}

/// Runs both commands against an existing output file and checks that
/// each fails with `words` and leaves the directory exactly as it was.
fn check_refused(d: &Path, input_args: &[&str], stdin: &[u8], words: &[&str]) {
    let out = d.join("out");
    std::fs::write(&out, "precious").unwrap();
    let before = listing(d);
    for o in both(input_args, &out, stdin) {
        assert_fails(&o, words);
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "precious");
        assert_eq!(listing(d), before, "a temporary file was left behind");
    }
}

#[test]
fn u64le_size_not_a_multiple_of_8() {
    let d = dir();
    let input = d.path().join("keys.bin");
    std::fs::write(&input, vec![7u8; 8 * 1000 + 5]).unwrap();
    check_refused(
        d.path(),
        &[path_str(&input)],
        b"",
        &["keys.bin", "8005 bytes", "multiple of 8"],
    );
    // Through a pipe the size shows only at the end, after whole chunks.
    let piped = vec![7u8; 8 * (1 << 20) + 8 * 3 + 1];
    check_refused(d.path(), &[], &piped, &["standard input", "multiple of 8"]);
}

#[test]
fn bad_decimal_lines_are_named_by_number() {
    let d = dir();
    let mut text = "1\n2\n3\n".repeat(200_000); // past the first chunk
    text.push_str("4\n12x\n5\n");
    let line = (600_000 + 2).to_string();
    check_refused(
        d.path(),
        &["--key-format", "decimal"],
        text.as_bytes(),
        &[&format!("line {line}"), "\"12x\"", "not a decimal u64"],
    );
    // Chunks of 3 keys on two workers: the bad line is still the one named,
    // whichever worker meets it.
    let mut text = "1\n2\n".repeat(500);
    text.push_str("3\nfour\n5\n");
    check_refused(
        d.path(),
        &[
            "--key-format",
            "decimal",
            "--chunk-keys",
            "3",
            "--threads",
            "2",
        ],
        text.as_bytes(),
        &["line 1002", "\"four\""],
    );
    check_refused(
        d.path(),
        &["--key-format", "decimal"],
        b"1\n18446744073709551616\n",
        &["line 2", "18446744073709551616", "out of range"],
    );
    check_refused(
        d.path(),
        &["--key-format", "decimal"],
        b"1\n\n2\n",
        &["line 2", "empty line"],
    );
    check_refused(
        d.path(),
        &["--key-format", "decimal"],
        b"-1\n",
        &["line 1", "\"-1\""],
    );
    // A binary file read as decimal fails at its first long line.
    let mut binary = b"7\n".to_vec();
    binary.extend(std::iter::repeat_n(0xAB, 1 << 20));
    check_refused(
        d.path(),
        &["--key-format", "decimal"],
        &binary,
        &["line 2", "longer than 4096 bytes"],
    );
}

#[test]
fn bucket_counts_out_of_range_or_equal() {
    let d = dir();
    let out = d.path().join("out");
    let cases: [(&[&str], &[&str]); 6] = [
        (
            &["--from", "0", "--to", "5"],
            &["--from", "invalid bucket count 0"],
        ),
        (
            &["--from", "5", "--to", "-1"],
            &["--to", "invalid bucket count -1"],
        ),
        (
            &["--from", "5", "--to", "2147483648"],
            &["--to", "invalid bucket count 2147483648", "2147483647"],
        ),
        (&["--from", "12", "--to", "12"], &["both 12"]),
        (
            &["--from", "2147483647", "--to", "2147483647"],
            &["both 2147483647"],
        ),
        (&["--from", "x", "--to", "3"], &["--from"]),
    ];
    for (counts, words) in cases {
        let mut args = vec!["reshard"];
        args.extend(counts);
        args.extend(["--generate", "10", "--output", path_str(&out)]);
        assert_fails(&run(&args), words);
        assert!(!out.exists());
    }
    for (n, word) in [
        ("0", "invalid bucket count 0"),
        ("2147483648", "2147483648"),
    ] {
        let o = run(&[
            "assign",
            "--buckets",
            n,
            "--generate",
            "10",
            "--output",
            path_str(&out),
        ]);
        assert_fails(&o, &["--buckets", word]);
        assert!(!out.exists());
    }
}

#[test]
fn missing_input_and_directory_input() {
    let d = dir();
    let missing = d.path().join("no-such-file");
    check_refused(
        d.path(),
        &[path_str(&missing)],
        b"",
        &["no-such-file", "No such file"],
    );
    let sub = d.path().join("subdir");
    std::fs::create_dir(&sub).unwrap();
    check_refused(d.path(), &[path_str(&sub)], b"", &["subdir", "directory"]);
    for format in ["decimal", "bytes"] {
        check_refused(
            d.path(),
            &[path_str(&sub), "--key-format", format],
            b"",
            &["subdir", "directory"],
        );
    }
}

/// Root reads and writes whatever the permission bits say, so when they
/// are not enforced on this process the permission tests run the binary as
/// `nobody` through `setpriv`; without `setpriv` they are skipped.
fn unprivileged(args: &[&str]) -> Option<Output> {
    let d = dir();
    let probe = d.path().join("probe");
    std::fs::write(&probe, "x").unwrap();
    set_mode(&probe, 0o000);
    if std::fs::read(&probe).is_err() {
        return Some(run_command(command().args(args), b""));
    }
    if Command::new("setpriv").arg("--version").output().is_err() {
        eprintln!("running as root without setpriv: permission test skipped");
        return None;
    }
    let mut command = Command::new("setpriv");
    command
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(BIN)
        .args(args);
    Some(run_command(&mut command, b""))
}

#[test]
fn input_without_read_permission() {
    let d = dir();
    let input = u64le_file(d.path(), "secret.bin", &keys(1, 100));
    set_mode(&input, 0o000);
    let out = d.path().join("out");
    for cmd in [
        &["reshard", "--from", "1", "--to", "2"][..],
        &["assign", "--buckets", "2"][..],
    ] {
        let mut args = cmd.to_vec();
        args.extend([path_str(&input), "--output", path_str(&out)]);
        let Some(o) = unprivileged(&args) else { return };
        assert_fails(&o, &["secret.bin", "Permission denied"]);
        assert!(!out.exists());
    }
}

#[test]
fn output_in_a_read_only_directory() {
    let d = dir();
    let ro = d.path().join("ro");
    std::fs::create_dir(&ro).unwrap();
    set_mode(&ro, 0o555);
    let out = ro.join("moves.csv");
    for cmd in [
        &["reshard", "--from", "1", "--to", "2"][..],
        &["assign", "--buckets", "2"][..],
    ] {
        let mut args = cmd.to_vec();
        args.extend(["--generate", "1000", "--output", path_str(&out)]);
        let Some(o) = unprivileged(&args) else { return };
        assert_fails(&o, &["moves.csv", "Permission denied"]);
        assert!(listing(&ro).is_empty());
    }
}

#[test]
fn output_directory_that_does_not_exist() {
    let d = dir();
    let out = d.path().join("nowhere").join("moves.csv");
    let before = listing(d.path());
    for o in both(&["--generate", "1000"], &out, b"") {
        assert_fails(&o, &["moves.csv", "nowhere", "No such file"]);
        assert_eq!(listing(d.path()), before);
    }
}

#[test]
fn output_is_a_directory() {
    let d = dir();
    let out = d.path().join("taken");
    std::fs::create_dir(&out).unwrap();
    for o in both(&["--generate", "1000"], &out, b"") {
        assert_fails(&o, &["taken", "directory"]);
        assert_eq!(listing(d.path()), ["taken"]);
    }
}

/// A full disk, simulated with a file-size limit: the write fails with
/// EFBIG (the binary ignores SIGXFSZ), the command says so, and the
/// temporary file is removed.
#[test]
fn output_larger_than_the_file_size_limit() {
    let d = dir();
    let out = d.path().join("moves.csv");
    std::fs::write(&out, "precious").unwrap();
    for cmd in [
        &["reshard", "--from", "10", "--to", "12"][..],
        &["assign", "--buckets", "10"][..],
    ] {
        let mut command = Command::new("sh");
        command
            .args(["-c", "ulimit -f 8; exec \"$0\" \"$@\""])
            .arg(BIN)
            .args(cmd)
            .args(["--generate", "3000000", "--output", path_str(&out)]);
        let o = run_command(&mut command, b"");
        assert_fails(&o, &["moves.csv", "File too large"]);
        assert!(!stderr(&o).contains(".jumpshard-"), "{}", stderr(&o));
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "precious");
        assert_eq!(listing(d.path()), ["moves.csv"]);
    }
}

/// Renaming over a special file would replace it, so an existing output
/// that is neither a regular file nor written directly (a FIFO or a
/// character device, see tests/outputs.rs) is refused: here a socket.
#[test]
fn output_that_is_a_socket() {
    use std::os::unix::fs::FileTypeExt;

    let d = dir();
    let socket = d.path().join("socket");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    for o in both(&["--generate", "1000"], &socket, b"") {
        assert_fails(&o, &[path_str(&socket), "not a regular file"]);
    }
    let kind = std::fs::metadata(&socket).unwrap().file_type();
    assert!(kind.is_socket(), "the socket was replaced");
}

/// A byte-key input without line ends (`/dev/zero`) stops at the line
/// bound with a message naming the line, in bounded memory (under a 2 GB
/// address-space limit, where it used to grow until the allocator aborted),
/// and leaves no temporary file.
#[test]
fn byte_key_lines_are_bounded() {
    let d = dir();
    let out = d.path().join("out");
    for cmd in [
        &["reshard", "--from", "10", "--to", "12"][..],
        &["assign", "--buckets", "10"][..],
    ] {
        let mut words: Vec<String> = ["sh", "-c", "ulimit -v 2000000 && exec \"$@\"", "sh", BIN]
            .map(String::from)
            .to_vec();
        words.extend(cmd.iter().map(|s| s.to_string()));
        words.extend(
            [
                "--key-format",
                "bytes",
                "/dev/zero",
                "--output",
                path_str(&out),
            ]
            .map(String::from),
        );
        let o = run_command(Command::new(&words[0]).args(&words[1..]), b"");
        assert_fails(
            &o,
            &[
                "/dev/zero line 1",
                "longer than 1048576 bytes",
                "--max-line-bytes",
            ],
        );
        assert!(listing(d.path()).is_empty(), "{:?}", listing(d.path()));
    }
    // A long line after short ones is named by its number; the bound can
    // be raised.
    let mut text = b"a\r\nb\n".to_vec();
    text.extend(std::iter::repeat_n(b'x', (1 << 20) + 1));
    text.extend(b"\nc\n");
    check_refused(
        d.path(),
        &["--key-format", "bytes"],
        &text,
        &["standard input line 3", "longer than 1048576 bytes"],
    );
    let o = run_with_stdin(
        &[
            "assign",
            "--buckets",
            "10",
            "--key-format",
            "bytes",
            "--max-line-bytes",
            "2000000",
        ],
        &text,
    );
    assert_ok(&o);
    assert_eq!(stdout(&o).lines().count(), 4);
    // Exactly at the bound is allowed, with or without `\r`.
    for end in [&b"\n"[..], b"\r\n"] {
        let mut line = vec![b'y'; 100];
        line.extend(end);
        let args = [
            "assign",
            "--buckets",
            "1000",
            "--key-format",
            "bytes",
            "--max-line-bytes",
            "100",
        ];
        let o = run_with_stdin(&args, &line);
        assert_ok(&o);
        let want =
            jumpshard::bucket_bytes(&[b'y'; 100], jumpshard::BucketCount::new(1000).unwrap());
        assert_eq!(stdout(&o), format!("{want}\n"));
        line.insert(0, b'y');
        let o = run_with_stdin(&args, &line);
        assert_fails(&o, &["line 1", "longer than 100 bytes"]);
    }
}

/// A decimal line of exactly 4096 bytes is read (and here, with leading
/// zeros, is a key); one byte more is too long.
#[test]
fn decimal_line_of_exactly_4096_bytes() {
    let args = ["assign", "--buckets", "1000", "--key-format", "decimal"];
    let want = jumpshard::bucket(7, jumpshard::BucketCount::new(1000).unwrap());
    for end in ["\n", "\r\n", ""] {
        let line = format!("{}7{end}", "0".repeat(4095));
        let o = run_with_stdin(&args, format!("1\n{line}").as_bytes());
        assert_ok(&o);
        let one = jumpshard::bucket(1, jumpshard::BucketCount::new(1000).unwrap());
        assert_eq!(stdout(&o), format!("{one}\n{want}\n"), "end {end:?}");
        let o = run_with_stdin(&args, format!("1\n0{line}").as_bytes());
        assert_fails(&o, &["line 2", "longer than 4096 bytes"]);
    }
}

/// An existing file the user may not write is not replaced, even where
/// the directory would allow the rename: here a read-only file owned by
/// root, in a directory everyone may write.
#[test]
fn output_the_user_may_not_write() {
    use std::os::unix::fs::MetadataExt;

    let d = dir();
    set_mode(d.path(), 0o777);
    let out = d.path().join("theirs.csv");
    std::fs::write(&out, "precious").unwrap();
    set_mode(&out, 0o444);
    let owner = std::fs::metadata(&out).unwrap().uid();
    for cmd in [
        &["reshard", "--from", "1", "--to", "2"][..],
        &["assign", "--buckets", "2"][..],
    ] {
        let mut args = cmd.to_vec();
        args.extend(["--generate", "100", "--output", path_str(&out)]);
        let Some(o) = unprivileged(&args) else { return };
        assert_fails(&o, &["theirs.csv", "may not write"]);
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "precious");
        let meta = std::fs::metadata(&out).unwrap();
        assert_eq!((meta.uid(), meta.mode() & 0o777), (owner, 0o444));
        assert_eq!(listing(d.path()), ["theirs.csv"]);
    }
}

/// A file that reports a size of 0 yet holds bytes (the kernel's, under
/// /proc) is read to its end, as standard input would be: its keys, or the
/// error of a length that is not whole keys.
#[cfg(target_os = "linux")]
#[test]
fn files_under_proc_are_read_to_their_end() {
    let version = std::fs::read("/proc/version").unwrap();
    let assign = |input: &str, stdin: &[u8]| {
        let args = ["assign", "--buckets", "10", "--key-format", "u64le", input];
        run_with_stdin(&args, stdin)
    };
    let (file, piped) = (assign("/proc/version", b""), assign("-", &version));
    assert_eq!(file.stdout, piped.stdout);
    let whole = version.len() / 8;
    match version.len() % 8 {
        0 => assert_eq!(stdout(&file).lines().count(), whole),
        _ => assert_fails(
            &file,
            &["/proc/version", &format!("size {} bytes", version.len())],
        ),
    }
    let o = run(&["assign", "--buckets", "10", "/proc/self/auxv"]);
    assert_ok(&o);
    assert!(stdout(&o).lines().count() > 0);
}
