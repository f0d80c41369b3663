//! Node tables: the side table that maps jump hash's dense bucket numbers
//! to the hosts that serve them.
//!
//! Jump hash only knows buckets `0..N`; a cluster runs named nodes. A
//! [`NodeTable`] is the list of names where entry `i` serves bucket `i`, so
//! a key lives on `table[jump(key, table.len())]`. A name may serve several
//! slots (a heavier node). Since bucket numbers must stay dense, a failed
//! node in the middle is never deleted from the table (every later slot
//! would shift); it is swapped with the last slot before shrinking, or its
//! slot is pointed at a survivor (see [`TableChange`]).
//!
//! # The table file
//!
//! One slot per line, line `i + 1` serving bucket `i`, so a table of N
//! lines is a cluster of N buckets. A line holds one name: any text
//! without whitespace, control characters, `,` or `"` (so that names can
//! stand in CSV move lists unquoted), not starting with `+`. A name listed
//! again serves one more slot only when the repeat says so, written
//! `+NAME`: an unmarked repeat is refused as an accident (a copy-paste
//! error would otherwise silently double a node's load). Lines end in
//! `\n` or `\r\n`; the last one may lack it. Empty lines are refused,
//! since they would shift every later slot. Names holding characters that
//! print as nothing (zero-width spaces, joiners, byte order marks,
//! direction controls) are refused too, since two such names would look
//! alike in every report; a byte order mark at the very start of the file
//! (an editor's) is dropped. For the same reason, with the default
//! `unicode-names` feature, two names that are the same text in Unicode's
//! NFKC form (`café` written with `é` and with `e` and a combining accent,
//! `ｄｂ` in fullwidth letters and `db`) are refused, naming both lines.
//!
//! After the name, separated by blanks, a line may carry attributes that
//! change how keys are placed, so that every router loading the same file
//! computes the same nodes:
//!
//! - `removed=K`: the slot is removed, Memento-style ([`crate::Memento`]),
//!   as the K-th removal (1 for the first); the lines with `removed=` are
//!   the cluster's removal log. Numbers run from 1 without gaps or
//!   repeats, the first removal may not be the last slot (that is a
//!   shrink: delete the line), and a slot must stay working. Only the
//!   removed slots' keys have moved.
//! - `weight=W`: the slot's real-valued weight (default 1), keys placed by
//!   [`crate::weights::Weights`]' rejection sampling; all weights equal
//!   place keys exactly as Figure 1.
//!
//! - `zone=NAME`, `rack=NAME`: the node's failure domains, for replica
//!   sets across them ([`crate::zones`]). A table is zoned when any slot
//!   line names a zone; then every slot line names one, the slots of one
//!   node (`+NAME` repeats) name the same zone and rack, a rack stands only
//!   beside a zone, and zone and rack names follow the rules of node
//!   names. Each is refused otherwise, naming the line. Zones do not
//!   change where [`NodeTable::bucket`] places a key.
//!
//! A table holds removals or weights, not both. A `#` after a blank
//! (space or tab) starts a comment, to the line's end (`+db-a  # the
//! larger db-a`); a `#` with no blank before it is part of the name
//! (`rack#2`). Comments are not kept when a table is written. Anything
//! else after the name is refused with its line.
//!
//! # Overrides
//!
//! After the last slot line, a table may pin single keys to a node, one
//! per line: `override KEY NODE`, the word, a key and a node named on a
//! slot line above, separated by blanks (a comment may follow). KEY is
//! the `u64` the table places (for byte keys, their XXH3-64 prehash,
//! [`crate::bytes::prehash`]): in
//! decimal (`0` to `18446744073709551615`) or as `0x` and 1 to 16
//! hexadecimal digits in either case. A lookup ([`NodeTable::bucket`],
//! [`NodeTable::batch`], [`NodeTable::node`], the first member of
//! [`NodeTable::replicas_batch`]) answers an overridden key with the
//! node's first working slot; other keys are placed as without
//! overrides, and a table without them pays one emptiness check. An
//! override to a node whose slots are all removed is kept in the file but
//! not used: the key takes its normal slot until the node is restored (so
//! removing a node never leaves an unreadable table). A node that leaves
//! the table (a shrink, a swap, a hole) takes its overrides with it.
//! Refused, naming the line: a key that is not a `u64`, a key overridden
//! twice (with both lines), a node not in the table, a slot line after an
//! override line (a slot's line number is its bucket), and anything but
//! exactly a key and a node after the word. A line is an override line
//! only when its first word is `override` and its next word holds no `=`,
//! so a node named `override` keeps its slot line. Overrides are written
//! back by [`NodeTable::to_text`] in increasing key order, in decimal, and
//! enter the fingerprint ([`fingerprint`]). `jumpshard balance` writes
//! them to even out a weighted load.
//!
//! ```
//! use jumpshard::NodeTable;
//!
//! let table = NodeTable::parse("alpha\nbeta\ngamma\noverride 42 gamma\noverride 0x2b beta\n")?;
//! assert_eq!((table.node(42), table.node(43)), ("gamma", "beta"));
//! assert_eq!(table.override_count(), 2);
//! let err = NodeTable::parse("alpha\nbeta\noverride 42 delta\n").unwrap_err();
//! assert_eq!(err.to_string(), "line 3: node \"delta\" is not in the table");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ```
//! use jumpshard::NodeTable;
//!
//! let table = NodeTable::parse("alpha\nbeta removed=1\ngamma\n")?;
//! assert_eq!(table.removals(), [1]);
//! assert!((0..1000u64).all(|key| table.node(key) != "beta"));
//! let err = NodeTable::parse("alpha\nbeta removed=2\ngamma\n").unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "no line has removed=1: removals are numbered 1, 2, ... in the order they happened, \
//!      without gaps"
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ```
//! use jumpshard::{BucketCount, NodeTable};
//!
//! let table = NodeTable::parse("alpha\nbeta\ngamma\n+alpha\n")?;
//! assert_eq!(table.len(), 4);
//! assert_eq!(table.nodes(), ["alpha", "beta", "gamma"]);
//! assert_eq!(table.slot(3), "alpha");
//! let key = 1253737204188795044;
//! assert_eq!(table.node(key), table.slot(jumpshard::bucket(key, BucketCount::new(4)?) as usize));
//! assert_eq!(table.to_text(), "alpha\nbeta\ngamma\n+alpha\n");
//!
//! let accident = NodeTable::parse("alpha\nbeta\nalpha\n").unwrap_err();
//! assert_eq!(
//!     accident.to_string(),
//!     "line 3: \"alpha\" already serves the slot of line 1; \
//!      write \"+alpha\" if it is meant to serve another slot (a heavier node)"
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod batch;
mod change;
mod domains;
pub mod fingerprint;
mod names;
mod overrides;
mod placement;
mod removal;
mod replicas;
mod restore;
mod table;
mod table_error;
mod table_file;

pub use change::{ChangeCounts, NodeMove, NodePlan, TableChange};
pub use fingerprint::{FingerprintParseError, TableFingerprint, FINGERPRINT_PREFIX};
pub use removal::{NodeRemoval, Removal, RemovalError};
pub use replicas::ReplicaError;
pub use restore::{restore, RestoreError};
pub use table::NodeTable;
pub use table_error::{TableError, MAX_SLOTS};
// What the zone changes check of the names they put on table lines.
pub(crate) use names::name_problem;
