//! Where `--output` writes: standard output for `-`, a FIFO or character
//! device directly, and otherwise a regular file atomically, never the
//! input, through symbolic links (even dangling ones) to their target, and
//! keeping the mode of a file it replaces.

use crate::support;

use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::{Command, Stdio};

use support::*;

const RESHARD: [&str; 5] = ["reshard", "--from", "10", "--to", "12"];

/// `reshard` of `keys` with `extra` arguments.
fn reshard(keys: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = RESHARD.to_vec();
    args.push(path_str(keys));
    args.extend(extra);
    run(&args)
}

/// The move list of `keys`, written to a plain file.
fn move_list(d: &Path, keys: &Path, extra: &[&str]) -> Vec<u8> {
    let file = d.join("reference.out");
    let mut args = vec!["--output", path_str(&file)];
    args.extend(extra);
    assert_ok(&reshard(keys, &args));
    let bytes = std::fs::read(&file).unwrap();
    std::fs::remove_file(&file).unwrap();
    bytes
}

#[test]
fn dash_writes_the_move_list_to_standard_output_and_the_summary_to_standard_error() {
    let d = dir();
    let keys = u64le_file(d.path(), "keys.u64", &keys(3, 5000));
    for format in [
        &["--output-format", "csv"][..],
        &["--output-format", "binary"],
    ] {
        let want = move_list(d.path(), &keys, format);
        let mut args = vec!["--output", "-"];
        args.extend(format);
        let o = reshard(&keys, &args);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(o.stdout, want);
        let summary = stderr(&o);
        assert!(summary.contains("keys read      5000"), "{summary}");
        assert!(
            summary.contains("move list      standard output"),
            "{summary}"
        );
    }
    let o = reshard(&keys, &["--output", "-", "--json"]);
    assert!(o.status.success());
    let json: serde_json::Value = serde_json::from_slice(&o.stderr).unwrap();
    assert_eq!(json["keys"], 5000);
    assert!(stdout(&o).starts_with("key,from,to\n"));
    assert_eq!(listing(d.path()), ["keys.u64"], "no file named -");

    // `assign --output -`: the buckets as without --output, the summary on
    // standard error.
    let plain = run(&["assign", "--buckets", "7", path_str(&keys)]);
    assert_ok(&plain);
    let o = run(&["assign", "--buckets", "7", path_str(&keys), "--output", "-"]);
    assert!(o.status.success());
    assert_eq!(o.stdout, plain.stdout);
    assert!(stderr(&o).contains("assigned 5000 keys"), "{}", stderr(&o));
}

#[test]
fn a_fifo_is_written_directly() {
    let d = dir();
    let keys = u64le_file(d.path(), "keys.u64", &keys(4, 5000));
    let want = move_list(d.path(), &keys, &[]);
    let fifo = d.path().join("fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    let o = reshard(&keys, &["--output", path_str(&fifo)]);
    assert_ok(&o);
    assert_eq!(reader.join().unwrap(), want);
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    assert_eq!(listing(d.path()), ["fifo", "keys.u64"]);
}

/// A character device is written, not replaced: the test's own copy of
/// /dev/null where it may make one (so that a regression cannot replace
/// the real one), and /dev/null itself.
#[test]
fn a_character_device_is_written_directly() {
    let d = dir();
    let keys = u64le_file(d.path(), "keys.u64", &keys(5, 5000));
    let null = d.path().join("null");
    let mut devices = vec![Path::new("/dev/null").to_path_buf()];
    if Command::new("mknod")
        .args([path_str(&null), "c", "1", "3"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
    {
        devices.insert(0, null);
    }
    for device in &devices {
        let o = reshard(
            &keys,
            &["--output", path_str(device), "--output-format", "binary"],
        );
        assert_ok(&o);
        assert!(stdout(&o).contains("keys read      5000"));
        let o = run(&[
            "assign",
            "--buckets",
            "3",
            path_str(&keys),
            "--output",
            path_str(device),
        ]);
        assert_ok(&o);
        let meta = std::fs::metadata(device).unwrap();
        assert!(meta.file_type().is_char_device(), "{device:?} was replaced");
        assert_eq!(meta.rdev(), std::fs::metadata("/dev/null").unwrap().rdev());
    }
    // A device that fails writes is an error naming it.
    let o = reshard(&keys, &["--output", "/dev/full"]);
    assert_fails(&o, &["cannot write /dev/full", "No space left"]);
}

#[test]
fn the_input_is_never_the_output() {
    let d = dir();
    let keys = u64le_file(d.path(), "keys.u64", &keys(6, 1000));
    let original = std::fs::read(&keys).unwrap();
    let link = d.path().join("link.u64");
    std::os::unix::fs::symlink("keys.u64", &link).unwrap();
    let hard = d.path().join("hard.u64");
    std::fs::hard_link(&keys, &hard).unwrap();
    for output in [&keys, &link, &hard] {
        for input in [&keys, &link, &hard] {
            let o = reshard(input, &["--output", path_str(output)]);
            assert_fails(&o, &[path_str(output), "is the input file"]);
            let args = [
                "assign",
                "--buckets",
                "3",
                path_str(input),
                "--output",
                path_str(output),
            ];
            assert_fails(&run(&args), &["is the input file"]);
        }
        // The input on standard input, redirected from the file.
        let mut args = RESHARD.to_vec();
        args.extend(["--output", path_str(output)]);
        let o = command()
            .args(&args)
            .stdin(std::fs::File::open(&keys).unwrap())
            .output()
            .unwrap();
        assert_fails(&o, &["is the input file"]);
    }
    assert_eq!(std::fs::read(&keys).unwrap(), original);
    assert_eq!(listing(d.path()), ["hard.u64", "keys.u64", "link.u64"]);
}

#[test]
fn a_replaced_file_keeps_its_mode() {
    let d = dir();
    let keys = u64le_file(d.path(), "keys.u64", &keys(7, 1000));
    let out = d.path().join("moves.csv");
    for mode in [0o600, 0o640, 0o604] {
        std::fs::write(&out, "old").unwrap();
        std::fs::set_permissions(&out, std::fs::Permissions::from_mode(mode)).unwrap();
        assert_ok(&reshard(&keys, &["--output", path_str(&out)]));
        assert!(std::fs::read_to_string(&out)
            .unwrap()
            .starts_with("key,from,to\n"));
        assert_eq!(std::fs::metadata(&out).unwrap().mode() & 0o7777, mode);
    }
}

/// A dangling link (or a chain of them) as `--output` is written through:
/// its target is created and the links stay, as for a link to an existing
/// file.
#[test]
fn a_dangling_symbolic_link_is_written_through() {
    let d = dir();
    let keys = u64le_file(d.path(), "keys.u64", &keys(8, 1000));
    let want = move_list(d.path(), &keys, &[]);
    std::fs::create_dir(d.path().join("sub")).unwrap();
    let link = d.path().join("link.csv");
    let second = d.path().join("sub").join("second.csv");
    // link.csv -> sub/second.csv -> target.csv (relative to sub/), absent.
    std::os::unix::fs::symlink("sub/second.csv", &link).unwrap();
    std::os::unix::fs::symlink("target.csv", &second).unwrap();
    assert_ok(&reshard(&keys, &["--output", path_str(&link)]));
    for l in [&link, &second] {
        assert!(std::fs::symlink_metadata(l)
            .unwrap()
            .file_type()
            .is_symlink());
    }
    assert_eq!(
        std::fs::read(d.path().join("sub/target.csv")).unwrap(),
        want
    );
    assert_eq!(listing(&d.path().join("sub")), ["second.csv", "target.csv"]);
    // A link into a missing directory is an error, and stays.
    let lost = d.path().join("lost.csv");
    std::os::unix::fs::symlink("nowhere/x.csv", &lost).unwrap();
    assert_fails(
        &reshard(&keys, &["--output", path_str(&lost)]),
        &["lost.csv"],
    );
    assert!(std::fs::symlink_metadata(&lost)
        .unwrap()
        .file_type()
        .is_symlink());
    // A loop of links is an error too.
    let (a, b) = (d.path().join("a"), d.path().join("b"));
    std::os::unix::fs::symlink("b", &a).unwrap();
    std::os::unix::fs::symlink("a", &b).unwrap();
    assert_fails(
        &reshard(&keys, &["--output", path_str(&a)]),
        &["symbolic links"],
    );
}

/// `--plot` and `remove --write-table` take a device or a FIFO as
/// `--output` does: written directly, never replaced.
#[test]
fn plots_and_tables_go_to_devices_and_fifos() {
    let d = dir();
    let old = table(d.path(), "old", "a\nb\nc\n");
    let new = table(d.path(), "new", "a\nb\nc\nd\n");
    let o = run(&[
        "reshard",
        "--from-nodes",
        path_str(&old),
        "--to-nodes",
        path_str(&new),
        "--generate",
        "1000",
        "--plot",
        "/dev/null",
        "--output",
        "/dev/null",
    ]);
    assert_ok(&o);
    let o = run(&[
        "remove",
        "--from-nodes",
        path_str(&old),
        "--node",
        "b",
        "--generate",
        "1000",
        "--plot",
        "/dev/null",
        "--write-table",
        "/dev/null",
    ]);
    assert_ok(&o);
    assert!(std::fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
    let fifo = d.path().join("fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    let o = run(&[
        "remove",
        "--from-nodes",
        path_str(&old),
        "--node",
        "b",
        "--generate",
        "1000",
        "--write-table",
        path_str(&fifo),
        "--choose",
        "swap",
    ]);
    assert_ok(&o);
    assert_eq!(reader.join().unwrap(), b"a\nc\n");
    assert_eq!(listing(d.path()), ["fifo", "new", "old"]);
}

/// `command` then `extra`, as owned strings.
fn with(command: &[&str], extra: &[&str]) -> Vec<String> {
    command.iter().chain(extra).map(|s| s.to_string()).collect()
}

/// Every output is checked against every input (the key file, each file
/// of a dataset directory, the node tables) and every other output, and
/// its directory, before a key is read: a clash is an error naming both,
/// and nothing is written.
#[test]
fn outputs_never_replace_inputs_nor_each_other() {
    let d = dir();
    let old = table(d.path(), "old", "a\nb\nc\n");
    let new = table(d.path(), "new", "a\nb\nc\nd\n");
    let hard = d.path().join("hard");
    std::fs::hard_link(&old, &hard).unwrap();
    let keys = u64le_file(d.path(), "keys.u64", &keys(9, 1000));
    let names = listing(d.path());
    let (o, n, k) = (path_str(&old), path_str(&new), path_str(&keys));
    // One name for two outputs of different formats: no extension, which
    // neither's format would contradict.
    let same = d.path().join("same");
    let p = path_str(&same);
    let missing = d.path().join("missing/plot.svg");
    let tables = ["reshard", "--from-nodes", o, "--to-nodes", n, k];
    let remove = ["remove", "--from-nodes", o, "--node", "b", k];
    let cases: Vec<(Vec<String>, Vec<String>)> = vec![
        (
            with(&remove, &["--write-table", o]),
            vec![
                format!("cannot write {o} (--write-table)"),
                format!("the --from-nodes file {o}"),
            ],
        ),
        (
            with(&remove, &["--write-table", path_str(&hard)]),
            vec![
                "hard (--write-table)".into(),
                format!("the --from-nodes file {o}"),
            ],
        ),
        (
            with(&remove, &["--plot", k]),
            vec!["(--plot)".into(), format!("the input file {k}")],
        ),
        (
            with(&tables, &["--plot", n]),
            vec!["(--plot)".into(), format!("the --to-nodes file {n}")],
        ),
        (
            with(&tables, &["--output", o]),
            vec!["(--output)".into(), format!("the --from-nodes file {o}")],
        ),
        (
            with(&tables, &["--output", p, "--plot", p]),
            vec![
                "--plot".into(),
                "--output".into(),
                "are the same file".into(),
            ],
        ),
        (
            with(&remove, &["--write-table", p, "--plot", p]),
            vec!["are the same file".into()],
        ),
    ];
    for (args, words) in cases {
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        assert_fails(
            &run(&args.iter().map(String::as_str).collect::<Vec<_>>()),
            &words,
        );
        assert_eq!(listing(d.path()), names, "{args:?}");
        assert_eq!(std::fs::read_to_string(&old).unwrap(), "a\nb\nc\n");
    }
    // A plot into a missing directory stops the command before it reads a
    // key: these would take hours.
    let endless = ["--generate", "1000000000000"];
    let lost = path_str(&missing);
    let start = std::time::Instant::now();
    for args in [
        with(&["reshard", "--from-nodes", o, "--to-nodes", n], &endless),
        with(&["remove", "--from-nodes", o, "--node", "b"], &endless),
    ] {
        let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
        args.extend(["--plot", lost]);
        assert_fails(&run(&args), &[lost, "(--plot)", "does not exist"]);
    }
    let lost_moves = d.path().join("missing/moves.csv");
    let moves = [
        "reshard",
        "--from",
        "3",
        "--to",
        "4",
        "--output",
        path_str(&lost_moves),
    ];
    assert_fails(
        &run(&with(&moves, &endless)
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()),
        &["does not exist"],
    );
    assert!(start.elapsed() < std::time::Duration::from_secs(20));
    assert_eq!(listing(d.path()), names);
}

/// A dataset directory's files are inputs too, and nothing is written
/// inside the dataset, where it would be read as keys next time.
#[cfg(feature = "parquet")]
#[test]
fn outputs_stay_out_of_dataset_directories() {
    let d = dir();
    let data = d.path().join("data");
    std::fs::create_dir_all(data.join("p=1")).unwrap();
    let keys = |name: &str| {
        // A Parquet file of one uint64 column `k`, written by the CLI's
        // own move-list writer: `position` is a uint64 column.
        let out = data.join(name);
        let o = run(&[
            "reshard",
            "--from",
            "1",
            "--to",
            "2",
            "--generate",
            "100",
            "--positions",
            "--output",
            path_str(&out),
            "--output-format",
            "parquet",
        ]);
        assert_ok(&o);
        out
    };
    let inner = keys("p=1/a.parquet");
    let names = listing(&data.join("p=1"));
    let reshard_to = |output: &Path| {
        run(&[
            "reshard",
            "--from",
            "3",
            "--to",
            "4",
            path_str(&data),
            "--column",
            "position",
            "--output",
            path_str(output),
        ])
    };
    for output in [
        inner.clone(),
        data.join("moves.csv"),
        data.join("p=1/m.csv"),
    ] {
        let o = reshard_to(&output);
        assert_fails(&o, &[path_str(&output), "(--output)"]);
        let err = stderr(&o);
        assert!(
            err.contains(&format!("the input file {}", inner.display()))
                || err.contains("inside the Parquet dataset directory"),
            "{err}"
        );
    }
    assert_eq!(listing(&data.join("p=1")), names);
    assert_eq!(listing(&data), ["p=1"]);
    // A partition directory linked from outside is read as the dataset's
    // own, and no more written into.
    let other = d.path().join("other");
    std::fs::create_dir(&other).unwrap();
    std::os::unix::fs::symlink("../other", data.join("p=2")).unwrap();
    let output = other.join("moves.parquet");
    let o = reshard_to(&output);
    assert_fails(
        &o,
        &[path_str(&output), "p=2 of the Parquet dataset directory"],
    );
    assert!(listing(&other).is_empty());
}
