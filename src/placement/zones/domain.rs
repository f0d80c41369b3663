//! The zones of a zoned table as the walk sees them: each zone with its
//! nodes in table order, a Memento state over them for its first member,
//! and its racks for the order of its other members; and the walk of one
//! key through them.

use std::collections::HashMap;

use crate::kernel::xxh64::one;
use crate::{BucketCount, Memento, NodeTable};

mod racks;

/// XORed into a zone's id to seed the derived key of its members (the
/// first member's Memento choice and the sequence's replica set), so that
/// they and the zone's rendezvous score never share a hash: the
/// fractional digits of sqrt(2), as SHA-2 starts from them.
pub(super) const LOCAL: u64 = 0x6A09_E667_F3BC_C908;

/// XORed into a zone's id to seed a node's id, which scores the node for
/// the members past the sequence's replica set: the fractional digits of
/// sqrt(3), SHA-2's next.
pub(super) const NODE: u64 = 0xBB67_AE85_84CA_A73B;

/// XORed into a zone's id to seed a named rack's id, which scores the
/// rack in the key's order of racks and (XORed with [`LOCAL`]) seeds the
/// derived key of the rack's sequence: the fractional digits of sqrt(5),
/// SHA-2's third.
pub(super) const RACK: u64 = 0x3C6E_F372_FE94_F82B;

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
    /// node without a rack is one of its own), an index into `racks`.
    alive: Vec<bool>,
    node_ids: Vec<u64>,
    rack: Vec<u32>,
    /// The zone's racks, in the order of their first nodes, when any node
    /// names one; else none.
    racks: Vec<Rack>,
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
        let alive: Vec<bool> = nodes.iter().map(|&n| table.is_live(n as usize)).collect();
        let node_ids: Vec<u64> = (nodes.iter())
            .map(|&n| domain_id(&table.nodes()[n as usize], id ^ NODE))
            .collect();
        let (rack, racks) = racks(table, id, &nodes, &alive, &node_ids);
        Domain {
            id,
            alive,
            node_ids,
            rack,
            racks,
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
    /// sequences: `max(n, k)`, `n` the zone's nodes, or its racks when it
    /// names any.
    pub(crate) fn axis(&self, k: usize) -> BucketCount {
        let n = if self.names_racks() {
            self.racks.len()
        } else {
            self.nodes.len()
        };
        BucketCount::new(n.max(k) as u32).expect("a zone's nodes or a set's members")
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
        if self.names_racks() {
            self.dealt(key, first, count, set, out);
        } else {
            let all = (self.nodes.len(), |b| b);
            sequence(self, key, first, set, all, count, out);
        }
        debug_assert_eq!(out.len() - start, count, "members within the live nodes");
    }

    /// Whether a node of the zone names a rack: its members past the first
    /// are then dealt over its racks, not read off one sequence.
    fn names_racks(&self) -> bool {
        !self.racks.is_empty()
    }
}

/// Pushes `zone`'s live nodes among its local buckets `local(0..n)` (a
/// list in table order: the zone's, or a rack's) but `first`, in the
/// sequence's order ([`in_sequence`]), `want` of them at most, `set` being
/// the replica set of the list's derived key over `max(n, k)`, bucket `b`
/// being `local(b)`.
fn sequence(
    zone: &Domain,
    key: u64,
    first: u32,
    set: &[u32],
    (n, local): (usize, impl Fn(usize) -> usize),
    want: usize,
    out: &mut Vec<u32>,
) {
    let taken = |b: usize| zone.alive[local(b)] && zone.nodes[local(b)] != first;
    let id = |b: usize| zone.node_ids[local(b)];
    in_sequence(key, set, n, taken, id, want, |b| {
        out.push(zone.nodes[local(b)])
    });
}

/// Gives `emit` the positions `0..n` that `taken` keeps, `want` of them at
/// most, in a sequence's order for `key`: those of `set` (a replica set
/// over `max(n, k)` buckets) in rank order, then the others by descending
/// rendezvous score `XXH64(key, id(b))`, ties by the larger id. A zone's
/// nodes, a rack's nodes and a zone's racks are ordered so.
fn in_sequence(
    key: u64,
    set: &[u32],
    n: usize,
    taken: impl Fn(usize) -> bool,
    id: impl Fn(usize) -> u64,
    want: usize,
    mut emit: impl FnMut(usize),
) {
    let mut given = 0;
    for &b in set
        .iter()
        .filter(|&&b| (b as usize) < n && taken(b as usize))
    {
        if given == want {
            return;
        }
        emit(b as usize);
        given += 1;
    }
    if given == want {
        return;
    }
    let mut rest: Vec<(u64, u64, usize)> = (0..n)
        .filter(|&b| taken(b) && !set.contains(&(b as u32)))
        .map(|b| (one(key, id(b)), id(b), b))
        .collect();
    rest.sort_unstable_by(|a, b| b.cmp(a));
    rest.iter().take(want - given).for_each(|r| emit(r.2));
}

/// A rack of a zone.
#[derive(Clone, Debug)]
pub(crate) struct Rack {
    /// Its id: a named rack's is XXH64 of its name seeded with the zone's
    /// id `^` [`RACK`], a node's own rack's is the node's id. It scores
    /// the rack in a key's order and, XORed with [`LOCAL`], seeds the
    /// derived key of its sequence.
    pub(super) id: u64,
    /// Its nodes' local buckets in table order.
    pub(super) buckets: Vec<u32>,
    /// How many of them are live.
    pub(super) live: usize,
}

/// Each of `nodes`' rack (an index into the racks) and the racks of the
/// zone `zone_id` holding them, in the order of their first nodes: none
/// when no node names a rack.
fn racks(
    table: &NodeTable,
    zone_id: u64,
    nodes: &[u32],
    alive: &[bool],
    node_ids: &[u64],
) -> (Vec<u32>, Vec<Rack>) {
    let domains = table.domains().expect("a zoned table");
    let named = |&n: &u32| domains.rack[n as usize];
    if nodes.iter().all(|n| named(n).is_none()) {
        return (Vec::new(), Vec::new());
    }
    let mut index: HashMap<u32, u32> = HashMap::new();
    let (mut rack, mut racks) = (Vec::with_capacity(nodes.len()), Vec::<Rack>::new());
    for (b, node) in nodes.iter().enumerate() {
        let r = match named(node) {
            Some(name) => *index.entry(name).or_insert(racks.len() as u32),
            None => racks.len() as u32,
        };
        if r as usize == racks.len() {
            let id = match named(node) {
                Some(name) => domain_id(&domains.racks[name as usize], zone_id ^ RACK),
                None => node_ids[b],
            };
            racks.push(Rack {
                id,
                buckets: Vec::new(),
                live: 0,
            });
        }
        let entry = &mut racks[r as usize];
        entry.buckets.push(b as u32);
        entry.live += usize::from(alive[b]);
        rack.push(r);
    }
    (rack, racks)
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
