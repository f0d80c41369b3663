//! Commands with several outputs (a move list, a table, a plot): all are
//! written before any is put in place.

use crate::support;

use support::*;

/// A command with two outputs puts neither in place until both are
/// written: one that fails (`/dev/full`, as a full disk) leaves the other
/// untouched, where it used to be replaced already.
#[test]
fn one_output_failing_leaves_the_other_untouched() {
    let d = dir();
    let three = table(d.path(), "n3.txt", "db-a\ndb-b\ndb-c\n");
    let four = table(d.path(), "n4.txt", "db-a\ndb-b\ndb-c\ndb-d\n");
    let weights = table(d.path(), "w.csv", "key,weight\n1,1\n2,1\n");
    let (plot, written) = (d.path().join("p.svg"), d.path().join("t.txt"));
    let (p, t) = (path_str(&plot), path_str(&written));
    let (n3, n4, w) = (path_str(&three), path_str(&four), path_str(&weights));
    let gen = ["--generate", "1000"];
    for args in [
        [
            &["reshard", "--from-nodes", n3, "--to-nodes", n4][..],
            &gen,
            &["--output", "/dev/full", "--plot", p],
        ]
        .concat(),
        [
            &["remove", "--from-nodes", n3, "--node", "db-b"][..],
            &gen,
            &["--write-table", t, "--plot", "/dev/full"],
        ]
        .concat(),
        [
            &["remove", "--from-nodes", n3, "--node", "db-b"][..],
            &gen,
            &["--write-table", "/dev/full", "--plot", p],
        ]
        .concat(),
        vec![
            "balance",
            w,
            "--nodes",
            n3,
            "--factor",
            "3",
            "--write-table",
            t,
            "--plot",
            "/dev/full",
        ],
    ] {
        std::fs::write(&plot, "old plot").unwrap();
        std::fs::write(&written, "old table").unwrap();
        assert_fails(&run(&args), &["cannot write /dev/full", "No space left"]);
        assert_eq!(
            std::fs::read_to_string(&plot).unwrap(),
            "old plot",
            "{args:?}"
        );
        assert_eq!(
            std::fs::read_to_string(&written).unwrap(),
            "old table",
            "{args:?}"
        );
        assert_eq!(
            listing(d.path()),
            ["n3.txt", "n4.txt", "p.svg", "t.txt", "w.csv"]
        );
    }
}
