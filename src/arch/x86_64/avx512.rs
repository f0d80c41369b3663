//! The AVX-512 kernel: 8 keys per vector, several vectors in flight.
//!
//! Each lane runs Figure 1 on one key. A lane whose key has finished packs
//! its answer for the [`Outbox`] (compressed to the front of a vector with
//! one store) and is refilled at once with the next unread key (a masked
//! expand), so lanes never wait for the slowest key of their vector. See
//! the parent module for the per-lane arithmetic.

use core::arch::x86_64::*;

use super::outbox::{packed_position, Outbox, CHUNK, PACK_BIAS_F64};
use super::quotient::{quotient_512, scaled_divisor_512};
use super::{lowest_lanes, prefetch};
use crate::kernel::scalar::{self, LCG_MULTIPLIER};
use crate::Division;

/// Vectors advanced in turn, so that their dependency chains (multiply,
/// divide, FMA, compare, refill) overlap: 8 reach the plateau (see docs/kernels.md).
const GROUPS: usize = 8;

const LANES: usize = 8;

/// Batches shorter than this take the short path ([`short`]): blocks of
/// up to [`BLOCK`] keys, each vector loaded once and run until its block's
/// slowest lane is done, with no refill, outbox or group setup. From this
/// long, batches take the refilling loop ([`run`]), which they fill
/// [`super::short::LOOP_FILLS`] times at least, which bounds, whatever the
/// CPU and the division strategy, how far the loop's fixed cost can bring
/// a batch at the switch below the blocks (see docs/kernels.md).
const LOOP_FROM: usize = super::short::LOOP_FILLS * GROUPS * LANES;

/// Keys per block of the short path: 8 vectors, as many as the refilling
/// loop keeps in flight, whose state (16 registers) fits in the 32 (a few
/// of their 8 masks go through memory, as 7 mask registers can mask).
const BLOCK: usize = 8 * LANES;

/// Computes Figure 1 for every key, dividing as `division` says.
///
/// # Safety
/// The CPU must support every feature enabled here, `keys.len()` must equal
/// `out.len()`, and `num_buckets` must lie in `1..=2^31-1`.
#[target_feature(enable = "avx512f,avx512dq,avx2,fma,popcnt")]
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
#[target_feature(enable = "avx512f,avx512dq,avx2,fma,popcnt")]
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
        // Three or four: one AVX2 vector (see `avx2::four`).
        (three_or_four, _) if three_or_four.len() <= 4 => {
            super::avx2::four(keys, num_buckets, out);
            return;
        }
        _ => {}
    }
    if keys.len() < LOOP_FROM {
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

/// A short batch (from 5 keys to one fewer than [`LOOP_FROM`]) in as few
/// blocks of at most [`BLOCK`] keys as hold it, of even lengths
/// ([`super::short::block_len`]), each in as few vectors as hold it.
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn short<const EVEN: bool, const ODD: bool>(keys: &[u64], num_buckets: u32, out: &mut [u32]) {
    let size = super::short::block_len(keys.len(), BLOCK, LANES);
    for (keys, out) in keys.chunks(size).zip(out.chunks_mut(size)) {
        match keys.len().div_ceil(LANES) {
            1 => block::<1, EVEN, ODD>(keys, num_buckets, out),
            2 => block::<2, EVEN, ODD>(keys, num_buckets, out),
            3 => block::<3, EVEN, ODD>(keys, num_buckets, out),
            4 => block::<4, EVEN, ODD>(keys, num_buckets, out),
            5 | 6 => block::<6, EVEN, ODD>(keys, num_buckets, out),
            _ => block::<8, EVEN, ODD>(keys, num_buckets, out),
        }
    }
}

/// Up to `V * 8` keys, each vector loaded once (a masked load of exactly
/// its keys) and every vector stepped one iteration at a time until all
/// their lanes are done. A lane past the keys starts done. The cost is
/// about the slowest key's chain, so a vector of 8 keys costs what one
/// or two scalar keys cost.
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn block<const V: usize, const EVEN: bool, const ODD: bool>(
    keys: &[u64],
    num_buckets: u32,
    out: &mut [u32],
) {
    debug_assert!(keys.len() == out.len() && keys.len() <= V * LANES);
    let limit = _mm512_set1_pd(f64::from(num_buckets));
    let mut state = [_mm512_setzero_si512(); V];
    let mut prev = [_mm512_setzero_pd(); V];
    let mut active: [__mmask8; V] = [0; V];
    for v in 0..V {
        let start = (v * LANES).min(keys.len());
        let count = (keys.len() - start).min(LANES);
        let lanes = ((1u32 << count) - 1) as __mmask8;
        // SAFETY: the masked load reads only the `count` lanes in `lanes`,
        // the keys `start..start + count`, which lie inside `keys`; the
        // other lanes read nothing and cannot fault.
        state[v] = unsafe { _mm512_maskz_loadu_epi64(lanes, keys.as_ptr().add(start).cast()) };
        active[v] = lanes;
    }
    loop {
        let mut any = 0;
        for v in 0..V {
            state[v] = lcg(state[v]);
            let scaled = scaled_divisor_512(state[v]);
            let q = if v % 2 == 0 {
                quotient_512::<EVEN>(scaled)
            } else {
                quotient_512::<ODD>(scaled)
            };
            let x = _mm512_fmadd_pd(prev[v], q, q);
            // A masked compare, not `done |= ...`: see `step`.
            active[v] = _mm512_mask_cmp_pd_mask::<_CMP_LT_OQ>(active[v], x, limit);
            prev[v] = _mm512_mask_roundscale_pd::<{ _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC }>(
                prev[v], active[v], x,
            );
            any |= active[v];
        }
        if any == 0 {
            break;
        }
    }
    // Whole vectors straight to `out`; only a last, partial one goes
    // through a buffer (a copy of variable length is a `memcpy` call, which
    // cost a few percent of a block when every vector made one).
    for (v, out) in out.chunks_mut(LANES).enumerate() {
        let answers = _mm512_cvttpd_epu32(prev[v]);
        if let Ok(whole) = <&mut [u32; LANES]>::try_from(&mut *out) {
            // SAFETY: `whole` is 8 `u32`, the 32 bytes the store writes.
            unsafe { _mm256_storeu_si256(whole.as_mut_ptr().cast(), answers) };
        } else {
            let mut buffer = [0u32; LANES];
            // SAFETY: `buffer` is 8 `u32`, the 32 bytes the store writes.
            unsafe { _mm256_storeu_si256(buffer.as_mut_ptr().cast(), answers) };
            out.copy_from_slice(&buffer[..out.len()]);
        }
    }
}

/// One vector of lanes.
#[derive(Clone, Copy)]
struct Lanes {
    /// The LCG state; the key itself right after a refill.
    state: __m512i,
    /// `b`, the last jump destination (0 after a refill, which stands for
    /// Figure 1's first `b = j` with `j = 0`), as an integer-valued double.
    prev: __m512d,
    /// `packed_position` of each lane's key.
    position: __m512i,
    /// `N` in lanes holding a key; NaN in idle lanes (once the keys run
    /// out), so that they never finish: no ordered comparison with NaN
    /// holds, whatever an idle lane's `x` drifts to.
    limit: __m512d,
}

/// The unread part of the input.
struct Feed<'a> {
    keys: &'a [u64],
    next: usize,
    /// Lanes retired for want of keys.
    idle: usize,
}

impl Feed<'_> {
    /// Loads the next keys into the `free` lanes, or as many as remain, the
    /// others going idle.
    #[inline]
    #[target_feature(enable = "avx512f,popcnt")]
    fn refill(&mut self, lanes: &mut Lanes, free: __mmask8) {
        prefetch(self.keys, self.next);
        let left = self.keys.len() - self.next;
        let take = if left >= LANES {
            let eight = &self.keys[self.next..self.next + LANES];
            // SAFETY: `eight` is 8 `u64`, the 64 bytes an unaligned load reads.
            let fresh = unsafe { _mm512_loadu_si512(eight.as_ptr().cast()) };
            lanes.state = _mm512_mask_expand_epi64(lanes.state, free, fresh);
            free
        } else {
            self.last_keys(lanes, free, left)
        };
        let positions = _mm512_add_epi64(
            _mm512_set1_epi64(packed_position(self.next) as i64),
            _mm512_slli_epi64::<32>(_mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7)),
        );
        lanes.position = _mm512_mask_expand_epi64(lanes.position, take, positions);
        self.next += take.count_ones() as usize;
    }

    /// The slow path for the last (fewer than 8) keys: loads them into the
    /// lowest free lanes and retires the rest. Returns the lanes filled.
    #[cold]
    #[target_feature(enable = "avx512f,popcnt")]
    fn last_keys(&mut self, lanes: &mut Lanes, free: __mmask8, left: usize) -> __mmask8 {
        let take = lowest_lanes(u32::from(free), left) as __mmask8;
        // SAFETY: the expanding load reads exactly `take.count_ones()`
        // consecutive keys from `next`, and that many remain in the slice
        // (`take` has at most `left` bits); masked-off lanes read nothing.
        lanes.state = unsafe {
            _mm512_mask_expandloadu_epi64(
                lanes.state,
                take,
                self.keys.as_ptr().add(self.next).cast(),
            )
        };
        let retire = free & !take;
        lanes.limit = _mm512_mask_mov_pd(lanes.limit, retire, _mm512_set1_pd(f64::NAN));
        self.idle += retire.count_ones() as usize;
        take
    }
}

/// `state * M + 1` mod 2^64.
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn lcg(state: __m512i) -> __m512i {
    let product = _mm512_mullo_epi64(state, _mm512_set1_epi64(LCG_MULTIPLIER as i64));
    _mm512_add_epi64(product, _mm512_set1_epi64(1))
}

// The step and loop below are the fastest forms measured (see docs/kernels.md).
/// One Figure 1 iteration on every group's lanes that are still active,
/// the groups interleaved so that their chains overlap without relying on
/// the reorder window to find them. An active lane whose `x` reaches its
/// limit drops out of `active` and keeps its answer in `prev`.
///
/// `active` is updated by a masked compare rather than or-ing a `done`
/// mask: the compiler keeps mask arithmetic (`|`, `!`) in general-purpose
/// registers, and the round trips (`kmov` both ways, on the vector ports)
/// cost more than a fifth of the loop. An idle lane (limit NaN) stays
/// active, as no `x` is greater than or equal to NaN.
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn step<const G: usize, const EVEN: bool, const ODD: bool>(
    groups: &mut [Lanes; G],
    active: &mut [__mmask8; G],
) {
    for g in 0..G {
        let (lanes, active) = (&mut groups[g], &mut active[g]);
        lanes.state = lcg(lanes.state);
        // q = 2^31 / ((key >> 33) + 1), exactly.
        let scaled = scaled_divisor_512(lanes.state);
        let q = if g % 2 == 0 {
            quotient_512::<EVEN>(scaled)
        } else {
            quotient_512::<ODD>(scaled)
        };
        // x = (b + 1) q with one rounding: fma(b, q, q).
        let x = _mm512_fmadd_pd(lanes.prev, q, q);
        // Figure 1 stops when j = trunc(x) >= N, that is when x >= N.
        *active = _mm512_mask_cmp_pd_mask::<_CMP_NGE_UQ>(*active, x, lanes.limit);
        // b = j = trunc(x) < N for the lanes that go on.
        lanes.prev = _mm512_mask_roundscale_pd::<{ _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC }>(
            lanes.prev, *active, x,
        );
    }
}

/// Sends the answers of the `done` lanes to `slots` (8 of them, the first
/// `done.count_ones()` hold answers) and restarts their `prev` at 0.
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn retire(lanes: &mut Lanes, done: __mmask8, slots: &mut [u64]) {
    // (position << 32) | b, finished lanes first.
    let packed = _mm512_add_epi64(
        _mm512_castpd_si512(_mm512_add_pd(lanes.prev, _mm512_set1_pd(PACK_BIAS_F64))),
        lanes.position,
    );
    assert_eq!(slots.len(), LANES);
    // SAFETY: `slots` is 8 `u64` (asserted), the 64 bytes the store writes.
    unsafe {
        _mm512_storeu_si512(
            slots.as_mut_ptr().cast(),
            _mm512_maskz_compress_epi64(done, packed),
        )
    };
    lanes.prev = _mm512_mask_mov_pd(lanes.prev, done, _mm512_setzero_pd());
}

/// The kernel loop: [`GROUPS`] vectors in flight, then fewer as the keys
/// run out ([`rounds`], [`compact`]). Even-numbered vectors use the
/// refined reciprocal when `EVEN`, odd ones when `ODD`.
/// `keys.len() == out.len() <= CHUNK`.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,popcnt")]
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
    let mut groups = [Lanes {
        state: _mm512_setzero_si512(),
        prev: _mm512_setzero_pd(),
        position: _mm512_setzero_si512(),
        limit: _mm512_set1_pd(f64::from(num_buckets)),
    }; GROUPS];
    for lanes in &mut groups {
        feed.refill(lanes, 0xFF);
    }
    let limit = _mm512_set1_pd(f64::from(num_buckets));
    let (feed, outbox) = (&mut feed, &mut outbox);
    full_rounds::<GROUPS, S, EVEN, ODD>(&mut groups, feed, outbox, out);
    rounds::<GROUPS, 4, S, EVEN, ODD>(&mut groups, feed, outbox, out);
    let mut four = compact::<GROUPS, 4>(&groups, feed, limit);
    rounds::<4, 2, S, EVEN, ODD>(&mut four, feed, outbox, out);
    let mut two = compact::<4, 2>(&four, feed, limit);
    rounds::<2, 1, S, EVEN, ODD>(&mut two, feed, outbox, out);
    let mut one = compact::<2, 1>(&two, feed, limit);
    rounds::<1, 0, S, EVEN, ODD>(&mut one, feed, outbox, out);
    outbox.flush(out);
}

/// Rounds on `G` groups: each steps every group `S` times ([`step`]; see
/// `crate::arch::long_keys`), then retires and refills the finished lanes
/// of each group in turn. Returns once the live lanes fit in `H` groups
/// (once every lane is idle, for `H = 0`).
///
/// While the keys last, every lane is live. Once they run out, lanes go
/// idle, but a step costs as much for an idle lane as for a live one, and
/// the last keys in flight include the slowest: so the live lanes move into
/// half as many groups ([`compact`]) each time they fit, and the steps that
/// wait for the slowest keys cost less.
///
/// Stepping all groups before any refill, rather than each group's whole
/// round and refill in turn, is what keeps the divider and FMA ports busy:
/// one group's round is a chain of about 90 cycles, too long for the
/// reorder window to hide (see docs/kernels.md).
#[inline]
#[target_feature(enable = "avx512f,avx512dq,popcnt")]
fn rounds<const G: usize, const H: usize, const S: usize, const EVEN: bool, const ODD: bool>(
    groups: &mut [Lanes; G],
    feed: &mut Feed,
    outbox: &mut Outbox,
    out: &mut [u32],
) {
    const { assert!(H < G) };
    while feed.idle < (G - H) * LANES {
        outbox.make_room(G * LANES, out);
        let mut active = [0xFF; G];
        for _ in 0..S {
            step::<G, EVEN, ODD>(groups, &mut active);
        }
        for (lanes, active) in groups.iter_mut().zip(active) {
            let done = !active;
            retire(lanes, done, outbox.slots(LANES));
            outbox.commit(done.count_ones() as usize);
            feed.refill(lanes, done);
        }
        outbox.trickle(out);
    }
}

/// The rounds of the first `G` groups while the keys left fill every lane
/// a round can free (`G * LANES`), so that every refill finds its keys:
/// one bounds check, two prefetches and one outbox reservation a round
/// instead of one each a group: faster than the per-group [`retire`] and
/// [`Feed::refill`], which [`rounds`] keeps for the last keys. Written into
/// the loop: LLVM keeps a separate function out of line (see docs/kernels.md).
#[inline]
#[target_feature(enable = "avx512f,avx512dq,popcnt")]
fn full_rounds<const G: usize, const S: usize, const EVEN: bool, const ODD: bool>(
    groups: &mut [Lanes; G],
    feed: &mut Feed,
    outbox: &mut Outbox,
    out: &mut [u32],
) {
    while feed.keys.len() - feed.next >= G * LANES {
        outbox.make_room(G * LANES, out);
        let mut active = [0xFF; G];
        for _ in 0..S {
            step::<G, EVEN, ODD>(groups, &mut active);
        }
        let fresh = &feed.keys[feed.next..][..G * LANES];
        let slots = outbox.slots(G * LANES);
        // The round takes at most `G * LANES` keys, about 20 on average:
        // two lines a round keep ahead of it.
        prefetch(feed.keys, feed.next);
        prefetch(feed.keys, feed.next + 8);
        let lanes_up = _mm512_slli_epi64::<32>(_mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
        let mut taken = 0;
        for g in 0..G {
            let lanes = &mut groups[g];
            let done = !active[g];
            // Retire, as in `retire`.
            let packed = _mm512_add_epi64(
                _mm512_castpd_si512(_mm512_add_pd(lanes.prev, _mm512_set1_pd(PACK_BIAS_F64))),
                lanes.position,
            );
            debug_assert!(taken <= g * LANES);
            // SAFETY: each group retires and refills at most `LANES` lanes,
            // so `taken <= g * LANES` and the 8 slots and 8 keys at `taken`
            // lie inside `slots` and `fresh`, both `G * LANES` long.
            let keys = unsafe {
                _mm512_storeu_si512(
                    slots.as_mut_ptr().add(taken).cast(),
                    _mm512_maskz_compress_epi64(done, packed),
                );
                _mm512_loadu_si512(fresh.as_ptr().add(taken).cast())
            };
            lanes.prev = _mm512_mask_mov_pd(lanes.prev, done, _mm512_setzero_pd());
            // Refill, as in `Feed::refill`.
            lanes.state = _mm512_mask_expand_epi64(lanes.state, done, keys);
            let positions = _mm512_add_epi64(
                _mm512_set1_epi64(packed_position(feed.next + taken) as i64),
                lanes_up,
            );
            lanes.position = _mm512_mask_expand_epi64(lanes.position, done, positions);
            taken += done.count_ones() as usize;
        }
        outbox.commit(taken);
        feed.next += taken;
        outbox.trickle(out);
    }
}

/// The live lanes of `G` groups (at most `H * LANES` of them, as
/// [`rounds`] ensures) moved into `H` groups, the lanes left over idle.
/// `limit` holds `N` in every lane.
///
/// Not inlined: it runs three times a batch, and inlined into `run`,
/// LLVM (rustc 1.95) failed to compile some builds of it ("Cannot emit
/// physreg copy instruction", a mask register copy).
#[inline(never)]
#[target_feature(enable = "avx512f,avx512dq,popcnt")]
fn compact<const G: usize, const H: usize>(
    groups: &[Lanes; G],
    feed: &mut Feed,
    limit: __m512d,
) -> [Lanes; H] {
    const { assert!(H < G) };
    // Room for `G` vectors, where `H` hold the live lanes: each group's
    // full-width store starts at most `H * LANES` in, so it stays inside.
    // Zeroed, as that costs nothing measurable (see docs/kernels.md).
    let mut state = [[0u64; LANES]; G];
    let mut prev = [[0f64; LANES]; G];
    let mut position = [[0u64; LANES]; G];
    let mut live = 0;
    for lanes in groups {
        // Idle lanes' limit is NaN, the only unordered one.
        let keep = _mm512_cmp_pd_mask::<_CMP_ORD_Q>(lanes.limit, lanes.limit);
        let (state, prev, position) = (
            state.as_flattened_mut()[live..live + LANES].as_mut_ptr(),
            prev.as_flattened_mut()[live..live + LANES].as_mut_ptr(),
            position.as_flattened_mut()[live..live + LANES].as_mut_ptr(),
        );
        // SAFETY: each pointer starts 8 elements of its array, the 64
        // bytes an unaligned store writes (bounds-checked just above).
        unsafe {
            _mm512_storeu_si512(state.cast(), _mm512_maskz_compress_epi64(keep, lanes.state));
            _mm512_storeu_pd(prev, _mm512_maskz_compress_pd(keep, lanes.prev));
            _mm512_storeu_si512(
                position.cast(),
                _mm512_maskz_compress_epi64(keep, lanes.position),
            );
        }
        live += keep.count_ones() as usize;
    }
    debug_assert!(live <= H * LANES);
    feed.idle = H * LANES - live;
    let nan = _mm512_set1_pd(f64::NAN);
    let mut compacted = [groups[0]; H];
    for (h, lanes) in compacted.iter_mut().enumerate() {
        let filled = live.saturating_sub(h * LANES).min(LANES);
        // SAFETY: each row is 8 elements, the 64 bytes an unaligned load reads.
        unsafe {
            lanes.state = _mm512_loadu_si512(state[h].as_ptr().cast());
            lanes.prev = _mm512_loadu_pd(prev[h].as_ptr());
            lanes.position = _mm512_loadu_si512(position[h].as_ptr().cast());
        }
        lanes.limit = _mm512_mask_mov_pd(nan, ((1u32 << filled) - 1) as __mmask8, limit);
    }
    compacted
}
