//! # jumpshard
//!
//! Lamping and Veach's *jump consistent hash* for large batches of 64-bit
//! keys, bit for bit what the paper's Figure 1 returns when a C++ compiler
//! builds it, on every kernel and every platform.
//!
//! ```
//! use jumpshard::BucketCount;
//!
//! let n = BucketCount::new(100)?;
//! // One key (the scalar Figure 1 loop).
//! assert_eq!(jumpshard::bucket(1253737204188795044, n), 86);
//!
//! // A batch, on the fastest kernel this CPU runs.
//! let keys: Vec<u64> = (0..1000).collect();
//! let mut buckets = vec![0u32; keys.len()];
//! jumpshard::batch(&keys, n, &mut buckets)?;
//! assert!(buckets.iter().all(|&b| b < 100));
//! # Ok::<(), jumpshard::Error>(())
//! ```
//!
//! When the bucket count changes from N to M, [`Resize::plan`] lists the
//! keys that move and where, evaluating only the movers twice (jump hash
//! is monotone). Byte-string keys go through a fixed 64-bit pre-hash,
//! XXH3-64 with seed 0 ([`bytes`], [`bucket_bytes`], [`batch_bytes`]).
//!
//! Operators run named nodes: a [`NodeTable`] maps bucket `i` to the node
//! serving it, and a [`TableChange`] lists the keys whose node changes
//! between two tables, with loads and transfers ([`nodes`]).
//!
//! Kernels are chosen once at run time (see [`active_kernel`]); the
//! `JUMPSHARD_KERNEL` environment variable and [`set_active_kernel`] override
//! the choice, and a [`Kernel`] runs one kernel explicitly. The SIMD
//! kernels' [`Division`] strategy comes from a per-CPU table, overridden by
//! `JUMPSHARD_DIVISION` or [`Kernel::with_division`].

#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod arch;
mod buckets;
pub mod bytes;
mod error;
mod kernel;
#[cfg(feature = "parallel")]
mod parallel;
pub mod placement;
pub use placement::{memento, nodes, replicas, weights, zones};
mod plan;
#[cfg(feature = "reference")]
#[cfg_attr(docsrs, doc(cfg(feature = "reference")))]
pub mod reference;
mod scratch;
#[cfg(any(test, feature = "reference"))]
mod splitmix;
#[cfg(feature = "reference")]
#[cfg_attr(docsrs, doc(cfg(feature = "reference")))]
pub mod verify;

/// The README's examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The manual's Rust examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/rust.md")]
pub struct RustManualDoctests;

/// The cluster operations page's Rust examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/cluster-operations.md")]
pub struct ClusterOperationsDoctests;

pub use buckets::BucketCount;
pub use bytes::{batch_bytes, bucket_bytes};
pub use error::Error;
pub use kernel::active::{
    active_kernel, kernel_selection, set_active_kernel, KernelSelection, KERNEL_ENV,
};
pub use kernel::cpu::Cpu;
pub use kernel::division::{Division, DIVISION_ENV};
pub use kernel::Kernel;
pub use memento::Memento;
pub use nodes::{
    ChangeCounts, NodeMove, NodePlan, NodeTable, TableChange, TableError, TableFingerprint,
};
#[cfg(feature = "parallel")]
#[cfg_attr(docsrs, doc(cfg(feature = "parallel")))]
pub use parallel::batch_parallel;
pub use plan::{DestinationCounts, Move, MovePlan, PlanScratch, Resize};

/// The bucket of one key among `num_buckets`: Figure 1, computed in Rust.
///
/// ```
/// use jumpshard::{bucket, BucketCount};
///
/// let n = BucketCount::new(65536)?;
/// assert_eq!(bucket(1431648187546111166, n), 55914);
/// assert_eq!(bucket(42, BucketCount::MIN), 0);
/// # Ok::<(), jumpshard::Error>(())
/// ```
#[inline]
pub fn bucket(key: u64, num_buckets: BucketCount) -> u32 {
    kernel::scalar::jump(key, num_buckets.get())
}

/// The bucket of every key in `keys`, written to `out[i]` for `keys[i]`, on
/// the [`active_kernel`] and the calling thread only.
///
/// Fails with [`Error::LengthMismatch`], leaving `out` untouched, when the
/// two slices differ in length. Neither slice needs any alignment.
///
/// ```
/// use jumpshard::{batch, BucketCount, Error};
///
/// let n = BucketCount::new(10)?;
/// let mut out = [0u32; 2];
/// batch(&[7, 8], n, &mut out)?;
/// assert_eq!(out, [jumpshard::bucket(7, n), jumpshard::bucket(8, n)]);
///
/// let mut short = [u32::MAX; 1];
/// assert_eq!(
///     batch(&[7, 8], n, &mut short),
///     Err(Error::LengthMismatch { keys: 2, out: 1 })
/// );
/// assert_eq!(short, [u32::MAX]);
/// # Ok::<(), jumpshard::Error>(())
/// ```
pub fn batch(keys: &[u64], num_buckets: BucketCount, out: &mut [u32]) -> Result<(), Error> {
    active_kernel().batch(keys, num_buckets, out)
}
