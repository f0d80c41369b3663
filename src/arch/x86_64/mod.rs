//! x86-64 kernels: AVX2 (4 lanes) and AVX-512 (8 lanes).
//!
//! Both run the same per-lane form of Figure 1. A lane holds an LCG state
//! and `b`, the last jump destination, as a double (0 for a fresh key, which
//! is where Figure 1 stands after its first `b = j`). One iteration is:
//!
//! 1. `state = state * M + 1` (64-bit wrapping multiply);
//! 2. `D = ((state >> 33) + 1) * 2^-31`, built exactly from the bits
//!    ([`quotient`]);
//! 3. `q = RN(1 / D)`, which equals Figure 1's `RN(2^31 / d)`, by IEEE
//!    division or by a refined reciprocal, per vector, as the kernel's
//!    [`crate::Division`] strategy says ([`quotient`], both checked over
//!    every divisor);
//! 4. `x = fma(b, q, q) = RN((b + 1) q)`, Figure 1's product with its single
//!    rounding (`b + 1 <= 2^31` is exact);
//! 5. the key is done when `x >= N` (for an integer `N` and `x >= 0`,
//!    `trunc(x) < N` exactly when `x < N`), and its answer is `b`;
//!    otherwise `b = trunc(x)`, which is below `N < 2^31`.
//!
//! Batches of up to a few hundred keys take a short path instead (each
//! kernel's `short`): blocks of up to 8 vectors loaded once and stepped
//! until their slowest lane is done, with none of the machinery below.
//!
//! The loop around it, the same in both kernels:
//!
//! - Several vectors ("groups") are advanced together, so that the
//!   ~40-cycle dependency chain of one iteration (multiply, divide, FMA,
//!   compare) overlaps with the others'.
//! - The loop runs in *rounds* of 3 or 4 iterations
//!   ([`crate::arch::long_keys`]). Each iteration steps every group in
//!   turn, so that the independent chains sit next to each other in the
//!   instruction stream; only after the round are the groups retired and
//!   refilled (each group's round in turn leaves a ~90-cycle chain the
//!   reorder window cannot hide; see docs/kernels.md). A lane that
//!   finishes mid-round keeps its answer and ignores the rest of the
//!   round, so that the refill and outbox work below is paid once a round.
//! - After the round, finished lanes' answers are packed as
//!   `(position << 32) | b`, compressed to the front of a vector and stored
//!   with one unconditional store into the [`outbox`], which is copied to
//!   `out` in batches; and finished lanes are refilled at once with the
//!   next unread keys (a masked expand of one unaligned load), so that no
//!   lane waits for the slowest key of its vector. While the keys left fill
//!   every lane a round can free, the bounds checks, prefetches and outbox
//!   reservation of that work run once a round rather than once a group
//!   (each kernel's `full_rounds`), and the outbox writes a few answers to
//!   `out` each round, so that the scalar copy overlaps the vector work.
//! - When fewer keys remain than lanes to refill, the lowest free lanes
//!   take them and the others go idle: their limit `N` becomes NaN, which
//!   no comparison passes. Each time the live lanes fit in fewer vectors
//!   (half as many on AVX-512, 8 -> 4 -> 2 -> 1; 6 -> 3 -> 1 on AVX2) they
//!   are packed into them, so that the rounds that wait for the last,
//!   slowest keys step only live lanes. The loop ends when every lane is
//!   idle.
//!
//! Nothing is read or written outside the slices: full loads are taken from
//! bounds-checked subslices, the last keys come through an exact-count
//! expanding load (AVX-512) or a padded copy (AVX2), and answers reach `out`
//! through ordinary indexing in the outbox flush.
//!
//! An aarch64 kernel can mirror this layout: the ISA-specific pieces are the
//! multiply, the divisor bits, the division, and the expand/compress of the
//! refill and the outbox (here mask instructions on AVX-512 and 16-entry
//! permutation tables on AVX2).

pub(crate) mod avx2;
pub(crate) mod avx512;
pub(crate) mod bitmap;
pub(crate) mod filter;
pub(crate) mod memento;
pub(crate) mod memento_avx2;
pub(crate) mod memento_bytes;
mod outbox;
pub(crate) mod quotient;
mod short;
pub(crate) mod xxh3_avx512;
pub(crate) mod xxh64_avx2;
pub(crate) mod xxh64_avx512;
pub(crate) mod xxh64_medium_avx512;

use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};

/// The lowest `count` lanes of the lane mask `free` (all of them when it
/// has no more): the lanes that take the last keys. Only on the cold path.
fn lowest_lanes(free: u32, count: usize) -> u32 {
    let mut rest = free;
    for _ in 0..count {
        rest &= rest.wrapping_sub(1);
    }
    free & !rest
}

/// How far ahead of the next unread key the kernels prefetch: the refill's
/// load is on the loop's critical path, and the hardware prefetchers alone
/// leave it waiting on memory once the keys outgrow the L2 cache (measured:
/// AVX-512 at N = 10 halves in speed from 2^16 to 2^22 keys without it).
const PREFETCH_AHEAD: usize = 256;

/// Asks for the cache line [`PREFETCH_AHEAD`] keys past `next`, if the
/// slice reaches that far.
#[inline]
#[target_feature(enable = "sse")]
fn prefetch(keys: &[u64], next: usize) {
    if let Some(ahead) = keys.get(next + PREFETCH_AHEAD) {
        _mm_prefetch::<_MM_HINT_T0>((ahead as *const u64).cast());
    }
}

#[cfg(test)]
mod tests {
    use super::lowest_lanes;

    #[test]
    fn lowest_lanes_keeps_the_lowest_set_bits() {
        assert_eq!(lowest_lanes(0b1011_0110, 0), 0);
        assert_eq!(lowest_lanes(0b1011_0110, 2), 0b0000_0110);
        assert_eq!(lowest_lanes(0b1011_0110, 3), 0b0001_0110);
        assert_eq!(lowest_lanes(0b1011_0110, 7), 0b1011_0110);
        assert_eq!(lowest_lanes(0, 3), 0);
    }
}
