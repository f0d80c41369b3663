//! What a change of node table does to the keys, as `reshard --from-nodes` and
//! `remove` report it: physical moves, bucket changes, the transfer matrix,
//! each node's load before and after, and the balance.

use std::collections::BTreeMap;
use std::io::Write;

use jumpshard::{ChangeCounts, TableChange};
use serde::Serialize;

use super::columns::name_width;
use super::fraction::fraction;

/// Transfers listed in the text summary; `--json` lists them all.
const LISTED: usize = 32;

/// The summary of a change over a set of keys.
#[derive(Clone, Debug, Serialize)]
pub struct ChangeSummary {
    pub keys: u64,
    /// Keys whose node changes.
    pub moved: u64,
    pub moved_fraction: f64,
    /// Keys whose bucket number changes, moving or not.
    pub bucket_changes: u64,
    /// From node, to node, keys.
    pub transfers: BTreeMap<String, BTreeMap<String, u64>>,
    /// Keys per node of the old table, in table order.
    #[serde(serialize_with = "in_order")]
    pub load_before: Vec<(String, u64)>,
    /// Keys per node of the new table, in table order.
    #[serde(serialize_with = "in_order")]
    pub load_after: Vec<(String, u64)>,
    pub max_over_mean_before: f64,
    pub max_over_mean_after: f64,
}

/// A list of (name, count) as a JSON object that keeps the list's order.
fn in_order<S: serde::Serializer>(list: &[(String, u64)], s: S) -> Result<S::Ok, S::Error> {
    s.collect_map(list.iter().map(|(k, v)| (k, v)))
}

impl ChangeSummary {
    pub fn new(change: &TableChange, counts: &ChangeCounts) -> ChangeSummary {
        let nodes = change.nodes();
        let mut transfers: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
        for ((from, to), n) in counts.transfers() {
            transfers
                .entry(nodes[from as usize].clone())
                .or_default()
                .insert(nodes[to as usize].clone(), n);
        }
        let loads = |loads: &[u64], present: &dyn Fn(usize) -> bool| {
            (0..nodes.len())
                .filter(|&i| present(i))
                .map(|i| (nodes[i].clone(), loads[i]))
                .collect()
        };
        ChangeSummary {
            keys: counts.keys(),
            moved: counts.moved(),
            moved_fraction: fraction(counts.moved(), counts.keys()),
            bucket_changes: counts.bucket_changes(),
            transfers,
            load_before: loads(counts.load_before(), &|i| change.in_old(i)),
            load_after: loads(counts.load_after(), &|i| change.in_new(i)),
            max_over_mean_before: counts.max_over_mean_before(),
            max_over_mean_after: counts.max_over_mean_after(),
        }
    }

    /// The transfers as (from, to, keys), largest first.
    pub fn transfer_list(&self) -> Vec<(&str, &str, u64)> {
        let mut list: Vec<_> = self
            .transfers
            .iter()
            .flat_map(|(from, tos)| {
                tos.iter()
                    .map(move |(to, &n)| (from.as_str(), to.as_str(), n))
            })
            .collect();
        list.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(b.0)).then(a.1.cmp(b.1)));
        list
    }

    /// The text form: counts, transfers, loads side by side.
    pub fn write_text(&self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out, "keys read        {}", self.keys)?;
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
        writeln!(
            out,
            "balance          max/mean load {:.4} before, {:.4} after",
            self.max_over_mean_before, self.max_over_mean_after
        )?;
        let transfers = self.transfer_list();
        writeln!(out, "transfers (from -> to: keys):")?;
        if transfers.is_empty() {
            writeln!(out, "  none")?;
        }
        for (from, to, n) in transfers.iter().take(LISTED) {
            writeln!(out, "  {from} -> {to}: {n}")?;
        }
        if transfers.len() > LISTED {
            writeln!(
                out,
                "  ... and {} more (see --json)",
                transfers.len() - LISTED
            )?;
        }
        writeln!(out, "load per node (before -> after):")?;
        let after: BTreeMap<&str, u64> = self
            .load_after
            .iter()
            .map(|(k, v)| (k.as_str(), *v))
            .collect();
        let before: BTreeMap<&str, u64> = self
            .load_before
            .iter()
            .map(|(k, v)| (k.as_str(), *v))
            .collect();
        let mut rows: Vec<&str> = self.load_before.iter().map(|(k, _)| k.as_str()).collect();
        rows.extend(
            self.load_after
                .iter()
                .map(|(k, _)| k.as_str())
                .filter(|k| !before.contains_key(k)),
        );
        let width = name_width(rows.iter().copied(), 0);
        for (listed, node) in rows.iter().enumerate() {
            if listed == LISTED {
                writeln!(
                    out,
                    "  ... and {} more nodes (see --json)",
                    rows.len() - LISTED
                )?;
                break;
            }
            let show = |m: &BTreeMap<&str, u64>| m.get(node).map_or("-".into(), |n| n.to_string());
            writeln!(
                out,
                "  {node:<width$}  {:>12} -> {:>12}",
                show(&before),
                show(&after)
            )?;
        }
        Ok(())
    }
}
