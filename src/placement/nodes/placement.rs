//! How a table places a key in one of its slots: Figure 1 over the slots,
//! Memento over them with some removed, or Figure 1 with real-valued
//! weights.

use crate::weights::Weights;
use crate::{BucketCount, Error, Kernel, Memento};

/// The placement a table's attributes ask for.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Placement {
    /// `jump(key, N)`: no attribute.
    Jump,
    /// Some slots are removed (`removed=K`), in the order of their K.
    Memento(Memento),
    /// Some slot has a `weight=W`, the others weigh 1, and not all weigh
    /// the same.
    Weighted {
        /// Each slot's weight, as the file gives it.
        weights: Vec<f64>,
        sampler: Weights,
    },
}

impl Placement {
    /// The placement of `n` slots with `removals` (slots in removal order)
    /// or `weights`; never both.
    pub(super) fn new(
        n: BucketCount,
        removals: &[u32],
        weights: Option<Vec<f64>>,
    ) -> Result<Placement, Error> {
        if let Some(weights) = weights {
            let sampler = Weights::new(&weights)?;
            // Equal weights place keys exactly as Figure 1: the plain
            // placement, so that such a table is plain in every respect.
            if weights.iter().all(|&w| w == weights[0]) {
                return Ok(Placement::Jump);
            }
            return Ok(Placement::Weighted { weights, sampler });
        }
        if removals.is_empty() {
            return Ok(Placement::Jump);
        }
        Memento::from_removals(n, removals).map(Placement::Memento)
    }

    /// The slot of `key` among `n`.
    #[inline]
    pub(super) fn bucket(&self, key: u64, n: BucketCount) -> u32 {
        match self {
            Placement::Jump => crate::bucket(key, n),
            Placement::Memento(m) => m.bucket(key),
            Placement::Weighted { sampler, .. } => sampler.bucket(key),
        }
    }

    /// The slot of every key, on the kernels.
    pub(super) fn batch(&self, keys: &[u64], n: BucketCount, out: &mut [u32]) -> Result<(), Error> {
        self.batch_on(crate::active_kernel(), keys, n, out)
    }

    /// The slot of every key, on `kernel`.
    pub(super) fn batch_on(
        &self,
        kernel: Kernel,
        keys: &[u64],
        n: BucketCount,
        out: &mut [u32],
    ) -> Result<(), Error> {
        match self {
            Placement::Jump => kernel.batch(keys, n, out),
            Placement::Memento(m) => m.batch_on(kernel, keys, out),
            Placement::Weighted { sampler, .. } => sampler.batch_on(kernel, keys, out),
        }
    }

    /// The replica sets of `keys` into `columns`: Memento's under removals,
    /// else the plain sets over `n` (weights have none: the caller checks).
    pub(super) fn replicas_batch(
        &self,
        keys: &[u64],
        n: BucketCount,
        columns: &mut [&mut [u32]],
    ) -> Result<(), Error> {
        match self {
            Placement::Memento(m) => m.replicas_batch(keys, columns),
            _ => crate::replicas::batch(keys, n, columns),
        }
    }
}
