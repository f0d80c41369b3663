//! A second, plain implementation of the zoned replica sets, written from
//! the construction in `jumpshard::zones`' documentation alone: one key at a
//! time, no batches, no lanes. The differential test holds the library's
//! batched walk to it.

use jumpshard::{BucketCount, Memento, NodeTable};

fn xxh64(key: u64, seed: u64) -> u64 {
    xxhash_rust::xxh64::xxh64(&key.to_le_bytes(), seed)
}

/// A zone or a rack: its id, its nodes in table order, their Memento.
struct Group {
    id: u64,
    nodes: Vec<usize>,
    live: usize,
    memento: Option<Memento>,
    /// Racks, when this is a zone whose nodes name any.
    racks: Vec<Group>,
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
    let live = nodes.len() - died.len();
    let memento = if live == 0 {
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
        nodes,
        live,
        memento,
        racks: Vec::new(),
    }
}

/// The zones of `table` with their racks.
fn zones(table: &NodeTable) -> Vec<Group> {
    let mut out = Vec::new();
    for zone in table.zones() {
        let zone_id = xxhash_rust::xxh64::xxh64(zone.as_bytes(), 0);
        let nodes: Vec<usize> = (0..table.nodes().len())
            .filter(|&n| table.zone_of(n) == Some(zone.as_str()))
            .collect();
        let mut g = group(table, zone_id, nodes.clone());
        if nodes.iter().any(|&n| table.rack_of(n).is_some()) {
            let mut names: Vec<String> = Vec::new();
            for &n in &nodes {
                let name = table.rack_of(n).unwrap_or(&table.nodes()[n]).to_string();
                if !names.contains(&name) {
                    names.push(name);
                }
            }
            for name in names {
                let members: Vec<usize> = nodes
                    .iter()
                    .copied()
                    .filter(|&n| table.rack_of(n).unwrap_or(&table.nodes()[n]) == name)
                    .collect();
                let id = xxhash_rust::xxh64::xxh64(name.as_bytes(), zone_id);
                g.racks.push(group(table, id, members));
            }
        }
        out.push(g);
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
        .filter(|&g| groups[g].live > 0 && Some(g) != primary.map(|p| p.0))
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
            if dealt < count && counts[i] < groups[g].live {
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

/// Step 4: `m` members inside `g`, of a set of `k`.
fn inside(g: &Group, key: u64, m: usize, k: usize, primary: Option<usize>) -> Vec<usize> {
    if m == 0 {
        return Vec::new();
    }
    if m == 1 {
        if let Some(p) = primary {
            return vec![p];
        }
    }
    if m >= 2 && !g.racks.is_empty() {
        let p = primary.map(|p| {
            let rack = g.racks.iter().position(|r| r.nodes.contains(&p)).unwrap();
            (rack, p)
        });
        return walk(&g.racks, key, p, m, k);
    }
    let derived = xxh64(key, g.id ^ 0x6A09_E667_F3BC_C908);
    let memento = g.memento.as_ref().unwrap();
    let local: Vec<usize> = if m == 1 {
        vec![memento.bucket(derived) as usize]
    } else {
        let mut set = vec![0u32; k.min(g.live)];
        memento.replicas(derived, &mut set).unwrap();
        set.iter().map(|&b| b as usize).collect()
    };
    let mut out: Vec<usize> = primary.into_iter().collect();
    for b in local {
        let node = g.nodes[b];
        if Some(node) != primary && out.len() < m {
            out.push(node);
        }
    }
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
