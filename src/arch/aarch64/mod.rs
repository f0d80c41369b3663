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
//! A finished lane is refilled at once with the next unread key, so the
//! lanes stay busy whatever the spread of iteration counts, and several
//! vectors run interleaved to hide the latency of one iteration (the
//! division dominates it).

mod lcg;
pub(crate) mod neon;
