//! The properties of zoned replica sets over random zoned tables: zones
//! spanned, what moves when a node or zone comes or goes (with the one
//! exception rank 1 forces, measured), and fair shares per node and per
//! rank.

use std::collections::BTreeSet;

use jumpshard::nodes::{NodeRemoval, Removal};
use jumpshard::NodeTable;

use super::{mix, sets, table_text, Rng};

const KEYS: u64 = if cfg!(miri) { 50 } else { 20_000 };

fn keys() -> Vec<u64> {
    (0..KEYS).map(mix).collect()
}

/// The members of a set by name.
fn named(table: &NodeTable, set: &[u32]) -> BTreeSet<String> {
    set.iter()
        .map(|&n| table.nodes()[n as usize].clone())
        .collect()
}

fn zone(table: &NodeTable, name: &str) -> String {
    table
        .zone_of(table.node_index(name).unwrap())
        .unwrap()
        .to_owned()
}

fn live_nodes(table: &NodeTable) -> Vec<usize> {
    (0..table.nodes().len())
        .filter(|&n| table.is_live(n))
        .collect()
}

/// The zones of a table with room for `k` members in each (`k + 1` live
/// nodes or more, so that no zone is ever short), `zones` of them.
fn roomy(rng: &mut Rng, zones: usize, k: usize, removed: usize, racks: u64) -> NodeTable {
    let sizes: Vec<usize> = (0..zones)
        .map(|_| k + 1 + removed + rng.below(4) as usize)
        .collect();
    let text = table_text(rng, &sizes, racks, 0);
    let mut table = NodeTable::parse(&text).unwrap();
    // Remove `removed` nodes per zone, Memento-style, so each keeps k + 1.
    for z in 0..zones {
        for i in 0..removed {
            let name = format!("n{z}-{i}");
            if let Ok(removal) = NodeRemoval::new(&table, &name) {
                table = removal.table(&Removal::Memento).unwrap();
            }
        }
    }
    table
}

#[test]
fn sets_span_distinct_zones_and_rank_one_is_the_tables_node() {
    let mut rng = Rng::new(11);
    let keys = keys();
    for _ in 0..if cfg!(miri) { 2 } else { 30 } {
        let zones = 1 + rng.below(5) as usize;
        let sizes: Vec<usize> = (0..zones).map(|_| 1 + rng.below(5) as usize).collect();
        let total: usize = sizes.iter().sum();
        let removed = rng.below(total as u64) as usize;
        let text = table_text(&mut rng, &sizes, 0, removed);
        let table = NodeTable::parse(&text).unwrap();
        let live = live_nodes(&table);
        let zoned = table.zoned_replicas().unwrap();
        let live_zones = zoned.live_zones();
        for k in 1..=live.len().min(6) {
            for (set, &key) in sets(&table, &keys[..2000.min(keys.len())], k)
                .iter()
                .zip(&keys)
            {
                assert_eq!(table.nodes()[set[0] as usize], table.node(key));
                let mut per_zone = std::collections::BTreeMap::new();
                for &n in set {
                    *per_zone
                        .entry(table.zone_of(n as usize).unwrap())
                        .or_insert(0) += 1;
                }
                if live_zones >= k {
                    assert_eq!(per_zone.len(), k, "{text}");
                } else {
                    // A zone holds more than ceil(k / zones) only when
                    // another zone has no live node left to give.
                    let cap = k.div_ceil(live_zones);
                    let short = table.zones().iter().any(|z| {
                        let members = per_zone.get(z.as_str()).copied().unwrap_or(0);
                        let live_in = live
                            .iter()
                            .filter(|&&n| table.zone_of(n) == Some(z.as_str()))
                            .count();
                        live_in > 0 && members < cap.min(live_in)
                    });
                    assert!(per_zone.values().all(|&c| c <= cap) || !short, "{text}");
                }
            }
        }
    }
}

/// What moved between two sets of one key: members gone and members come.
fn moved(old: &BTreeSet<String>, new: &BTreeSet<String>) -> (Vec<String>, Vec<String>) {
    (
        old.difference(new).cloned().collect(),
        new.difference(old).cloned().collect(),
    )
}

#[test]
fn a_node_added_in_a_zone_takes_slots_only_onto_itself() {
    let mut rng = Rng::new(12);
    let keys = keys();
    let (mut primary_moves, mut extra, mut rack_extra) = (0u64, 0u64, 0u64);
    for case in 0..if cfg!(miri) { 1 } else { 18 } {
        let k = 1 + case % 4;
        let zones = 1 + rng.below(5) as usize;
        // Appending to a table with removals changes its own placement
        // (Memento's replacers follow the b-array): none here.
        let racks = [0, 3, 3][case % 3];
        let old = roomy(&mut rng, zones, k, 0, racks);
        let z = rng.below(zones as u64);
        // Without racks: none, or the zone's first. With racks: one of
        // the zone's, a new one, or a rack of its own.
        let rack = match (racks, case % 2) {
            (0, 0) => String::new(),
            (0, _) => " rack=first".to_string(),
            (_, 0) => format!(" rack=r{}", rng.below(racks)),
            _ => [" rack=new", ""][rng.below(2) as usize].to_string(),
        };
        let new = NodeTable::parse(&format!("{}x zone=z{z}{rack}\n", old.to_text())).unwrap();
        let (before, after) = (sets(&old, &keys, k), sets(&new, &keys, k));
        for (i, (o, n)) in before.iter().zip(&after).enumerate() {
            let (gone, come) = moved(&named(&old, o), &named(&new, n));
            let primary_moved = old.node(keys[i]) != new.node(keys[i]);
            if primary_moved {
                assert_eq!(new.node(keys[i]), "x");
                primary_moves += 1;
                extra += gone.len() as u64 - 1;
                continue;
            }
            // In a zone with racks, x taking the zone's first member may
            // move one more member inside it (the racks are dealt anew).
            let others: Vec<_> = come.iter().filter(|c| *c != "x").collect();
            let excepted = (racks > 0 || !rack.is_empty())
                && others.len() == 1
                && come.len() == 2
                && zone(&new, others[0]) == zone(&new, "x");
            rack_extra += u64::from(excepted);
            assert!(others.is_empty() || excepted, "{gone:?} -> {come:?}");
            assert!(gone.len() <= 1 + usize::from(excepted));
        }
    }
    let keys = KEYS as f64 * if cfg!(miri) { 1.0 } else { 18.0 };
    eprintln!(
        "node added: {:.4} of keys change primary, {:.4} of keys move one more member; \
         {:.4} one more inside a zone with racks",
        primary_moves as f64 / keys,
        extra as f64 / keys,
        rack_extra as f64 / keys
    );
}

#[test]
fn a_node_removed_gives_up_only_its_slots_within_its_zone() {
    let mut rng = Rng::new(13);
    let keys = keys();
    let (mut primary_moves, mut extra, mut rack_extra) = (0u64, 0u64, 0u64);
    for case in 0..if cfg!(miri) { 1 } else { 12 } {
        let k = 1 + case % 4;
        let zones = 1 + rng.below(5) as usize;
        let racks = [0, 3][case % 2];
        let old = roomy(&mut rng, zones, k, case % 2, racks);
        let live = live_nodes(&old);
        let x = old.nodes()[live[rng.below(live.len() as u64) as usize]].clone();
        let new = NodeRemoval::new(&old, &x)
            .unwrap()
            .table(&Removal::Memento)
            .unwrap();
        let (before, after) = (sets(&old, &keys, k), sets(&new, &keys, k));
        for (i, (o, n)) in before.iter().zip(&after).enumerate() {
            let (gone, come) = moved(&named(&old, o), &named(&new, n));
            if old.node(keys[i]) == x {
                primary_moves += 1;
                extra += gone.len() as u64 - 1;
                continue;
            }
            if old.node(keys[i]) != new.node(keys[i]) {
                panic!("a key off the removed node changed its primary");
            }
            // In a zone with racks, the zone's first member removed may
            // move one more member inside it (the racks are dealt anew).
            let others: Vec<_> = gone.iter().filter(|g| **g != x).collect();
            let excepted = racks > 0
                && others.len() == 1
                && gone.len() == 2
                && zone(&old, others[0]) == zone(&old, &x);
            rack_extra += u64::from(excepted);
            assert!(
                others.is_empty() || excepted,
                "k {k} key {} x {x}: {gone:?} -> {come:?}\n{}",
                keys[i],
                old.to_text()
            );
            // Each zone keeps k + 1 live nodes: the slot stays in x's zone.
            assert!(come.iter().all(|c| zone(&new, c) == zone(&old, &x)));
        }
        // Restoring the node gives every set back.
        let (back, _) = jumpshard::nodes::restore(&new, None).unwrap();
        assert_eq!(sets(&back, &keys, k), before);
    }
    let keys = KEYS as f64 * if cfg!(miri) { 1.0 } else { 12.0 };
    eprintln!(
        "node removed: {:.4} of keys change primary, {:.4} of keys move one more member; \
         {:.4} one more inside a zone with racks",
        primary_moves as f64 / keys,
        extra as f64 / keys,
        rack_extra as f64 / keys
    );
}

/// Zones with no more live nodes than `k`, so that a zone holds several of
/// a key's members and its live count bounds them: a node removed or
/// added still moves only its own slots (without racks, no exception but
/// rank 1's).
#[test]
fn short_zones_move_only_the_node_that_comes_or_goes() {
    let mut rng = Rng::new(16);
    let keys = &keys()[..if cfg!(miri) { 50 } else { 5000 }];
    for case in 0..if cfg!(miri) { 1 } else { 16 } {
        let zones = 2 + case % 3;
        let sizes: Vec<usize> = (0..zones).map(|_| 2 + rng.below(4) as usize).collect();
        let old = NodeTable::parse(&table_text(&mut rng, &sizes, 0, 0)).unwrap();
        let live = live_nodes(&old);
        let k = (zones + 1 + case % 4).min(live.len() - 1);
        let x = old.nodes()[live[rng.below(live.len() as u64) as usize]].clone();
        let removed = NodeRemoval::new(&old, &x)
            .unwrap()
            .table(&Removal::Memento)
            .unwrap();
        let z = rng.below(zones as u64);
        let added = NodeTable::parse(&format!("{}y zone=z{z}\n", old.to_text())).unwrap();
        let before = sets(&old, keys, k);
        for (new, node) in [(&removed, x.as_str()), (&added, "y")] {
            for (i, (o, n)) in before.iter().zip(&sets(new, keys, k)).enumerate() {
                if old.node(keys[i]) != new.node(keys[i]) {
                    continue;
                }
                let (gone, come) = moved(&named(&old, o), &named(new, n));
                // The node removed leaves, one other comes; or the node
                // added comes, one other leaves.
                let (theirs, other) = if node == "y" {
                    (&come, &gone)
                } else {
                    (&gone, &come)
                };
                assert!(
                    theirs.iter().all(|m| m == node)
                        && theirs.len() <= 1
                        && other.len() <= theirs.len(),
                    "k {k} key {} {node}: {gone:?} -> {come:?}\n{}",
                    keys[i],
                    old.to_text()
                );
            }
        }
    }
}

#[test]
fn a_zone_lost_moves_only_its_slots_to_zones_the_key_did_not_use() {
    let mut rng = Rng::new(14);
    let keys = keys();
    for case in 0..if cfg!(miri) { 1 } else { 8 } {
        let k = 1 + case % 3;
        let zones = k + 1 + rng.below(3) as usize;
        let old = roomy(&mut rng, zones, k, 0, 0);
        let lost = format!("z{}", rng.below(zones as u64));
        let mut new = old.clone();
        for (n, name) in old.nodes().iter().enumerate() {
            if old.zone_of(n) == Some(lost.as_str()) {
                new = NodeRemoval::new(&new, name)
                    .unwrap()
                    .table(&Removal::Memento)
                    .unwrap();
            }
        }
        let (before, after) = (sets(&old, &keys, k), sets(&new, &keys, k));
        let (mut moved_slots, mut exceptions) = (0usize, 0usize);
        for (i, (o, n)) in before.iter().zip(&after).enumerate() {
            let (gone, come) = moved(&named(&old, o), &named(&new, n));
            let old_zones: BTreeSet<String> =
                named(&old, o).iter().map(|m| zone(&old, m)).collect();
            assert!(named(&new, n).iter().all(|m| zone(&new, m) != lost));
            if zone(&old, old.node(keys[i])) == lost {
                exceptions += 1;
                continue;
            }
            assert!(gone.iter().all(|g| zone(&old, g) == lost), "{gone:?}");
            assert!(come.iter().all(|c| !old_zones.contains(&zone(&new, c))));
            moved_slots += gone.len();
        }
        eprintln!(
            "zone lost ({zones} zones, k {k}): {:.4} of slots moved; {:.4} of keys had their primary there",
            moved_slots as f64 / (keys.len() * k) as f64,
            exceptions as f64 / keys.len() as f64
        );
    }
}

#[test]
fn a_zone_added_takes_slots_only_into_itself() {
    let mut rng = Rng::new(15);
    let keys = keys();
    for case in 0..if cfg!(miri) { 1 } else { 6 } {
        let k = 1 + case % 3;
        let zones = 1 + rng.below(4) as usize;
        let old = roomy(&mut rng, zones, k, 0, 0);
        let mut text = old.to_text();
        for i in 0..k + 1 {
            text.push_str(&format!("new-{i} zone=new\n"));
        }
        let new = NodeTable::parse(&text).unwrap();
        let (before, after) = (sets(&old, &keys, k), sets(&new, &keys, k));
        for (i, (o, n)) in before.iter().zip(&after).enumerate() {
            let (gone, come) = moved(&named(&old, o), &named(&new, n));
            if old.node(keys[i]) != new.node(keys[i]) {
                continue;
            }
            assert!(
                come.iter().all(|c| c.starts_with("new-")),
                "{gone:?} -> {come:?}"
            );
            assert!(gone.len() <= come.len());
        }
    }
}

/// Each node's count of rank `r` members against its exact expectation
/// with `k` or more zones and nothing removed: rank 1 is the node's share
/// of slots; a rank `r >= 2` falls in zone `z` with probability `(1 -
/// p_z) / (Z - 1)`, `p_z` the zone's share of slots, split evenly among
/// its nodes.
#[test]
#[cfg_attr(miri, ignore = "statistics over 10^5 keys take hours under Miri")]
fn every_rank_and_every_node_gets_its_fair_share() {
    let sizes = [3usize, 5, 8, 12, 20];
    let k = 3;
    let mut rng = Rng::new(16);
    let table = NodeTable::parse(&table_text(&mut rng, &sizes, 0, 0)).unwrap();
    let keys: Vec<u64> = (0..300_000).map(mix).collect();
    let rows = sets(&table, &keys, k);
    let n = table.nodes().len();
    let total = n as f64;
    let zones = sizes.len() as f64;
    let mut counts = vec![vec![0f64; n]; k];
    for row in &rows {
        for (r, &node) in row.iter().enumerate() {
            counts[r][node as usize] += 1.0;
        }
    }
    let mut worst = 0f64;
    for node in 0..n {
        let z: usize = table.zone_of(node).unwrap()[1..].parse().unwrap();
        let p = sizes[z] as f64 / total;
        let mut set_want = 0.0;
        for (r, count) in counts.iter().enumerate() {
            let share = if r == 0 {
                1.0 / total
            } else {
                (1.0 - p) / (zones - 1.0) / sizes[z] as f64
            };
            let want = share * keys.len() as f64;
            set_want += want;
            let got = count[node];
            assert!(
                (got - want).abs() < 6.0 * want.sqrt() + 1.0,
                "rank {}, node {node}: {got} against {want}",
                r + 1
            );
        }
        let got: f64 = counts.iter().map(|c| c[node]).sum();
        worst = worst.max((got / set_want - 1.0).abs());
    }
    assert!(worst < 0.05, "a node is {worst} off its fair share");
    eprintln!("largest deviation from a node's fair share: {worst:.4}");
}

/// The figures of docs/placement-zones.md: a three-zone cluster of 12
/// nodes losing a zone, and the exception's rate when one node of 1000 in
/// five zones is removed or added. Run with `--nocapture` to see them.
#[test]
#[cfg_attr(miri, ignore = "statistics over 10^5 keys take hours under Miri")]
fn figures_of_the_documentation() {
    let keys: Vec<u64> = (0..100_000).map(mix).collect();
    let mut text = String::new();
    for i in 0..12 {
        text.push_str(&format!("n{i} zone=z{}\n", i % 3));
    }
    let old = NodeTable::parse(&text).unwrap();
    let new = old.with_zone_lost("z2").unwrap();
    for k in 1..=3 {
        let (before, after) = (sets(&old, &keys, k), sets(&new, &keys, k));
        let (mut moved, mut out_of_zone, mut between) = (0usize, 0usize, 0usize);
        for (o, n) in before.iter().zip(&after) {
            let (gone, _) = moved_members(&old, o, &new, n);
            moved += gone.len();
            out_of_zone += gone.iter().filter(|g| zone(&old, g) == "z2").count();
            between += gone.iter().filter(|g| zone(&old, g) != "z2").count();
        }
        let slots = (keys.len() * k) as f64;
        eprintln!(
            "3 zones of 4, z2 lost, k {k}: {:.4} of slots move ({:.4} out of z2, {:.4} inside a surviving zone)",
            moved as f64 / slots,
            out_of_zone as f64 / slots,
            between as f64 / slots
        );
    }
    let mut text = String::new();
    for i in 0..1000 {
        text.push_str(&format!("n{i} zone=z{}\n", i % 5));
    }
    let old = NodeTable::parse(&text).unwrap();
    let removed = NodeRemoval::new(&old, "n500")
        .unwrap()
        .table(&Removal::Memento)
        .unwrap();
    let added = old.with_node_added("n1000", "z0", None).unwrap();
    for (what, new) in [("n500 removed", &removed), ("n1000 added in z0", &added)] {
        let k = 3;
        let (before, after) = (sets(&old, &keys, k), sets(new, &keys, k));
        let (mut moved, mut extra) = (0usize, 0usize);
        for (o, n) in before.iter().zip(&after) {
            let (gone, come) = moved_members(&old, o, new, n);
            moved += gone.len();
            let own = gone.iter().filter(|g| *g == "n500").count()
                + come.iter().filter(|c| *c == "n1000").count();
            extra += gone.len().saturating_sub(own.max(1).min(gone.len()));
        }
        eprintln!(
            "1000 nodes in 5 zones, {what}, k 3: {:.5} of slots move, {:.6} of keys move one more member (the exception)",
            moved as f64 / (keys.len() * k) as f64,
            extra as f64 / keys.len() as f64
        );
    }
}

fn moved_members(
    old: &NodeTable,
    o: &[u32],
    new: &NodeTable,
    n: &[u32],
) -> (Vec<String>, Vec<String>) {
    moved(&named(old, o), &named(new, n))
}
