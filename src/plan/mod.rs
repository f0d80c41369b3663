//! Move plans: which keys change bucket when the bucket count changes from
//! N to M, and where they go.
//!
//! Jump hash is monotone: growing from N to M buckets, a key either stays
//! put or moves to one of the new buckets `N..M`; shrinking from N to M, only
//! the keys of the removed buckets `M..N` move. So one evaluation per key
//! decides whether it moves, and only the movers need a second one:
//!
//! - growing, `to = jump(k, M)`; the key moves exactly when `to >= N`, and
//!   then `from = jump(k, N)`;
//! - shrinking, `from = jump(k, N)`; the key moves exactly when `from >= M`,
//!   and then `to = jump(k, M)`.
//!
//! Growing from 10 to 12 buckets, 1/6 of the keys move, so a plan costs
//! 7/6 evaluations per key instead of the naive two.
//!
//! ```
//! use jumpshard::{BucketCount, MovePlan, Resize};
//!
//! let resize = Resize::new(BucketCount::new(10)?, BucketCount::new(12)?)?;
//! let keys: Vec<u64> = (0..10_000).collect();
//! let mut plan = MovePlan::new();
//! resize.plan(&keys, 0, &mut plan);
//! for m in plan.moves() {
//!     let key = keys[m.position as usize];
//!     assert_eq!(m.from, jumpshard::bucket(key, resize.from_count()));
//!     assert_eq!(m.to, jumpshard::bucket(key, resize.to_count()));
//!     assert!(m.from < 10 && m.to >= 10);
//! }
//! // About 1/6 of the keys move, evenly to the two new buckets.
//! assert_eq!(plan.per_destination().total(), plan.len() as u64);
//! assert!((plan.len() as f64 / 10_000.0 - 1.0 / 6.0).abs() < 0.02);
//! # Ok::<(), jumpshard::Error>(())
//! ```

//!
//! The pieces: [`Resize`] decides and evaluates, the block loop
//! (`blocks`) runs the deciding evaluation a cache-sized block at a time
//! and stages each block's movers with the kernel's move filter
//! (`crate::kernel::filter`, which has an AVX-512 form), and one counter
//! (`counter`) tallies destinations, here and in node plans.

pub(crate) mod blocks;
pub(crate) mod counter;
mod move_plan;
mod resize;

pub use blocks::PlanScratch;
pub use counter::DestinationCounts;
pub use move_plan::{Move, MovePlan};
pub use resize::Resize;
