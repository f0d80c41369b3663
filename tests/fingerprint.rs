//! Node-table fingerprints: the golden values every front end reproduces,
//! formatting that never changes a fingerprint, and changes of meaning
//! that always do.

use jumpshard::{NodeTable, TableFingerprint};
use proptest::prelude::*;

/// The golden file: `FINGERPRINT  PATH` lines, paths under `testdata/`.
#[test]
fn golden_fingerprints_of_the_test_tables() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/");
    let golden = std::fs::read_to_string(format!("{root}fingerprints.txt")).unwrap();
    let mut checked = 0;
    for line in golden.lines().filter(|l| !l.starts_with('#')) {
        let (want, path) = line.split_once("  ").expect("FINGERPRINT  PATH");
        let text = std::fs::read_to_string(format!("{root}{path}")).unwrap();
        let table = NodeTable::parse(&text).unwrap();
        assert_eq!(table.fingerprint().to_string(), want, "{path}");
        assert_eq!(want.parse::<TableFingerprint>(), Ok(table.fingerprint()));
        checked += 1;
    }
    assert!(checked >= 5);
}

#[test]
fn printed_form_and_bad_texts() {
    let table = NodeTable::parse("a\n").unwrap();
    let text = table.fingerprint().to_string();
    assert_eq!(text.len(), 4 + 32);
    assert_eq!(
        text.to_uppercase().replace("JT1:", "jt1:").parse(),
        Ok(table.fingerprint())
    );
    for bad in [
        "",
        "jt1:",
        "jt2:00000000000000000000000000000000",
        &text[..35],
        &format!("{text}0"),
        "jt1:+0000000000000000000000000000000",
    ] {
        assert!(bad.parse::<TableFingerprint>().is_err(), "{bad:?}");
    }
}

#[test]
fn spellings_of_one_meaning_share_a_fingerprint() {
    let same = [
        ("a weight=2\nb\n", "a weight=2.0\nb weight=1\n"),
        (
            "a weight=2\nb\n",
            "\u{feff}a\tweight=20e-1   # heavier\r\nb weight=1e0",
        ),
        ("a weight=0\nb\n", "a weight=-0\nb weight=+1.000\n"),
        ("a weight=2\nb weight=2\n", "a\nb\n"),
        ("a\nb removed=1\nc\n", "a # x\nb removed=01\t# gone\nc"),
        ("a\nb\n+a\n", "a  # heavy\nb\n+a #\n"),
        (
            "a\nb\noverride 26 b\noverride 7 a\n",
            "a\nb\noverride 7 a # pinned\noverride\t0x1A  b",
        ),
    ];
    for (a, b) in same {
        let (ta, tb) = (NodeTable::parse(a).unwrap(), NodeTable::parse(b).unwrap());
        assert_eq!(ta.fingerprint(), tb.fingerprint(), "{a:?} and {b:?}");
    }
    let differ = [
        ("a\nb\n", "b\na\n"),
        ("a\nb\n", "a\nc\n"),
        ("a\nb\n", "a\nb\nc\n"),
        ("a\nb\n+a\n", "a\nb\nc\n"),
        ("a\nb\nc\n", "a\nb removed=1\nc\n"),
        (
            "a\nb removed=1\nc removed=2\nd\n",
            "a\nb removed=2\nc removed=1\nd\n",
        ),
        ("a weight=2\nb\n", "a weight=3\nb\n"),
        ("a weight=2\nb\n", "a\nb weight=2\n"),
        // The names' bytes are length-prefixed: no two splits collide.
        ("ab\nc\n", "a\nbc\n"),
        // Overrides: one added, its node, its key.
        ("a\nb\n", "a\nb\noverride 1 a\n"),
        ("a\nb\noverride 1 a\n", "a\nb\noverride 1 b\n"),
        ("a\nb\noverride 1 a\n", "a\nb\noverride 2 a\n"),
    ];
    for (a, b) in differ {
        let (ta, tb) = (NodeTable::parse(a).unwrap(), NodeTable::parse(b).unwrap());
        assert_ne!(ta.fingerprint(), tb.fingerprint(), "{a:?} and {b:?}");
    }
}

/// A table as its fields: each slot's node (an index into a few names),
/// the removed slots in removal order, or the weights.
#[derive(Clone, Debug)]
struct Spec {
    nodes: Vec<usize>,
    removed: Vec<usize>,
    weights: Option<Vec<f64>>,
    /// Override lines: (key, slot whose node the key is pinned to).
    overrides: Vec<(u64, usize)>,
    /// Each name's zone and rack (indices into ZONES), when zoned.
    domains: Option<Vec<(usize, Option<usize>)>>,
}

const ZONES: [&str; 3] = ["eu-1", "us-2", "zone#3"];

const NAMES: [&str; 6] = ["db-a", "db-b", "café", "rack#2", "x", "n10"];
const WEIGHTS: [f64; 5] = [0.0, 0.5, 1.0, 2.0, 3.25];

fn spec() -> impl Strategy<Value = Spec> {
    (1usize..9)
        .prop_flat_map(|n| {
            (
                proptest::collection::vec(0..NAMES.len(), n),
                Just((0..n).collect::<Vec<usize>>()).prop_shuffle(),
                0..n,
                proptest::option::weighted(0.3, proptest::collection::vec(0..WEIGHTS.len(), n)),
                proptest::collection::btree_map(0u64..6, 0..n, 0..3),
                proptest::option::weighted(
                    0.4,
                    proptest::collection::vec(
                        (0..ZONES.len(), proptest::option::of(0..ZONES.len())),
                        NAMES.len(),
                    ),
                ),
            )
        })
        .prop_map(|(nodes, order, k, weights, overrides, domains)| Spec {
            overrides: overrides.into_iter().collect(),
            domains,
            nodes,
            removed: if weights.is_some() {
                Vec::new()
            } else {
                order[..k].to_vec()
            },
            weights: weights.map(|w| w.into_iter().map(|i| WEIGHTS[i]).collect()),
        })
}

/// How a file is written, not what it means.
#[derive(Clone, Debug)]
struct Style {
    blanks: Vec<&'static str>,
    comments: Vec<bool>,
    spelling: Vec<usize>,
    crlf: bool,
    final_newline: bool,
    bom: bool,
    explicit_default: bool,
}

fn style() -> impl Strategy<Value = Style> {
    let blank = prop_oneof![Just(" "), Just("\t"), Just("   "), Just(" \t ")];
    (
        proptest::collection::vec(blank, 9),
        proptest::collection::vec(any::<bool>(), 9),
        proptest::collection::vec(0usize..4, 9),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(blanks, comments, spelling, crlf, final_newline, bom, explicit_default)| Style {
                blanks,
                comments,
                spelling,
                crlf,
                final_newline,
                bom,
                explicit_default,
            },
        )
}

/// Four spellings of one double.
fn spell(w: f64, how: usize) -> String {
    match how {
        0 => format!("{w}"),
        1 => format!("{w:.3}"),
        2 => format!("{w:e}"),
        _ => format!("{}e-1", w * 10.0),
    }
}

/// `spec` written in `style`.
fn render(spec: &Spec, style: &Style) -> String {
    let mut text = String::from(if style.bom { "\u{feff}" } else { "" });
    let mut seen = Vec::new();
    for (slot, &node) in spec.nodes.iter().enumerate() {
        let name = NAMES[node];
        if seen.contains(&node) {
            text.push('+');
        }
        seen.push(node);
        text.push_str(name);
        let blank = style.blanks[slot];
        if let Some(domains) = &spec.domains {
            let (zone, rack) = domains[node];
            let zone = format!("{blank}zone={}", ZONES[zone]);
            let rack = rack.map_or(String::new(), |r| format!("{blank}rack={}", ZONES[r]));
            // Attributes in either order.
            match style.spelling[slot] % 2 {
                0 => text.push_str(&format!("{zone}{rack}")),
                _ => text.push_str(&format!("{rack}{zone}")),
            }
        }
        if let Some(k) = spec.removed.iter().position(|&s| s == slot) {
            text.push_str(&format!("{blank}removed={}", k + 1));
        }
        if let Some(w) = spec.weights.as_ref().map(|w| w[slot]) {
            if w != 1.0 || style.explicit_default {
                text.push_str(&format!("{blank}weight={}", spell(w, style.spelling[slot])));
            }
        }
        if style.comments[slot] {
            text.push_str(&format!("{blank}# slot {slot}, weight=9 removed=1"));
        }
        text.push_str(if style.crlf { "\r\n" } else { "\n" });
    }
    // Overrides in either order, keys in decimal or hex.
    let mut overrides = spec.overrides.clone();
    if style.bom {
        overrides.reverse();
    }
    for (key, slot) in overrides {
        let key = if style.crlf {
            format!("0x{key:X}")
        } else {
            key.to_string()
        };
        let blank = style.blanks[slot];
        text.push_str(&format!(
            "override{blank}{key}{blank}{}",
            NAMES[spec.nodes[slot]]
        ));
        text.push_str(if style.crlf { "\r\n" } else { "\n" });
    }
    if !style.final_newline {
        text.truncate(text.trim_end_matches(['\r', '\n']).len());
    }
    text
}

/// The plain rendering of `spec`, if it is a valid table.
fn table(spec: &Spec) -> Option<NodeTable> {
    let plain = Style {
        blanks: vec![" "; 9],
        comments: vec![false; 9],
        spelling: vec![0; 9],
        crlf: false,
        final_newline: true,
        bom: false,
        explicit_default: false,
    };
    NodeTable::parse(&render(spec, &plain)).ok()
}

/// `spec` with one field changed: `which` picks the field, `at` the place.
fn mutate(spec: &Spec, which: usize, at: usize) -> Spec {
    let mut s = spec.clone();
    let n = s.nodes.len();
    let i = at % n;
    match which {
        // A name.
        0 => s.nodes[i] = (s.nodes[i] + 1) % NAMES.len(),
        // The order of two slots.
        1 => s.nodes.swap(i, (i + 1) % n),
        // A removal added.
        2 => {
            if let Some(free) = (0..n).map(|d| (i + d) % n).find(|x| !s.removed.contains(x)) {
                s.removed.push(free);
            }
        }
        // The newest removal undone.
        3 => {
            s.removed.pop();
        }
        // Two removals' order.
        4 if s.removed.len() >= 2 => {
            let j = i % s.removed.len();
            let k = (j + 1) % s.removed.len();
            s.removed.swap(j, k);
        }
        // A weight.
        5 => {
            let w = s.weights.get_or_insert_with(|| vec![1.0; n]);
            w[i] += 0.75;
        }
        // An override added, or its node changed.
        8 => match s.overrides.first_mut() {
            Some(pin) if n > 1 => pin.1 = (pin.1 + 1 + i % (n - 1)) % n,
            _ => s.overrides.push((at as u64 + 100, i)),
        },
        // An override's key changed, or one dropped.
        9 if !s.overrides.is_empty() => {
            if at.is_multiple_of(2) {
                s.overrides[0].0 += 1000;
            } else {
                s.overrides.remove(at % s.overrides.len());
            }
        }
        // A zone changed, or zones given to an unzoned table.
        10 => match &mut s.domains {
            Some(d) => d[s.nodes[i]].0 = (d[s.nodes[i]].0 + 1) % ZONES.len(),
            None => s.domains = Some(vec![(at % ZONES.len(), None); NAMES.len()]),
        },
        // A rack given, changed or dropped.
        11 => {
            if let Some(d) = &mut s.domains {
                let rack = &mut d[s.nodes[i]].1;
                *rack = match *rack {
                    None => Some(at % ZONES.len()),
                    Some(r) if at.is_multiple_of(2) => Some((r + 1) % ZONES.len()),
                    Some(_) => None,
                };
            }
        }
        // A slot added.
        6 => {
            s.nodes.push(at % NAMES.len());
            if let Some(w) = &mut s.weights {
                w.push(1.0);
            }
        }
        // The last slot dropped.
        _ => {
            s.overrides.retain(|&(_, slot)| slot < n - 1);
            s.nodes.pop();
            if let Some(w) = &mut s.weights {
                w.pop();
            }
            s.removed.retain(|&r| r < n - 1);
        }
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn formatting_never_changes_the_fingerprint(spec in spec(), style in style()) {
        let Some(plain) = table(&spec) else { return Ok(()) };
        let styled = NodeTable::parse(&render(&spec, &style)).expect("a valid table restyled");
        prop_assert_eq!(plain.fingerprint(), styled.fingerprint());
        // The canonical text too.
        prop_assert_eq!(NodeTable::parse(&plain.to_text()).unwrap().fingerprint(), plain.fingerprint());
    }

    #[test]
    fn any_change_of_meaning_changes_the_fingerprint(spec in spec(), which in 0usize..12, at in 0usize..64) {
        let Some(before) = table(&spec) else { return Ok(()) };
        let Some(after) = table(&mutate(&spec, which, at)) else { return Ok(()) };
        // Equal tables mean the same (a weight changed on a one-slot
        // table, a name swapped with itself): the fingerprints agree
        // exactly when the tables do.
        prop_assert_eq!(before == after, before.fingerprint() == after.fingerprint(),
            "{:?} -> {:?}", before.to_text(), after.to_text());
    }
}
