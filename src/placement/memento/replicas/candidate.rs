//! A replaced member's candidates: the buckets of keys derived from the
//! key, tried in turn (see the construction in the parent module).

use crate::kernel::scalar::jump;

/// The seed of candidate 0's derived key (candidate `a` uses this plus `a`):
/// far above the replica slots' and the weights' seeds.
pub(super) const CANDIDATE_SEED: u64 = 1 << 40;

/// A replacement candidate of a key: its derived key, and that key's
/// Figure 1 bucket over the b-array.
#[derive(Clone, Copy)]
pub(super) struct Candidate {
    pub(super) key: u64,
    pub(super) bucket: u32,
}

impl Candidate {
    /// Candidate `a` of `key` over a b-array of `n` buckets.
    pub(super) fn of(key: u64, a: u64, n: u32) -> Candidate {
        let derived = xxhash_rust::xxh64::xxh64(&key.to_le_bytes(), CANDIDATE_SEED + a);
        Candidate {
            key: derived,
            bucket: jump(derived, n),
        }
    }
}
