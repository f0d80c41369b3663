//! Placement beyond one bucket per key: where a key goes when the nodes'
//! loads, not only the bucket count, decide.
//!
//! - [`BoundedLoads`]: an online router that sends each request to the
//!   key's bucket unless that node already carries more than its share,
//!   then to the next member of the key's replica walk that does not
//!   (consistent hashing with bounded loads; see [`bounded`]).

pub mod bounded;

pub use bounded::{BoundedLoads, DEFAULT_WALK};
