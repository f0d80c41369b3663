//! The weighted tables of `testdata/weights/golden.txt` (computed by
//! `golden.py` from the written construction, with nothing of the library):
//! every key one at a time, and all of a table's keys in one batch on every
//! kernel this CPU runs.

use jumpshard::weights::{Weights, CONSTRUCTION};
use jumpshard::Kernel;

/// The golden tables: each one's weights, keys and buckets.
fn golden() -> Vec<(Vec<f64>, Vec<u64>, Vec<u32>)> {
    let text = include_str!("../testdata/weights/golden.txt");
    let mut tables: Vec<(Vec<f64>, Vec<u64>, Vec<u32>)> = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let mut words = line.split(' ');
        match words.next() {
            Some("table") => {
                let rest: Vec<&str> = words.collect();
                let weights = if rest[0] == "zeros" {
                    let mut w = vec![0.0; rest[1].parse().unwrap()];
                    for spot in &rest[2..] {
                        let (i, v) = spot.split_once('=').unwrap();
                        w[i.parse::<usize>().unwrap()] = v.parse().unwrap();
                    }
                    w
                } else {
                    rest.iter().map(|w| w.parse().unwrap()).collect()
                };
                tables.push((weights, Vec::new(), Vec::new()));
            }
            Some("lookup") => {
                let table = tables.last_mut().unwrap();
                table.1.push(words.next().unwrap().parse().unwrap());
                table.2.push(words.next().unwrap().parse().unwrap());
            }
            _ => panic!("unknown golden line {line:?}"),
        }
    }
    tables
}

#[test]
fn golden_vectors_of_construction_2() {
    assert_eq!(
        CONSTRUCTION, 2,
        "new golden vectors go with a new construction"
    );
    let tables = golden();
    assert_eq!(tables.len(), 12);
    for (weights, keys, want) in &tables {
        let w = Weights::new(weights).unwrap();
        let one: Vec<u32> = keys.iter().map(|&k| w.bucket(k)).collect();
        assert_eq!(&one, want, "{weights:?}");
        for kernel in Kernel::supported() {
            let mut out = vec![u32::MAX; keys.len()];
            w.batch_on(kernel, keys, &mut out).unwrap();
            assert_eq!(&out, want, "{kernel:?} {weights:?}");
        }
    }
}
