//! The failure domains of a zoned table as the walk sees them: each zone
//! (and, inside a zone that names racks, each rack) with its nodes in
//! table order and a Memento state over them, and the walk of one key
//! through them, level by level.

use std::collections::HashMap;

use crate::kernel::xxh64::one;
use crate::{BucketCount, Memento, NodeTable};

/// XORed into a domain's id to seed the derived key of its local choice,
/// so that the local choice and the domain's rendezvous score never share
/// a hash: the fractional digits of sqrt(2), as SHA-2 starts from them.
pub(super) const LOCAL: u64 = 0x6A09_E667_F3BC_C908;

/// The stable id of a domain name: XXH64 of its UTF-8 bytes with `seed`
/// (0 for a zone, the zone's id for a rack inside it).
pub(crate) fn domain_id(name: &str, seed: u64) -> u64 {
    xxhash_rust::xxh64::xxh64(name.as_bytes(), seed)
}

/// A zone or a rack.
#[derive(Clone, Debug)]
pub(crate) struct Domain {
    /// Its id: seeds its rendezvous score and (XORed with [`LOCAL`]) its
    /// local choice.
    pub(crate) id: u64,
    /// Its nodes, indices into the table's nodes, in table order: local
    /// bucket `b` is node `nodes[b]`.
    pub(crate) nodes: Vec<u32>,
    /// How many of them are live.
    pub(crate) live: usize,
    /// The local choice over `nodes`: the nodes that died, in the order
    /// they died, removed Memento-style. `None` when none is live.
    pub(crate) memento: Option<Memento>,
    /// Its racks, when it is a zone some of whose nodes name a rack (a node
    /// without one is a rack of its own); empty otherwise.
    pub(crate) racks: Vec<Domain>,
    /// The rack (index into `racks`) of each node, by table index.
    pub(crate) rack_of: HashMap<u32, u32>,
}

impl Domain {
    /// The domain named by `id` holding `nodes` of `table` (table order);
    /// `death` gives a dead node's place in the order nodes died.
    fn new(id: u64, nodes: Vec<u32>, table: &NodeTable, death: &HashMap<u32, u32>) -> Domain {
        let mut dead: Vec<(u32, u32)> = nodes
            .iter()
            .enumerate()
            .filter_map(|(b, n)| death.get(n).map(|&d| (d, b as u32)))
            .collect();
        dead.sort_unstable();
        let live = nodes.len() - dead.len();
        let memento = (live > 0).then(|| {
            let n = BucketCount::new(nodes.len() as u32).expect("a zone of a table's nodes");
            let mut m = Memento::new(n);
            for &(_, b) in &dead {
                // A live node stays, so no removal is the last working one.
                m.remove(b).expect("a working local bucket");
            }
            m
        });
        debug_assert!(nodes.iter().all(|&n| (n as usize) < table.nodes().len()));
        Domain {
            id,
            nodes,
            live,
            memento,
            racks: Vec::new(),
            rack_of: HashMap::new(),
        }
    }

    /// The local choice of `m` distinct live nodes for `key` in a set of
    /// `k` (`1 <= m <= min(k, live)`): Memento's bucket (for one), or the
    /// first `m` members of its replica set of `min(k, live)` over the
    /// derived key, with `primary`, when given, first and the set's first
    /// other members after it. The set's size depends on `k` and the live
    /// count only, not on `m`, so a zone asked for one more member (its
    /// share grew) keeps the members it had.
    pub(crate) fn flat(
        &self,
        key: u64,
        m: usize,
        k: usize,
        primary: Option<u32>,
        out: &mut Vec<u32>,
    ) {
        let memento = self.memento.as_ref().expect("a live domain");
        let derived = one(key, self.id ^ LOCAL);
        let mut set = vec![0u32; self.set_size(m, k)];
        if set.len() == 1 {
            set[0] = memento.bucket(derived);
        } else {
            memento
                .replicas(derived, &mut set)
                .expect("a set within the live nodes");
        }
        self.finish(set.iter().map(|&b| self.nodes[b as usize]), m, primary, out);
    }

    /// The size of the local replica set that gives `m` members of a set
    /// of `k`: one for one, else `min(k, live)`.
    pub(crate) fn set_size(&self, m: usize, k: usize) -> usize {
        if m == 1 {
            1
        } else {
            k.min(self.live)
        }
    }

    /// `out` gets `primary` (when given) then the `members` other than it,
    /// `m` in all.
    pub(crate) fn finish(
        &self,
        members: impl Iterator<Item = u32>,
        m: usize,
        primary: Option<u32>,
        out: &mut Vec<u32>,
    ) {
        let start = out.len();
        out.extend(primary);
        out.extend(members.filter(|&n| Some(n) != primary));
        out.truncate(start + m);
    }

    /// The `m` members of `key`'s set of `k` inside this domain, `primary`
    /// first when given: one level down through its racks when it has
    /// racks and holds several members, its flat local choice otherwise.
    pub(crate) fn members(
        &self,
        key: u64,
        m: usize,
        k: usize,
        primary: Option<u32>,
        out: &mut Vec<u32>,
    ) {
        match (m, primary) {
            (0, _) => {}
            (1, Some(p)) => out.push(p),
            _ if self.racks.is_empty() || m == 1 => self.flat(key, m, k, primary, out),
            _ => {
                let first = primary.map(|p| (self.rack_of[&p] as usize, p));
                walk(&self.racks, key, first, m, k, out);
            }
        }
    }
}

/// The live domains of `domains` in the walk's order for `key`: `first`
/// (the primary's) leading, then the others by descending rendezvous score
/// XXH64(key, domain id), ties by id.
pub(crate) fn order(domains: &[Domain], key: u64, first: Option<usize>) -> Vec<usize> {
    let mut scored: Vec<(u64, u64, usize)> = (0..domains.len())
        .filter(|&d| domains[d].live > 0 && Some(d) != first)
        .map(|d| (one(key, domains[d].id), domains[d].id, d))
        .collect();
    scored.sort_unstable_by(|a, b| b.cmp(a));
    first
        .into_iter()
        .chain(scored.iter().map(|s| s.2))
        .collect()
}

/// How many of `k` members each domain of `order` holds: one per domain
/// in turn, round after round, a domain out of live nodes passed over.
pub(crate) fn counts(domains: &[Domain], order: &[usize], k: usize) -> Vec<usize> {
    let mut m = Vec::with_capacity(order.len());
    counts_into(domains, order, k, &mut m);
    m
}

/// [`counts`] into `m`, reused from key to key.
pub(crate) fn counts_into(domains: &[Domain], order: &[usize], k: usize, m: &mut Vec<usize>) {
    m.clear();
    m.resize(order.len(), 0);
    // The common case: one round, a member in each of the first k.
    if k <= order.len() {
        m[..k].fill(1);
        return;
    }
    let mut left = k;
    while left > 0 {
        let before = left;
        for (i, &d) in order.iter().enumerate() {
            if left > 0 && m[i] < domains[d].live {
                m[i] += 1;
                left -= 1;
            }
        }
        assert!(left < before, "k within the live nodes");
    }
}

/// The `count` members of `key`'s set of `k` over `domains` in rank order
/// (round by round over the domains' order), `first` (the primary's
/// domain and node) leading.
pub(crate) fn walk(
    domains: &[Domain],
    key: u64,
    first: Option<(usize, u32)>,
    count: usize,
    k: usize,
    out: &mut Vec<u32>,
) {
    let order = order(domains, key, first.map(|f| f.0));
    let m = counts(domains, &order, count);
    let mut lists: Vec<Vec<u32>> = Vec::with_capacity(order.len());
    for (i, &d) in order.iter().enumerate() {
        let mut list = Vec::with_capacity(m[i]);
        let primary = first.filter(|f| f.0 == d).map(|f| f.1);
        domains[d].members(key, m[i], k, primary, &mut list);
        lists.push(list);
    }
    interleave(&lists, out);
}

/// The members of `lists` (one per domain, in the walk's order) in rank
/// order: each domain's first, then each one's second, and so on.
pub(crate) fn interleave(lists: &[Vec<u32>], out: &mut Vec<u32>) {
    let rounds = lists.iter().map(Vec::len).max().unwrap_or(0);
    for round in 0..rounds {
        out.extend(lists.iter().filter_map(|l| l.get(round)));
    }
}

/// The zones of a zoned `table`, in the order of their first node, each
/// with its racks when any of its nodes names one.
pub(crate) fn zones(table: &NodeTable) -> Vec<Domain> {
    let domains = table.domains().expect("a zoned table");
    let death = deaths(table);
    let mut zones: Vec<Vec<u32>> = vec![Vec::new(); domains.zones.len()];
    for node in 0..table.nodes().len() {
        zones[domains.zone[node] as usize].push(node as u32);
    }
    zones
        .into_iter()
        .enumerate()
        .map(|(z, nodes)| {
            let zone_id = domain_id(&domains.zones[z], 0);
            let mut zone = Domain::new(zone_id, nodes, table, &death);
            if zone
                .nodes
                .iter()
                .any(|&n| domains.rack[n as usize].is_some())
            {
                racks(&mut zone, table, &death);
            }
            zone
        })
        .collect()
}

/// Splits `zone` into its racks: a node without one is a rack of its own,
/// named by the node.
fn racks(zone: &mut Domain, table: &NodeTable, death: &HashMap<u32, u32>) {
    let domains = table.domains().expect("a zoned table");
    let mut by_name: HashMap<&str, usize> = HashMap::new();
    let mut lists: Vec<(u64, Vec<u32>)> = Vec::new();
    for &node in &zone.nodes {
        let name = match domains.rack[node as usize] {
            Some(r) => domains.racks[r as usize].as_str(),
            None => table.nodes()[node as usize].as_str(),
        };
        let r = *by_name.entry(name).or_insert_with(|| {
            lists.push((domain_id(name, zone.id), Vec::new()));
            lists.len() - 1
        });
        lists[r].1.push(node);
        zone.rack_of.insert(node, r as u32);
    }
    zone.racks = lists
        .into_iter()
        .map(|(id, nodes)| Domain::new(id, nodes, table, death))
        .collect();
}

/// Each dead node's place in the order nodes died: the removal number of
/// its last slot removed (a node dies when its last working slot goes).
fn deaths(table: &NodeTable) -> HashMap<u32, u32> {
    let mut last = HashMap::new();
    for (k, &slot) in table.removals().iter().enumerate() {
        last.insert(table.slot_nodes()[slot as usize], k as u32);
    }
    last.retain(|&node, _| !table.is_live(node as usize));
    last
}
