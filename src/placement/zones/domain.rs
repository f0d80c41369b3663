//! The zones of a zoned table as the walk sees them: each zone with its
//! nodes in table order, a Memento state over them for its first member,
//! and its racks for the order of its other members; and the walk of one
//! key through them.

use std::collections::HashMap;

use crate::kernel::xxh64::one;
use crate::{BucketCount, Memento, NodeTable};

/// XORed into a zone's id to seed the derived key of its members (the
/// first member's Memento choice and the sequence's replica set), so that
/// they and the zone's rendezvous score never share a hash: the
/// fractional digits of sqrt(2), as SHA-2 starts from them.
pub(super) const LOCAL: u64 = 0x6A09_E667_F3BC_C908;

/// XORed into a zone's id to seed a node's id, which scores the node for
/// the members past the sequence's replica set: the fractional digits of
/// sqrt(3), SHA-2's next.
pub(super) const NODE: u64 = 0xBB67_AE85_84CA_A73B;

/// The stable id of a domain name: XXH64 of its UTF-8 bytes with `seed`
/// (0 for a zone, the zone's id XOR [`NODE`] for a node).
pub(crate) fn domain_id(name: &str, seed: u64) -> u64 {
    xxhash_rust::xxh64::xxh64(name.as_bytes(), seed)
}

/// A zone.
#[derive(Clone, Debug)]
pub(crate) struct Domain {
    /// Its id: seeds its rendezvous score, its nodes' ids and (XORed with
    /// [`LOCAL`]) its derived key.
    pub(crate) id: u64,
    /// Its nodes, indices into the table's nodes, in table order: local
    /// bucket `b` is node `nodes[b]`.
    pub(crate) nodes: Vec<u32>,
    /// How many of them are live.
    pub(crate) live: usize,
    /// The first member's choice over `nodes`: the nodes that died, in the
    /// order they died, removed Memento-style. `None` when none is live.
    pub(crate) memento: Option<Memento>,
    /// Per local bucket: whether its node is live, its id, and its rack (a
    /// node without a rack is one of its own).
    alive: Vec<bool>,
    node_ids: Vec<u64>,
    rack: Vec<u32>,
    /// Whether any node names a rack, and how many racks there are.
    named_racks: bool,
    racks: usize,
    /// Each node's local bucket.
    local: HashMap<u32, u32>,
}

impl Domain {
    /// The zone named by `id` holding `nodes` of `table` (table order);
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
        let domains = table.domains().expect("a zoned table");
        let mut named: HashMap<u32, u32> = HashMap::new();
        let mut racks = 0;
        let mut rack = Vec::with_capacity(nodes.len());
        for &node in &nodes {
            let r = match domains.rack[node as usize] {
                Some(name) => *named.entry(name).or_insert(racks),
                None => racks,
            };
            racks += u32::from(r == racks);
            rack.push(r);
        }
        Domain {
            id,
            alive: nodes.iter().map(|&n| table.is_live(n as usize)).collect(),
            node_ids: (nodes.iter())
                .map(|&n| domain_id(&table.nodes()[n as usize], id ^ NODE))
                .collect(),
            rack,
            named_racks: !named.is_empty(),
            racks: racks as usize,
            local: (nodes.iter().enumerate())
                .map(|(b, &node)| (node, b as u32))
                .collect(),
            nodes,
            live,
            memento,
        }
    }

    /// The first member of `key`'s set here when the zone does not hold
    /// its primary: Memento's bucket of the derived key over the zone's
    /// nodes.
    pub(crate) fn first(&self, key: u64) -> u32 {
        let memento = self.memento.as_ref().expect("a live zone");
        self.nodes[memento.bucket(one(key, self.id ^ LOCAL)) as usize]
    }

    /// The `m` members of `key`'s set of `k` inside this zone (`m` at most
    /// its live nodes): `primary` when given, else [`Domain::first`], then
    /// [`Domain::others`].
    pub(crate) fn members(
        &self,
        key: u64,
        m: usize,
        k: usize,
        primary: Option<u32>,
        out: &mut Vec<u32>,
    ) {
        if m == 0 {
            return;
        }
        let first = primary.unwrap_or_else(|| self.first(key));
        out.push(first);
        self.others(key, first, m - 1, k, out);
    }

    /// The `count` members of `key`'s set of `k` here after `first`, pushed
    /// in rank order: the next nodes of the zone's order for the key (see
    /// [`crate::zones`], step 4). The order does not depend on `count`,
    /// so a zone asked for one more member keeps the ones it had.
    pub(crate) fn others(&self, key: u64, first: u32, count: usize, k: usize, out: &mut Vec<u32>) {
        if count == 0 {
            return;
        }
        let mut set = vec![0u32; k];
        crate::replicas::set(self.derived(key), self.axis(k), &mut set).expect("k within the axis");
        self.others_in(key, first, count, &set, out);
    }

    /// The derived key of the zone's members: `XXH64(key, id ^ LOCAL)`.
    pub(crate) fn derived(&self, key: u64) -> u64 {
        one(key, self.id ^ LOCAL)
    }

    /// The buckets of the replica sets of `k` that start the zone's
    /// sequences: `max(n, k)`, `n` the zone's nodes.
    pub(crate) fn axis(&self, k: usize) -> BucketCount {
        BucketCount::new(self.nodes.len().max(k) as u32).expect("a zone's nodes or a set's members")
    }

    /// [`Domain::others`] with the replica set of the derived key among
    /// [`Domain::axis`] buckets given (`set`, in rank order), as a batch
    /// of such sets gives it.
    pub(crate) fn others_in(
        &self,
        key: u64,
        first: u32,
        count: usize,
        set: &[u32],
        out: &mut Vec<u32>,
    ) {
        if count == 0 {
            return;
        }
        let start = out.len();
        if self.named_racks && self.first_round(first, count, set, out) {
            return;
        }
        let mut order = Vec::with_capacity(count + 1);
        order.push(first);
        let want = if self.named_racks { usize::MAX } else { count };
        self.sequence(key, first, set, want, &mut order);
        if self.named_racks {
            self.dealt(&mut order);
        }
        out.extend(order.iter().skip(1).take(count));
        debug_assert_eq!(out.len() - start, count, "members within the live nodes");
    }

    /// The dealt members after `first` when the replica set alone names
    /// `count` racks other than `first`'s: they are then the dealing's
    /// first round (each new rack's first node, in the order the racks
    /// come), which no node past the set can precede. Pushes them and
    /// returns true, or pushes nothing and returns false.
    fn first_round(&self, first: u32, count: usize, set: &[u32], out: &mut Vec<u32>) -> bool {
        let n = self.nodes.len();
        let home = self.rack[self.local[&first] as usize];
        let mut found: Vec<(u32, u32)> = Vec::with_capacity(count);
        for &b in set {
            let b = b as usize;
            if b >= n || !self.alive[b] || self.nodes[b] == first {
                continue;
            }
            let rack = self.rack[b];
            if rack != home && found.iter().all(|&(r, _)| r != rack) {
                found.push((rack, self.nodes[b]));
                if found.len() == count {
                    out.extend(found.iter().map(|f| f.1));
                    return true;
                }
            }
        }
        false
    }

    /// Pushes the live nodes but `first` in the zone's sequence for `key`,
    /// `want` of them at most: the members of `set` (the replica set of
    /// `k` over the derived key among `max(n, k)` buckets, `n` the zone's
    /// nodes) in rank order, those of live nodes; then the other live
    /// nodes by descending rendezvous score `XXH64(key, node id)`, ties by
    /// the larger id.
    fn sequence(&self, key: u64, first: u32, set: &[u32], want: usize, order: &mut Vec<u32>) {
        let n = self.nodes.len();
        let base = order.len();
        let taken = |b: usize| b < n && self.alive[b] && self.nodes[b] != first;
        for &b in set {
            if order.len() - base == want {
                return;
            }
            if taken(b as usize) {
                order.push(self.nodes[b as usize]);
            }
        }
        if order.len() - base == want || order.len() - base + 1 == self.live {
            return;
        }
        let listed: Vec<bool> = (0..n).map(|b| set.contains(&(b as u32))).collect();
        let mut rest: Vec<(u64, u64, u32)> = (0..n)
            .filter(|&b| taken(b) && !listed[b])
            .map(|b| (one(key, self.node_ids[b]), self.node_ids[b], self.nodes[b]))
            .collect();
        rest.sort_unstable_by(|a, b| b.cmp(a));
        let more = want.saturating_sub(order.len() - base);
        order.extend(rest.iter().take(more).map(|r| r.2));
    }

    /// Deals `order` (every live node, the first member leading) over the
    /// racks: round by round, the racks in the order their first nodes
    /// come, each rack's nodes in theirs, a rack out of nodes passed over.
    fn dealt(&self, order: &mut [u32]) {
        // Each rack's place among the racks as they come, and its nodes.
        let mut place = vec![u32::MAX; self.racks];
        let mut lists: Vec<Vec<u32>> = Vec::new();
        for &node in order.iter() {
            let rack = self.rack[self.local[&node] as usize] as usize;
            if place[rack] == u32::MAX {
                place[rack] = lists.len() as u32;
                lists.push(Vec::new());
            }
            lists[place[rack] as usize].push(node);
        }
        let mut i = 0;
        for round in 0.. {
            let before = i;
            for list in &lists {
                if let Some(&node) = list.get(round) {
                    order[i] = node;
                    i += 1;
                }
            }
            if i == before {
                break;
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

/// The zones of a zoned `table`, in the order of their first node.
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
        .map(|(z, nodes)| Domain::new(domain_id(&domains.zones[z], 0), nodes, table, &death))
        .collect()
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
