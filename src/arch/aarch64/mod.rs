//! aarch64 kernels: NEON (2 lanes per vector, 4 vectors in flight).
//!
//! The kernel runs the per-lane form of Figure 1 that every SIMD kernel
//! shares. A lane holds an LCG state and `b`, the last jump destination, as
//! a double (0 for a fresh key, which is where Figure 1 stands after its
//! first `b = j`). One iteration is:
//!
//! 1. `state = state * M + 1` (64-bit wrapping multiply, built from 32-bit
//!    multiplies because NEON has no 64-bit lane multiply; `lcg`);
//! 2. `d = (state >> 33) + 1`, an integer in `[1, 2^31]`, exact as a double;
//! 3. `q = 2^31 / d` by IEEE division (`vdivq_f64`), Figure 1's quotient
//!    bit for bit, with no replacement to prove;
//! 4. `x = fma(b, q, q) = RN((b + 1) q)`, Figure 1's product with its single
//!    rounding (`b + 1 <= 2^31` is exact);
//! 5. the key is done when `x >= N` (for an integer `N` and `x >= 0`,
//!    `trunc(x) < N` exactly when `x < N`), and its answer is `b`;
//!    otherwise `b = trunc(x)`, which is below `N < 2^31`.
//!
//! The loop around it mirrors the x86 kernels':
//!
//! - Several vectors ("groups") are advanced in turn, so that the dependency
//!   chain of one iteration (multiply, divide, FMA, compare) overlaps with
//!   the others'.
//! - Each group runs a *round* of 2 or 3 iterations ([`crate::arch::long_keys`]). A lane
//!   that finishes mid-round keeps its answer and ignores the rest of the
//!   round, so that the refill work is paid once a round.
//! - After the round, finished lanes write their answers and are refilled
//!   with the next unread keys, so that no lane waits for the slowest key
//!   of its vector. When the keys run out, lanes go idle: their limit `N`
//!   becomes NaN, which no comparison passes. The loop ends when every lane
//!   is idle.
//!
//! Nothing is read or written outside the slices: keys come in one at a
//! time through bounds-checked `get`, and answers reach `out` through
//! ordinary indexing, so lengths that are not a multiple of the lane count
//! and buffers of any alignment need no special case.

mod lcg;
pub(crate) mod neon;
pub(crate) mod xxh64_neon;
