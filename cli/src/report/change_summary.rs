//! What a change of node table does to the keys, as `reshard --from-nodes` and
//! `remove` report it: physical moves, bucket changes, the transfer matrix,
//! each node's load before and after, and the balance.
//!
//! Reports stay small whatever the tables' size: the transfer matrix has
//! up to one entry per pair of nodes, so text, JSON and plot give the
//! [`TOP`] largest transfers and one aggregated rest; loads are given for
//! every node up to [`TOP`] nodes, and beyond that for the (up to) [`TOP`]
//! whose load changes most, with the rest aggregated too.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::io::Write;
use std::sync::Arc;

use jumpshard::{ChangeCounts, TableChange};
use serde::ser::{SerializeMap, SerializeStruct};
use serde::{Serialize, Serializer};

use super::columns::name_width;
use super::fraction::fraction;

/// Transfers, and node loads, given one by one in a report.
pub const TOP: usize = 64;

/// The summary of a change over a set of keys. Serialized bounded (see the
/// module's documentation): `transfers` and `load_before`/`load_after`
/// hold the listed entries, `transfers_rest` and `loads_rest` the others.
#[derive(Clone, Debug)]
pub struct ChangeSummary {
    pub keys: u64,
    /// Members per key: 1, or `k` for replica sets, whose moves and bucket
    /// changes count replicas.
    pub replicas: usize,
    /// Keys whose node changes.
    pub moved: u64,
    pub moved_fraction: f64,
    /// Keys whose bucket number changes, moving or not.
    pub bucket_changes: u64,
    /// Every pair of nodes with a move, (from, to, keys) as indices into
    /// `names`: the [`TOP`] largest first, in order (ties by the names),
    /// the rest after them in no order. A change of a big table spreads
    /// its movers over millions of pairs, so they are not named one by one.
    pub transfers: Vec<(u32, u32, u64)>,
    /// The names of the nodes the transfers count.
    pub names: Arc<[String]>,
    /// Keys per node of the old table, in table order.
    pub load_before: Vec<(String, u64)>,
    /// Keys per node of the new table, in table order.
    pub load_after: Vec<(String, u64)>,
    pub max_over_mean_before: f64,
    pub max_over_mean_after: f64,
}

/// The largest transfers, and the rest in one.
pub struct Transfers<'a> {
    /// (from, to, keys), largest first.
    pub top: Vec<(&'a str, &'a str, u64)>,
    /// The pairs not in `top`.
    pub rest_pairs: usize,
    /// Their keys.
    pub rest_keys: u64,
}

/// A node's load: (node, keys before, keys after), `None` where the node
/// is not in that table.
pub type Row<'a> = (&'a str, Option<u64>, Option<u64>);

/// The listed nodes' loads, and the rest in one.
pub struct Loads<'a> {
    /// In table order, the old table's nodes first.
    pub rows: Vec<Row<'a>>,
    /// The nodes not in `rows`.
    pub rest_nodes: usize,
    /// Their keys before.
    pub rest_before: u64,
    /// Their keys after.
    pub rest_after: u64,
}

impl ChangeSummary {
    pub fn new(change: &TableChange, counts: &ChangeCounts) -> ChangeSummary {
        let nodes = change.nodes();
        let names: Arc<[String]> = nodes.into();
        let mut transfers: Vec<(u32, u32, u64)> = counts
            .transfers_unordered()
            .map(|((from, to), n)| (from, to, n))
            .collect();
        largest_first(&mut transfers, &names);
        let loads = |loads: &[u64], present: &dyn Fn(usize) -> bool| {
            (0..nodes.len())
                .filter(|&i| present(i))
                .map(|i| (nodes[i].clone(), loads[i]))
                .collect()
        };
        ChangeSummary {
            keys: counts.keys(),
            replicas: change.replicas(),
            moved: counts.moved(),
            // Of the replicas when sets are counted: each key holds k.
            moved_fraction: fraction(
                counts.moved(),
                counts.keys().saturating_mul(change.replicas() as u64),
            ),
            bucket_changes: counts.bucket_changes(),
            transfers,
            names,
            load_before: loads(counts.load_before(), &|i| change.in_old(i)),
            load_after: loads(counts.load_after(), &|i| change.in_new(i)),
            max_over_mean_before: counts.max_over_mean_before(),
            max_over_mean_after: counts.max_over_mean_after(),
        }
    }

    /// The [`TOP`] largest transfers and the rest.
    pub fn top_transfers(&self) -> Transfers<'_> {
        let (top, rest) = self.transfers.split_at(self.transfers.len().min(TOP));
        let name = |i: u32| self.names[i as usize].as_str();
        Transfers {
            top: top.iter().map(|&(f, t, n)| (name(f), name(t), n)).collect(),
            rest_pairs: rest.len(),
            rest_keys: rest.iter().map(|t| t.2).sum(),
        }
    }

    /// The loads of every node, or beyond [`TOP`] nodes of the (up to)
    /// [`TOP`] whose load changes most (ties by table order; none whose
    /// load stays the same), and the rest.
    pub fn top_loads(&self) -> Loads<'_> {
        let before: BTreeMap<&str, u64> = self
            .load_before
            .iter()
            .map(|(k, v)| (k.as_str(), *v))
            .collect();
        let mut rows: Vec<Row> = self
            .load_before
            .iter()
            .map(|(k, v)| (k.as_str(), Some(*v), None))
            .collect();
        let row_of: BTreeMap<&str, usize> =
            rows.iter().enumerate().map(|(i, r)| (r.0, i)).collect();
        for (node, n) in &self.load_after {
            match row_of.get(node.as_str()) {
                Some(&i) => rows[i].2 = Some(*n),
                None if !before.contains_key(node.as_str()) => {
                    rows.push((node.as_str(), None, Some(*n)))
                }
                None => {}
            }
        }
        if rows.len() <= TOP {
            return Loads {
                rows,
                rest_nodes: 0,
                rest_before: 0,
                rest_after: 0,
            };
        }
        let change =
            |r: &(&str, Option<u64>, Option<u64>)| r.1.unwrap_or(0).abs_diff(r.2.unwrap_or(0));
        let mut order: Vec<usize> = (0..rows.len()).collect();
        order.sort_by(|&a, &b| change(&rows[b]).cmp(&change(&rows[a])).then(a.cmp(&b)));
        let mut listed = vec![false; rows.len()];
        for &i in order.iter().take(TOP) {
            // Nodes whose load stays the same are all in the rest.
            listed[i] = change(&rows[i]) > 0;
        }
        let mut loads = Loads {
            rows: Vec::with_capacity(TOP),
            rest_nodes: 0,
            rest_before: 0,
            rest_after: 0,
        };
        for (row, listed) in rows.into_iter().zip(listed) {
            if listed {
                loads.rows.push(row);
            } else {
                loads.rest_nodes += 1;
                loads.rest_before += row.1.unwrap_or(0);
                loads.rest_after += row.2.unwrap_or(0);
            }
        }
        loads
    }

    /// The text form: counts, transfers, loads side by side.
    pub fn write_text(&self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out, "keys read        {}", self.keys)?;
        if self.replicas > 1 {
            let replicas = self.keys.saturating_mul(self.replicas as u64);
            writeln!(
                out,
                "replicas moved   {} ({:.4}% of {replicas} replicas; physical moves, between nodes)",
                self.moved,
                100.0 * self.moved_fraction
            )?;
            writeln!(
                out,
                "bucket changes   {} (replicas whose bucket number changes)",
                self.bucket_changes
            )?;
        } else {
            writeln!(
                out,
                "keys moved       {} ({:.4}%; physical moves, between nodes)",
                self.moved,
                100.0 * self.moved_fraction
            )?;
            writeln!(
                out,
                "bucket changes   {} (keys whose bucket number changes)",
                self.bucket_changes
            )?;
        }
        writeln!(
            out,
            "balance          max/mean load {:.4} before, {:.4} after",
            self.max_over_mean_before, self.max_over_mean_after
        )?;
        let transfers = self.top_transfers();
        writeln!(out, "transfers (from -> to: keys):")?;
        if transfers.top.is_empty() {
            writeln!(out, "  none")?;
        }
        for (from, to, n) in &transfers.top {
            writeln!(out, "  {from} -> {to}: {n}")?;
        }
        if transfers.rest_pairs > 0 {
            writeln!(
                out,
                "  ... and {} more pairs of nodes: {} keys",
                transfers.rest_pairs, transfers.rest_keys
            )?;
        }
        writeln!(out, "load per node (before -> after):")?;
        let loads = self.top_loads();
        let width = name_width(loads.rows.iter().map(|r| r.0), 0);
        let show = |n: Option<u64>| n.map_or("-".into(), |n| n.to_string());
        for (node, before, after) in &loads.rows {
            writeln!(
                out,
                "  {node:<width$}  {:>12} -> {:>12}",
                show(*before),
                show(*after)
            )?;
        }
        if loads.rest_nodes > 0 {
            writeln!(
                out,
                "  ... and {} more nodes, whose loads change less: {} -> {} keys",
                loads.rest_nodes, loads.rest_before, loads.rest_after
            )?;
        }
        Ok(())
    }
}

/// Bounded, as the module's documentation says; the loads are JSON
/// objects that keep table order.
impl Serialize for ChangeSummary {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let transfers = self.top_transfers();
        let mut matrix: BTreeMap<&str, BTreeMap<&str, u64>> = BTreeMap::new();
        for (from, to, n) in &transfers.top {
            matrix.entry(from).or_default().insert(to, *n);
        }
        let loads = self.top_loads();
        let mut out = s.serialize_struct("ChangeSummary", 12)?;
        out.serialize_field("keys", &self.keys)?;
        out.serialize_field("replicas", &self.replicas)?;
        out.serialize_field("moved", &self.moved)?;
        out.serialize_field("moved_fraction", &self.moved_fraction)?;
        out.serialize_field("bucket_changes", &self.bucket_changes)?;
        out.serialize_field("transfers", &matrix)?;
        out.serialize_field(
            "transfers_rest",
            &Rest(&[
                ("pairs", transfers.rest_pairs as u64),
                ("keys", transfers.rest_keys),
            ]),
        )?;
        out.serialize_field("load_before", &Column(&loads.rows, |r| r.1))?;
        out.serialize_field("load_after", &Column(&loads.rows, |r| r.2))?;
        out.serialize_field(
            "loads_rest",
            &Rest(&[
                ("nodes", loads.rest_nodes as u64),
                ("keys_before", loads.rest_before),
                ("keys_after", loads.rest_after),
            ]),
        )?;
        out.serialize_field("max_over_mean_before", &self.max_over_mean_before)?;
        out.serialize_field("max_over_mean_after", &self.max_over_mean_after)?;
        out.end()
    }
}

/// Puts the [`TOP`] largest of `transfers` first, in order: most keys
/// first, then by the names of the nodes from and to. A selection, then a
/// sort of the few selected, in time linear in the pairs.
pub fn largest_first(transfers: &mut [(u32, u32, u64)], names: &[String]) {
    let name = |i: u32| names[i as usize].as_str();
    let order = |a: &(u32, u32, u64), b: &(u32, u32, u64)| -> Ordering {
        b.2.cmp(&a.2)
            .then_with(|| name(a.0).cmp(name(b.0)))
            .then_with(|| name(a.1).cmp(name(b.1)))
    };
    if transfers.len() > TOP {
        transfers.select_nth_unstable_by(TOP, order);
    }
    let top = transfers.len().min(TOP);
    transfers[..top].sort_unstable_by(order);
}

/// A few named counts, as a JSON object.
struct Rest<'a>(&'a [(&'a str, u64)]);

impl Serialize for Rest<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().copied())
    }
}

/// One side of the listed loads, node to keys in table order, leaving out
/// the nodes that side's table lacks.
struct Column<'a>(&'a [Row<'a>], fn(&Row<'a>) -> Option<u64>);

impl Serialize for Column<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        for row in self.0 {
            if let Some(n) = (self.1)(row) {
                map.serialize_entry(row.0, &n)?;
            }
        }
        map.end()
    }
}
