//! Replica sets over a cluster with removals: each removal replaces at
//! most one member of a key's set, and restores undo exactly that.
//!
//! # The construction
//!
//! A key's set starts as its plain replica set over the b-array
//! ([`crate::replicas::set`]), then replays the removals in their order,
//! skipping those that hit none of its members. A removal of bucket `x`
//! that hits member `x` (the cluster then has `r` working buckets):
//!
//! - if `x` is the first member, the first member becomes the key's
//!   Memento bucket as the cluster stood at that removal (so at the end it
//!   is exactly [`Memento::bucket`]); if that bucket is already another
//!   member, that member's place is refilled as below instead;
//! - otherwise `x`'s place takes the first *candidate* working at that
//!   removal and not a member: candidate `a` (from 0) is the Memento
//!   bucket, as the cluster stood at that removal, of the derived key
//!   `XXH64(key's 8 little-endian bytes, seed 2^40 + a)`; after
//!   [`REPLACEMENT_ATTEMPTS`] candidates, the first bucket after the last
//!   one, cyclically, that was working then and is not a member.
//!
//! The members replaced are therefore only those removed, one new member
//! per removal that hit the set; the candidates of a removal depend on the
//! removals before it only, so removing one more bucket changes at most one
//! member, and restoring it (the last removal) undoes that change. Members
//! keep their place in the set, except that a first member that moves onto
//! another member trades places with it.

use super::lookup::rehash_u64;
use super::Memento;
use crate::replicas::{check_columns, fill_columns_on};
use crate::{active_kernel, BucketCount, Error};
use candidate::Candidate;
use classes::{Replay, Work};

/// Batches shorter than this take one key at a time
/// ([`Memento::replicas`]): the replay's set-up and passes cost more than
/// a few keys' sets alone (Zen 4, k = 3, 10% removed: one key 249 ns in a
/// batch and 143 alone on AVX-512, 229 and 143 on AVX2).
const SHORT: usize = 6;

/// The largest sets that [`SHORT`] batches take one key at a time, on the
/// stack.
const SHORT_SETS: usize = 8;

/// Candidates tried for a replaced member before the cyclic scan; with
/// k much below the working count, the first almost always serves.
pub const REPLACEMENT_ATTEMPTS: u64 = 64;

impl Memento {
    /// The replica set of `key`: `k = out.len()` distinct working buckets,
    /// `out[0]` being [`Memento::bucket`] (see the construction in
    /// `jumpshard::memento`'s replica notes, in `docs/cluster-operations.md`).
    /// With nothing removed it is [`crate::replicas::set`] over the
    /// b-array. Fails as [`Memento::check_replicas`] does, leaving `out`
    /// untouched.
    ///
    /// ```
    /// use jumpshard::{BucketCount, Memento};
    ///
    /// let mut m = Memento::new(BucketCount::new(10)?);
    /// let mut before = [0u32; 3];
    /// m.replicas(42, &mut before)?;
    /// m.remove(before[1])?; // a replica's bucket dies
    /// let mut after = [0u32; 3];
    /// m.replicas(42, &mut after)?;
    /// assert_eq!((after[0], after[2]), (before[0], before[2]));
    /// assert!(!before.contains(&after[1]));
    /// # Ok::<(), jumpshard::Error>(())
    /// ```
    pub fn replicas(&self, key: u64, out: &mut [u32]) -> Result<(), Error> {
        self.check_replicas(out.len())?;
        // One key's way, which the batches are held to in the tests: a
        // batch of one would pay for the lanes' setup and the replay's
        // working areas. With `k` fitting the working count, it fits the
        // b-array, so the plain set writes only a whole answer.
        crate::replicas::set(key, self.barray, out)?;
        if out.iter().any(|&b| self.removed.contains(b)) {
            self.replay(key, out, Candidate::of(key, 0, self.barray.get()));
        }
        Ok(())
    }

    /// The replica sets of a batch of keys as `k` columns: `columns[j][i]`
    /// is member `j` of the set of `keys[i]` ([`Memento::replicas`]).
    /// The plain sets run on the [`crate::active_kernel`]'s lanes, then
    /// each replays the removals that hit it. Fails, leaving every
    /// column untouched, as [`Memento::check_replicas`] does, or with
    /// [`Error::LengthMismatch`] when a column's length differs from the
    /// keys'.
    ///
    /// ```
    /// use jumpshard::{BucketCount, Memento};
    ///
    /// let mut m = Memento::new(BucketCount::new(100)?);
    /// m.remove(7)?;
    /// let keys: Vec<u64> = (0..300).collect();
    /// let (mut a, mut b) = (vec![0; 300], vec![0; 300]);
    /// m.replicas_batch(&keys, &mut [&mut a, &mut b])?;
    /// let mut set = [0u32; 2];
    /// m.replicas(keys[9], &mut set)?;
    /// assert_eq!([a[9], b[9]], set);
    /// # Ok::<(), jumpshard::Error>(())
    /// ```
    pub fn replicas_batch(&self, keys: &[u64], columns: &mut [&mut [u32]]) -> Result<(), Error> {
        let k = columns.len();
        if keys.len() < SHORT && k <= SHORT_SETS {
            // A few keys alone, without the replay's set-up.
            check_columns(keys.len(), columns, self.working_count())?;
            let mut set = [0u32; SHORT_SETS];
            for (i, &key) in keys.iter().enumerate() {
                self.replicas(key, &mut set[..k])?;
                for (column, &member) in columns.iter_mut().zip(&set) {
                    column[i] = member;
                }
            }
            return Ok(());
        }
        let kernel = active_kernel();
        // One replay for every run, in the areas the thread keeps.
        crate::scratch::with(|work: &mut Work| {
            let mut replay = Replay::new(self, kernel, work);
            fill_columns_on(
                kernel,
                keys,
                self.barray.get(),
                self.working_count(),
                columns,
                |keys, columns| replay.run(keys, columns),
            )
        })
    }

    /// Whether sets of `k` members can be drawn here: [`Error::TooManyReplicas`],
    /// naming `k` and the working count, when `k` exceeds it, and
    /// [`Error::ReplicasOverLimit`] past [`crate::replicas::MAX_REPLICAS`]. Front ends call
    /// it with the caller's `k` before they allocate `k` columns or sets.
    ///
    /// ```
    /// use jumpshard::{BucketCount, Error, Memento};
    ///
    /// let mut m = Memento::new(BucketCount::new(4)?);
    /// m.remove(1)?;
    /// assert!(m.check_replicas(3).is_ok());
    /// assert_eq!(m.check_replicas(4), Err(Error::TooManyReplicas { replicas: 4, buckets: 3 }));
    /// # Ok::<(), jumpshard::Error>(())
    /// ```
    pub fn check_replicas(&self, k: usize) -> Result<(), Error> {
        crate::replicas::check(k, self.working_count())
    }

    /// The working count, never zero: a cluster keeps a working bucket.
    fn working_count(&self) -> BucketCount {
        BucketCount::new(self.working()).expect("a cluster keeps a working bucket")
    }

    /// [`Memento::replay`] of `key`'s set, row `i` of `columns`, through
    /// `set` (as long as a row), written back there.
    fn replay_at(
        &self,
        key: u64,
        i: usize,
        columns: &mut [&mut [u32]],
        set: &mut [u32],
        first: Candidate,
    ) {
        for (member, column) in set.iter_mut().zip(columns.iter()) {
            *member = column[i];
        }
        self.replay(key, set, first);
        for (column, &member) in columns.iter_mut().zip(set.iter()) {
            column[i] = member;
        }
    }

    /// Replays the removals that hit `set`, oldest first. `set` is the plain
    /// set over the b-array, so `set[0]` is the key's Figure 1 bucket
    /// there; `first` is the key's candidate 0.
    fn replay(&self, key: u64, set: &mut [u32], first: Candidate) {
        // Most sets hold no removed bucket: the membership bitmap says so
        // without a lookup of the removals.
        if self.removed.is_empty() || !set.iter().any(|&b| self.removed.contains(b)) {
            return;
        }
        let figure1 = set[0];
        // The next removal to hit the set is its member removed first, the
        // one with the largest working count after its removal: every
        // member was working when it joined, so it was removed later.
        while let Some((slot, working)) = set
            .iter()
            .enumerate()
            .filter_map(|(j, &b)| Some((j, self.working_after_removal_of(b)?)))
            .max_by_key(|&(_, working)| working)
        {
            if slot == 0 {
                let primary = self.resolve_as_of(figure1, |s| rehash_u64(key, s), working);
                match set[1..].iter().position(|&b| b == primary) {
                    None => {
                        set[0] = primary;
                        continue;
                    }
                    Some(j) => {
                        set[0] = primary;
                        set[j + 1] = self.replacement(key, set, j + 1, working, first);
                    }
                }
            } else {
                set[slot] = self.replacement(key, set, slot, working, first);
            }
        }
    }

    /// The bucket that refills `set[slot]` at the removal that left
    /// `working` buckets: the first candidate working then that no other
    /// member holds. `first` is candidate 0.
    fn replacement(
        &self,
        key: u64,
        set: &[u32],
        slot: usize,
        working: u32,
        first: Candidate,
    ) -> u32 {
        let taken = |b: u32| set.iter().enumerate().any(|(j, &m)| j != slot && m == b);
        let n = self.barray.get();
        let mut candidate = 0;
        for a in 0..REPLACEMENT_ATTEMPTS {
            let Candidate {
                key: derived,
                bucket,
            } = if a == 0 {
                first
            } else {
                Candidate::of(key, a, n)
            };
            candidate = self.resolve_as_of(bucket, |s| rehash_u64(derived, s), working);
            if !taken(candidate) {
                return candidate;
            }
        }
        // Working then: not removed, or removed later (a smaller count).
        let working_then = |b: u32| self.working_after_removal_of(b).is_none_or(|w| w < working);
        (1..n)
            .map(|step| (candidate + step) % n)
            .find(|&b| working_then(b) && !taken(b))
            .expect("k is at most the working count, so a bucket is free")
    }
}

mod candidate;
mod classes;
#[cfg(test)]
mod tests;
