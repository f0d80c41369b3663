//! The golden vectors of `testdata/zones/`: zoned tables, keys and their
//! sets for k = 1 to 5 (see its README). `JUMPSHARD_BLESS_ZONES=1` writes
//! `sets.txt` anew from the library, once the construction is meant to
//! change.

use std::path::PathBuf;

use jumpshard::NodeTable;

const TABLES: [&str; 4] = ["three.txt", "removed.txt", "racks.txt", "pinned.txt"];
const KEYS: [u64; 8] = [
    0,
    1,
    7,
    42,
    1253737204188795044,
    0x9E37_79B9_7F4A_7C15,
    1 << 63,
    u64::MAX,
];

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/zones")
}

/// The lines of `sets.txt`: `TABLE KEY K NODE,NODE,...`.
fn lines() -> String {
    let mut out = String::from(
        "# Zoned replica sets of the tables of testdata/zones/: TABLE KEY K MEMBERS (rank order, by node name).\n",
    );
    for name in TABLES {
        let text = std::fs::read_to_string(dir().join(name)).unwrap();
        let table = NodeTable::parse(&text).unwrap();
        for k in 1..=5 {
            for (key, set) in KEYS.iter().zip(super::sets(&table, &KEYS, k)) {
                let want: Vec<u32> = super::reference::set(&table, *key, k)
                    .into_iter()
                    .map(|n| n as u32)
                    .collect();
                assert_eq!(set, want, "{name} {key} {k}");
                let names: Vec<&str> = set
                    .iter()
                    .map(|&n| table.nodes()[n as usize].as_str())
                    .collect();
                out.push_str(&format!("{name} {key} {k} {}\n", names.join(",")));
            }
        }
    }
    out
}

#[test]
fn golden_sets_of_the_test_tables() {
    let got = lines();
    let path = dir().join("sets.txt");
    if std::env::var_os("JUMPSHARD_BLESS_ZONES").is_some() {
        std::fs::write(&path, &got).unwrap();
    }
    let want = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        got, want,
        "testdata/zones/sets.txt differs from the library's sets"
    );
}
