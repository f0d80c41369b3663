//! Replica sets of a node table's keys: `k` distinct slots per key, the
//! first the key's own, drawn as the table's removals say (plain sets over
//! its slots, or Memento's under removals). A set names `k` distinct nodes
//! only when every node serves one slot, and weights do not draw sets: both
//! are refused. On a zoned table (slot lines with `zone=NAME`) the sets are
//! the zoned ones of [`crate::zones`]: `k` distinct live nodes in distinct
//! zones, each member given as its node's first working slot.
//!
//! ```
//! use jumpshard::nodes::ReplicaError;
//! use jumpshard::NodeTable;
//!
//! let table = NodeTable::parse("a\nb removed=1\nc\nd\n")?;
//! let keys = [1u64, 2, 3];
//! let (mut first, mut second) = ([0u32; 3], [0u32; 3]);
//! table.replicas_batch(&keys, &mut [&mut first, &mut second])?;
//! assert_eq!(first.to_vec(), keys.map(|k| table.bucket(k)));
//! assert!(second.iter().all(|&s| s != 1));
//! assert_eq!(
//!     table.check_replicas(4),
//!     Err(ReplicaError::TooManyReplicas { replicas: 4, working: 3 })
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use core::fmt;

use super::table::NodeTable;
use crate::zones::ZoneError;

/// Why a table cannot give replica sets of that size.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReplicaError {
    /// `k` is 0 or above the table's working slots.
    TooManyReplicas {
        /// The replicas asked for.
        replicas: usize,
        /// The table's working slots.
        working: usize,
    },
    /// The table has weights, which replica sets do not draw with.
    Weighted,
    /// A node serves several slots, so a set could hold it twice.
    SharedNode {
        /// The node.
        node: String,
    },
    /// A column's length differs from the keys'.
    LengthMismatch {
        /// The number of keys.
        keys: usize,
        /// The length of the column.
        out: usize,
    },
    /// The table is zoned and its zoned sets were refused.
    Zone(ZoneError),
}

impl fmt::Display for ReplicaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplicaError::TooManyReplicas { replicas, working } => write!(
                f,
                "{replicas} replicas: a set holds 1 to {} distinct working slots here",
                (*working).min(crate::replicas::MAX_REPLICAS)
            ),
            ReplicaError::Weighted => {
                f.write_str("a table has weights; replica sets are drawn from unweighted slots")
            }
            ReplicaError::SharedNode { node } => write!(
                f,
                "{node:?} serves several slots, so a set could hold it twice; replica sets \
                 need one slot per node"
            ),
            ReplicaError::LengthMismatch { keys, out } => {
                write!(f, "{keys} keys but a replica column of {out}")
            }
            ReplicaError::Zone(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ReplicaError {}

impl NodeTable {
    /// Whether this table can give every key a set of `k` distinct nodes:
    /// no weights, one slot per node, `k` from 1 to the working slots; on a
    /// zoned table, as [`crate::zones::ZonedReplicas::check`] says.
    pub fn check_replicas(&self, k: usize) -> Result<(), ReplicaError> {
        if self.is_zoned() {
            return self
                .zoned_replicas()
                .and_then(|z| z.check(k))
                .map_err(ReplicaError::Zone);
        }
        if self.weights().is_some() {
            return Err(ReplicaError::Weighted);
        }
        if let Some(node) = (0..self.nodes().len()).find(|&i| self.node_slots(i).len() > 1) {
            return Err(ReplicaError::SharedNode {
                node: self.nodes()[node].clone(),
            });
        }
        let working = self.len() - self.removals().len();
        if k == 0 || k > working.min(crate::replicas::MAX_REPLICAS) {
            return Err(ReplicaError::TooManyReplicas {
                replicas: k,
                working,
            });
        }
        Ok(())
    }

    /// The replica sets of `keys` as `k = columns.len()` columns of slots:
    /// `columns[j][i]` is member `j` of the set of `keys[i]`, column 0 being
    /// [`NodeTable::batch`]'s, overrides included: a key pinned to a node
    /// already in its set swaps that member with its first, and otherwise
    /// the pinned node takes the first member's place. Fails, writing
    /// nothing, as
    /// [`NodeTable::check_replicas`] does, or when a column's length
    /// differs from the keys'. On a zoned table the sets are
    /// [`crate::zones::ZonedReplicas::batch`]'s, each member node given as
    /// its first working slot: column 0 then names `batch`'s node, but a
    /// node of several slots (`+NAME` lines) by that slot, not always the
    /// one the key landed on.
    pub fn replicas_batch(
        &self,
        keys: &[u64],
        columns: &mut [&mut [u32]],
    ) -> Result<(), ReplicaError> {
        if self.is_zoned() {
            let zoned = self.zoned_replicas().map_err(ReplicaError::Zone)?;
            zoned.batch(keys, columns).map_err(|e| match e {
                ZoneError::LengthMismatch { keys, out } => {
                    ReplicaError::LengthMismatch { keys, out }
                }
                other => ReplicaError::Zone(other),
            })?;
            for member in columns.iter_mut().flat_map(|c| c.iter_mut()) {
                *member = self
                    .live_slot(*member)
                    .expect("a zoned set's members are live nodes");
            }
            return Ok(());
        }
        self.check_replicas(columns.len())?;
        self.placement()
            .replicas_batch(keys, self.bucket_count(), columns)
            .map_err(|e| match e {
                crate::Error::LengthMismatch { keys, out } => {
                    ReplicaError::LengthMismatch { keys, out }
                }
                other => unreachable!("k was checked: {other}"),
            })?;
        self.pin_replicas(keys, columns);
        Ok(())
    }
}
