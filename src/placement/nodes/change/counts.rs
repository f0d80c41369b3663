//! What a change of table does to a set of keys, counted: moves, bucket
//! changes, transfers between nodes and loads before and after.

use std::collections::HashMap;

/// Node pairs counted in a matrix up to this many nodes, in a map beyond.
const DENSE_NODES: usize = 256;

/// Keys per (old node, new node) of the physical moves.
///
/// Beyond [`DENSE_NODES`] nodes the pairs are a hash map, one entry per
/// pair that moved keys: a change of a big table spreads its movers over
/// up to (old nodes) x (new nodes) pairs, millions over a table of 10^5
/// nodes, and an ordered map paid a search of cache misses per mover (a
/// fifth of `reshard`'s time there). The pairs are put in order only
/// when they are listed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Transfers {
    pub(super) nodes: usize,
    pub(super) dense: Vec<u64>,
    sparse: HashMap<(u32, u32), u64>,
}

impl Transfers {
    fn reset(&mut self, nodes: usize) {
        self.nodes = nodes;
        self.dense.clear();
        if nodes <= DENSE_NODES {
            self.dense.resize(nodes * nodes, 0);
        }
        self.sparse.clear();
    }

    #[inline]
    pub(super) fn add(&mut self, (from, to): (u32, u32), n: u64) {
        if self.nodes <= DENSE_NODES {
            self.dense[from as usize * self.nodes + to as usize] += n;
        } else if n > 0 {
            *self.sparse.entry((from, to)).or_insert(0) += n;
        }
    }

    /// The matrix's pairs, by increasing pair, zeros included.
    fn dense_pairs(&self) -> impl Iterator<Item = ((u32, u32), u64)> + '_ {
        let nodes = self.nodes.max(1);
        let pair = move |i: usize| ((i / nodes) as u32, (i % nodes) as u32);
        self.dense
            .iter()
            .enumerate()
            .map(move |(i, &n)| (pair(i), n))
    }

    /// The pairs with a move, in no particular order.
    fn unordered(&self) -> impl Iterator<Item = ((u32, u32), u64)> + '_ {
        let sparse = self.sparse.iter().map(|(&pair, &n)| (pair, n));
        self.dense_pairs().chain(sparse).filter(|&(_, n)| n > 0)
    }

    /// The pairs with a move, by increasing pair: the matrix's are in
    /// order already, the map's are sorted.
    fn ordered(&self) -> impl Iterator<Item = ((u32, u32), u64)> + '_ {
        let mut sparse: Vec<_> = self.sparse.iter().map(|(&pair, &n)| (pair, n)).collect();
        sparse.sort_unstable();
        self.dense_pairs().chain(sparse).filter(|&(_, n)| n > 0)
    }

    pub(super) fn total(&self) -> u64 {
        self.dense.iter().sum::<u64>() + self.sparse.values().sum::<u64>()
    }
}

/// What a change of table does to a set of keys: how many move, between
/// which nodes, and the load of every node before and after.
///
/// Loads are indexed like [`TableChange::nodes`](super::TableChange::nodes); a node absent from a
/// table has load 0 there. Balance is `max_over_mean`: the largest load
/// over the mean load of the table's distinct nodes (a node given two
/// slots on purpose shows about 2).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChangeCounts {
    pub(super) keys: u64,
    pub(super) moved: u64,
    pub(super) bucket_changes: u64,
    pub(super) transfers: Transfers,
    pub(super) load_before: Vec<u64>,
    pub(super) load_after: Vec<u64>,
    nodes_before: usize,
    nodes_after: usize,
}

impl ChangeCounts {
    /// Zero counts of `keys` keys over `nodes` nodes, `nodes_before` of
    /// them in the old table and `nodes_after` in the new one.
    pub(super) fn reset(
        &mut self,
        keys: u64,
        nodes: usize,
        nodes_before: usize,
        nodes_after: usize,
    ) {
        self.keys = keys;
        self.moved = 0;
        self.bucket_changes = 0;
        self.transfers.reset(nodes);
        self.load_before.clear();
        self.load_before.resize(nodes, 0);
        self.load_after.clear();
        self.load_after.resize(nodes, 0);
        self.nodes_before = nodes_before;
        self.nodes_after = nodes_after;
    }

    /// Adds `other`'s counts (of the same change) to these.
    pub fn merge(&mut self, other: &ChangeCounts) {
        self.keys += other.keys;
        self.moved += other.moved;
        self.bucket_changes += other.bucket_changes;
        for (pair, n) in other.transfers.unordered() {
            self.transfers.add(pair, n);
        }
        for (a, b) in self.load_before.iter_mut().zip(&other.load_before) {
            *a += b;
        }
        for (a, b) in self.load_after.iter_mut().zip(&other.load_after) {
            *a += b;
        }
    }

    /// The number of keys counted.
    pub fn keys(&self) -> u64 {
        self.keys
    }

    /// Keys whose node changes (physical moves).
    pub fn moved(&self) -> u64 {
        self.moved
    }

    /// Keys whose bucket number changes, whether or not their node does.
    pub fn bucket_changes(&self) -> u64 {
        self.bucket_changes
    }

    /// ((old node, new node), keys) for every pair with a physical move,
    /// by increasing pair.
    pub fn transfers(&self) -> impl Iterator<Item = ((u32, u32), u64)> + '_ {
        self.transfers.ordered()
    }

    /// The pairs of [`ChangeCounts::transfers`] in no particular order,
    /// without the sort: a change of a big table over many keys moves
    /// them between millions of pairs.
    pub fn transfers_unordered(&self) -> impl Iterator<Item = ((u32, u32), u64)> + '_ {
        self.transfers.unordered()
    }

    /// Keys per node before the change.
    pub fn load_before(&self) -> &[u64] {
        &self.load_before
    }

    /// Keys per node after the change.
    pub fn load_after(&self) -> &[u64] {
        &self.load_after
    }

    /// The balance before: largest node load over the mean.
    pub fn max_over_mean_before(&self) -> f64 {
        max_over_mean(&self.load_before, self.nodes_before)
    }

    /// The balance after: largest node load over the mean.
    pub fn max_over_mean_after(&self) -> f64 {
        max_over_mean(&self.load_after, self.nodes_after)
    }
}

/// The largest load over the mean of `nodes` nodes; the loads sum to the
/// keys, or to the replicas of a replica change.
fn max_over_mean(loads: &[u64], nodes: usize) -> f64 {
    let total: u64 = loads.iter().sum();
    if total == 0 {
        return 1.0;
    }
    let max = loads.iter().copied().max().unwrap_or(0);
    max as f64 * nodes as f64 / total as f64
}
