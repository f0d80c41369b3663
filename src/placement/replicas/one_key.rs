//! One key's set with its walks stepped side by side: the `k` walks of a
//! key are independent chains of multiply, division and compare, so one
//! loop that takes a step of each in turn keeps them all in flight, and
//! the set costs about its longest walk rather than the sum of its walks
//! (`Slots::fill` walks them one after the other, and walks slot 0 twice).
//! The landings stay on the stack; a set of more members than
//! [`MAX_SIDE`], or a walk with [`KEPT`] landings or more, goes to
//! `Slots::fill`.

use super::slots::{slot_key, Slots, Starts};
use crate::kernel::scalar::{jump, next_jump, LCG_MULTIPLIER};

/// The most members whose walks step side by side: the lanes' limit, past
/// which sets are rare and their walks many.
pub(crate) const MAX_SIDE: usize = 8;

/// The landings kept per walk, a power of two so that a step's write
/// wraps rather than branches. A walk among `n` buckets lands about
/// `ln(n)` times, 21.5 on average at `n = 2^31 - 1`, with a spread of
/// about 4.5: a walk of 64 is a chance of about one in 10^13.
const KEPT: usize = 64;

/// The replica set of `key` among `n` buckets into `out`, `k = out.len()`,
/// `1 <= k <= n` (see the construction in [`crate::replicas`]).
pub(crate) fn set(key: u64, n: u32, out: &mut [u32]) {
    let k = out.len();
    if k == 1 {
        out[0] = jump(key, n);
        return;
    }
    if k > MAX_SIDE || !walk_side_by_side(key, n, out) {
        Slots::default().fill(key, n, jump(key, n), out);
    }
}

/// The sets of `keys[from..]` into `columns` (`1 <= k <= MAX_SIDE` of
/// them, `k <= n`), at the keys' positions.
pub(crate) fn each(keys: &[u64], from: usize, n: u32, columns: &mut [&mut [u32]]) {
    let mut set = [0u32; MAX_SIDE];
    let set = &mut set[..columns.len()];
    for (i, &key) in keys.iter().enumerate().skip(from) {
        self::set(key, n, set);
        for (column, &member) in columns.iter_mut().zip(set.iter()) {
            column[i] = member;
        }
    }
}

/// The set of `key` into `out` (`2 <= k <= MAX_SIDE`), unless a walk lands
/// [`KEPT`] times or more: then false, `out` unspecified.
fn walk_side_by_side(key: u64, n: u32, out: &mut [u32]) -> bool {
    match out.len() {
        2 => walk::<2, KEPT>(key, n, out),
        3 => walk::<3, KEPT>(key, n, out),
        4 => walk::<4, KEPT>(key, n, out),
        5 => walk::<5, KEPT>(key, n, out),
        6 => walk::<6, KEPT>(key, n, out),
        7 => walk::<7, KEPT>(key, n, out),
        _ => walk::<8, KEPT>(key, n, out),
    }
}

/// [`walk_side_by_side`] for `K` members, keeping `KEPT` landings a walk
/// (a power of two; the tests take fewer). The walks step in lockstep until
/// the last is done, with no branch but the loop's own: a branch per walk
/// would mispredict at each walk's end and throw away the steps of the
/// others in flight. A walk that is done is parked at `b = 2^31 - 1`,
/// whose next bucket is at least `2^31`, past every count.
#[inline]
fn walk<const K: usize, const KEPT: usize>(key: u64, n: u32, out: &mut [u32]) -> bool {
    const PARKED: i64 = (1 << 31) - 1;
    let k = K as u32;
    // Slot 0 is Figure 1 from `b = 0`; slot `j >= 1` the same loop over
    // its derived key from `b = k - 1 - j`, its buckets shifted by `j`.
    let mut state = [key; K];
    let mut b = [0i64; K];
    let mut end = [i64::from(n); K];
    for j in 1..K {
        state[j] = slot_key(key, j);
        b[j] = i64::from(k - 1) - j as i64;
        end[j] -= j as i64;
    }
    // Each walk's landings in increasing order (slot 0's from bucket 1:
    // those below `k` are no other slot's, whose landings are all `k` or
    // more), and the element after them, which a step writes whether it
    // lands or not.
    let mut landed = [[0u32; KEPT]; K];
    let mut count = [0usize; K];
    loop {
        let mut any = false;
        for j in 0..K {
            state[j] = state[j].wrapping_mul(LCG_MULTIPLIER).wrapping_add(1);
            let next = next_jump((b[j] + 1) as u32, state[j]);
            let lands = next < end[j];
            any |= lands;
            b[j] = core::hint::select_unpredictable(lands, next, PARKED);
            landed[j][count[j] % KEPT] = next as u32 + j as u32;
            count[j] += usize::from(lands);
        }
        if !any {
            break;
        }
    }
    if count.iter().any(|&c| c >= KEPT) {
        return false;
    }
    // Figure 1's bucket: slot 0's last landing, or bucket 0.
    out[0] = count[0].checked_sub(1).map_or(0, |last| landed[0][last]);
    // A slot's member is its last landing that no lower slot landed on,
    // or else its starting bucket.
    let mut buckets = [0u32; K];
    let mut starts = Starts::new(key, &mut buckets[..K - 1]);
    for j in 1..K {
        let lower = &landed[..j];
        let taken = landed[j][..count[j]]
            .iter()
            .rev()
            .find(|x| !lower.iter().zip(&count).any(|(l, &c)| l[..c].contains(x)));
        out[j] = starts.member(j, taken.copied());
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::splitmix::SplitMix64;

    /// The set as `Slots::fill` draws it, each walk's landings recorded
    /// one walk after the other.
    fn recorded(key: u64, n: u32, k: usize) -> Vec<u32> {
        let mut want = vec![0; k];
        Slots::default().fill(key, n, jump(key, n), &mut want);
        want
    }

    /// Every `k` from 1 to past [`MAX_SIDE`], counts from `k` (every
    /// member on its start) to 2^31 - 1, adversarial and random keys.
    #[test]
    fn the_walks_side_by_side_are_the_recorded_walks() {
        let mut random = SplitMix64::new(0x51DE);
        let mut keys = vec![0, 1, u64::MAX, 1 << 63, 0x8000_0000];
        keys.extend(random.keys(if cfg!(miri) { 4 } else { 3000 }));
        for k in 1..=MAX_SIDE + 2 {
            let counts = [k as u32, k as u32 + 1, 17, 1000, 1 << 20, (1 << 31) - 1];
            for n in counts.into_iter().filter(|&n| n >= k as u32) {
                let mut got = vec![u32::MAX; k];
                for &key in &keys {
                    set(key, n, &mut got);
                    assert_eq!(got, recorded(key, n, k), "key {key}, n {n}, k {k}");
                }
            }
        }
    }

    /// With room for few landings, a walk that fills it hands its key
    /// back (false), and the sets it does give are still the recorded ones.
    #[test]
    fn a_walk_past_its_room_hands_the_key_back() {
        let mut random = SplitMix64::new(0xF11);
        let (mut handed, mut given) = (0, 0);
        for key in random.keys(if cfg!(miri) { 20 } else { 2000 }) {
            for n in [5, 1000, (1 << 31) - 1] {
                let mut got = [u32::MAX; 3];
                if walk::<3, 4>(key, n, &mut got) {
                    assert_eq!(got[..], recorded(key, n, 3)[..], "key {key}, n {n}");
                    given += 1;
                } else {
                    handed += 1;
                }
            }
        }
        assert!(
            handed > 0 && given > 0,
            "{handed} handed back, {given} given"
        );
    }
}
