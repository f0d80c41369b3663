//! Changes of replica sets: each key's `k` nodes in the old table against
//! its `k` nodes in the new one. A member that leaves the set moves to a
//! member that joins it, paired in the sets' slot order, so a key appears
//! once per member that moves.
//!
//! ```
//! use jumpshard::{NodePlan, NodeTable, TableChange};
//!
//! let old = NodeTable::parse("a\nb\nc\nd\ne\n")?;
//! let new = NodeTable::parse("a\nb removed=1\nc\nd\ne\n")?; // b dies
//! let change = TableChange::with_replicas(&old, &new, 3)?;
//! let keys: Vec<u64> = (0..10_000u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
//! let mut plan = NodePlan::new();
//! change.plan(&keys, 0, &mut plan, true);
//! // Only b's replicas move, one per set that held b.
//! assert!(plan.moves().all(|m| change.nodes()[m.from as usize] == "b"));
//! assert!((plan.len() as f64 / 10_000.0 - 3.0 / 5.0).abs() < 0.02);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::{NodePlan, TableChange, ROUND};
use crate::nodes::placement::Placement;
use crate::nodes::ReplicaError;
use crate::zones::{ZoneError, ZonedReplicas};
use crate::{BucketCount, NodeTable};

impl TableChange {
    /// The change of every key's replica set of `k` nodes from `old` to
    /// `new` (plain tables or tables with removals, one slot per node).
    /// Its plans list one move per member that leaves a set, to the member
    /// that joins it; its counts count replicas (loads are replicas per
    /// node, `moved` the members that move). When either table is zoned it
    /// is [`TableChange::with_zoned_replicas`], as the tables' own
    /// [`NodeTable::replicas_batch`] give zoned sets.
    pub fn with_replicas(
        old: &NodeTable,
        new: &NodeTable,
        k: usize,
    ) -> Result<TableChange, ReplicaError> {
        if old.is_zoned() || new.is_zoned() {
            return TableChange::with_zoned_replicas(old, new, k).map_err(ReplicaError::Zone);
        }
        old.check_replicas(k)?;
        new.check_replicas(k)?;
        let mut change = TableChange::new(old, new);
        change.replicas = k;
        change.both = Some(Box::new((old.placement().clone(), new.placement().clone())));
        Ok(change)
    }

    /// The change of every key's zoned replica set of `k` nodes
    /// ([`crate::zones`]) from `old` to `new`, both zoned: node added in a
    /// zone ([`NodeTable::with_node_added`]), node removed
    /// ([`crate::nodes::NodeRemoval`]), zone lost
    /// ([`NodeTable::with_zone_lost`]) or added
    /// ([`NodeTable::with_zone_added`]), or any other pair. Its plans list
    /// exactly the members that leave a set, each paired with one that
    /// joins it (in rank order), as [`TableChange::with_replicas`]' do.
    /// Fails as [`crate::zones::ZonedReplicas::check`] does on either table.
    ///
    /// ```
    /// use jumpshard::{NodePlan, NodeTable, TableChange};
    ///
    /// let old = NodeTable::parse(
    ///     "a1 zone=a\nb1 zone=b\nc1 zone=c\na2 zone=a\nb2 zone=b\nc2 zone=c\n",
    /// )?;
    /// let new = old.with_zone_lost("c")?;
    /// let change = TableChange::with_zoned_replicas(&old, &new, 2)?;
    /// let keys: Vec<u64> = (0..10_000u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
    /// let mut plan = NodePlan::new();
    /// change.plan(&keys, 0, &mut plan, true);
    /// // Zone c's replicas move to a or b; besides them, only keys whose
    /// // primary was in c may see one more member change inside a zone.
    /// let from_c = plan.moves().filter(|m| change.nodes()[m.from as usize].starts_with('c'));
    /// assert!(from_c.count() as f64 > 0.8 * plan.len() as f64);
    /// assert!(plan.moves().all(|m| !change.nodes()[m.to as usize].starts_with('c')));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_zoned_replicas(
        old: &NodeTable,
        new: &NodeTable,
        k: usize,
    ) -> Result<TableChange, ZoneError> {
        old.zoned_replicas()?.check(k)?;
        new.zoned_replicas()?.check(k)?;
        let mut change = TableChange::new(old, new);
        change.replicas = k;
        change.zoned = Some(Box::new((old.clone(), new.clone())));
        Ok(change)
    }

    /// The replicas per key this change plans: 1 for a plain change.
    pub fn replicas(&self) -> usize {
        self.replicas
    }

    /// [`TableChange::plan`] of replica sets.
    pub(super) fn plan_replicas(
        &self,
        keys: &[u64],
        first_position: u64,
        plan: &mut NodePlan,
        list_moves: bool,
    ) {
        let k = self.replicas;
        let zoned = self.zoned.as_deref().map(|(old, new)| {
            let old_sets = old.zoned_replicas().expect("checked zoned");
            let new_sets = new.zoned_replicas().expect("checked zoned");
            // The change's id of each of the new table's nodes, read off
            // its slots (a search by name would cost nodes^2).
            let mut ids = vec![0u32; new.nodes().len()];
            for (slot, &node) in new.slot_nodes().iter().enumerate() {
                ids[node as usize] = self.new_slots[slot];
            }
            (old_sets, new_sets, ids)
        });
        plan.reset(self, keys.len());
        let NodePlan {
            positions,
            from,
            to,
            counts,
            columns,
            ..
        } = plan;
        columns.resize_with(2 * k, Vec::new);
        let (old_columns, new_columns) = columns.split_at_mut(k);
        let (mut lost, mut gained) = (Vec::with_capacity(k), Vec::with_capacity(k));
        for (round, chunk) in keys.chunks(ROUND).enumerate() {
            match &zoned {
                // Zoned sets name nodes: the old table's are the change's
                // first ids, the new table's are mapped.
                Some((old_sets, new_sets, ids)) => {
                    zoned_sets(old_sets, chunk, old_columns);
                    zoned_sets(new_sets, chunk, new_columns);
                    for c in new_columns.iter_mut() {
                        c.iter_mut().for_each(|n| *n = ids[*n as usize]);
                    }
                }
                None => {
                    let (old, new) = self
                        .both
                        .as_deref()
                        .expect("replica changes keep both placements");
                    sets(old, self.old_count(), chunk, old_columns);
                    sets(new, self.new_count(), chunk, new_columns);
                    // The tables' own sets put a pinned key's node first.
                    if let Some(pins) = &self.pins {
                        pins.0.pin_sets(chunk, old_columns);
                        pins.1.pin_sets(chunk, new_columns);
                    }
                }
            }
            let is_zoned = zoned.is_some();
            let base = first_position + (round * ROUND) as u64;
            for i in 0..chunk.len() {
                let old_node = |j: usize| match is_zoned {
                    true => old_columns[j][i],
                    false => self.old_slots[old_columns[j][i] as usize],
                };
                let new_node = |j: usize| match is_zoned {
                    true => new_columns[j][i],
                    false => self.new_slots[new_columns[j][i] as usize],
                };
                lost.clear();
                gained.clear();
                for j in 0..k {
                    counts.load_before[old_node(j) as usize] += 1;
                    counts.load_after[new_node(j) as usize] += 1;
                    if !(0..k).any(|l| new_node(l) == old_node(j)) {
                        lost.push(old_node(j));
                    }
                    if !(0..k).any(|l| old_node(l) == new_node(j)) {
                        gained.push(new_node(j));
                    }
                }
                for old_column in old_columns.iter() {
                    let bucket = old_column[i];
                    let kept = new_columns.iter().any(|c| c[i] == bucket);
                    counts.bucket_changes += u64::from(!kept);
                }
                for (&a, &b) in lost.iter().zip(&gained) {
                    counts.transfers.add((a, b), 1);
                    if list_moves {
                        positions.push(base + i as u64);
                        from.push(a);
                        to.push(b);
                    }
                }
            }
        }
        counts.moved = counts.transfers.total();
    }
}

/// The zoned replica sets of `keys` into `columns` (node indices).
fn zoned_sets(sets: &ZonedReplicas<'_>, keys: &[u64], columns: &mut [Vec<u32>]) {
    for column in columns.iter_mut() {
        column.resize(keys.len(), 0);
    }
    let mut refs: Vec<&mut [u32]> = columns.iter_mut().map(|c| &mut c[..]).collect();
    sets.batch(keys, &mut refs)
        .expect("k checked against both tables, columns as long as the keys");
}

/// The replica sets of `keys` under `placement` into `columns`.
fn sets(placement: &Placement, n: BucketCount, keys: &[u64], columns: &mut [Vec<u32>]) {
    for column in columns.iter_mut() {
        column.resize(keys.len(), 0);
    }
    let mut refs: Vec<&mut [u32]> = columns.iter_mut().map(|c| &mut c[..]).collect();
    placement
        .replicas_batch(keys, n, &mut refs)
        .expect("k checked against both tables, columns as long as the keys");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plan against each key's sets computed one by one; growing by
    /// one node and removing one move at most one member per key, between
    /// the expected nodes.
    #[test]
    fn replica_moves_match_the_sets() {
        let old = NodeTable::parse("a\nb\nc\nd\ne\nf\ng\n").unwrap();
        let grown = NodeTable::parse("a\nb\nc\nd\ne\nf\ng\nh\n").unwrap();
        let removed = NodeTable::parse("a\nb\nc removed=1\nd\ne\nf\ng\n").unwrap();
        // Fewer keys under Miri, which runs them a thousand times slower.
        let count = if cfg!(miri) { 40 } else { 9000u64 };
        let keys: Vec<u64> = (0..count)
            .map(|i| i.wrapping_mul(0xD1B5_4A32_D192_ED03))
            .collect();
        for (new, only) in [(&grown, ("", "h")), (&removed, ("c", ""))] {
            let change = TableChange::with_replicas(&old, new, 3).unwrap();
            let mut plan = NodePlan::new();
            change.plan(&keys, 5, &mut plan, true);
            let mut per_key = std::collections::HashMap::new();
            for m in plan.moves() {
                *per_key.entry(m.position).or_insert(0) += 1;
                let (a, b) = (
                    &change.nodes()[m.from as usize],
                    &change.nodes()[m.to as usize],
                );
                assert!(only.0.is_empty() || a == only.0, "{a} -> {b}");
                assert!(only.1.is_empty() || b == only.1, "{a} -> {b}");
                let key = keys[(m.position - 5) as usize];
                let set = |t: &NodeTable| {
                    let mut s = [0u32; 3];
                    match t.memento() {
                        Some(mm) => mm.replicas(key, &mut s).unwrap(),
                        None => crate::replicas::set(key, t.bucket_count(), &mut s).unwrap(),
                    }
                    s.map(|b| t.slot(b as usize).to_owned())
                };
                assert!(set(&old).contains(a) && !set(new).contains(a));
                assert!(set(new).contains(b) && !set(&old).contains(b));
            }
            assert!(per_key.values().all(|&n| n == 1));
            let counts = plan.counts();
            assert_eq!(counts.moved(), plan.len() as u64);
            assert_eq!(
                counts.load_before().iter().sum::<u64>(),
                3 * keys.len() as u64
            );
        }
        assert_eq!(
            TableChange::with_replicas(&old, &grown, 8).unwrap_err(),
            ReplicaError::TooManyReplicas {
                replicas: 8,
                working: 7
            }
        );
        let heavy = NodeTable::parse("a\nb\n+a\n").unwrap();
        assert!(matches!(
            TableChange::with_replicas(&heavy, &heavy, 2),
            Err(ReplicaError::SharedNode { .. })
        ));
        let weighted = NodeTable::parse("a weight=2\nb\nc\n").unwrap();
        assert_eq!(
            TableChange::with_replicas(&old, &weighted, 2).unwrap_err(),
            ReplicaError::Weighted
        );
    }

    /// With overrides, a plan's moves are exactly the members that differ
    /// between the tables' own sets (`NodeTable::replicas_batch`), pinned
    /// keys included.
    #[test]
    fn replica_plans_follow_the_tables_overrides() {
        let old = NodeTable::parse("a\nb\nc\nd\ne\noverride 42 b\noverride 7 e\n").unwrap();
        let new = NodeTable::parse("a\nb\nc\nd\ne\nf\noverride 42 c\noverride 9 a\n").unwrap();
        let mut keys: Vec<u64> = (0..if cfg!(miri) { 30 } else { 3000u64 }).collect();
        keys.push(42);
        let k = 2;
        let sets = |t: &NodeTable| {
            let mut columns = vec![vec![0u32; keys.len()]; k];
            let mut refs: Vec<&mut [u32]> = columns.iter_mut().map(|c| &mut c[..]).collect();
            t.replicas_batch(&keys, &mut refs).unwrap();
            columns
        };
        let (before, after) = (sets(&old), sets(&new));
        let change = TableChange::with_replicas(&old, &new, k).unwrap();
        let mut plan = NodePlan::new();
        change.plan(&keys, 0, &mut plan, true);
        let mut want = 0;
        for i in 0..keys.len() {
            let nodes = |t: &NodeTable, c: &[Vec<u32>]| -> Vec<String> {
                c.iter().map(|c| t.slot(c[i] as usize).to_owned()).collect()
            };
            let (a, b) = (nodes(&old, &before), nodes(&new, &after));
            want += a.iter().filter(|n| !b.contains(n)).count();
        }
        assert_eq!(plan.len(), want);
        assert!(plan.moves().any(|m| keys[m.position as usize] == 42));
    }
}
