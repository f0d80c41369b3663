//! What pointing the removed node's slots at a survivor costs. Every key
//! keeps its bucket, so exactly the node's keys move, and the counts follow
//! from the loads before, in O(1) per survivor: a table of N nodes has
//! N - 1 such options.

use std::collections::HashMap;

use crate::report::change_summary::ChangeSummary;
use crate::report::fraction::fraction;

/// The counts of pointing `node`'s slots at `survivor`, from the loads
/// before: every key keeps its bucket, so exactly `node`'s keys move.
pub(super) fn point_summary(base: &ChangeSummary, node: &str, survivor: &str) -> ChangeSummary {
    let load = |name: &str| {
        base.load_before
            .iter()
            .find(|(n, _)| n == name)
            .map_or(0, |l| l.1)
    };
    let moved = load(node);
    let load_after: Vec<(String, u64)> = base
        .load_before
        .iter()
        .filter(|(n, _)| n != node)
        .map(|(n, l)| (n.clone(), if n == survivor { l + moved } else { *l }))
        .collect();
    let max = load_after.iter().map(|l| l.1).max().unwrap_or(0);
    let index = |name: &str| base.names.iter().position(|n| n == name);
    let transfers = match (index(node), index(survivor)) {
        (Some(from), Some(to)) if moved > 0 => vec![(from as u32, to as u32, moved)],
        _ => Vec::new(),
    };
    ChangeSummary {
        keys: base.keys,
        replicas: base.replicas,
        moved,
        moved_fraction: fraction(moved, base.keys),
        bucket_changes: 0,
        transfers,
        names: base.names.clone(),
        load_before: base.load_before.clone(),
        max_over_mean_after: match base.keys {
            0 => 1.0,
            keys => max as f64 * load_after.len() as f64 / keys as f64,
        },
        load_after,
        max_over_mean_before: base.max_over_mean_before,
    }
}

/// What pointing the node at each survivor costs, in O(1) per survivor:
/// the node's keys move, and the survivor's load grows by them.
pub(super) struct PointCosts {
    moved: u64,
    keys: u64,
    /// Working nodes after the removal.
    nodes_after: usize,
    loads: HashMap<String, u64>,
    /// The two largest loads among the survivors, with the first's name.
    first: (u64, String),
    second: u64,
}

impl PointCosts {
    pub(super) fn new(base: &ChangeSummary, node: &str) -> PointCosts {
        let mut costs = PointCosts {
            moved: 0,
            keys: base.keys,
            nodes_after: base.load_before.len().saturating_sub(1).max(1),
            loads: HashMap::with_capacity(base.load_before.len()),
            first: (0, String::new()),
            second: 0,
        };
        for (name, load) in &base.load_before {
            if name == node {
                costs.moved = *load;
                continue;
            }
            costs.loads.insert(name.clone(), *load);
            if *load > costs.first.0 {
                costs.second = costs.first.0;
                costs.first = (*load, name.clone());
            } else if *load > costs.second {
                costs.second = *load;
            }
        }
        costs
    }

    /// (keys moved, max/mean load after) of pointing at `survivor`.
    pub(super) fn cost(&self, survivor: &str) -> (u64, f64) {
        let grown = self.loads.get(survivor).copied().unwrap_or(0) + self.moved;
        let others = if self.first.1 == survivor {
            self.second
        } else {
            self.first.0
        };
        let max = grown.max(others);
        let balance = match self.keys {
            0 => 1.0,
            keys => max as f64 * self.nodes_after as f64 / keys as f64,
        };
        (self.moved, balance)
    }
}
