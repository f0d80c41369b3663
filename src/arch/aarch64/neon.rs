//! The NEON kernel: 2 keys per vector, [`GROUPS`] vectors in flight.
//!
//! Each lane runs Figure 1 on one key. A lane whose key has finished writes
//! its answer and is refilled with the next unread key after its vector's
//! round, so lanes never wait for the slowest key of their vector. NEON has
//! no scatter, compress or expanding load, so finished lanes are settled one
//! at a time, on the path taken only when some lane of some vector finished
//! during the round. See the parent module for the per-lane arithmetic and
//! the loop around it.

use core::arch::aarch64::*;

use super::lcg;
use crate::arch::long_keys;
use crate::kernel::scalar;

/// Vectors advanced in turn, so that their dependency chains (dominated by
/// the division's latency) overlap.
const GROUPS: usize = 4;

/// 64-bit lanes per vector: keys in flight are `GROUPS * LANES`.
pub(crate) const LANES: usize = 2;

/// Figure 1's `double(1LL << 31)`.
const TWO_POW_31: f64 = 2_147_483_648.0;

/// Computes Figure 1 for every key.
///
/// # Safety
/// The CPU must support NEON. `keys.len()` must equal `out.len()` and
/// `num_buckets` must lie in `1..=2^31-1` for the answers to be Figure 1's
/// (a shorter `out` panics; nothing is ever accessed out of bounds).
#[target_feature(enable = "neon")]
pub(crate) unsafe fn batch(keys: &[u64], num_buckets: u32, out: &mut [u32]) {
    match keys.len() {
        0 => {}
        // One key: the scalar loop has the shortest chain.
        1 => out[0] = scalar::jump(keys[0], num_buckets),
        2 => block::<1>(keys, num_buckets, out),
        3 | 4 => block::<2>(keys, num_buckets, out),
        5..=SHORT_MAX => block::<4>(keys, num_buckets, out),
        _ if long_keys(num_buckets) => run::<3>(keys, num_buckets, out),
        _ => run::<2>(keys, num_buckets, out),
    }
}

/// Batches up to this long take the short path ([`block`]): the vectors
/// are loaded once and stepped until their slowest lane is done, with no
/// refill. As many keys as the refilling loop keeps in flight; inferred
/// from the x86 measurements, not yet measured on ARM hardware.
const SHORT_MAX: usize = GROUPS * LANES;

/// Up to `V * 2` keys, each vector loaded once and every vector stepped one
/// iteration at a time until all their lanes are done. A lane past the keys
/// starts done.
#[inline]
#[target_feature(enable = "neon")]
fn block<const V: usize>(keys: &[u64], num_buckets: u32, out: &mut [u32]) {
    debug_assert!(keys.len() == out.len() && keys.len() <= V * LANES);
    let limit = vdupq_n_f64(f64::from(num_buckets));
    let mut state = [vdupq_n_u64(0); V];
    let mut prev = [vdupq_n_f64(0.0); V];
    let mut done = [vdupq_n_u64(u64::MAX); V];
    for (v, pair) in keys.chunks(LANES).enumerate() {
        state[v] = vsetq_lane_u64::<0>(pair[0], state[v]);
        done[v] = vsetq_lane_u64::<0>(0, done[v]);
        if let Some(&key) = pair.get(1) {
            state[v] = vsetq_lane_u64::<1>(key, state[v]);
            done[v] = vsetq_lane_u64::<1>(0, done[v]);
        }
    }
    loop {
        let mut all = vdupq_n_u64(u64::MAX);
        for v in 0..V {
            state[v] = lcg::step(state[v]);
            let d = vcvtq_f64_u64(vaddq_u64(vshrq_n_u64::<33>(state[v]), vdupq_n_u64(1)));
            let q = vdivq_f64(vdupq_n_f64(TWO_POW_31), d);
            let x = vfmaq_f64(q, prev[v], q);
            done[v] = vorrq_u64(done[v], vcgeq_f64(x, limit));
            prev[v] = vbslq_f64(done[v], prev[v], vrndq_f64(x));
            all = vandq_u64(all, done[v]);
        }
        if vminvq_u32(vreinterpretq_u32_u64(all)) != 0 {
            break;
        }
    }
    for (v, pair) in out.chunks_mut(LANES).enumerate() {
        // `b` is an integer in [0, N - 1], so the conversions are exact.
        pair[0] = vgetq_lane_f64::<0>(prev[v]) as u32;
        if let Some(o) = pair.get_mut(1) {
            *o = vgetq_lane_f64::<1>(prev[v]) as u32;
        }
    }
}

/// One vector of lanes.
#[derive(Clone, Copy)]
struct Lanes {
    /// The LCG state; the key itself right after a refill.
    state: uint64x2_t,
    /// `b`, the last jump destination (0 after a refill, which stands for
    /// Figure 1's first `b = j` with `j = 0`), as an integer-valued double.
    prev: float64x2_t,
    /// Where each lane's key sits in `keys` and its answer goes in `out`.
    index: [usize; LANES],
    /// `N` in lanes holding a key; NaN in idle lanes (once the keys run
    /// out), so that they never finish: no ordered comparison with NaN
    /// holds, whatever an idle lane's `x` drifts to.
    limit: float64x2_t,
}

/// What a round found in a vector: the lanes whose key finished (all
/// ones), and the answers `b` they finished with.
#[derive(Clone, Copy)]
struct Finished {
    done: uint64x2_t,
    answer: float64x2_t,
}

/// The unread part of the input.
struct Feed<'a> {
    keys: &'a [u64],
    next: usize,
    /// Lanes retired for want of keys.
    idle: usize,
}

impl Feed<'_> {
    /// Puts the next unread key into lane `L`, whose `prev` is already 0,
    /// or retires the lane when no key is left.
    #[inline]
    #[target_feature(enable = "neon")]
    fn refill<const L: i32>(&mut self, lanes: &mut Lanes) {
        match self.keys.get(self.next) {
            Some(&key) => {
                lanes.state = vsetq_lane_u64::<L>(key, lanes.state);
                lanes.index[L as usize] = self.next;
                self.next += 1;
            }
            None => {
                lanes.limit = vsetq_lane_f64::<L>(f64::NAN, lanes.limit);
                self.idle += 1;
            }
        }
    }

    /// Writes lane `L`'s answer and refills the lane, if its key finished.
    #[inline]
    #[target_feature(enable = "neon")]
    fn settle<const L: i32>(&mut self, lanes: &mut Lanes, found: Finished, out: &mut [u32]) {
        if vgetq_lane_u64::<L>(found.done) != 0 {
            // `b` is an integer in [0, N - 1], so the conversion is exact.
            out[lanes.index[L as usize]] = vgetq_lane_f64::<L>(found.answer) as u32;
            self.refill::<L>(lanes);
        }
    }
}

/// `S` Figure 1 iterations on both lanes of a vector. A lane that finishes
/// keeps its answer in `prev` for the rest of the round; after the round,
/// finished lanes' `prev` restarts at 0, ready for a fresh key.
#[inline]
#[target_feature(enable = "neon")]
fn steps<const S: usize>(lanes: &mut Lanes) -> Finished {
    let mut done = vdupq_n_u64(0);
    for _ in 0..S {
        // key = key * M + 1, mod 2^64.
        lanes.state = lcg::step(lanes.state);
        // d = (key >> 33) + 1 in [1, 2^31]: exact as a double.
        let d = vcvtq_f64_u64(vaddq_u64(vshrq_n_u64::<33>(lanes.state), vdupq_n_u64(1)));
        // q = 2^31 / d, IEEE division as in Figure 1.
        let q = vdivq_f64(vdupq_n_f64(TWO_POW_31), d);
        // x = (b + 1) q with one rounding: fma(b, q, q).
        let x = vfmaq_f64(q, lanes.prev, q);
        // Figure 1 stops when j = trunc(x) >= N, that is when x >= N.
        done = vorrq_u64(done, vcgeq_f64(x, lanes.limit));
        // b = j = trunc(x) < N for the lanes that go on.
        lanes.prev = vbslq_f64(done, lanes.prev, vrndq_f64(x));
    }
    let answer = lanes.prev;
    lanes.prev = vreinterpretq_f64_u64(vbicq_u64(vreinterpretq_u64_f64(answer), done));
    Finished { done, answer }
}

/// The kernel loop: [`GROUPS`] vectors in flight, each refilled after
/// every `S` iterations (see `crate::arch::long_keys`).
#[inline]
#[target_feature(enable = "neon")]
fn run<const S: usize>(keys: &[u64], num_buckets: u32, out: &mut [u32]) {
    debug_assert_eq!(keys.len(), out.len());
    let mut feed = Feed {
        keys,
        next: 0,
        idle: 0,
    };
    let mut groups = [Lanes {
        state: vdupq_n_u64(0),
        prev: vdupq_n_f64(0.0),
        index: [0; LANES],
        limit: vdupq_n_f64(f64::from(num_buckets)),
    }; GROUPS];
    for lanes in &mut groups {
        feed.refill::<0>(lanes);
        feed.refill::<1>(lanes);
    }
    let none = Finished {
        done: vdupq_n_u64(0),
        answer: vdupq_n_f64(0.0),
    };
    while feed.idle < GROUPS * LANES {
        let mut found = [none; GROUPS];
        let mut any = vdupq_n_u64(0);
        for (lanes, f) in groups.iter_mut().zip(&mut found) {
            *f = steps::<S>(lanes);
            any = vorrq_u64(any, f.done);
        }
        if vmaxvq_u32(vreinterpretq_u32_u64(any)) != 0 {
            for (lanes, &f) in groups.iter_mut().zip(&found) {
                feed.settle::<0>(lanes, f, out);
                feed.settle::<1>(lanes, f, out);
            }
        }
    }
}
