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
use super::quotient::{quotient_256, scaled_divisor_256};
use super::{lowest_lanes, prefetch};
use crate::kernel::scalar::{self, LCG_MULTIPLIER};
use crate::Division;

/// Vectors advanced together, so that their dependency chains overlap,
/// when every vector divides: 8 measured fastest (see docs/kernels.md).
const GROUPS: usize = 8;

/// [`GROUPS`] when some vectors take the refined reciprocal, whose
/// temporaries spill the state of 8 groups (see docs/kernels.md).
const GROUPS_REFINED: usize = 6;

const LANES: usize = 4;

/// Batches shorter than this take the short path ([`short`]): blocks of
/// up to [`BLOCK`] keys, each vector loaded once and run until its block's
/// slowest lane is done, with no refill, outbox or group setup. From this
/// long, batches take the refilling loop ([`run`]), which they fill
/// [`super::short::LOOP_FILLS`] times at least ([`GROUPS`] vectors, or
/// [`GROUPS_REFINED`] with the refined reciprocal; see docs/kernels.md).
fn loop_from(refined: bool) -> usize {
    let groups = if refined { GROUPS_REFINED } else { GROUPS };
    super::short::LOOP_FILLS * groups * LANES
}

/// Keys per block of the short path: 6 vectors, whose state (18
/// registers with the limit) nearly fits in the 16: blocks of 8 vectors
/// spill theirs, and ran at two thirds of the speed of blocks of 6 on
/// AMD Zen 4 (see docs/kernels.md).
const BLOCK: usize = 6 * LANES;

/// Computes Figure 1 for every key, dividing as `division` says.
///
/// # Safety
/// The CPU must support every feature enabled here, `keys.len()` must equal
/// `out.len()`, and `num_buckets` must lie in `1..=2^31-1`.
#[target_feature(enable = "avx2,fma,popcnt")]
pub(crate) unsafe fn batch(keys: &[u64], num_buckets: u32, out: &mut [u32], division: Division) {
    match division {
        Division::Ieee => by_length::<false, false>(keys, num_buckets, out),
        Division::Newton => by_length::<true, true>(keys, num_buckets, out),
        Division::Hybrid => by_length::<false, true>(keys, num_buckets, out),
    }
}

/// The path for this length. Even-numbered vectors use the refined
/// reciprocal when `EVEN`, odd ones when `ODD` (else IEEE division).
#[inline]
#[target_feature(enable = "avx2,fma,popcnt")]
fn by_length<const EVEN: bool, const ODD: bool>(keys: &[u64], num_buckets: u32, out: &mut [u32]) {
    match (keys, &mut *out) {
        ([], _) => return,
        // One key: the scalar loop has the shortest chain; two: two
        // scalar chains in lockstep (measured faster than one vector).
        ([key], [o]) => return *o = scalar::jump(*key, num_buckets),
        (&[a, b], [o, p]) => {
            [*o, *p] = scalar::jump_lanes([a, b], num_buckets);
            return;
        }
        _ => {}
    }
    if keys.len() < loop_from(EVEN || ODD) {
        short::<EVEN, ODD>(keys, num_buckets, out);
        return;
    }
    for (keys, out) in keys.chunks(CHUNK).zip(out.chunks_mut(CHUNK)) {
        if crate::arch::long_keys(num_buckets) {
            run::<4, EVEN, ODD>(keys, num_buckets, out);
        } else {
            run::<3, EVEN, ODD>(keys, num_buckets, out);
        }
    }
}

/// A short batch (from 3 keys to one fewer than [`loop_from`]) in as few
/// blocks of at most [`BLOCK`] keys as hold it, of even lengths
/// ([`super::short::block_len`]), each in as few vectors as hold it.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn short<const EVEN: bool, const ODD: bool>(keys: &[u64], num_buckets: u32, out: &mut [u32]) {
    let size = super::short::block_len(keys.len(), BLOCK, LANES);
    for (keys, out) in keys.chunks(size).zip(out.chunks_mut(size)) {
        match keys.len().div_ceil(LANES) {
            1 => block::<1, EVEN, ODD>(keys, num_buckets, out),
            2 => block::<2, EVEN, ODD>(keys, num_buckets, out),
            3 => block::<3, EVEN, ODD>(keys, num_buckets, out),
            4 => block::<4, EVEN, ODD>(keys, num_buckets, out),
            _ => block::<6, EVEN, ODD>(keys, num_buckets, out),
        }
    }
}

/// 3 or 4 keys in one vector with IEEE division ([`block`]), for the
/// AVX-512 kernel: one 4-lane vector has a shorter chain than one 8-lane
/// vector half empty. Out of line, so that it is compiled for AVX2 alone,
/// which is what makes it faster (see docs/kernels.md).
#[inline(never)]
#[target_feature(enable = "avx2,fma")]
pub(super) fn four(keys: &[u64], num_buckets: u32, out: &mut [u32]) {
    block::<1, false, false>(keys, num_buckets, out);
}

/// Up to `V * 4` keys, each vector loaded once (a masked load of exactly
/// its keys) and every vector stepped one iteration at a time until all
/// their lanes are done. A lane past the keys starts done.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn block<const V: usize, const EVEN: bool, const ODD: bool>(
    keys: &[u64],
    num_buckets: u32,
    out: &mut [u32],
) {
    debug_assert!(keys.len() == out.len() && keys.len() <= V * LANES);
    let limit = _mm256_set1_pd(f64::from(num_buckets));
    let mut state = [_mm256_setzero_si256(); V];
    let mut prev = [_mm256_setzero_pd(); V];
    let mut done = [_mm256_setzero_pd(); V];
    for v in 0..V {
        let start = (v * LANES).min(keys.len());
        let count = (keys.len() - start).min(LANES);
        let lanes = lane_mask((1 << count) - 1);
        // SAFETY: the masked load reads only the `count` lanes set in
        // `lanes`, the keys `start..start + count`, which lie inside
        // `keys`; the other lanes read nothing and cannot fault.
        state[v] = unsafe { _mm256_maskload_epi64(keys.as_ptr().add(start).cast(), lanes) };
        done[v] = _mm256_castsi256_pd(_mm256_xor_si256(lanes, _mm256_set1_epi64x(-1)));
    }
    loop {
        let mut all = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
        for v in 0..V {
            state[v] = lcg(state[v]);
            let scaled = scaled_divisor_256(state[v]);
            let q = if v % 2 == 0 {
                quotient_256::<EVEN>(scaled)
            } else {
                quotient_256::<ODD>(scaled)
            };
            let x = _mm256_fmadd_pd(prev[v], q, q);
            done[v] = _mm256_or_pd(done[v], _mm256_cmp_pd::<_CMP_GE_OQ>(x, limit));
            let truncated = _mm256_round_pd::<{ _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC }>(x);
            prev[v] = _mm256_blendv_pd(truncated, prev[v], done[v]);
            all = _mm256_and_pd(all, done[v]);
        }
        if _mm256_movemask_pd(all) == 0b1111 {
            break;
        }
    }
    // Whole vectors straight to `out`; only a last, partial one goes
    // through a buffer (a copy of variable length is a `memcpy` call, which
    // cost a few percent of a block when every vector made one).
    for (v, out) in out.chunks_mut(LANES).enumerate() {
        let answers = _mm256_cvttpd_epi32(prev[v]);
        if let Ok(whole) = <&mut [u32; LANES]>::try_from(&mut *out) {
            // SAFETY: `whole` is 4 `u32`, the 16 bytes the store writes.
            unsafe { _mm_storeu_si128(whole.as_mut_ptr().cast(), answers) };
        } else {
            let mut buffer = [0u32; LANES];
            // SAFETY: `buffer` is 4 `u32`, the 16 bytes the store writes.
            unsafe { _mm_storeu_si128(buffer.as_mut_ptr().cast(), answers) };
            out.copy_from_slice(&buffer[..out.len()]);
        }
    }
}

/// For each 4-lane mask `m`: the 32-bit permutation that moves 64-bit
/// element `r` to the lane holding the `r`-th set bit of `m` (an expand).
/// Lanes outside `m` keep their own element; they are blended away.
pub(crate) static SPREAD: [[u32; 8]; 16] = permutations(true);

/// For each 4-lane mask `m`: the 32-bit permutation that moves the lane
/// holding the `r`-th set bit of `m` to element `r` (a compress).
pub(crate) static PACK: [[u32; 8]; 16] = permutations(false);

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
pub(crate) fn permutation(table: &[[u32; 8]; 16], mask: u32) -> __m256i {
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
    /// `N` in lanes holding a key; NaN in idle lanes (once the keys run
    /// out), so that they never finish: no ordered comparison with NaN
    /// holds, whatever an idle lane's `x` drifts to.
    limit: __m256d,
}

/// For each 4-lane mask `m`: `r << 32` in the lane holding the `r`-th set
/// bit of `m`, the offset of that lane's key from the next unread one.
static RANKS: [[u64; 4]; 16] = ranks();

const fn ranks() -> [[u64; 4]; 16] {
    let mut table = [[0u64; 4]; 16];
    let mut mask = 0;
    while mask < 16 {
        let mut lane = 0;
        let mut rank = 0;
        while lane < LANES {
            if mask & (1 << lane) != 0 {
                table[mask][lane] = rank << 32;
                rank += 1;
            }
            lane += 1;
        }
        mask += 1;
    }
    table
}

/// The unread part of the input.
struct Feed<'a> {
    keys: &'a [u64],
    next: usize,
    /// Lanes retired for want of keys.
    idle: usize,
}

impl Feed<'_> {
    /// Loads the next keys into the `free` lanes (`free_lanes` is the same
    /// mask as a vector), or as many as remain, the others going idle.
    /// The prefetch is free: the loop is bound by its vector ports (see docs/kernels.md).
    #[inline]
    #[target_feature(enable = "avx2,popcnt")]
    fn refill(&mut self, lanes: &mut Lanes, free: u32, free_lanes: __m256i) {
        prefetch(self.keys, self.next);
        let left = self.keys.len() - self.next;
        let (fresh, take, take_lanes) = if left >= LANES {
            let four = &self.keys[self.next..self.next + LANES];
            // SAFETY: `four` is 4 `u64`, the 32 bytes an unaligned load reads.
            let fresh = unsafe { _mm256_loadu_si256(four.as_ptr().cast()) };
            (fresh, free, free_lanes)
        } else {
            self.last_keys(lanes, free)
        };
        let fresh = _mm256_permutevar8x32_epi32(fresh, permutation(&SPREAD, take));
        let ranks = &RANKS[take as usize & 15];
        // SAFETY: `ranks` is 4 `u64`, the 32 bytes an unaligned load reads.
        let ranks = unsafe { _mm256_loadu_si256(ranks.as_ptr().cast()) };
        let positions =
            _mm256_add_epi64(_mm256_set1_epi64x(packed_position(self.next) as i64), ranks);
        lanes.state = _mm256_blendv_epi8(lanes.state, fresh, take_lanes);
        lanes.position = _mm256_blendv_epi8(lanes.position, positions, take_lanes);
        self.next += take.count_ones() as usize;
    }

    /// The slow path for the last (fewer than 4) keys: copies them to a
    /// padded buffer, fills the lowest free lanes, and retires the rest.
    #[cold]
    #[target_feature(enable = "avx2,popcnt")]
    fn last_keys(&mut self, lanes: &mut Lanes, free: u32) -> (__m256i, u32, __m256i) {
        let rest = &self.keys[self.next..];
        let mut padded = [0u64; LANES];
        padded[..rest.len()].copy_from_slice(rest);
        let take = lowest_lanes(free, rest.len());
        let retire = free & !take;
        lanes.limit = _mm256_blendv_pd(
            lanes.limit,
            _mm256_set1_pd(f64::NAN),
            _mm256_castsi256_pd(lane_mask(retire)),
        );
        self.idle += retire.count_ones() as usize;
        // SAFETY: `padded` is 4 `u64`, the 32 bytes an unaligned load reads.
        let fresh = unsafe { _mm256_loadu_si256(padded.as_ptr().cast()) };
        (fresh, take, lane_mask(take))
    }
}

/// A 4-bit lane mask as a vector of all-ones and all-zeros lanes.
#[inline]
#[target_feature(enable = "avx2")]
pub(crate) fn lane_mask(mask: u32) -> __m256i {
    let bits = _mm256_setr_epi64x(1, 2, 4, 8);
    let set = _mm256_and_si256(_mm256_set1_epi64x(i64::from(mask)), bits);
    _mm256_cmpeq_epi64(set, bits)
}

/// `state * M + 1` mod 2^64 from 32-bit multiplies (AVX2 has no 64-bit
/// one): the low halves' full product, plus the two cross products' sum,
/// mod 2^32, in the high half, with the `+ 1` in the low half. The high
/// halves' product only reaches bits 64 and above. 7 uops, one fewer than
/// adding the 1 apart (see docs/kernels.md).
#[inline]
#[target_feature(enable = "avx2")]
pub(crate) fn lcg(state: __m256i) -> __m256i {
    let low = _mm256_mul_epu32(state, _mm256_set1_epi64x(LCG_MULTIPLIER as u32 as i64));
    // lo(s) hi(M) and hi(s) lo(M), mod 2^32, in the low and high half.
    let swapped = _mm256_set1_epi64x(LCG_MULTIPLIER.rotate_left(32) as i64);
    let cross = _mm256_mullo_epi32(state, swapped);
    // Their sum in the high half (the byte shift may run on the shuffle
    // port, which the multiplies leave free); the blend puts the LCG's
    // + 1 in the low half, so that one add finishes the step: adding
    // `(sum << 32) + 1` to `low` is exact mod 2^64.
    let sum = _mm256_add_epi32(cross, _mm256_bslli_epi128::<4>(cross));
    let high = _mm256_blend_epi32::<0b0101_0101>(sum, _mm256_set1_epi64x(1));
    _mm256_add_epi64(low, high)
}

/// One Figure 1 iteration on every group's lanes that have not finished,
/// the groups interleaved so that their chains overlap without relying on
/// the reorder window to find them. A lane whose `x` reaches its limit
/// joins `finished` and keeps its answer in `prev`.
///
/// `hybrid` refines every other vector's reciprocal: smaller shares, and
/// the other forms of this step tried, were slower (see docs/kernels.md).
///
/// With `ONE_LIMIT`, every lane compares with `limit` instead of its
/// group's own: while every lane holds a key, all limits are `N`, and one
/// register holding it spares a load per group and step.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn step<const G: usize, const EVEN: bool, const ODD: bool, const ONE_LIMIT: bool>(
    groups: &mut [Lanes; G],
    finished: &mut [__m256d; G],
    limit: __m256d,
) {
    for g in 0..G {
        let (lanes, finished) = (&mut groups[g], &mut finished[g]);
        lanes.state = lcg(lanes.state);
        // q = 2^31 / ((key >> 33) + 1), exactly.
        let scaled = scaled_divisor_256(lanes.state);
        let q = if g % 2 == 0 {
            quotient_256::<EVEN>(scaled)
        } else {
            quotient_256::<ODD>(scaled)
        };
        // x = (b + 1) q with one rounding: fma(b, q, q).
        let x = _mm256_fmadd_pd(lanes.prev, q, q);
        // Figure 1 stops when j = trunc(x) >= N, that is when x >= N.
        let limit = if ONE_LIMIT { limit } else { lanes.limit };
        *finished = _mm256_or_pd(*finished, _mm256_cmp_pd::<_CMP_GE_OQ>(x, limit));
        // b = j = trunc(x) < N for the lanes that go on. Their trunc(x)
        // is above b (x = (b + 1) q with q >= 1), so a max against b
        // keeps b in finished lanes once their x is zeroed: 4 uops where a
        // blend and a rounding take 5 (see docs/kernels.md).
        let going_on = _mm256_andnot_pd(*finished, x);
        let truncated = _mm256_round_pd::<{ _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC }>(going_on);
        lanes.prev = _mm256_max_pd(lanes.prev, truncated);
    }
}

/// Sends the answers of the `finished` lanes to `slots` (4 of them, the
/// first `done.count_ones()` hold answers) and restarts their `prev` at 0.
/// Returns the finished lanes as a 4-bit mask.
#[inline]
#[target_feature(enable = "avx2")]
fn retire(lanes: &mut Lanes, finished: __m256d, slots: &mut [u64]) -> u32 {
    let done = _mm256_movemask_pd(finished) as u32;
    // (position << 32) | b, finished lanes first.
    let packed = _mm256_add_epi64(
        _mm256_castpd_si256(_mm256_add_pd(lanes.prev, _mm256_set1_pd(PACK_BIAS_F64))),
        lanes.position,
    );
    let packed = _mm256_permutevar8x32_epi32(packed, permutation(&PACK, done));
    assert_eq!(slots.len(), LANES);
    // SAFETY: `slots` is 4 `u64` (asserted), the 32 bytes the store writes.
    unsafe { _mm256_storeu_si256(slots.as_mut_ptr().cast(), packed) };
    lanes.prev = _mm256_andnot_pd(finished, lanes.prev);
    done
}

/// The kernel loop: [`GROUPS`] vectors in flight ([`GROUPS_REFINED`] with
/// the refined reciprocal), then fewer as the keys run out ([`rounds`],
/// [`compact`]). Even-numbered vectors use the
/// refined reciprocal when `EVEN`, odd ones when `ODD`.
/// `keys.len() == out.len() <= CHUNK`.
#[inline]
#[target_feature(enable = "avx2,fma,popcnt")]
fn run<const S: usize, const EVEN: bool, const ODD: bool>(
    keys: &[u64],
    num_buckets: u32,
    out: &mut [u32],
) {
    debug_assert!(keys.len() == out.len() && keys.len() <= CHUNK);
    let mut feed = Feed {
        keys,
        next: 0,
        idle: 0,
    };
    let mut outbox = Outbox::new();
    let limit = _mm256_set1_pd(f64::from(num_buckets));
    let (feed, outbox) = (&mut feed, &mut outbox);
    let mut one = if EVEN || ODD {
        let mut six = start::<GROUPS_REFINED>(feed, limit);
        full_rounds::<GROUPS_REFINED, S, EVEN, ODD>(&mut six, feed, outbox, out, limit);
        rounds::<GROUPS_REFINED, 3, S, EVEN, ODD>(&mut six, feed, outbox, out);
        let mut three = compact::<GROUPS_REFINED, 3>(&six, feed, limit);
        rounds::<3, 1, S, EVEN, ODD>(&mut three, feed, outbox, out);
        compact::<3, 1>(&three, feed, limit)
    } else {
        let mut eight = start::<GROUPS>(feed, limit);
        full_rounds::<GROUPS, S, EVEN, ODD>(&mut eight, feed, outbox, out, limit);
        rounds::<GROUPS, 4, S, EVEN, ODD>(&mut eight, feed, outbox, out);
        let mut four = compact::<GROUPS, 4>(&eight, feed, limit);
        rounds::<4, 2, S, EVEN, ODD>(&mut four, feed, outbox, out);
        let mut two = compact::<4, 2>(&four, feed, limit);
        rounds::<2, 1, S, EVEN, ODD>(&mut two, feed, outbox, out);
        compact::<2, 1>(&two, feed, limit)
    };
    rounds::<1, 0, S, EVEN, ODD>(&mut one, feed, outbox, out);
    outbox.flush(out);
}

/// `G` groups, every lane loaded with the next key (or idle if the keys
/// run out first). `limit` holds `N` in every lane.
#[inline]
#[target_feature(enable = "avx2,popcnt")]
fn start<const G: usize>(feed: &mut Feed, limit: __m256d) -> [Lanes; G] {
    let mut groups = [Lanes {
        state: _mm256_setzero_si256(),
        prev: _mm256_setzero_pd(),
        position: _mm256_setzero_si256(),
        limit,
    }; G];
    for lanes in &mut groups {
        feed.refill(lanes, 0b1111, _mm256_set1_epi64x(-1));
    }
    groups
}

/// Rounds on `G` groups: each steps every group `S` times ([`step`]; see
/// `crate::arch::long_keys`), then retires and refills the finished lanes
/// of each group in turn. Returns once the live lanes fit in `H` groups
/// (once every lane is idle, for `H = 0`).
///
/// Once the keys run out, lanes go idle, but a step costs as much for an
/// idle lane as for a live one while the slowest keys finish: so the live
/// lanes move into fewer groups ([`compact`]) as soon as they fit, as in
/// the AVX-512 kernel (see docs/kernels.md).
#[inline]
#[target_feature(enable = "avx2,fma,popcnt")]
fn rounds<const G: usize, const H: usize, const S: usize, const EVEN: bool, const ODD: bool>(
    groups: &mut [Lanes; G],
    feed: &mut Feed,
    outbox: &mut Outbox,
    out: &mut [u32],
) {
    const { assert!(H < G && (S == 3 || S == 4)) };
    while feed.idle < (G - H) * LANES {
        outbox.make_room(G * LANES, out);
        let mut finished = [_mm256_setzero_pd(); G];
        // Written out rather than looped, which measured faster here (see docs/kernels.md).
        let unused = _mm256_setzero_pd();
        step::<G, EVEN, ODD, false>(groups, &mut finished, unused);
        step::<G, EVEN, ODD, false>(groups, &mut finished, unused);
        step::<G, EVEN, ODD, false>(groups, &mut finished, unused);
        if S == 4 {
            step::<G, EVEN, ODD, false>(groups, &mut finished, unused);
        }
        for (lanes, finished) in groups.iter_mut().zip(finished) {
            let done = retire(lanes, finished, outbox.slots(LANES));
            outbox.commit(done.count_ones() as usize);
            feed.refill(lanes, done, _mm256_castpd_si256(finished));
        }
        outbox.trickle(out);
    }
}

/// The rounds of the first `G` groups while the keys left fill every lane
/// a round can free (`G * LANES`), so that every refill finds its keys:
/// one bounds check, two prefetches and one outbox reservation a round
/// instead of one each a group, and one register for the limit `N`
/// ([`step`]): faster than the per-group [`retire`] and [`Feed::refill`],
/// which [`rounds`] keeps for the last keys. `limit` holds `N` in every lane.
///
/// Inlined into the loop, every refill after every step: the other
/// arrangements tried were slower (see docs/kernels.md).
#[inline]
#[target_feature(enable = "avx2,fma,popcnt")]
fn full_rounds<const G: usize, const S: usize, const EVEN: bool, const ODD: bool>(
    groups: &mut [Lanes; G],
    feed: &mut Feed,
    outbox: &mut Outbox,
    out: &mut [u32],
    limit: __m256d,
) {
    while feed.keys.len() - feed.next >= G * LANES {
        outbox.make_room(G * LANES, out);
        let mut finished = [_mm256_setzero_pd(); G];
        // As in `rounds`.
        step::<G, EVEN, ODD, true>(groups, &mut finished, limit);
        step::<G, EVEN, ODD, true>(groups, &mut finished, limit);
        step::<G, EVEN, ODD, true>(groups, &mut finished, limit);
        if S == 4 {
            step::<G, EVEN, ODD, true>(groups, &mut finished, limit);
        }
        let fresh = &feed.keys[feed.next..][..G * LANES];
        let slots = outbox.slots(G * LANES);
        // The round takes at most `G * LANES` keys, about 10 on average:
        // two lines a round keep ahead of it.
        prefetch(feed.keys, feed.next);
        prefetch(feed.keys, feed.next + 8);
        // `packed_position` of the next unread key, in every lane.
        let mut next = _mm256_set1_epi64x(packed_position(feed.next) as i64);
        let mut taken = 0;
        for g in 0..G {
            let (lanes, finished) = (&mut groups[g], finished[g]);
            let done = _mm256_movemask_pd(finished) as u32;
            // Retire: (position << 32) | b, finished lanes first, as in
            // `retire`.
            let packed = _mm256_add_epi64(
                _mm256_castpd_si256(_mm256_add_pd(lanes.prev, _mm256_set1_pd(PACK_BIAS_F64))),
                lanes.position,
            );
            let packed = _mm256_permutevar8x32_epi32(packed, permutation(&PACK, done));
            debug_assert!(taken <= g * LANES);
            // SAFETY: each group retires and refills at most `LANES` lanes,
            // so `taken <= g * LANES` and the 4 slots and 4 keys at `taken`
            // lie inside `slots` and `fresh`, both `G * LANES` long.
            let keys = unsafe {
                _mm256_storeu_si256(slots.as_mut_ptr().add(taken).cast(), packed);
                _mm256_loadu_si256(fresh.as_ptr().add(taken).cast())
            };
            lanes.prev = _mm256_andnot_pd(finished, lanes.prev);
            // Refill, as in `Feed::refill`.
            let keys = _mm256_permutevar8x32_epi32(keys, permutation(&SPREAD, done));
            let (ranks, count) = (&RANKS[done as usize & 15], &COUNTS[done as usize & 15]);
            // SAFETY: `ranks` and `count` are 4 `u64`, the 32 bytes an
            // unaligned load reads.
            let (ranks, count) = unsafe {
                (
                    _mm256_loadu_si256(ranks.as_ptr().cast()),
                    _mm256_loadu_si256(count.as_ptr().cast()),
                )
            };
            let take = _mm256_castpd_si256(finished);
            lanes.state = _mm256_blendv_epi8(lanes.state, keys, take);
            // Positions by a blend, like the state: a masked store
            // (`vpmaskmovq` to memory) is one uop on Intel but microcoded
            // on AMD Zen 1 to 3 (see docs/kernels.md).
            lanes.position =
                _mm256_blendv_epi8(lanes.position, _mm256_add_epi64(next, ranks), take);
            next = _mm256_add_epi64(next, count);
            taken += done.count_ones() as usize;
        }
        outbox.commit(taken);
        feed.next += taken;
        outbox.trickle(out);
    }
}

/// For each 4-lane mask `m`: `popcount(m) << 32` in every lane.
static COUNTS: [[u64; 4]; 16] = counts();

const fn counts() -> [[u64; 4]; 16] {
    let mut table = [[0u64; 4]; 16];
    let mut mask = 0;
    while mask < 16 {
        let c = (mask as u32).count_ones() as u64;
        table[mask] = [c << 32; 4];
        mask += 1;
    }
    table
}

/// The live lanes of `G` groups (at most `H * LANES` of them, as
/// [`rounds`] ensures) moved into `H` groups, the lanes left over idle.
/// `limit` holds `N` in every lane.
///
/// Not inlined: it runs two or three times a batch (and its AVX-512 twin,
/// inlined, broke LLVM's code generation in some builds).
#[inline(never)]
#[target_feature(enable = "avx2,popcnt")]
fn compact<const G: usize, const H: usize>(
    groups: &[Lanes; G],
    feed: &mut Feed,
    limit: __m256d,
) -> [Lanes; H] {
    const { assert!(H < G) };
    // Room for `G` vectors, where `H` hold the live lanes: each group's
    // full-width store starts at most `H * LANES` in, so it stays inside.
    let mut state = [[0u64; LANES]; G];
    let mut prev = [[0f64; LANES]; G];
    let mut position = [[0u64; LANES]; G];
    let mut live = 0;
    for lanes in groups {
        // Idle lanes' limit is NaN, the only unordered one.
        let keep = _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_ORD_Q>(lanes.limit, lanes.limit));
        let pack = permutation(&PACK, keep as u32);
        let (state, prev, position) = (
            state.as_flattened_mut()[live..live + LANES].as_mut_ptr(),
            prev.as_flattened_mut()[live..live + LANES].as_mut_ptr(),
            position.as_flattened_mut()[live..live + LANES].as_mut_ptr(),
        );
        // SAFETY: each pointer starts 4 elements of its array, the 32
        // bytes an unaligned store writes (bounds-checked just above).
        unsafe {
            _mm256_storeu_si256(state.cast(), _mm256_permutevar8x32_epi32(lanes.state, pack));
            let packed = _mm256_permutevar8x32_ps(_mm256_castpd_ps(lanes.prev), pack);
            _mm256_storeu_pd(prev, _mm256_castps_pd(packed));
            _mm256_storeu_si256(
                position.cast(),
                _mm256_permutevar8x32_epi32(lanes.position, pack),
            );
        }
        live += keep.count_ones() as usize;
    }
    debug_assert!(live <= H * LANES);
    feed.idle = H * LANES - live;
    let nan = _mm256_set1_pd(f64::NAN);
    let mut compacted = [groups[0]; H];
    for (h, lanes) in compacted.iter_mut().enumerate() {
        let filled = live.saturating_sub(h * LANES).min(LANES);
        // SAFETY: each row is 4 elements, the 32 bytes an unaligned load reads.
        unsafe {
            lanes.state = _mm256_loadu_si256(state[h].as_ptr().cast());
            lanes.prev = _mm256_loadu_pd(prev[h].as_ptr());
            lanes.position = _mm256_loadu_si256(position[h].as_ptr().cast());
        }
        let filled = _mm256_castsi256_pd(lane_mask((1 << filled) - 1));
        lanes.limit = _mm256_blendv_pd(nan, limit, filled);
    }
    compacted
}
