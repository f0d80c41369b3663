//! Consistent hashing with bounded loads (Mirrokni, Thorup and
//! Zadimoghaddam, SODA 2018), as an online router over a [`Memento`]
//! cluster: each live node carries at most `c` times the mean load, and a
//! key goes to its own bucket whenever that bucket is under the bound.
//!
//! # The rule
//!
//! The router counts each node's current load (requests, connections:
//! whatever the caller acquires and releases) and the total of all of them.
//! With `live` working buckets and `total` the loads before the call,
//! [`BoundedLoads::acquire`] computes the bound
//!
//! ```text
//! bound = ceil(c * (total + 1) / live)      (in f64 arithmetic)
//! ```
//!
//! and walks the key's *preference list*: the key's replica set of
//! `m = min(live, walk)` members ([`Memento::replicas`], which with nothing
//! removed is [`crate::replicas::set`]), whose first member is the key's
//! bucket ([`Memento::bucket`], Figure 1 when nothing is removed). The
//! answer is the first member whose load plus one is at most the bound; its
//! load and the total grow by one. If all `m` members are at their bound,
//! the answer is the least loaded of them (the earliest in the walk among
//! equals), counted all the same, so that `acquire` always answers.
//! [`BoundedLoads::release`] takes one unit back from a node.
//! [`BoundedLoads::acquire_batch`] and [`BoundedLoads::release_batch`] do
//! the same for many keys or nodes at once, holding the lock once per block
//! of 256 and moving the total once per block.
//!
//! So while the key's bucket is under the bound the answer is exactly the
//! key's plain bucket, and with `c` infinite it always is. The walk is only
//! computed when the bucket is full.
//!
//! # The guarantee
//!
//! An answer found on the walk has, once counted, a load of at most
//! `ceil(c * t / live)`, where `t` is the total including that call. Only a
//! fallback answer can exceed its bound, and a fallback needs all `m`
//! members of the walk at the bound: as the loads of the live nodes sum to
//! at most `t - 1`, that takes `m * ceil(c * t / live) <= t - 1`, so
//! `m * c < live`. Hence with `live <= walk` (the walk is every live node)
//! or `c >= live / walk` the bound is never exceeded; below that it can
//! be, but only when the `m` members of one key's walk are all full (a
//! single very hot key acquired many times over). With calls running
//! concurrently, each call's bound comes from the total it reserved
//! itself, and `t - 1` above becomes the total when its walk was read,
//! which acquires reserved after it may have raised: there a fallback can
//! also come from that many acquires in flight at once.
//!
//! A bound at acquire time is what the paper promises: releases lower the
//! total afterwards without moving anything, so a node may later carry
//! more than the bound of the current total. After a run of acquires alone,
//! every node's load is at most `ceil(c * total / live)` unless a fallback
//! answered.
//!
//! # Threads and membership
//!
//! The hot path takes no global lock for writing: the placement sits behind
//! a read-write lock that `acquire` and `release` only read (readers never
//! wait for each other), and each count is an atomic counter, raised by a
//! compare-and-swap loop that re-checks the bound. The total is reserved
//! before a node's count grows and given back after it shrinks, so it is
//! never below the sum of the loads and never underflows. The batches keep
//! that order per block, and a refused [`BoundedLoads::release_batch`]
//! reserves the total again before it raises the counts it lowered.
//!
//! Counts are kept per bucket id and survive membership changes:
//! [`BoundedLoads::remove`], [`BoundedLoads::restore`] (which grows the
//! cluster when nothing is removed) take the lock for writing, and a node
//! removed keeps its count, so the requests it still serves are released
//! against it later and restore the total.
//!
//! ```
//! use jumpshard::placement::BoundedLoads;
//! use jumpshard::{BucketCount, Memento};
//!
//! let n = BucketCount::new(10)?;
//! let router = BoundedLoads::new(Memento::new(n), 1.25)?;
//! let node = router.acquire(42);
//! assert_eq!(node, jumpshard::bucket(42, n)); // the plain bucket, while under the bound
//! assert_eq!((router.load(node)?, router.total()), (1, 1));
//! router.release(node)?;
//! assert_eq!(router.total(), 0);
//! # Ok::<(), jumpshard::Error>(())
//! ```

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{PoisonError, RwLock, RwLockReadGuard};

use crate::replicas::MAX_REPLICAS;
use crate::{Error, Memento};

/// The walk's length when none is given: a key's bucket and up to seven
/// other members of its replica set.
pub const DEFAULT_WALK: usize = 8;

/// The largest b-array a router takes. It keeps one 8-byte counter per
/// bucket id (128 MiB at this size) and [`BoundedLoads::loads`] lists
/// them all, so a cluster of 2^31 - 1 buckets, which [`Memento`] holds in
/// a few bytes, would need 16 GiB here: the router balances the load of
/// nodes, which are far fewer, and refuses more with
/// [`Error::RouterTooLarge`].
pub const MAX_NODES: u32 = 1 << 24;

/// The cluster and one counter per bucket id it ever had.
#[derive(Debug)]
struct State {
    cluster: Memento,
    /// Never shrinks: a bucket removed, or shrunk off the b-array, keeps its
    /// count until its requests are released.
    loads: Vec<AtomicU64>,
}

/// One acquire's outcome: the node, its load once counted, the bound it
/// was checked against, and whether the fallback answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Counted {
    pub(crate) node: u32,
    pub(crate) load: u64,
    pub(crate) bound: u64,
    pub(crate) fallback: bool,
}

/// An online router with bounded loads over a [`Memento`] cluster (see the
/// [module documentation](self) for the rule and the guarantee). `Sync`:
/// share it between threads behind an `Arc` or a reference.
#[derive(Debug)]
pub struct BoundedLoads {
    factor: f64,
    walk: usize,
    total: AtomicU64,
    state: RwLock<State>,
}

impl BoundedLoads {
    /// A router over `cluster` with load factor `factor` (`c`, greater than
    /// 1; infinity routes every key to its bucket) and a walk of
    /// [`DEFAULT_WALK`] members. Fails as [`BoundedLoads::with_walk`] does.
    pub fn new(cluster: Memento, factor: f64) -> Result<BoundedLoads, Error> {
        BoundedLoads::with_walk(cluster, factor, DEFAULT_WALK)
    }

    /// A router whose preference lists hold up to `walk` members. Fails
    /// with [`Error::InvalidLoadFactor`] when `factor` is NaN or at most 1,
    /// and with [`Error::InvalidWalk`] when `walk` is 0 or exceeds
    /// [`MAX_REPLICAS`]. A walk longer than the live nodes is cut to them.
    ///
    /// ```
    /// use jumpshard::placement::BoundedLoads;
    /// use jumpshard::{BucketCount, Error, Memento};
    ///
    /// let m = Memento::new(BucketCount::new(4)?);
    /// assert!(BoundedLoads::with_walk(m.clone(), f64::INFINITY, 16).is_ok());
    /// assert_eq!(
    ///     BoundedLoads::with_walk(m.clone(), 1.0, 8).unwrap_err(),
    ///     Error::InvalidLoadFactor { value: "1".into() }
    /// );
    /// assert_eq!(
    ///     BoundedLoads::with_walk(m, 2.0, 0).unwrap_err(),
    ///     Error::InvalidWalk { walk: 0, limit: 1024 }
    /// );
    /// # Ok::<(), jumpshard::Error>(())
    /// ```
    pub fn with_walk(cluster: Memento, factor: f64, walk: usize) -> Result<BoundedLoads, Error> {
        if factor.is_nan() || factor <= 1.0 {
            return Err(Error::InvalidLoadFactor {
                value: factor.to_string(),
            });
        }
        if walk == 0 || walk > MAX_REPLICAS {
            return Err(Error::InvalidWalk {
                walk,
                limit: MAX_REPLICAS,
            });
        }
        too_large(cluster.barray().get())?;
        let loads = (0..cluster.barray().get())
            .map(|_| AtomicU64::new(0))
            .collect();
        Ok(BoundedLoads {
            factor,
            walk,
            total: AtomicU64::new(0),
            state: RwLock::new(State { cluster, loads }),
        })
    }

    /// The load factor `c`.
    pub fn factor(&self) -> f64 {
        self.factor
    }

    /// The most members a preference list holds.
    pub fn walk(&self) -> usize {
        self.walk
    }

    /// The node for `key`, counted: the first member of its preference list
    /// whose load stays within the bound, or the fallback (see the [module
    /// documentation](self)).
    pub fn acquire(&self, key: u64) -> u32 {
        self.acquire_counted(key).node
    }

    /// [`BoundedLoads::acquire`], telling what the answer was checked
    /// against.
    pub(crate) fn acquire_counted(&self, key: u64) -> Counted {
        let state = self.read();
        // Reserved before any node's count grows: the total never falls
        // below the sum of the loads.
        let total = self.total.fetch_add(1, Ordering::AcqRel) + 1;
        let first = state.cluster.bucket(key);
        self.place(&state, key, first, total)
    }

    /// The node for `key`, whose bucket is `first`, checked against the
    /// bound of the total `total` reserved for it, and counted.
    fn place(&self, state: &State, key: u64, first: u32, total: u64) -> Counted {
        let live = state.cluster.working();
        let bound = self.bound_of(total, live);
        if let Some(load) = try_raise(&state.loads[first as usize], bound) {
            return Counted {
                node: first,
                load,
                bound,
                fallback: false,
            };
        }
        let m = self.walk.min(live as usize);
        let mut walk = vec![0u32; m];
        state
            .cluster
            .replicas(key, &mut walk)
            .expect("a walk of at most the live nodes and MAX_REPLICAS");
        for &node in &walk[1..] {
            if let Some(load) = try_raise(&state.loads[node as usize], bound) {
                return Counted {
                    node,
                    load,
                    bound,
                    fallback: false,
                };
            }
        }
        // `min_by_key` keeps the first of equals: the earliest in the walk.
        let node = *walk
            .iter()
            .min_by_key(|&&b| state.loads[b as usize].load(Ordering::Acquire))
            .expect("a walk has its first member");
        let load = state.loads[node as usize].fetch_add(1, Ordering::AcqRel) + 1;
        Counted {
            node,
            load,
            bound,
            fallback: true,
        }
    }

    /// Takes one unit of load back from `node`, live or removed since it
    /// was acquired. Fails, changing nothing, with [`Error::NoLoad`] when
    /// its load is 0 and [`Error::NotABucket`] when the cluster never had
    /// that bucket.
    ///
    /// ```
    /// use jumpshard::placement::BoundedLoads;
    /// use jumpshard::{BucketCount, Error, Memento};
    ///
    /// let router = BoundedLoads::new(Memento::new(BucketCount::new(4)?), 2.0)?;
    /// let node = router.acquire(7);
    /// router.remove(node)?; // the node dies while serving the request
    /// router.release(node)?;
    /// assert_eq!(router.total(), 0);
    /// assert_eq!(router.release(node), Err(Error::NoLoad { node }));
    /// # Ok::<(), jumpshard::Error>(())
    /// ```
    pub fn release(&self, node: u32) -> Result<(), Error> {
        let state = self.read();
        let counter = state.loads.get(node as usize).ok_or(Error::NotABucket {
            bucket: node,
            barray: state.loads.len() as u32,
        })?;
        counter
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |l| l.checked_sub(1))
            .map_err(|_| Error::NoLoad { node })?;
        // Given back after the node's count shrank, so never below it.
        self.total.fetch_sub(1, Ordering::AcqRel);
        Ok(())
    }

    /// The current load of `node` (live or removed). Fails with
    /// [`Error::NotABucket`] when the cluster never had that bucket.
    pub fn load(&self, node: u32) -> Result<u64, Error> {
        let state = self.read();
        state
            .loads
            .get(node as usize)
            .map(|l| l.load(Ordering::Acquire))
            .ok_or(Error::NotABucket {
                bucket: node,
                barray: state.loads.len() as u32,
            })
    }

    /// Every bucket id's current load, removed buckets included (one per
    /// bucket the cluster ever had).
    pub fn loads(&self) -> Vec<u64> {
        let state = self.read();
        state
            .loads
            .iter()
            .map(|l| l.load(Ordering::Acquire))
            .collect()
    }

    /// The sum of all loads, removed nodes' included.
    pub fn total(&self) -> u64 {
        self.total.load(Ordering::Acquire)
    }

    /// The bound the next acquire would be checked against if no other
    /// call ran in between: `ceil(c * (total + 1) / live)`, `u64::MAX` for
    /// an infinite `c`.
    pub fn next_bound(&self) -> u64 {
        let state = self.read();
        self.bound_of(self.total() + 1, state.cluster.working())
    }

    /// A copy of the cluster as it stands.
    pub fn cluster(&self) -> Memento {
        self.read().cluster.clone()
    }

    /// Removes `bucket` from the cluster as [`Memento::remove`] does; its
    /// count stays until its requests are released. Fails as that does,
    /// changing nothing.
    pub fn remove(&self, bucket: u32) -> Result<(), Error> {
        let mut state = self.state.write().unwrap_or_else(PoisonError::into_inner);
        state.cluster.remove(bucket)
    }

    /// Restores the last removed bucket, or grows the cluster by one, as
    /// [`Memento::restore`] does, and returns it; its count is what it was.
    /// Fails, changing nothing, with [`Error::RouterTooLarge`] when growing
    /// would take the b-array past [`MAX_NODES`].
    pub fn restore(&self) -> Result<u32, Error> {
        let mut state = self.state.write().unwrap_or_else(PoisonError::into_inner);
        let barray = state.cluster.barray().get();
        if state.cluster.working() == barray {
            // Nothing removed: the restore is a growth by one bucket.
            too_large(barray + 1)?;
        }
        let bucket = state.cluster.restore()?;
        let barray = state.cluster.barray().get() as usize;
        if state.loads.len() < barray {
            state.loads.resize_with(barray, || AtomicU64::new(0));
        }
        Ok(bucket)
    }

    /// `ceil(c * total / live)` in f64, saturating at `u64::MAX`.
    fn bound_of(&self, total: u64, live: u32) -> u64 {
        let bound = (self.factor * total as f64 / f64::from(live)).ceil();
        // `as` saturates: infinity becomes u64::MAX.
        bound as u64
    }

    /// The state for reading; a panic elsewhere while it was written leaves
    /// it whole (every write is one Memento call that fails cleanly).
    fn read(&self) -> RwLockReadGuard<'_, State> {
        self.state.read().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Refuses a b-array of `buckets` past [`MAX_NODES`].
fn too_large(buckets: u32) -> Result<(), Error> {
    if buckets > MAX_NODES {
        return Err(Error::RouterTooLarge {
            buckets,
            limit: MAX_NODES,
        });
    }
    Ok(())
}

/// Raises `counter` by one if that keeps it at most `bound`, returning the
/// new load; re-checks the bound whenever another thread got there first.
fn try_raise(counter: &AtomicU64, bound: u64) -> Option<u64> {
    counter
        .fetch_update(Ordering::AcqRel, Ordering::Acquire, |l| {
            (l < bound).then_some(l + 1)
        })
        .ok()
        .map(|l| l + 1)
}

mod batch;
mod release;
#[cfg(test)]
mod release_tests;
#[cfg(test)]
mod tests;
