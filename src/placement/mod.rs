//! Placement beyond one bucket per key: where a key goes when nodes leave,
//! hold several copies, weigh differently or carry more load than their
//! share. Every part keeps rank 1 equal to Figure 1's bucket (or Memento's,
//! once buckets are removed), so routing one copy stays bit-exact.
//!
//! - [`memento`]: removal and restore of any bucket.
//! - [`replicas`]: sets of k distinct buckets per key.
//! - [`weights`]: buckets of real-valued weights.
//! - [`nodes`]: node tables (names, removals, weights, overrides) and the
//!   plans of their changes, with one fingerprint per table.
//! - [`BoundedLoads`]: an online router that sends each request to the
//!   key's bucket unless that node already carries more than its share,
//!   then to the next member of the key's replica walk that does not
//!   (consistent hashing with bounded loads; see [`bounded`]).
//! - [`zones`]: replica sets across failure domains (zones and racks).

pub mod bounded;
pub mod memento;
pub mod nodes;
pub mod replicas;
pub mod weights;
pub mod zones;

pub use bounded::{BoundedLoads, DEFAULT_WALK, MAX_NODES};
