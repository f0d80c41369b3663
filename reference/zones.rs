//! A second, plain implementation of the zoned replica sets, written from
//! the construction in `jumpshard::zones`' documentation alone: one key at a
//! time, no batches, no lanes. The differential test holds the library's
//! batched walk to it.

use jumpshard::{BucketCount, Memento, NodeTable};

fn xxh64(key: u64, seed: u64) -> u64 {
    xxhash_rust::xxh64::xxh64(&key.to_le_bytes(), seed)
}

/// A zone: its id, its nodes in table order, their Memento, and each
/// node's rack: its rack's name, or its own name for a node without one
/// (kept apart from rack names by the flag).
struct Group {
    id: u64,
    nodes: Vec<usize>,
    live: Vec<bool>,
    memento: Option<Memento>,
    racks: Vec<(bool, String)>,
    names: Vec<String>,
}

fn group(table: &NodeTable, id: u64, nodes: Vec<usize>) -> Group {
    // The order nodes died: by the removal number of their last slot removed.
    let mut died: Vec<(usize, usize)> = Vec::new();
    for (position, &node) in nodes.iter().enumerate() {
        if table.is_live(node) {
            continue;
        }
        let last = table
            .removals()
            .iter()
            .rposition(|&slot| table.slot_nodes()[slot as usize] as usize == node)
            .expect("a dead node had a slot removed");
        died.push((last, position));
    }
    died.sort();
    let memento = if died.len() == nodes.len() {
        None
    } else {
        let mut m = Memento::new(BucketCount::new(nodes.len() as u32).unwrap());
        for &(_, position) in &died {
            m.remove(position as u32).unwrap();
        }
        Some(m)
    };
    Group {
        id,
        live: nodes.iter().map(|&n| table.is_live(n)).collect(),
        racks: (nodes.iter())
            .map(|&n| match table.rack_of(n) {
                Some(rack) => (true, rack.to_string()),
                None => (false, table.nodes()[n].clone()),
            })
            .collect(),
        names: nodes.iter().map(|&n| table.nodes()[n].clone()).collect(),
        nodes,
        memento,
    }
}

/// The zones of `table`.
fn zones(table: &NodeTable) -> Vec<Group> {
    let mut out = Vec::new();
    for zone in table.zones() {
        let zone_id = xxhash_rust::xxh64::xxh64(zone.as_bytes(), 0);
        let nodes: Vec<usize> = (0..table.nodes().len())
            .filter(|&n| table.zone_of(n) == Some(zone.as_str()))
            .collect();
        out.push(group(table, zone_id, nodes));
    }
    out
}

/// Steps 2 to 5 over `groups`, the primary (group, node) first: `count`
/// members of a set of `k`.
fn walk(
    groups: &[Group],
    key: u64,
    primary: Option<(usize, usize)>,
    count: usize,
    k: usize,
) -> Vec<usize> {
    let mut others: Vec<usize> = (0..groups.len())
        .filter(|&g| live(&groups[g]) > 0 && Some(g) != primary.map(|p| p.0))
        .collect();
    others.sort_by(|&a, &b| {
        let sa = (xxh64(key, groups[a].id), groups[a].id);
        let sb = (xxh64(key, groups[b].id), groups[b].id);
        sb.cmp(&sa)
    });
    let mut order = Vec::new();
    if let Some((g, _)) = primary {
        order.push(g);
    }
    order.extend(others);
    let mut counts = vec![0usize; order.len()];
    let mut dealt = 0;
    while dealt < count {
        for (i, &g) in order.iter().enumerate() {
            if dealt < count && counts[i] < live(&groups[g]) {
                counts[i] += 1;
                dealt += 1;
            }
        }
    }
    let mut lists = Vec::new();
    for (i, &g) in order.iter().enumerate() {
        let p = primary.filter(|p| p.0 == g).map(|p| p.1);
        lists.push(inside(&groups[g], key, counts[i], k, p));
    }
    let mut out = Vec::new();
    for round in 0..count {
        for list in &lists {
            if let Some(&n) = list.get(round) {
                out.push(n);
            }
        }
    }
    out
}

fn live(g: &Group) -> usize {
    g.live.iter().filter(|&&l| l).count()
}

/// Step 4: `m` members inside `g`, of a set of `k`: the first (the
/// primary, or Memento's bucket of the derived key), then the zone's
/// sequence without it, dealt over the racks when the zone names any.
fn inside(g: &Group, key: u64, m: usize, k: usize, primary: Option<usize>) -> Vec<usize> {
    if m == 0 {
        return Vec::new();
    }
    let first = primary.unwrap_or_else(|| {
        let derived = xxh64(key, g.id ^ 0x6A09_E667_F3BC_C908);
        g.nodes[g.memento.as_ref().unwrap().bucket(derived) as usize]
    });
    dealt(g, key, m, k, first)
}

/// The sequence of the nodes `list` (positions in `g`, table order) but
/// `skip`, for the derived key `XXH64(key, seed)`: the replica set of k
/// over max(n, k) buckets, its live nodes in rank order; then every other
/// live node by descending score, id. Nodes, not positions.
fn sequence(g: &Group, key: u64, list: &[usize], seed: u64, k: usize, skip: usize) -> Vec<usize> {
    let n = list.len();
    let mut order: Vec<usize> = Vec::new();
    for b in replica_set(key, seed, n, k) {
        if b < n && g.live[list[b]] && g.nodes[list[b]] != skip {
            order.push(list[b]);
        }
    }
    let mut rest: Vec<(u64, u64, usize)> = (0..n)
        .map(|b| list[b])
        .filter(|&p| g.live[p] && g.nodes[p] != skip && !order.contains(&p))
        .map(|p| {
            let id = node_id(g, p);
            (xxh64(key, id), id, p)
        })
        .collect();
    rest.sort();
    rest.reverse();
    order.extend(rest.iter().map(|r| r.2));
    order.iter().map(|&p| g.nodes[p]).collect()
}

/// The replica set of k over `XXH64(key, seed)` among max(n, k) buckets.
fn replica_set(key: u64, seed: u64, n: usize, k: usize) -> Vec<usize> {
    let mut set = vec![0u32; k];
    jumpshard::replicas::set(
        xxh64(key, seed),
        BucketCount::new(n.max(k) as u32).unwrap(),
        &mut set,
    )
    .unwrap();
    set.iter().map(|&b| b as usize).collect()
}

fn node_id(g: &Group, p: usize) -> u64 {
    xxhash_rust::xxh64::xxh64(g.names[p].as_bytes(), g.id ^ 0xBB67_AE85_84CA_A73B)
}

/// Step 4 over the zone's racks (a node without one, or every node of a
/// zone that names none, a rack of its own): `first`; round 1, each rack's
/// first node in the rack sequence (the replica set over the racks in
/// the order they appear, then rendezvous), `first`'s rack passed over;
/// rounds 2 on, each rack's next node, `first`'s rack first, then the
/// others by rendezvous. Each rack's nodes in the rack's own sequence.
fn dealt(g: &Group, key: u64, m: usize, k: usize, first: usize) -> Vec<usize> {
    let local = 0x6A09_E667_F3BC_C908;
    let mut racks: Vec<&(bool, String)> = Vec::new();
    for r in &g.racks {
        if !racks.contains(&r) {
            racks.push(r);
        }
    }
    let home = &g.racks[g.nodes.iter().position(|&x| x == first).unwrap()];
    // Each rack: its id, whether it serves (live, not first's), its nodes.
    let lists: Vec<(u64, bool, Vec<usize>)> = racks
        .iter()
        .map(|&r| {
            let list: Vec<usize> = (0..g.nodes.len()).filter(|&p| &g.racks[p] == r).collect();
            let id = match r.0 {
                true => xxhash_rust::xxh64::xxh64(r.1.as_bytes(), g.id ^ 0x3C6E_F372_FE94_F82B),
                false => node_id(g, list[0]),
            };
            let seq = sequence(g, key, &list, id ^ local, k, first);
            (id, r != home && !seq.is_empty(), seq)
        })
        .collect();
    let mut by_score: Vec<(u64, u64, usize)> = (0..racks.len())
        .filter(|&r| lists[r].1)
        .map(|r| (xxh64(key, lists[r].0), lists[r].0, r))
        .collect();
    by_score.sort();
    by_score.reverse();
    let mut round_one: Vec<usize> = Vec::new();
    for b in replica_set(key, g.id ^ local, racks.len(), k) {
        if b < racks.len() && lists[b].1 {
            round_one.push(b);
        }
    }
    for s in &by_score {
        if !round_one.contains(&s.2) {
            round_one.push(s.2);
        }
    }
    let mut out = vec![first];
    out.extend(round_one.iter().map(|&r| lists[r].2[0]));
    let own = racks.iter().position(|&r| r == home).unwrap();
    for round in 0..g.nodes.len() {
        out.extend(lists[own].2.get(round));
        out.extend(by_score.iter().filter_map(|s| lists[s.2].2.get(round + 1)));
    }
    out.truncate(m);
    out
}

/// The zoned set of `key` in `table`, `k` nodes in rank order.
pub fn set(table: &NodeTable, key: u64, k: usize) -> Vec<usize> {
    let groups = zones(table);
    let p = table.node_index(table.node(key)).unwrap();
    let zone = table
        .zones()
        .iter()
        .position(|z| Some(z.as_str()) == table.zone_of(p));
    walk(&groups, key, Some((zone.unwrap(), p)), k, k)
}
