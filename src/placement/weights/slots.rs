//! The slot axis of a weights table: the unit, each node's slot count and
//! acceptance, which node owns an extra slot, and the nearest node of
//! positive weight (see the [construction](super#the-construction)).

/// The most slots an axis may have: Figure 1's largest bucket count.
const MAX_SLOTS: u64 = i32::MAX as u64;

/// Extra slots past which their owners are found by a binary search over
/// the nodes of several slots rather than read from a table of one entry
/// per slot (4 MiB).
const OWNER_TABLE_MAX: u64 = 1 << 20;

/// The slot axis built from the weights.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Axis {
    /// The unit `U`: the weight of one whole slot.
    pub(super) unit: f64,
    /// Each node's slot count `m_i` (1 for a node of weight 0).
    pub(super) slots: Vec<u32>,
    /// Each node's first slot's acceptance `f_i = w_i / U - (m_i - 1)`,
    /// in `(0, 1]` (0 for weight 0, and for a positive weight so far below
    /// the unit that `w_i / U` rounds to 0); its extra slots accept every
    /// key.
    pub(super) accept: Vec<f64>,
    /// Each node's acceptance as a bound on the coin's top 53 bits (see
    /// [`threshold_of`]), which the batches compare as integers.
    pub(super) threshold: Vec<u64>,
    /// Whether some first slot accepts by a coin (`0 < f_i < 1`).
    pub(super) tossing: bool,
    /// Whether every slot accepts every key (`M = n`, every `f_i = 1`):
    /// attempt 0 is then Figure 1's bucket.
    pub(super) plain: bool,
    /// The nodes of positive weight, ascending.
    pub(super) positive: Vec<u32>,
    /// The owners of the extra slots `n..M`.
    extras: Extras,
    /// The number of slots `M`.
    pub(super) len: u32,
}

/// Who owns extra slot `n + e`.
#[derive(Clone, Debug, PartialEq)]
enum Extras {
    /// `owner[e]`, for axes of few extra slots.
    Table(Vec<u32>),
    /// The nodes of several slots in index order, with the end (exclusive)
    /// of each one's run of extra slots, counted from `n`.
    Runs { nodes: Vec<u32>, ends: Vec<u32> },
}

impl Axis {
    /// The axis of `weights`: finite, non-negative, at least one positive,
    /// at most 2^31 - 1 of them (the caller checked).
    pub(super) fn new(weights: &[f64]) -> Axis {
        let n = weights.len() as u64;
        let unit = unit(weights);
        let slots_of = |w: f64, unit: f64| -> u64 {
            if w > 0.0 {
                ((w / unit).ceil() as u64).max(1)
            } else {
                1
            }
        };
        // The raised unit bounds the extra slots by `total / unit`; a sum
        // of rounded quotients may still pass the room by a few, and then
        // the unit is the maximum weight, where no node has extra slots.
        let extra: u64 = weights.iter().map(|&w| slots_of(w, unit) - 1).sum();
        let unit = if n + extra > MAX_SLOTS {
            weights.iter().copied().fold(0.0, f64::max)
        } else {
            unit
        };
        let slots: Vec<u32> = weights.iter().map(|&w| slots_of(w, unit) as u32).collect();
        let accept: Vec<f64> = weights
            .iter()
            .zip(&slots)
            .map(|(&w, &m)| {
                // `m - 1 < w / U`, so the difference is positive.
                if w > 0.0 {
                    w / unit - f64::from(m - 1)
                } else {
                    0.0
                }
            })
            .collect();
        let threshold = accept.iter().map(|&f| threshold_of(f)).collect();
        let tossing = accept.iter().any(|&f| f > 0.0 && f < 1.0);
        let positive = (0..weights.len() as u32)
            .filter(|&i| weights[i as usize] > 0.0)
            .collect();
        let extra: u64 = slots.iter().map(|&m| u64::from(m) - 1).sum();
        let plain = extra == 0 && accept.iter().all(|&f| f >= 1.0);
        let heavy = (0..weights.len() as u32).filter(|&i| slots[i as usize] > 1);
        let extras = if extra <= OWNER_TABLE_MAX {
            let mut owner = Vec::with_capacity(extra as usize);
            for i in heavy {
                owner.extend(std::iter::repeat_n(i, slots[i as usize] as usize - 1));
            }
            Extras::Table(owner)
        } else {
            let (mut nodes, mut ends, mut end) = (Vec::new(), Vec::new(), 0u32);
            for i in heavy {
                end += slots[i as usize] - 1;
                nodes.push(i);
                ends.push(end);
            }
            Extras::Runs { nodes, ends }
        };
        Axis {
            unit,
            slots,
            accept,
            threshold,
            tossing,
            plain,
            positive,
            extras,
            len: (n + extra) as u32,
        }
    }

    /// The node that owns `slot`.
    #[inline]
    pub(super) fn owner(&self, slot: u32) -> u32 {
        let n = self.accept.len() as u32;
        if slot < n {
            return slot;
        }
        let e = slot - n;
        match &self.extras {
            Extras::Table(owner) => owner[e as usize],
            Extras::Runs { nodes, ends } => nodes[ends.partition_point(|&end| end <= e)],
        }
    }

    /// The fallback's candidate for an attempt on `node`: the distance to
    /// the first node of positive weight at or after `node`, cyclically,
    /// and that node.
    pub(super) fn nearest(&self, node: u32) -> (u32, u32) {
        let n = self.accept.len() as u32;
        let at = self.positive.partition_point(|&i| i < node);
        match self.positive.get(at) {
            Some(&p) => (p - node, p),
            // `Weights::new` refuses a table with no positive weight.
            None => (self.positive[0] + n - node, self.positive[0]),
        }
    }
}

/// The acceptance `f` as an integer bound on a coin's top 53 bits `x`
/// (`coin >> 11`): the construction accepts when `x * 2^-53 < f`, which
/// holds exactly when `x < ceil(f * 2^53)`, since the scaling by a power of
/// two is exact and `x` is an integer. 0 for `f = 0` (never), 2^53 for
/// `f >= 1` (always, as `x < 2^53`).
pub(super) fn threshold_of(f: f64) -> u64 {
    const SCALE: f64 = (1u64 << 53) as f64;
    (f * SCALE).ceil().min(SCALE) as u64
}

/// The unit `U`: the largest weight held by more than a quarter of the
/// nodes of positive weight, or when none is, their lower median (element
/// `(p - 1) / 2` of the `p` positive weights sorted ascending); raised to
/// `total / (2^31 - 1 - n)` when the heaviest nodes would otherwise need
/// more slots than Figure 1 has, and never above the largest weight.
pub(super) fn unit(weights: &[f64]) -> f64 {
    let mut positive: Vec<f64> = weights.iter().copied().filter(|&w| w > 0.0).collect();
    positive.sort_by(f64::total_cmp);
    let p = positive.len();
    let max = positive[p - 1];
    let common = positive
        .chunk_by(|a, b| a == b)
        .rev()
        .find(|run| 4 * run.len() > p)
        .map(|run| run[0]);
    let unit = common.unwrap_or(positive[(p - 1) / 2]);
    let room = MAX_SLOTS - weights.len() as u64;
    if room == 0 {
        return max;
    }
    let total: f64 = positive.iter().sum();
    unit.max(total / room as f64).min(max)
}
