//! Which removal option `remove` recommends, and on what: the keys given,
//! or, when there are none, what each option is expected to cost from the
//! table alone.
//!
//! Over zero keys every option moves nothing, so the keys cannot tell the
//! options apart; yet they differ: swapping moves the last slot's keys as
//! well as the node's, Memento moves only the node's share, pointing at a
//! survivor doubles that survivor's load. Those expected costs are measured
//! over a fixed sample of evenly spread keys (SplitMix64, the same every
//! run), which stand for the table's key space: every option is weighed by
//! its expected moves and loads, and the report says so.

use jumpshard::verify::SplitMix64;
use jumpshard::{ChangeCounts, NodePlan, TableChange};

use super::candidate::Candidate;

/// Keys of the sample that stands for the table when no keys are given:
/// enough that the expected fractions are read to about 0.1% of the keys.
pub(super) const SAMPLE_KEYS: usize = 1 << 20;

/// The seed of the sample (the CLI's usual `--seed`).
const SAMPLE_SEED: u64 = 0x6A75_6D70;

/// What the options are weighed by.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Basis {
    /// The keys given.
    Keys,
    /// The expected costs, over [`SAMPLE_KEYS`] sample keys.
    Expected,
}

impl Basis {
    /// As the JSON report names it.
    pub(super) fn name(self) -> &'static str {
        match self {
            Basis::Keys => "keys",
            Basis::Expected => "expected",
        }
    }
}

/// The counts of each of `changes` over the sample keys.
pub(super) fn expected_counts(changes: &[TableChange]) -> Vec<ChangeCounts> {
    let keys = SplitMix64::new(SAMPLE_SEED).keys(SAMPLE_KEYS);
    changes
        .iter()
        .map(|change| {
            let mut plan = NodePlan::new();
            change.plan(&keys, 0, &mut plan, false);
            let mut counts = ChangeCounts::new(change);
            counts.merge(plan.counts());
            counts
        })
        .collect()
}

/// The recommended option's index and why: the fewest moves among the
/// options (the hole excepted) whose balance after stays within `bound`;
/// when none does, the best balanced. With [`Basis::Expected`] the moves
/// and balances are the expected ones, and the reason says so.
pub(super) fn recommend(options: &[Candidate], bound: f64, basis: Basis) -> (usize, String) {
    let honest = || options.iter().enumerate().filter(|(_, o)| o.recommendable);
    let moves = |o: &Candidate| match basis {
        Basis::Keys => format!("{}", o.moved),
        Basis::Expected => format!("{:.1}% of the keys", 100.0 * o.moved_fraction),
    };
    let (fewest, balance) = match basis {
        Basis::Keys => ("the fewest moves", "max/mean load after"),
        Basis::Expected => ("the fewest expected moves", "expected max/mean load after"),
    };
    let within = honest()
        .filter(|(_, o)| o.max_over_mean_after <= bound)
        .min_by_key(|(_, o)| o.moved);
    let mut reason = if let Some((i, best)) = within {
        let mut reason = format!(
            "{}: {fewest} ({}) among the options whose {balance} stays within {bound}",
            best.name,
            moves(best)
        );
        let fewer = honest()
            .filter(|(_, o)| o.moved < best.moved)
            .min_by(|a, b| a.1.max_over_mean_after.total_cmp(&b.1.max_over_mean_after));
        if let Some((_, o)) = fewer {
            reason += &format!(
                "; {} moves fewer keys ({}) but leaves max/mean {:.3}",
                o.name,
                moves(o),
                o.max_over_mean_after
            );
        }
        (i, reason)
    } else {
        let (i, best) = honest()
            .min_by(|a, b| a.1.max_over_mean_after.total_cmp(&b.1.max_over_mean_after))
            .expect("there is always the swap or memento");
        let reason = format!(
            "{}: no option stays within {balance} {bound}, and this one is the best balanced \
             ({:.3})",
            best.name, best.max_over_mean_after
        );
        (i, reason)
    };
    if basis == Basis::Expected {
        reason.1 += &format!(
            "; no keys were given, so the options are compared on their expected moves and \
             loads from the table alone (over {SAMPLE_KEYS} evenly spread sample keys)"
        );
    }
    reason
}
