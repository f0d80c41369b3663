//! x86-64 kernels: AVX2 (4 lanes) and AVX-512 (8 lanes).
//!
//! Both run the same per-lane form of Figure 1. A lane holds an LCG state
//! and `b`, the last jump destination, as a double (0 for a fresh key, which
//! is where Figure 1 stands after its first `b = j`). One iteration is:
//!
//! 1. `state = state * M + 1` (64-bit wrapping multiply);
//! 2. `D = ((state >> 33) + 1) * 2^-31`, built exactly from the bits
//!    (`quotient::scaled_divisor_*`);
//! 3. `q = RN(1 / D)`, which equals Figure 1's `RN(2^31 / d)`, by division
//!    or by an exhaustively checked Newton iteration (`quotient`);
//! 4. `x = fma(b, q, q) = RN((b + 1) q)`, Figure 1's product with its single
//!    rounding (`b + 1 <= 2^31` is exact);
//! 5. the key is done when `x >= N` (for an integer `N` and `x >= 0`,
//!    `trunc(x) < N` exactly when `x < N`), and its answer is `b`;
//!    otherwise `b = trunc(x)`, which is below `N < 2^31`.
//!
//! A finished lane is refilled at once with the next unread key, so the
//! lanes stay busy whatever the spread of iteration counts, and several
//! vectors run interleaved to hide the latency of one iteration.

pub(crate) mod avx2;
pub(crate) mod avx512;
mod outbox;
mod quotient;
