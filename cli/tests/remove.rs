//! `remove`: the removal options weighed over keys, the recommendation, and
//! what it refuses.

use crate::support;

use support::*;

#[test]
fn remove_weighs_every_option() {
    let d = dir();
    let old = table(d.path(), "old", "n0\nn1\nn2\nn3\nn4\nn5\nn6\nn7\nn8\nn9\n");
    let written = d.path().join("new");
    let o = run(&[
        "remove",
        "--nodes",
        path_str(&old),
        "--node",
        "n3",
        "--generate",
        "200000",
        "--json",
        "--write-table",
        path_str(&written),
    ]);
    assert_ok(&o);
    let r = json(&o);
    let options = r["options"].as_array().unwrap();
    let names: Vec<&str> = options
        .iter()
        .map(|o| o["name"].as_str().unwrap())
        .collect();
    assert_eq!(names[0], "swap");
    assert_eq!(names.last(), Some(&"hole"));
    assert_eq!(names.len(), 1 + 9 + 1 + 1);
    assert!(names.contains(&"memento"));
    assert!(names.contains(&"point:n0") && !names.contains(&"point:n3"));
    // Swap moves about 2/10 of the keys and keeps the balance; pointing
    // moves 1/10 but doubles a node; the hole moves far more.
    let moved = |name: &str| {
        options.iter().find(|o| o["name"] == name).unwrap()["moved"]
            .as_f64()
            .unwrap()
            / 2e5
    };
    let balance = |name: &str| {
        options.iter().find(|o| o["name"] == name).unwrap()["max_over_mean_after"]
            .as_f64()
            .unwrap()
    };
    assert!((moved("swap") - 0.2).abs() < 0.02, "{}", moved("swap"));
    assert!((moved("point:n0") - 0.1).abs() < 0.01);
    assert!(moved("hole") > 0.5);
    assert!(balance("swap") < 1.05 && balance("point:n0") > 1.7);
    // Memento moves what pointing moves and keeps the balance, but is not
    // recommended unless the routers keep the log.
    assert_eq!(moved("memento"), moved("point:n0"));
    assert!(balance("memento") < 1.05);
    assert_eq!(r["recommended"], "swap");
    let swap_summary = r["chosen_summary"].clone();
    assert!(r["reason"].as_str().unwrap().contains("within 1.25"));
    // The written table: n9 took n3's slot, one slot fewer.
    let t = std::fs::read_to_string(&written).unwrap();
    assert_eq!(t, "n0\nn1\nn2\nn9\nn4\nn5\nn6\nn7\nn8\n");
    // Pointing at a survivor: exactly n3's keys move, all to it, and the
    // reshard between the two tables agrees.
    let pointed = d.path().join("pointed");
    let o = run(&[
        "remove",
        "--nodes",
        path_str(&old),
        "--node",
        "n3",
        "--generate",
        "200000",
        "--json",
        "--write-table",
        path_str(&pointed),
        "--choose",
        "point:n5",
    ]);
    assert_ok(&o);
    let r = json(&o);
    let point = r["options"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["name"] == "point:n5")
        .unwrap()
        .clone();
    let chosen = r["chosen_summary"].clone();
    let o = run(&[
        "reshard",
        "--nodes",
        path_str(&old),
        "--to-nodes",
        path_str(&pointed),
        "--generate",
        "200000",
        "--json",
    ]);
    assert_ok(&o);
    let s = json(&o);
    for field in ["moved", "max_over_mean_after"] {
        assert_eq!(s[field], point[field], "{field}");
        assert_eq!(s[field], chosen[field], "{field}");
    }
    for field in ["transfers", "load_after"] {
        assert_eq!(s[field], chosen[field], "{field}");
    }
    assert_eq!(s["bucket_changes"], 0);
    // And swap's figures are the reshard's.
    let o = run(&[
        "reshard",
        "--nodes",
        path_str(&old),
        "--to-nodes",
        path_str(&written),
        "--generate",
        "200000",
        "--json",
    ]);
    let s = json(&o);
    let swap = options[0].clone();
    for field in ["moved", "bucket_changes"] {
        assert_eq!(s[field], swap[field], "{field}");
    }
    // The first run chose the recommendation, the swap.
    for field in ["transfers", "load_after"] {
        assert_eq!(s[field], swap_summary[field], "{field}");
    }
    // The text form marks and explains the recommendation.
    let o = run(&[
        "remove",
        "--nodes",
        path_str(&old),
        "--node",
        "n3",
        "--generate",
        "20000",
    ]);
    assert_ok(&o);
    let text = stdout(&o);
    assert!(
        text.contains("* swap") && text.contains("recommended swap: the fewest moves"),
        "{text}"
    );
}

#[test]
fn remove_with_a_tight_bound_or_the_last_or_a_heavy_node() {
    let d = dir();
    let old = table(d.path(), "old", "a\nb\nc\n+a\nd\n");
    let out = d.path().join("t");
    // `a` serves slots 0 and 3: the swap fills slot 0 with d and drops 3, 4.
    let o = run(&[
        "remove",
        "--nodes",
        path_str(&old),
        "--node",
        "a",
        "--generate",
        "50000",
        "--write-table",
        path_str(&out),
        "--choose",
        "swap",
    ]);
    assert_ok(&o);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "d\nb\nc\n");
    // The last node: swapping is shrinking.
    let o = run(&[
        "remove",
        "--nodes",
        path_str(&old),
        "--node",
        "d",
        "--generate",
        "50000",
        "--json",
    ]);
    let r = json(&o);
    assert!(r["options"][0]["description"]
        .as_str()
        .unwrap()
        .contains("the last"));
    // No option within 1.0: the best balanced, said so.
    let o = run(&[
        "remove",
        "--nodes",
        path_str(&old),
        "--node",
        "b",
        "--generate",
        "50000",
        "--max-imbalance",
        "1",
    ]);
    assert_ok(&o);
    assert!(
        stdout(&o).contains("no option stays within"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn remove_refuses_what_it_cannot_do() {
    let d = dir();
    let old = table(d.path(), "old", "a\nb\n");
    let one = table(d.path(), "one", "a\n+a\n");
    let out = d.path().join("t");
    let before = listing(d.path());
    let cases: [(Vec<&str>, &[&str]); 6] = [
        (vec!["--node", "zz"], &["--node zz", "no line", "a, b"]),
        (
            vec![
                "--node",
                "a",
                "--write-table",
                path_str(&out),
                "--choose",
                "point:a",
            ],
            &["--choose point:a", "not an option", "point:b"],
        ),
        (
            vec![
                "--node",
                "a",
                "--write-table",
                path_str(&out),
                "--choose",
                "bogus",
            ],
            &["--choose bogus"],
        ),
        (
            vec!["--node", "a", "--max-imbalance", "0.5"],
            &["--max-imbalance", "at least 1"],
        ),
        // A leading hyphen is a value, answered by the same range check.
        (
            vec!["--node", "a", "--max-imbalance", "-1"],
            &["--max-imbalance -1", "at least 1"],
        ),
        (vec!["--node", "a", "--choose", "swap"], &["--write-table"]),
    ];
    for (args, words) in cases {
        let mut all = vec!["remove", "--nodes", path_str(&old), "--generate", "100"];
        all.extend(args);
        assert_fails(&run(&all), words);
        assert_eq!(listing(d.path()), before);
    }
    let o = run(&[
        "remove",
        "--nodes",
        path_str(&one),
        "--node",
        "a",
        "--generate",
        "100",
    ]);
    assert_fails(&o, &["only working node"]);
}

/// A node name of 64 KiB is data: `remove` and the summary of `reshard`
/// print it, whole, without padding every row to it.
#[test]
fn long_node_names_are_printed_not_padded() {
    let d = dir();
    let long = "n".repeat(1 << 16);
    let old = table(d.path(), "old", &format!("a\n{long}\nb\nc\n"));
    let o = run(&[
        "remove",
        "--from-nodes",
        path_str(&old),
        "--node",
        "a",
        "--generate",
        "1000",
    ]);
    assert_ok(&o);
    assert!(stdout(&o).contains(&long));
    let new = table(d.path(), "new", &format!("a\n{long}\nb\n"));
    let o = run(&[
        "reshard",
        "--from-nodes",
        path_str(&old),
        "--to-nodes",
        path_str(&new),
        "--generate",
        "1000",
    ]);
    assert_ok(&o);
    assert!(stdout(&o).contains(&long) || stderr(&o).contains(&long));
    let longest_line = stdout(&o)
        .lines()
        .chain(stderr(&o).lines())
        .map(str::len)
        .max()
        .unwrap();
    assert!(
        longest_line < long.len() + 200,
        "a row padded to the long name"
    );
}

/// Over zero keys every option moves nothing: the options are weighed by
/// their expected moves and loads from the table alone, and the report
/// says so. Swapping n1 out of four slots moves 5/12 of the keys (n1's
/// quarter, and two thirds of the last slot's, which the shrink spreads),
/// Memento a quarter, pointing at a survivor a quarter but doubles its
/// load.
#[test]
fn remove_over_no_keys_weighs_expected_costs() {
    let d = dir();
    let old = table(d.path(), "old", "n0\nn1\nn2\nn3\n");
    let base = ["remove", "--nodes", path_str(&old), "--node", "n1"];
    let o = run(&[&base[..], &["--memento", "--json", "--key-format", "u64le"]].concat());
    assert_ok(&o);
    let r = json(&o);
    assert_eq!(r["keys"], 0);
    assert_eq!(r["basis"], "expected");
    assert_eq!(r["recommended"], "memento", "{r}");
    let reason = r["reason"].as_str().unwrap();
    assert!(reason.contains("expected moves"), "{reason}");
    assert!(reason.contains("no keys were given"), "{reason}");
    let option = |name: &str| {
        r["options"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["name"] == name)
            .unwrap()
            .clone()
    };
    let fraction = |name: &str| option(name)["moved_fraction"].as_f64().unwrap();
    assert!((fraction("swap") - 5.0 / 12.0).abs() < 0.01, "{r}");
    assert!((fraction("memento") - 0.25).abs() < 0.01, "{r}");
    assert!((fraction("point:n0") - 0.25).abs() < 0.01, "{r}");
    let balance = option("point:n0")["max_over_mean_after"].as_f64().unwrap();
    assert!((balance - 1.5).abs() < 0.02, "{r}");

    // Without --memento the swap is recommended, for its expected cost.
    let o = run(&[&base[..], &["--key-format", "u64le"]].concat());
    assert_ok(&o);
    let text = stdout(&o);
    assert!(text.contains("over 0 keys"), "{text}");
    assert!(
        text.contains("compared on their expected moves and loads"),
        "{text}"
    );
    assert!(
        text.contains("recommended swap: the fewest expected moves (41."),
        "{text}"
    );
}

/// `--choose` picks what `--plot` draws as well as what `--write-table`
/// writes: either is enough.
#[test]
fn a_chosen_option_can_be_drawn_alone() {
    let d = dir();
    let old = table(d.path(), "old.txt", "a\nb\nc\nd\n");
    let plot = d.path().join("p.svg");
    let o = run(&[
        "remove",
        "--nodes",
        path_str(&old),
        "--node",
        "b",
        "--generate",
        "1000",
        "--choose",
        "hole",
        "--plot",
        path_str(&plot),
    ]);
    assert_ok(&o);
    assert!(
        stdout(&o).contains("plot of hole written to"),
        "{}",
        stdout(&o)
    );
    assert!(std::fs::read_to_string(&plot).unwrap().starts_with("<svg"));
}
