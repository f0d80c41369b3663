//! The AVX2 kernel: 4 keys per vector, several vectors in flight.
//!
//! AVX2 has no mask registers, 64-bit multiply, expanding load or compress,
//! so this kernel builds them: lane masks are vectors from the comparison
//! (and 4-bit integers from `movemask`), the LCG multiply is composed from
//! 32-bit multiplies, and two 16-entry permutation tables stand in for
//! expand (refilling finished lanes with the next keys) and compress
//! (packing finished lanes' answers to the front for the [`Outbox`]).

use core::arch::x86_64::*;

use super::outbox::{packed_position, Outbox, CHUNK, PACK_BIAS_F64};
use super::quotient::{divide_256, newton_256, scaled_divisor_256};
use crate::scalar::LCG_MULTIPLIER;

/// Vectors advanced in turn, so that their dependency chains overlap.
const GROUPS: usize = 8;

/// How many of the [`GROUPS`] divide with `vdivpd`; the others use the
/// reciprocal estimate and Newton steps.
const DIVIDING: usize = GROUPS;

const LANES: usize = 4;

/// Computes Figure 1 for every key.
///
/// # Safety
/// The CPU must support every feature enabled here, `keys.len()` must equal
/// `out.len()`, and `num_buckets` must lie in `1..=2^31-1`.
#[target_feature(enable = "avx2,fma,bmi2,popcnt")]
pub(crate) unsafe fn batch(keys: &[u64], num_buckets: u32, out: &mut [u32]) {
    batch_with::<GROUPS, DIVIDING>(keys, num_buckets, out)
}

/// Tuning entry (temporary).
#[target_feature(enable = "avx2,fma,bmi2,popcnt")]
pub(crate) unsafe fn batch_with<const G: usize, const D: usize>(
    keys: &[u64],
    num_buckets: u32,
    out: &mut [u32],
) {
    for (keys, out) in keys.chunks(CHUNK).zip(out.chunks_mut(CHUNK)) {
        run::<G, D>(keys, num_buckets, out);
    }
}

/// For each 4-lane mask `m`: the 32-bit permutation that moves 64-bit
/// element `r` to the lane holding the `r`-th set bit of `m` (an expand).
/// Lanes outside `m` keep their own element; they are blended away.
static SPREAD: [[u32; 8]; 16] = permutations(true);

/// For each 4-lane mask `m`: the 32-bit permutation that moves the lane
/// holding the `r`-th set bit of `m` to element `r` (a compress).
static PACK: [[u32; 8]; 16] = permutations(false);

const fn permutations(spread: bool) -> [[u32; 8]; 16] {
    let mut table = [[0u32; 8]; 16];
    let mut mask = 0;
    while mask < 16 {
        let mut lane = 0;
        let mut rank = 0;
        // Identity first, so that unused positions are defined.
        while lane < LANES {
            table[mask][2 * lane] = 2 * lane as u32;
            table[mask][2 * lane + 1] = 2 * lane as u32 + 1;
            lane += 1;
        }
        lane = 0;
        while lane < LANES {
            if mask & (1 << lane) != 0 {
                let (to, from) = if spread { (lane, rank) } else { (rank, lane) };
                table[mask][2 * to] = 2 * from as u32;
                table[mask][2 * to + 1] = 2 * from as u32 + 1;
                rank += 1;
            }
            lane += 1;
        }
        mask += 1;
    }
    table
}

/// One of the tables above as a permutation vector.
#[inline]
#[target_feature(enable = "avx2")]
fn permutation(table: &[[u32; 8]; 16], mask: u32) -> __m256i {
    let row = &table[mask as usize & 15];
    // SAFETY: `row` is 8 `u32`, the 32 bytes an unaligned load reads.
    unsafe { _mm256_loadu_si256(row.as_ptr().cast()) }
}

/// One vector of lanes.
#[derive(Clone, Copy)]
struct Lanes {
    /// The LCG state; the key itself right after a refill.
    state: __m256i,
    /// `b`, the last jump destination, as an integer-valued double (0 for a
    /// fresh key).
    prev: __m256d,
    /// `packed_position` of each lane's key.
    position: __m256i,
    /// All ones in lanes holding a key; the others idle once keys run out.
    live: __m256i,
}

/// The unread part of the input.
struct Feed<'a> {
    keys: &'a [u64],
    next: usize,
}

impl Feed<'_> {
    /// Loads the next keys into the `free` lanes (`free_lanes` is the same
    /// mask as a vector), or as many as remain, the others going idle.
    /// Free lanes must be live.
    #[inline]
    #[target_feature(enable = "avx2,bmi2,popcnt")]
    fn refill(&mut self, lanes: &mut Lanes, free: u32, free_lanes: __m256i) {
        let left = self.keys.len() - self.next;
        let (fresh, take, take_lanes) = if left >= LANES {
            let four = &self.keys[self.next..self.next + LANES];
            // SAFETY: `four` is 4 `u64`, the 32 bytes an unaligned load reads.
            let fresh = unsafe { _mm256_loadu_si256(four.as_ptr().cast()) };
            (fresh, free, free_lanes)
        } else {
            self.last_keys(lanes, free)
        };
        let spread = permutation(&SPREAD, take);
        let fresh = _mm256_permutevar8x32_epi32(fresh, spread);
        let positions = _mm256_add_epi64(
            _mm256_set1_epi64x(packed_position(self.next) as i64),
            _mm256_setr_epi64x(0, 1 << 32, 2 << 32, 3 << 32),
        );
        let positions = _mm256_permutevar8x32_epi32(positions, spread);
        lanes.state = _mm256_blendv_epi8(lanes.state, fresh, take_lanes);
        lanes.position = _mm256_blendv_epi8(lanes.position, positions, take_lanes);
        self.next += take.count_ones() as usize;
    }

    /// The slow path for the last (fewer than 4) keys: copies them to a
    /// padded buffer, fills the lowest free lanes, and retires the rest.
    #[cold]
    #[target_feature(enable = "avx2,bmi2")]
    fn last_keys(&self, lanes: &mut Lanes, free: u32) -> (__m256i, u32, __m256i) {
        let rest = &self.keys[self.next..];
        let mut padded = [0u64; LANES];
        padded[..rest.len()].copy_from_slice(rest);
        let take = _pdep_u32((1 << rest.len()) - 1, free);
        let take_lanes = lane_mask(take);
        lanes.live = _mm256_or_si256(_mm256_andnot_si256(lane_mask(free), lanes.live), take_lanes);
        // SAFETY: `padded` is 4 `u64`, the 32 bytes an unaligned load reads.
        let fresh = unsafe { _mm256_loadu_si256(padded.as_ptr().cast()) };
        (fresh, take, take_lanes)
    }
}

/// A 4-bit lane mask as a vector of all-ones and all-zeros lanes.
#[inline]
#[target_feature(enable = "avx2")]
fn lane_mask(mask: u32) -> __m256i {
    let bits = _mm256_setr_epi64x(1, 2, 4, 8);
    let set = _mm256_and_si256(_mm256_set1_epi64x(i64::from(mask)), bits);
    _mm256_cmpeq_epi64(set, bits)
}

/// `state * M + 1` mod 2^64 from three 32x32->64-bit multiplies: the low
/// product in full, and the two cross products' low halves shifted up (the
/// high product only affects bits 64 and above).
#[inline]
#[target_feature(enable = "avx2")]
fn lcg(state: __m256i) -> __m256i {
    let m_lo = _mm256_set1_epi64x(LCG_MULTIPLIER as u32 as i64);
    let m_hi = _mm256_set1_epi64x((LCG_MULTIPLIER >> 32) as i64);
    let low = _mm256_mul_epu32(state, m_lo);
    let cross = _mm256_add_epi64(
        _mm256_mul_epu32(_mm256_srli_epi64::<32>(state), m_lo),
        _mm256_mul_epu32(state, m_hi),
    );
    let product = _mm256_add_epi64(low, _mm256_slli_epi64::<32>(cross));
    _mm256_add_epi64(product, _mm256_set1_epi64x(1))
}

/// One Figure 1 iteration on every live lane. Finished lanes' answers go to
/// `slots` (4 of them; the first `done.count_ones()` hold answers); returns
/// the finished lanes as a 4-bit mask and as a vector.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn step<const DIVIDE: bool>(lanes: &mut Lanes, n: __m256d, slots: &mut [u64]) -> (u32, __m256i) {
    lanes.state = lcg(lanes.state);
    let scaled = scaled_divisor_256(lanes.state);
    // q = 2^31 / ((key >> 33) + 1), exactly.
    let q = if DIVIDE {
        divide_256(scaled)
    } else {
        newton_256(scaled)
    };
    // x = (b + 1) q with one rounding: fma(b, q, q).
    let x = _mm256_fmadd_pd(lanes.prev, q, q);
    // Figure 1 stops when j = trunc(x) >= N, that is when x >= N.
    let at_least_n = _mm256_castpd_si256(_mm256_cmp_pd::<_CMP_GE_OQ>(x, n));
    let done_lanes = _mm256_and_si256(at_least_n, lanes.live);
    let done = _mm256_movemask_pd(_mm256_castsi256_pd(done_lanes)) as u32;
    // (position << 32) | b, finished lanes first.
    let packed = _mm256_add_epi64(
        _mm256_castpd_si256(_mm256_add_pd(lanes.prev, _mm256_set1_pd(PACK_BIAS_F64))),
        lanes.position,
    );
    let packed = _mm256_permutevar8x32_epi32(packed, permutation(&PACK, done));
    assert_eq!(slots.len(), LANES);
    // SAFETY: `slots` is 4 `u64` (asserted), the 32 bytes the store writes.
    unsafe { _mm256_storeu_si256(slots.as_mut_ptr().cast(), packed) };
    // b = j = trunc(x) < N for the lanes that go on, 0 for refilled ones.
    let truncated = _mm256_round_pd::<{ _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC }>(x);
    lanes.prev = _mm256_andnot_pd(_mm256_castsi256_pd(at_least_n), truncated);
    (done, done_lanes)
}

/// The kernel loop with `G` vectors in flight, the first `D` of them
/// dividing. `keys.len() == out.len() <= CHUNK`.
#[inline]
#[target_feature(enable = "avx2,fma,bmi2,popcnt")]
fn run<const G: usize, const D: usize>(keys: &[u64], num_buckets: u32, out: &mut [u32]) {
    debug_assert!(keys.len() == out.len() && keys.len() <= CHUNK);
    let n = _mm256_set1_pd(f64::from(num_buckets));
    let mut feed = Feed { keys, next: 0 };
    let mut outbox = Outbox::new();
    let all = _mm256_set1_epi64x(-1);
    let mut groups = [Lanes {
        state: _mm256_setzero_si256(),
        prev: _mm256_setzero_pd(),
        position: _mm256_setzero_si256(),
        live: all,
    }; G];
    for lanes in &mut groups {
        feed.refill(lanes, 0b1111, all);
    }
    loop {
        outbox.make_room(G * LANES, out);
        let mut live = _mm256_setzero_si256();
        for (i, lanes) in groups.iter_mut().enumerate() {
            let slots = outbox.slots(LANES);
            let (done, done_lanes) = if i < D {
                step::<true>(lanes, n, slots)
            } else {
                step::<false>(lanes, n, slots)
            };
            outbox.commit(done.count_ones() as usize);
            feed.refill(lanes, done, done_lanes);
            live = _mm256_or_si256(live, lanes.live);
        }
        if _mm256_testz_si256(live, live) != 0 {
            break;
        }
    }
    outbox.flush(out);
}
