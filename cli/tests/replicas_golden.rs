//! `testdata/replicas/golden.txt` through the CLI: the plain sets with
//! `assign --buckets N --replicas K`, and the sets under removals with
//! `lookup --nodes TABLE --replicas K` over a table carrying the removals.

use crate::support;

use std::collections::BTreeMap;

use support::*;

/// The golden file's records: `(n, k) -> [(key, set)]` for the plain sets,
/// and per cluster its size, removals and `k -> [(key, set)]`.
#[allow(clippy::type_complexity)]
fn golden() -> (
    BTreeMap<(u64, usize), Vec<(u64, String)>>,
    Vec<(u64, Vec<u64>, BTreeMap<usize, Vec<(u64, String)>>)>,
) {
    let text = include_str!("../../testdata/replicas/golden.txt");
    let (mut plain, mut clusters) = (BTreeMap::new(), Vec::new());
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let v: Vec<u64> = line
            .split(' ')
            .skip(1)
            .map(|x| x.parse().unwrap())
            .collect();
        let joined = |members: &[u64]| -> String {
            let s: Vec<String> = members.iter().map(u64::to_string).collect();
            s.join(",")
        };
        match line.split(' ').next().unwrap() {
            "plain" => plain
                .entry((v[1], v[2] as usize))
                .or_insert_with(Vec::new)
                .push((v[0], joined(&v[3..]))),
            "memento" => clusters.push((v[0], Vec::new(), BTreeMap::new())),
            "remove" => clusters.last_mut().unwrap().1.push(v[0]),
            "set" => clusters
                .last_mut()
                .unwrap()
                .2
                .entry(v[1] as usize)
                .or_insert_with(Vec::new)
                .push((v[0], joined(&v[2..]))),
            other => panic!("unknown record {other}"),
        }
    }
    (plain, clusters)
}

#[test]
fn plain_sets_are_the_golden_ones() {
    let d = dir();
    let (plain, _) = golden();
    assert!(plain.len() > 40);
    for ((n, k), rows) in plain {
        let text: String = rows.iter().map(|(key, _)| format!("{key}\n")).collect();
        let (input, output) = (d.path().join("keys.txt"), d.path().join("sets.txt"));
        std::fs::write(&input, text).unwrap();
        let o = run(&[
            "assign",
            "--buckets",
            &n.to_string(),
            "--replicas",
            &k.to_string(),
            "--key-format",
            "decimal",
            "--output-format",
            "text",
            "--output",
            path_str(&output),
            path_str(&input),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let want: String = rows.iter().map(|(_, set)| format!("{set}\n")).collect();
        let got = std::fs::read_to_string(&output).unwrap();
        assert_eq!(got, want, "n {n}, k {k}");
    }
}

#[test]
fn sets_under_removals_are_the_golden_ones() {
    let d = dir();
    let (_, clusters) = golden();
    let mut checked = 0;
    for (n, removals, sets) in clusters {
        // A table file holds the clusters of up to a few thousand nodes.
        if n > 10_000 {
            continue;
        }
        let mut lines: Vec<String> = (0..n).map(|b| format!("n{b}")).collect();
        for (order, &b) in removals.iter().enumerate() {
            lines[b as usize] += &format!(" removed={}", order + 1);
        }
        let t = table(d.path(), "t", &(lines.join("\n") + "\n"));
        for (k, rows) in sets {
            let mut args = vec![
                "lookup".to_string(),
                "--nodes".into(),
                path_str(&t).into(),
                "--replicas".into(),
                k.to_string(),
            ];
            args.extend(rows.iter().map(|(key, _)| key.to_string()));
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let o = run(&args);
            assert_ok(&o);
            let want: String = rows
                .iter()
                .map(|(key, set)| {
                    let names: Vec<String> = set.split(',').map(|b| format!("n{b}")).collect();
                    format!("{key} {set} {}\n", names.join(","))
                })
                .collect();
            assert_eq!(stdout(&o), want, "cluster of {n}, k {k}");
            checked += rows.len();
        }
    }
    assert!(checked > 150, "{checked}");
}
