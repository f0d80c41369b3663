//! One option of `remove`, and what it costs: what the report lists and
//! the recommendation weighs.

use jumpshard::nodes::Removal;
use serde::Serialize;

use crate::report::change_summary::ChangeSummary;

/// One way of removing the node, and what it costs. The full summary
/// (loads, transfers) is kept for the options evaluated over the keys, a
/// handful; a table of N nodes has N - 1 points, summarised in O(1) each,
/// so that the report stays linear in N.
#[derive(Serialize)]
pub(super) struct Candidate {
    pub(super) name: String,
    pub(super) description: String,
    pub(super) slots: usize,
    pub(super) moved: u64,
    pub(super) moved_fraction: f64,
    pub(super) bucket_changes: u64,
    pub(super) max_over_mean_after: f64,
    /// Whether it may be recommended.
    pub(super) recommendable: bool,
    #[serde(skip)]
    pub(super) removal: Removal,
    #[serde(skip)]
    pub(super) summary: Option<ChangeSummary>,
}
