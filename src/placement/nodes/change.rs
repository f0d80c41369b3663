//! Changes of node table: for each key, its old node
//! `old[jump(k, N)]` and its new node `new[jump(k, M)]`; the key moves
//! physically when the two differ.
//!
//! Whatever the names, the bucket numbers change as a [`crate::Resize`]
//! from N to M changes them: jump hash is monotone, so one evaluation at
//! `max(N, M)` buckets decides, for every key, whether its bucket number
//! changes, and only those keys are evaluated at `min(N, M)`. The tables
//! then decide which changes are physical: a key whose bucket changed may
//! still land on the same node (a heavier node's other slot), and a key
//! whose bucket stayed moves when its slot changed hands. So appending to
//! or truncating a table costs what the plain resize costs, an arbitrary
//! change of table little more, and a change that keeps N (pointing a
//! slot at another node) one evaluation per key.
//!
//! When either table has removed slots, weights or overrides, keys are not
//! placed by Figure 1 alone and the shortcut does not hold: every key is
//! then placed in both tables (on the kernels, in batches, overrides
//! applied) and compared, so the plan of a Memento removal, a restore, a
//! weight change or new overrides lists exactly the keys whose node
//! changes. Replica-set plans consult them as
//! [`NodeTable::replicas_batch`] does: a pinned key's node first.
//!
//! ```
//! use jumpshard::{NodePlan, NodeTable, TableChange};
//!
//! let old = NodeTable::parse("a\nb\nc\n")?;
//! let new = NodeTable::parse("a\nb\nc\nd\n")?; // grow by one node
//! let change = TableChange::new(&old, &new);
//! let keys: Vec<u64> = (0..100_000u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
//! let mut plan = NodePlan::new();
//! change.plan(&keys, 0, &mut plan, true);
//! for m in plan.moves() {
//!     let key = keys[m.position as usize];
//!     assert_eq!(change.nodes()[m.from as usize], old.node(key));
//!     assert_eq!(change.nodes()[m.to as usize], "d"); // growing, keys only go to the new node
//! }
//! let counts = plan.counts();
//! assert_eq!(counts.moved(), plan.len() as u64);
//! assert!((counts.moved() as f64 / 100_000.0 - 0.25).abs() < 0.01);
//! assert!(counts.max_over_mean_after() < 1.05);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod counts;
mod replicas;

pub use counts::ChangeCounts;

use super::overrides::Overrides;
use super::placement::Placement;
use crate::plan::counter::tally;
use crate::{active_kernel, BucketCount, NodeTable, PlanScratch};

/// A change from an old table to a new one, ready to plan batches of keys.
#[derive(Clone, Debug)]
pub struct TableChange {
    /// Every node of either table: the old table's, then the new-only ones.
    nodes: Vec<String>,
    old_slots: Vec<u32>,
    new_slots: Vec<u32>,
    in_old: Vec<bool>,
    in_new: Vec<bool>,
    /// The slots below `min(N, M)` whose node differs.
    reassigned: Vec<u32>,
    /// Per slot below `min(N, M)`: whether it is in `reassigned`.
    is_reassigned: Vec<bool>,
    /// Both tables' placements, when either places keys other than by
    /// Figure 1 alone.
    both: Option<Box<(Placement, Placement)>>,
    /// Both tables' overrides, when either has some (and `both` is set).
    pins: Option<Box<(Overrides, Overrides)>>,
    /// Members per key: 1, or a replica change's `k`.
    replicas: usize,
    /// Both zoned tables, when the change is of zoned replica sets.
    zoned: Option<Box<(NodeTable, NodeTable)>>,
}

/// Keys placed per round when both tables are evaluated in full.
const ROUND: usize = 4096;

impl TableChange {
    /// The change from `old` to `new`.
    pub fn new(old: &NodeTable, new: &NodeTable) -> TableChange {
        let mut nodes: Vec<String> = old.nodes().to_vec();
        let mut new_ids = Vec::with_capacity(new.nodes().len());
        for name in new.nodes() {
            let id = match old.node_index(name) {
                Some(i) => i,
                None => {
                    nodes.push(name.clone());
                    nodes.len() - 1
                }
            };
            new_ids.push(id as u32);
        }
        let old_slots = old.slot_nodes().to_vec();
        let new_slots: Vec<u32> = new
            .slot_nodes()
            .iter()
            .map(|&n| new_ids[n as usize])
            .collect();
        // A node is in a table when it serves a slot that is not removed.
        let mut in_old = vec![false; nodes.len()];
        let mut in_new = vec![false; nodes.len()];
        for (slot, &n) in old_slots.iter().enumerate() {
            in_old[n as usize] |= !old.is_removed(slot);
        }
        for (slot, &n) in new_slots.iter().enumerate() {
            in_new[n as usize] |= !new.is_removed(slot);
        }
        let common = old_slots.len().min(new_slots.len());
        // Overridden keys are placed in both tables like every key.
        let pinned = !old.pins().is_empty() || !new.pins().is_empty();
        let is_reassigned: Vec<bool> = (0..common).map(|i| old_slots[i] != new_slots[i]).collect();
        let reassigned = (0..common as u32)
            .filter(|&i| is_reassigned[i as usize])
            .collect();
        TableChange {
            nodes,
            old_slots,
            new_slots,
            in_old,
            in_new,
            reassigned,
            is_reassigned,
            both: (!old.is_plain() || !new.is_plain() || pinned)
                .then(|| Box::new((old.placement().clone(), new.placement().clone()))),
            pins: pinned.then(|| Box::new((old.pins().clone(), new.pins().clone()))),
            replicas: 1,
            zoned: None,
        }
    }

    /// Whether either table has removed slots, weights or overrides, so
    /// that every key is placed in both (see the module documentation).
    pub fn evaluates_both(&self) -> bool {
        self.both.is_some()
    }

    /// Every node of either table, the old table's first; moves and counts
    /// name nodes by their index here.
    pub fn nodes(&self) -> &[String] {
        &self.nodes
    }

    /// Whether node `i` of [`TableChange::nodes`] is in the old table.
    pub fn in_old(&self, i: usize) -> bool {
        self.in_old[i]
    }

    /// Whether node `i` of [`TableChange::nodes`] is in the new table.
    pub fn in_new(&self, i: usize) -> bool {
        self.in_new[i]
    }

    /// Whether the new table only appends slots to the old one or drops
    /// its last slots (no slot they share changes hands), both placing
    /// keys by Figure 1 alone.
    pub fn is_append_or_truncate(&self) -> bool {
        self.reassigned.is_empty() && self.both.is_none()
    }

    /// One key's (old node, new node), as indices in
    /// [`TableChange::nodes`], evaluating both tables in full: the
    /// definition that [`TableChange::plan`] computes faster.
    pub fn nodes_of(&self, key: u64) -> (u32, u32) {
        if let Some(both) = &self.both {
            let (mut old, mut new) = (
                both.0.bucket(key, self.old_count()),
                both.1.bucket(key, self.new_count()),
            );
            if let Some(pins) = &self.pins {
                (old, new) = (pins.0.slot(key, old), pins.1.slot(key, new));
            }
            return (self.old_slots[old as usize], self.new_slots[new as usize]);
        }
        let n = self.old_slots.len() as u32;
        let m = self.new_slots.len() as u32;
        let old = crate::kernel::scalar::jump(key, n);
        let new = crate::kernel::scalar::jump(key, m);
        (self.old_slots[old as usize], self.new_slots[new as usize])
    }

    /// Plans `keys` (key `keys[i]` at position `first_position + i`),
    /// replacing what `plan` held: its counts always, and its list of
    /// physical moves when `list_moves` (the counts alone cost less).
    pub fn plan(&self, keys: &[u64], first_position: u64, plan: &mut NodePlan, list_moves: bool) {
        if self.replicas > 1 || self.zoned.is_some() {
            return self.plan_replicas(keys, first_position, plan, list_moves);
        }
        if let Some(both) = &self.both {
            return self.plan_both(&both.0, &both.1, keys, first_position, plan, list_moves);
        }
        let kernel = active_kernel();
        let (n, m) = (self.old_slots.len(), self.new_slots.len());
        // Keeping N counts as growing: there are no movers then.
        let grows = m >= n;
        let (decider, common) = (n.max(m), n.min(m));
        plan.reset(self, keys.len());
        let NodePlan {
            positions,
            from,
            to,
            counts,
            decided,
            second,
            scratch,
            evaluated,
            pairs,
            ..
        } = plan;
        decided.clear();
        decided.resize(decider, 0);
        second.clear();
        second.resize(common, 0);
        let thresholds = (decider as u32, common as u32);
        scratch.run(kernel, keys, first_position, thresholds, |block| {
            tally(decided, 0, block.buckets);
            let movers = block.movers;
            evaluated.resize(movers, 0);
            kernel.run(&block.staged.keys[..movers], common as u32, evaluated);
            tally(second, 0, evaluated);
            counts.bucket_changes += movers as u64;
            // The movers' (old node, new node), counted in the matrix
            // without a branch (a key staying on its node adds 0 to the
            // diagonal) unless there are too many nodes for one.
            pairs.clear();
            let movers_pairs = block.staged.buckets[..movers].iter().zip(&*evaluated);
            let (old_slots, new_slots) = (&self.old_slots, &self.new_slots);
            let transfers = &mut counts.transfers;
            let width = transfers.nodes;
            for (&decided, &evaluated) in movers_pairs {
                let (old, new) = if grows {
                    (evaluated, decided)
                } else {
                    (decided, evaluated)
                };
                let pair = (old_slots[old as usize], new_slots[new as usize]);
                let moves = u64::from(pair.0 != pair.1);
                match transfers
                    .dense
                    .get_mut(pair.0 as usize * width + pair.1 as usize)
                {
                    Some(count) => *count += moves,
                    None => transfers.add(pair, moves),
                }
                if list_moves {
                    pairs.push(pair);
                }
            }
            if !list_moves {
                return;
            }
            let mut push = |position: u64, (old, new): (u32, u32)| {
                if old != new {
                    positions.push(position);
                    from.push(old);
                    to.push(new);
                }
            };
            if self.reassigned.is_empty() {
                for (i, &pair) in pairs.iter().enumerate() {
                    push(block.staged.positions[i], pair);
                }
                return;
            }
            // Keys whose slot changed hands lie between the movers: walk
            // the block in order.
            let mut next = 0;
            for (i, &b) in block.buckets.iter().enumerate() {
                let pair = if b as usize >= common {
                    next += 1;
                    pairs[next - 1]
                } else if self.is_reassigned[b as usize] {
                    (self.old_slots[b as usize], self.new_slots[b as usize])
                } else {
                    continue;
                };
                push(block.base + i as u64, pair);
            }
        });
        // The keys that kept their bucket number: in slot b < min(N, M)
        // of the deciding evaluation.
        for &slot in &self.reassigned {
            let pair = (self.old_slots[slot as usize], self.new_slots[slot as usize]);
            counts.transfers.add(pair, decided[slot as usize]);
        }
        counts.moved = counts.transfers.total();
        // Growing (or keeping N), `decided` counts every key's new slot,
        // and an old slot holds its keys that stayed plus the movers whose
        // second evaluation lands there; shrinking, the other way round.
        for (slot, &node) in self.old_slots.iter().enumerate() {
            let stayed_or_all = decided[slot];
            let arrived = if grows { second[slot] } else { 0 };
            counts.load_before[node as usize] += stayed_or_all + arrived;
        }
        for (slot, &node) in self.new_slots.iter().enumerate() {
            let arrived = if grows { 0 } else { second[slot] };
            counts.load_after[node as usize] += decided[slot] + arrived;
        }
    }

    /// Sets `counts` to zero counts of `keys` keys of this change.
    fn reset_counts(&self, counts: &mut ChangeCounts, keys: u64) {
        let live = |in_table: &[bool]| in_table.iter().filter(|&&b| b).count();
        counts.reset(
            keys,
            self.nodes.len(),
            live(&self.in_old),
            live(&self.in_new),
        );
    }

    fn old_count(&self) -> BucketCount {
        BucketCount::new(self.old_slots.len() as u32).expect("a table's length is a bucket count")
    }

    fn new_count(&self) -> BucketCount {
        BucketCount::new(self.new_slots.len() as u32).expect("a table's length is a bucket count")
    }

    /// [`TableChange::plan`] placing every key in both tables.
    fn plan_both(
        &self,
        old: &Placement,
        new: &Placement,
        keys: &[u64],
        first_position: u64,
        plan: &mut NodePlan,
        list_moves: bool,
    ) {
        plan.reset(self, keys.len());
        let NodePlan {
            positions,
            from,
            to,
            counts,
            evaluated,
            before,
            ..
        } = plan;
        for (round, chunk) in keys.chunks(ROUND).enumerate() {
            before.resize(chunk.len(), 0);
            evaluated.resize(chunk.len(), 0);
            old.batch(chunk, self.old_count(), before)
                .expect("buffers as long as the keys");
            new.batch(chunk, self.new_count(), evaluated)
                .expect("buffers as long as the keys");
            if let Some(pins) = &self.pins {
                pins.0.apply(chunk, before);
                pins.1.apply(chunk, evaluated);
            }
            let base = first_position + (round * ROUND) as u64;
            let width = counts.transfers.nodes;
            for (i, (&b, &a)) in before.iter().zip(&*evaluated).enumerate() {
                let pair = (self.old_slots[b as usize], self.new_slots[a as usize]);
                counts.load_before[pair.0 as usize] += 1;
                counts.load_after[pair.1 as usize] += 1;
                counts.bucket_changes += u64::from(b != a);
                if pair.0 == pair.1 {
                    continue;
                }
                match counts
                    .transfers
                    .dense
                    .get_mut(pair.0 as usize * width + pair.1 as usize)
                {
                    Some(count) => *count += 1,
                    None => counts.transfers.add(pair, 1),
                }
                if list_moves {
                    positions.push(base + i as u64);
                    from.push(pair.0);
                    to.push(pair.1);
                }
            }
        }
        counts.moved = counts.transfers.total();
    }
}

/// One physical move: a key whose node changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NodeMove {
    /// The key's position in the input.
    pub position: u64,
    /// Its old node, as an index in [`TableChange::nodes`].
    pub from: u32,
    /// Its new node, likewise.
    pub to: u32,
}

/// The physical moves of one batch, in input order, and its counts; reused
/// across batches, it keeps its buffers.
#[derive(Clone, Debug, Default)]
pub struct NodePlan {
    positions: Vec<u64>,
    from: Vec<u32>,
    to: Vec<u32>,
    counts: ChangeCounts,
    /// Keys per slot of the deciding evaluation, at `max(N, M)`.
    decided: Vec<u64>,
    /// Moving keys per slot of their second evaluation, at `min(N, M)`.
    second: Vec<u64>,
    /// One block's deciding buckets and movers.
    scratch: PlanScratch,
    /// One block's movers' second buckets and (old node, new node).
    evaluated: Vec<u32>,
    pairs: Vec<(u32, u32)>,
    /// One round's old slots, when both tables are evaluated in full.
    before: Vec<u32>,
    /// One round's old and new replica columns, for replica changes.
    columns: Vec<Vec<u32>>,
}

impl NodePlan {
    /// An empty plan, to be filled by [`TableChange::plan`].
    pub fn new() -> NodePlan {
        NodePlan::default()
    }

    fn reset(&mut self, change: &TableChange, keys: usize) {
        self.positions.clear();
        self.from.clear();
        self.to.clear();
        change.reset_counts(&mut self.counts, keys as u64);
    }

    /// The number of physical moves listed.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Whether no move is listed.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// The physical moves, in input order (when listed).
    pub fn moves(&self) -> impl Iterator<Item = NodeMove> + '_ {
        self.positions
            .iter()
            .zip(&self.from)
            .zip(&self.to)
            .map(|((&position, &from), &to)| NodeMove { position, from, to })
    }

    /// The counts of the batch.
    pub fn counts(&self) -> &ChangeCounts {
        &self.counts
    }
}

impl ChangeCounts {
    /// No keys yet, for `change`.
    pub fn new(change: &TableChange) -> ChangeCounts {
        let mut counts = ChangeCounts::default();
        change.reset_counts(&mut counts, 0);
        counts
    }
}
