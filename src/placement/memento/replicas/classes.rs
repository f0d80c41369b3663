//! The replay of a batch's sets by class, a block of keys at a time.
//!
//! After the plain sets, which keys hold a removed member is as random as
//! the keys, and so is which kind of replay each needs; a branch per key
//! on either is mispredicted about as often as it is taken. So a block
//! is replayed in passes that do not branch on the keys:
//!
//! 1. one pass per column tests every member against the bitmap of
//!    removed buckets and sets the member's bit in its key's mask of
//!    removed members (shifts and ors: a class code updated by a select
//!    per member was compiled to a branch); on AVX-512 16 keys at a time
//!    (`classes/avx512.rs`), on AVX2 8 for b-arrays of up to 1024 buckets
//!    (`classes/avx2.rs`);
//! 2. one pass packs the keys' positions into a list per class: each
//!    position is written to every list, and only the list of its class
//!    advances (on the lanes, in the same pass as the masks);
//! 3. each class is then handled in a loop of its own:
//!    - one removed member past the first: candidate 0 (hashed and run on
//!      the kernel's lanes for the whole list) refills it when it works
//!      and is not a member, which a select writes; the few others are
//!      replayed one key at a time;
//!    - only the first removed: the key's Memento bucket, resolved from
//!      its Figure 1 bucket (column 0) on the lanes, becomes the first
//!      member unless another member holds it (then one key at a time);
//!    - several removed (or one past the mask's first 15 slots, which
//!      only sets that large have): one key at a time, with candidate 0
//!      from the lanes.
//!
//! The working areas ([`Work`]) serve every run of a batch, and the
//! thread keeps them for its next batch, so that no run allocates.

use core::hint::select_unpredictable as select;

use super::candidate::{Candidate, CANDIDATE_SEED};
#[cfg(target_arch = "x86_64")]
use crate::kernel::Isa;
use crate::placement::memento::lookup::rehash_u64;
use crate::placement::memento::{rounds, Memento};
use crate::Kernel;
use masks::{classify, WIDE};

/// Keys replayed together: their masks and lists stay in the L1 cache,
/// and a position fits in 16 bits.
const BLOCK: usize = 8192;

/// The fewest keys whose only removed member is the first that go to the
/// lanes' resolution together; fewer (a one-key call's) follow their
/// chains one key at a time, cheaper than the lanes' setup.
const LONE_BATCH: usize = 16;

/// The replay of the runs of one batch on one kernel, in its working
/// areas.
pub(in crate::placement::memento) struct Replay<'a> {
    memento: &'a Memento,
    kernel: Kernel,
    work: &'a mut Work,
}

/// A batch's working areas (each as long as the largest block met), which
/// a thread keeps from call to call ([`crate::scratch`]): made anew, the
/// larger ones would fault their pages in again at each call.
#[derive(Default)]
pub(in crate::placement::memento) struct Work {
    /// Five areas of a block's length plus [`WIDE`], in one allocation
    /// (which a short batch would otherwise pay five times): each key's
    /// removed members (bit `j` for slot `j`, bit 15 for any slot from it
    /// on); the positions of the keys whose only removed member is the
    /// first, of those with one removed member past the first, and of the
    /// others with a removed member; and the positions, in a class's list,
    /// of the keys its loop left to the one-key replay.
    areas: Vec<u16>,
    /// Candidate 0 of the keys of `one`, then of `several`: derived keys,
    /// then their Figure 1 buckets over the b-array.
    derived: Vec<u64>,
    buckets: Vec<u32>,
    /// The keys of `lone`, and their Figure 1 buckets, then Memento
    /// buckets.
    lone_keys: Vec<u64>,
    primaries: Vec<u32>,
    /// One key's set, for the one-key replay.
    set: Vec<u32>,
    /// The lanes' pending keys, made at the first block that needs them.
    pending: Option<Pending>,
}

/// The pending keys of the lanes' resolution, with the most they hold and
/// the kernel they were made for (kept areas may meet another).
struct Pending {
    capacity: usize,
    kernel: Kernel,
    lanes: Lanes,
}

enum Lanes {
    #[cfg(target_arch = "x86_64")]
    Avx512(crate::arch::x86_64::memento::Pending),
    Rounds(rounds::Pending),
}

impl<'a> Replay<'a> {
    /// The replay of `memento`'s removals on `kernel`'s lanes, in `work`.
    pub(in crate::placement::memento) fn new(
        memento: &'a Memento,
        kernel: Kernel,
        work: &'a mut Work,
    ) -> Self {
        Replay {
            memento,
            kernel,
            work,
        }
    }

    /// Replays the removals that hit each set of `columns` (`columns[j][i]`
    /// member `j` of the set of `keys[i]`, as the plain sets over the
    /// b-array left them).
    pub(in crate::placement::memento) fn run(&mut self, keys: &[u64], columns: &mut [&mut [u32]]) {
        let m = self.memento;
        if m.removed.is_empty() {
            return;
        }
        for start in (0..keys.len()).step_by(BLOCK) {
            let keys = &keys[start..keys.len().min(start + BLOCK)];
            match m.removed.bitmap() {
                Some(bitmap) => self.block(start, keys, columns, Some(bitmap), |b| {
                    // Every bucket of a set is in the b-array, which the
                    // bitmap covers: the bounds check is always predicted.
                    let word = bitmap.get(b as usize / 64).copied().unwrap_or(0);
                    (word >> (b % 64)) as u16 & 1
                }),
                None => self.block(start, keys, columns, None, |b| {
                    u16::from(m.removed.contains(b))
                }),
            }
        }
    }

    /// [`Replay::run`] of the block of `keys` from row `start` of
    /// `columns`; `removed` is 1 for a removed bucket, else 0 (a number,
    /// not a `bool`, which the compiler would branch on), which `bitmap`
    /// tells too when there is one.
    fn block(
        &mut self,
        start: usize,
        keys: &[u64],
        columns: &mut [&mut [u32]],
        bitmap: Option<&[u64]>,
        removed: impl Fn(u32) -> u16 + Copy,
    ) {
        let (m, kernel) = (self.memento, self.kernel);
        let Work {
            areas,
            derived,
            buckets,
            lone_keys,
            primaries,
            set,
            pending,
        } = &mut *self.work;
        let n = m.barray.get();
        let len = keys.len();
        let rows = start..start + len;
        let area = len + WIDE;
        if areas.len() < 5 * area {
            areas.resize(5 * area, 0);
        }
        let (mask, lists) = areas.split_at_mut(area);
        let (lone, lists) = lists.split_at_mut(area);
        let (one, lists) = lists.split_at_mut(area);
        let (several, lists) = lists.split_at_mut(area);
        let failed = &mut lists[..area];
        let mask = &mut mask[..len];
        let lists = [&mut *lone, &mut *one, &mut *several];
        #[cfg(target_arch = "x86_64")]
        let counts = match bitmap {
            // SAFETY: the AVX-512 kernel is only made after detecting
            // AVX-512F, AVX-512DQ, AVX2 and POPCNT, the features the pass
            // enables.
            Some(bitmap) if on_isa(kernel, Isa::Avx512) => unsafe {
                avx512::classify(columns, rows.clone(), bitmap, mask, lists)
            },
            // SAFETY: the AVX2 kernel is only made after detecting AVX2 and
            // POPCNT, the features the pass enables.
            Some(bitmap) if bitmap.len() <= avx2::WORDS && on_isa(kernel, Isa::Avx2) => unsafe {
                avx2::classify(columns, rows.clone(), bitmap, mask, lists)
            },
            _ => classify(columns, rows.clone(), removed, mask, lists),
        };
        #[cfg(not(target_arch = "x86_64"))]
        let counts = {
            let _ = bitmap;
            classify(columns, rows.clone(), removed, mask, lists)
        };
        let [lones, ones, severals] = counts;
        if lones + ones + severals == 0 {
            return;
        }
        let (lone, one, several) = (&lone[..lones], &one[..ones], &several[..severals]);
        let mask = &*mask;
        set.resize(columns.len(), 0);

        // Candidate 0 of every key with a removed member past the first.
        derived.clear();
        derived.extend(one.iter().chain(several).map(|&i| keys[usize::from(i)]));
        kernel.xxh64(derived, CANDIDATE_SEED);
        buckets.clear();
        buckets.resize(derived.len(), 0);
        kernel.run(&*derived, n, buckets);
        let candidate = |h: usize| Candidate {
            key: derived[h],
            bucket: buckets[h],
        };

        // One removed member past the first: [`Memento::replay`] refills it
        // with candidate 0 and stops when that works and is not a member.
        let mut count = 0;
        for (h, &i) in one.iter().enumerate() {
            let i = usize::from(i);
            let row = start + i;
            let b = buckets[h];
            let taken = columns
                .iter()
                .fold(removed(b) == 1, |t, c| t | (c[row] == b));
            let cell = &mut columns[mask[i].trailing_zeros() as usize][row];
            *cell = select(taken, *cell, b);
            failed[count] = h as u16;
            count += usize::from(taken);
        }
        for &h in &failed[..count] {
            let h = usize::from(h);
            let i = usize::from(one[h]);
            m.replay_at(keys[i], start + i, columns, set, candidate(h));
        }
        for (h, &i) in several.iter().enumerate() {
            let i = usize::from(i);
            let first = candidate(one.len() + h);
            m.replay_at(keys[i], start + i, columns, set, first);
        }

        // Only the first removed: the replay follows the key's rehash chain
        // from its Figure 1 bucket, removal after removal, through buckets
        // removed later (none of them a member, which all work), to a
        // working bucket: the key's Memento bucket. Unless another member
        // holds it, that is the first member, and the replay stops there.
        let (first, rest) = columns.split_first_mut().expect("k >= 1");
        lone_keys.clear();
        lone_keys.extend(lone.iter().map(|&i| keys[usize::from(i)]));
        primaries.clear();
        primaries.extend(lone.iter().map(|&i| first[start + usize::from(i)]));
        resolve_firsts(m, kernel, &*lone_keys, primaries, pending, len);
        let mut count = 0;
        for (h, (&i, &primary)) in lone.iter().zip(&*primaries).enumerate() {
            let row = start + usize::from(i);
            let taken = rest.iter().fold(false, |t, c| t | (c[row] == primary));
            first[row] = select(taken, first[row], primary);
            failed[count] = h as u16;
            count += usize::from(taken);
        }
        for &h in &failed[..count] {
            let i = usize::from(lone[usize::from(h)]);
            let first = Candidate::of(keys[i], 0, n);
            m.replay_at(keys[i], start + i, columns, set, first);
        }
    }
}

/// Whether `kernel` runs on `isa`, whose features its passes may enable.
#[cfg(target_arch = "x86_64")]
fn on_isa(kernel: Kernel, isa: Isa) -> bool {
    kernel.to_id() & 0xF == isa as u8
}

/// Resolves `firsts`, the Figure 1 buckets of `keys` over the b-array,
/// each removed, into the keys' Memento buckets: [`Memento::batch_on`]'s
/// second pass, its first already done. `pending` is made (or remade) as
/// large as `block`, the keys of the block, when it holds fewer than
/// `keys`: once for a batch of blocks of one length.
fn resolve_firsts(
    m: &Memento,
    kernel: Kernel,
    keys: &[u64],
    firsts: &mut [u32],
    pending: &mut Option<Pending>,
    block: usize,
) {
    let one_at_a_time = |firsts: &mut [u32]| {
        for (b, &key) in firsts.iter_mut().zip(keys) {
            *b = m.resolve(*b, |seed| rehash_u64(key, seed));
        }
    };
    let Some((removed, links)) = m.removed.lane_tables() else {
        // No table of links to resolve on the lanes with.
        return one_at_a_time(firsts);
    };
    if keys.len() < LONE_BATCH {
        return one_at_a_time(firsts);
    }
    let count = keys.len();
    if pending
        .as_ref()
        .is_none_or(|p| p.capacity < count || p.kernel != kernel)
    {
        *pending = Some(Pending::new(kernel, block.max(count)));
    }
    // Only the AVX-512 lanes read the bitmap: the plain rounds follow the
    // links alone.
    #[cfg(not(target_arch = "x86_64"))]
    let _ = removed;
    match &mut pending.as_mut().expect("made above").lanes {
        #[cfg(target_arch = "x86_64")]
        Lanes::Avx512(pending) => {
            // SAFETY: `Pending::new` only makes these for the AVX-512
            // kernel, which is only made after detecting AVX-512F,
            // AVX-512DQ, AVX2 and POPCNT, the features the pass enables.
            unsafe { crate::arch::x86_64::memento::resolve(keys, firsts, removed, links, pending) }
        }
        Lanes::Rounds(pending) => {
            // Every bucket is removed: no scan is needed to find them.
            for (slot, i) in pending.index.iter_mut().zip(0..count as u32) {
                *slot = i;
            }
            pending.resolve(keys, firsts, links, count);
        }
    }
}

impl Pending {
    /// Room for `capacity` keys on `kernel`'s resolution (the lanes'
    /// rounds on AVX-512, plain rounds on the others).
    fn new(kernel: Kernel, capacity: usize) -> Pending {
        #[cfg(target_arch = "x86_64")]
        if on_isa(kernel, Isa::Avx512) {
            return Pending {
                capacity,
                kernel,
                lanes: Lanes::Avx512(crate::arch::x86_64::memento::Pending::new(capacity)),
            };
        }
        Pending {
            capacity,
            kernel,
            lanes: Lanes::Rounds(rounds::Pending::new(capacity)),
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
mod masks;
#[cfg(test)]
mod tests;
