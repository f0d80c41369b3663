//! The zoned lanes' requests (`lanes.rs`) on AVX2, four keys a step, as
//! on AVX-512 (`lanes_avx512.rs`) with what AVX2 lacks built from what it
//! has: the unsigned compares as signed ones of the scores with their top
//! bit flipped, a field spread by a 32-bit multiply (a place is below 8),
//! and each zone's compress as a permutation looked up by the mask of
//! asked keys, then one full store.

use core::arch::x86_64::*;

use super::requests::{Scratch, FIELDS};

/// For each mask of four lanes, the 32-bit lanes that pack the 64-bit
/// lanes it selects to the front: both halves of each (`KEYS`), or the
/// low half alone (`TARGETS`, where the targets fit in 32 bits).
const fn packs(halves: bool) -> [[i32; 8]; 16] {
    let mut table = [[0; 8]; 16];
    let mut mask = 0;
    while mask < 16 {
        let (mut lane, mut to): (i32, usize) = (0, 0);
        while lane < 4 {
            if mask & (1 << lane) != 0 {
                if halves {
                    table[mask][2 * to] = 2 * lane;
                    table[mask][2 * to + 1] = 2 * lane + 1;
                } else {
                    table[mask][to] = 2 * lane;
                }
                to += 1;
            }
            lane += 1;
        }
        mask += 1;
    }
    table
}
const KEYS: [[i32; 8]; 16] = packs(true);
const TARGETS: [[i32; 8]; 16] = packs(false);

/// [`Scratch::requests`] on the AVX2 lanes: the requests of `keys` (a
/// round's) for `L` live zones and sets of `k` (`2 <= k <= L`).
///
/// # Safety
///
/// The CPU runs AVX2 and POPCNT; `r` was made ([`Scratch::new`]) for rounds of at
/// least `keys.len()` keys and `L` zones or more.
#[target_feature(enable = "avx2,popcnt")]
pub(super) unsafe fn requests<const L: usize>(keys: &[u64], k: usize, r: &mut Scratch) {
    let n = keys.len();
    debug_assert!(n <= r.size && r.stride >= r.size + 4 && (2..=L).contains(&k));
    debug_assert!(r.scores.len() >= L * r.stride && r.derived.len() >= L * r.stride);
    debug_assert!(r.targets.len() >= L * r.stride && r.first.len() >= n + 4);
    let live = u64::from(FIELDS >> (32 - 4 * L));
    let (live_v, one, fifteen, top) = (
        _mm256_set1_epi64x(live as i64),
        _mm256_set1_epi64x(1),
        _mm256_set1_epi64x(15),
        _mm256_set1_epi64x(i64::MIN),
    );
    let below = _mm256_set1_epi64x(((8 - k as u64) * live) as i64);
    let seven = _mm256_set1_epi64x(7 * live as i64);
    let size = _mm256_set1_epi64x(r.size as i64);
    let mut index = _mm256_setr_epi64x(0, 1, 2, 3);
    let mut lengths = [0usize; L];
    let mut i = 0;
    while i < n {
        let count = (n - i).min(4);
        let mut score = [_mm256_setzero_si256(); L];
        for (z, s) in score.iter_mut().enumerate() {
            // SAFETY: zone z's scores have a vector's slack past the
            // round's keys; the lanes past them are never asked.
            let at = r.scores.as_ptr().add(z * r.stride + i) as *const __m256i;
            *s = _mm256_xor_si256(_mm256_loadu_si256(at), top);
        }
        let mut place = _mm256_setzero_si256();
        for a in 0..L {
            for b in a + 1..L {
                let later = _mm256_cmpgt_epi64(score[b], score[a]);
                let step = _mm256_blendv_epi8(
                    _mm256_set1_epi64x(1 << (4 * b)),
                    _mm256_set1_epi64x(1 << (4 * a)),
                    later,
                );
                place = _mm256_add_epi64(place, step);
            }
        }
        // SAFETY: `first` has a vector's slack past the round's keys.
        let first = (r.first.as_ptr().add(i) as *const i32).read_unaligned();
        let shift = _mm256_slli_epi64::<2>(_mm256_cvtepu8_epi64(_mm_cvtsi32_si128(first)));
        let primary = _mm256_and_si256(_mm256_srlv_epi64(place, shift), fifteen);
        let spread = _mm256_sub_epi64(seven, _mm256_mul_epu32(primary, live_v));
        let after = _mm256_and_si256(
            _mm256_srli_epi64::<3>(_mm256_add_epi64(place, spread)),
            live_v,
        );
        let column = _mm256_sub_epi64(_mm256_add_epi64(place, live_v), after);
        let beyond = _mm256_srli_epi64::<3>(_mm256_add_epi64(column, below));
        let within = _mm256_andnot_si256(
            _mm256_sllv_epi64(one, shift),
            _mm256_andnot_si256(beyond, live_v),
        );
        let code = _mm256_and_si256(
            column,
            _mm256_sub_epi64(_mm256_slli_epi64::<4>(within), within),
        );
        let key = if count == 4 {
            // SAFETY: keys i to i + 3 are the slice's.
            _mm256_loadu_si256(keys.as_ptr().add(i) as *const __m256i)
        } else {
            let mut tail = [0u64; 4];
            tail[..count].copy_from_slice(&keys[i..]);
            _mm256_loadu_si256(tail.as_ptr() as *const __m256i)
        };
        let present = (1 << count) - 1;
        for (z, length) in lengths.iter_mut().enumerate() {
            let column = _mm256_and_si256(
                _mm256_srlv_epi64(code, _mm256_set1_epi64x(4 * z as i64)),
                fifteen,
            );
            let none = _mm256_cmpeq_epi64(column, _mm256_setzero_si256());
            let asked = !_mm256_movemask_pd(_mm256_castsi256_pd(none)) & present;
            let target =
                _mm256_add_epi64(_mm256_mul_epu32(_mm256_sub_epi64(column, one), size), index);
            let keys_pack = _mm256_loadu_si256(KEYS[asked as usize].as_ptr() as *const __m256i);
            let targets_pack =
                _mm256_loadu_si256(TARGETS[asked as usize].as_ptr() as *const __m256i);
            let at = z * r.stride + *length;
            // SAFETY: `length` is at most `i`, so the four lanes stored end
            // by `z * stride + n + 3`, inside zone z's `stride`.
            _mm256_storeu_si256(
                r.derived.as_mut_ptr().add(at) as *mut __m256i,
                _mm256_permutevar8x32_epi32(key, keys_pack),
            );
            _mm_storeu_si128(
                r.targets.as_mut_ptr().add(at) as *mut __m128i,
                _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(target, targets_pack)),
            );
            *length += asked.count_ones() as usize;
        }
        index = _mm256_add_epi64(index, _mm256_set1_epi64x(4));
        i += 4;
    }
    r.lengths[..L].copy_from_slice(&lengths);
}
