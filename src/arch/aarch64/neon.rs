//! The NEON kernel: 2 keys per vector, [`GROUPS`] vectors in flight.
//!
//! Each lane runs Figure 1 on one key. A lane whose key has finished writes
//! its answer and is refilled at once with the next unread key, so lanes
//! never wait for the slowest key of their vector. NEON has no scatter or
//! expanding load, so finished lanes are settled one at a time, on the path
//! taken only when some lane of some vector has finished. See the parent
//! module for the per-lane arithmetic.

use core::arch::aarch64::*;

use super::lcg;

/// Vectors advanced in turn, so that their dependency chains (dominated by
/// the division's latency) overlap.
const GROUPS: usize = 4;

/// Keys in flight: [`GROUPS`] vectors of two 64-bit lanes.
pub(crate) const LANES: usize = 2 * GROUPS;

/// Figure 1's `double(1LL << 31)`.
const TWO_POW_31: f64 = 2_147_483_648.0;

/// Computes Figure 1 for every key.
///
/// # Safety
/// The CPU must support NEON. `keys.len()` must equal `out.len()` and
/// `num_buckets` must lie in `1..=2^31-1` for the answers to be Figure 1's
/// (a shorter `out` panics; it is never written out of bounds).
#[target_feature(enable = "neon")]
pub(crate) unsafe fn batch(keys: &[u64], num_buckets: u32, out: &mut [u32]) {
    run::<GROUPS>(keys, num_buckets, out)
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
    index: [usize; 2],
    /// All ones in lanes holding a key, zero in lanes idle because the keys
    /// ran out.
    live: uint64x2_t,
}

/// What one step found in a vector: the lanes whose key finished (all
/// ones), and the answers `b` they finished with.
#[derive(Clone, Copy)]
struct Finished {
    done: uint64x2_t,
    answer: float64x2_t,
}

/// The unread part of the input, and how many lanes still hold a key.
struct Feed<'a> {
    keys: &'a [u64],
    next: usize,
    live: usize,
}

impl Feed<'_> {
    /// Puts the next unread key into lane `L`, whose `prev` is already 0,
    /// or idles the lane when no key is left.
    #[inline]
    #[target_feature(enable = "neon")]
    fn refill<const L: i32>(&mut self, lanes: &mut Lanes) {
        let was_live = vgetq_lane_u64::<L>(lanes.live) != 0;
        match self.keys.get(self.next) {
            Some(&key) => {
                lanes.state = vsetq_lane_u64::<L>(key, lanes.state);
                lanes.index[L as usize] = self.next;
                self.next += 1;
                if !was_live {
                    lanes.live = vsetq_lane_u64::<L>(u64::MAX, lanes.live);
                    self.live += 1;
                }
            }
            None if was_live => {
                lanes.live = vsetq_lane_u64::<L>(0, lanes.live);
                self.live -= 1;
            }
            None => {}
        }
    }

    /// Writes lane `L`'s answer and refills it, if its key finished.
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

/// One Figure 1 iteration on both lanes of a vector. Idle lanes compute
/// too, but never report a finished key.
#[inline]
#[target_feature(enable = "neon")]
fn step(lanes: &mut Lanes, n: float64x2_t) -> Finished {
    // key = key * M + 1, mod 2^64.
    lanes.state = lcg::step(lanes.state);
    // d = (key >> 33) + 1 in [1, 2^31]: exact as a double.
    let d = vcvtq_f64_u64(vaddq_u64(vshrq_n_u64::<33>(lanes.state), vdupq_n_u64(1)));
    // q = 2^31 / d, IEEE division as in Figure 1.
    let q = vdivq_f64(vdupq_n_f64(TWO_POW_31), d);
    // x = (b + 1) q with one rounding: fma(b, q, q).
    let x = vfmaq_f64(q, lanes.prev, q);
    // Figure 1 stops when j = trunc(x) >= N, that is when x >= N.
    let stop = vcgeq_f64(x, n);
    let answer = lanes.prev;
    // b = j = trunc(x) < N for the lanes that go on; 0 for those that stop,
    // ready for a fresh key (and bounded in idle lanes).
    let next = vbicq_u64(vreinterpretq_u64_f64(vrndq_f64(x)), stop);
    lanes.prev = vreinterpretq_f64_u64(next);
    Finished {
        done: vandq_u64(stop, lanes.live),
        answer,
    }
}

/// The kernel loop with `G` vectors in flight.
#[inline]
#[target_feature(enable = "neon")]
fn run<const G: usize>(keys: &[u64], num_buckets: u32, out: &mut [u32]) {
    debug_assert_eq!(keys.len(), out.len());
    let n = vdupq_n_f64(f64::from(num_buckets));
    let mut feed = Feed {
        keys,
        next: 0,
        live: 0,
    };
    let mut groups = [Lanes {
        state: vdupq_n_u64(0),
        prev: vdupq_n_f64(0.0),
        index: [0; 2],
        live: vdupq_n_u64(0),
    }; G];
    for lanes in &mut groups {
        feed.refill::<0>(lanes);
        feed.refill::<1>(lanes);
    }
    let none = Finished {
        done: vdupq_n_u64(0),
        answer: vdupq_n_f64(0.0),
    };
    while feed.live > 0 {
        let mut found = [none; G];
        let mut any = vdupq_n_u64(0);
        for (lanes, f) in groups.iter_mut().zip(&mut found) {
            *f = step(lanes, n);
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
