//! Replica sets across failure domains: on a zoned node table (slot lines
//! with `zone=NAME`, optionally `rack=NAME`; see [`crate::nodes`]), the
//! `k` members of a key are distinct live nodes in distinct zones whenever
//! `k` zones have live nodes, and otherwise no zone holds more than
//! `ceil(k / zones)` of them unless another zone is out of live nodes.
//!
//! # The construction
//!
//! 1. Rank 1 is the table's own answer, [`NodeTable::bucket`]'s node `P`
//!    (Figure 1 with nothing removed, Memento otherwise, an override's node
//!    for a pinned key), so routing with `k = 1` is unchanged. Its zone is
//!    `A`.
//! 2. The zones with a live node are ordered for the key: `A` first, then
//!    the others by descending rendezvous score `XXH64(key's 8
//!    little-endian bytes, seed = id)`, where a zone's id is XXH64 of its
//!    name's UTF-8 bytes with seed 0 (ties, which need equal 64-bit
//!    scores, by descending id). Adding or removing one zone never reorders
//!    the others.
//! 3. Members are dealt to the zones round-robin in that order until there
//!    are `k`, a zone with no live node left being passed over: with `k` or
//!    more zones each of the first `k` holds one; with fewer, none holds
//!    more than `ceil(k / zones)` while the others have room.
//! 4. Zone `W`'s `m` members, over its nodes in table order (local bucket
//!    `b` is its `b`-th node; the nodes whose every slot is removed are
//!    dead, removed Memento-style in the order they died) and the derived
//!    key `d = XXH64(key, seed = id ^ 0x6A09E667F3BCC908)`:
//!    - its *first member* `F`: `P` in zone `A`, elsewhere
//!      [`crate::Memento::bucket`]`(d)`;
//!    - for `m >= 2`, the first `m - 1` nodes other than `F` of the zone's
//!      *sequence*: the members of [`crate::replicas::set`]`(d, max(n,
//!      k))` (the replica set of `k` among `max(n, k)` buckets, `n` the
//!      zone's nodes) in rank order, those that are live nodes, then the
//!      other live nodes by descending rendezvous score `XXH64(key, seed =
//!      node id)`, a node's id being XXH64 of its name seeded with its
//!      zone's id `^ 0xBB67AE8584CAA73B` (ties by the larger id);
//!    - in a zone that names racks (a node without a rack is a rack of its
//!      own), the `m - 1` are dealt over the racks instead, the racks
//!      taking the nodes' part: the zone's *rack sequence* is made as the
//!      sequence above over the racks in the order they first appear in
//!      the table (rack `b` for bucket `b`, `max(racks, k)` buckets, the
//!      same `d`), a rack's rendezvous score being `XXH64(key, seed = rack
//!      id)`, a named rack's id XXH64 of its name seeded with its zone's
//!      id `^ 0x3C6EF372FE94F82B` and a node's own rack's its node id.
//!      Round 1 takes the first node of each rack of the rack sequence but
//!      `F`'s; rounds 2 on take each rack's next node, `F`'s rack first
//!      (its first node but `F`), then the others by descending score
//!      (ties by the larger id); a rack out of live nodes is passed over.
//!      A rack's nodes come in its own sequence, made as the zone's over
//!      the rack's nodes in table order with the derived key `XXH64(key,
//!      seed = rack id ^ 0x6A09E667F3BCC908)`. So the members sit in
//!      distinct racks when the zone has enough; and with every node a
//!      rack of its own, the rack sequence is the zone's sequence node for
//!      node, so a zone's first rack moves nothing.
//!
//!    Neither the sequences nor the dealing depend on `m`, so a zone whose
//!    share grows (another zone lost) keeps its members and adds the next.
//!    A node removed leaves its sequence, and a node appended enters its
//!    rack's (the replica set of `k` trades at most one member for the new
//!    node as the list grows) or, as a new rack, the rack sequence, so
//!    neither moves another member; without racks, not even when `F`
//!    changes with them (`tests/zones/properties.rs` holds both).
//! 5. Ranks follow the rounds: rank 1 is `P`, ranks 2.. the first member
//!    of each next zone in order, then each zone's second member, and so
//!    on.
//!
//! Members are nodes, not slots: a node serving several slots is one
//! member (its slots weigh only on rank 1). Weighted tables have no
//! zoned sets. The lanes: rank 1 is [`NodeTable::batch`], the zone scores
//! and derived keys XXH64 on the kernels' lanes, each zone's first members
//! one [`crate::Memento::batch`] over the keys that need a member there,
//! and the sequences of the zones holding several members one
//! [`crate::replicas::batch`], then each key's next members from it (in a
//! zone with racks, each member its rack's first node, one Figure 1
//! bucket of the rack's derived key, one key at a time). With
//! `k` at most the live zones, and with more members than zones when at
//! most 8 zones are live and every zone can take its share of members,
//! a key's order comes without a sort and each zone's
//! members go straight to their columns: within 8 zones from one compare
//! per pair of zone scores (eight keys a step on AVX-512, four on AVX2),
//! with more from one pass over the zones keeping the key's best `k - 1`.
//!
//! # What moves
//!
//! A node added at the end of the table in zone `W` takes replica slots
//! only onto itself, and a removed node gives up only the slots it held,
//! each to a node of the same zone when the zone has a live node the key
//! does not hold, or else of a zone the key was not using, with two
//! exceptions:
//! - when a key's *primary* changes (it moves onto an added node, or its
//!   node is removed and Memento picks a new one), the walk is anchored on
//!   the new primary's zone, so a member the key had there may be
//!   displaced and the other zones' order is taken afresh from the new
//!   anchor, which can trade one of the key's zones for another;
//! - in a zone that names racks and holds two or more of a key's members,
//!   a change of the zone's first member (removed, or a node added takes
//!   it) deals the racks anew, which may move one more member inside the
//!   zone.
//!
//! A zone lost moves only the slots that were in it, each to a zone the
//! key was not using, while the zones with live nodes number more than
//! `k`. The tests measure both exceptions' rates (docs/placement-zones.md).
//!
//! ```
//! use jumpshard::NodeTable;
//!
//! let table = NodeTable::parse(
//!     "a1 zone=a\nb1 zone=b\nc1 zone=c\na2 zone=a\nb2 zone=b\nc2 zone=c\n",
//! )?;
//! let zoned = table.zoned_replicas()?;
//! let mut set = [0u32; 3];
//! zoned.set(42, &mut set)?;
//! // Rank 1 is the table's own node, and the three sit in three zones.
//! assert_eq!(table.nodes()[set[0] as usize], table.node(42));
//! let mut zones: Vec<_> = set.iter().map(|&n| table.zone_of(n as usize)).collect();
//! zones.dedup();
//! zones.sort();
//! zones.dedup();
//! assert_eq!(zones.len(), 3);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod batch;
mod changes;
mod domain;
mod error;
mod lanes;
#[cfg(target_arch = "x86_64")]
mod lanes_avx2;
#[cfg(target_arch = "x86_64")]
mod lanes_avx512;
mod one_key;
mod order;
mod requests;
mod several;
mod wide;
#[cfg(target_arch = "x86_64")]
mod wide_avx2;
#[cfg(target_arch = "x86_64")]
mod wide_avx512;

pub use error::ZoneError;

use crate::NodeTable;
use domain::Domain;
use order::Order;

/// The zoned replica sets of one table: its zones (and racks) prepared
/// once, for any number of keys. Members are indices into the table's
/// [`NodeTable::nodes`].
#[derive(Clone, Debug)]
pub struct ZonedReplicas<'t> {
    table: &'t NodeTable,
    zones: Vec<Domain>,
    /// Each node's zone, an index into `zones`.
    zone_of: Vec<u32>,
    /// The live nodes.
    live: usize,
    /// The live zones as the lanes order them.
    order: Order,
}

impl NodeTable {
    /// The zoned replica sets of this table. Fails with
    /// [`ZoneError::NotZoned`] on a table without zones and
    /// [`ZoneError::Weighted`] on a weighted one.
    pub fn zoned_replicas(&self) -> Result<ZonedReplicas<'_>, ZoneError> {
        let domains = self.domains().ok_or(ZoneError::NotZoned)?;
        if self.weights().is_some() {
            return Err(ZoneError::Weighted);
        }
        let live = (0..self.nodes().len()).filter(|&n| self.is_live(n)).count();
        let zones = domain::zones(self);
        let order = Order::new(&zones, &domains.zone, self.slot_nodes());
        Ok(ZonedReplicas {
            table: self,
            zones,
            zone_of: domains.zone.clone(),
            live,
            order,
        })
    }
}

impl<'t> ZonedReplicas<'t> {
    /// The table the sets are drawn from.
    pub fn table(&self) -> &'t NodeTable {
        self.table
    }

    /// The number of zones with a live node.
    pub fn live_zones(&self) -> usize {
        self.zones.iter().filter(|z| z.live > 0).count()
    }

    /// Whether sets of `k` members can be drawn: `k` from 1 to the live
    /// nodes (and at most [`crate::replicas::MAX_REPLICAS`]); otherwise
    /// [`ZoneError::TooManyReplicas`], naming both.
    pub fn check(&self, k: usize) -> Result<(), ZoneError> {
        if k == 0 || k > self.live.min(crate::replicas::MAX_REPLICAS) {
            return Err(ZoneError::TooManyReplicas {
                replicas: k,
                live: self.live,
            });
        }
        Ok(())
    }

    /// The set of `key`: `k = out.len()` distinct live nodes (indices into
    /// [`NodeTable::nodes`]), in rank order. Fails as
    /// [`ZonedReplicas::check`] does, leaving `out` untouched.
    pub fn set(&self, key: u64, out: &mut [u32]) -> Result<(), ZoneError> {
        self.check(out.len())?;
        self.one_key(key, out);
        Ok(())
    }

    /// The sets of `keys` as `k = columns.len()` columns: `columns[j][i]`
    /// is the member of rank `j + 1` of `keys[i]`'s set
    /// ([`ZonedReplicas::set`]). Fails, leaving every column untouched, as
    /// [`ZonedReplicas::check`] does, or with
    /// [`ZoneError::LengthMismatch`] when a column's length differs from
    /// the keys'.
    ///
    /// ```
    /// use jumpshard::NodeTable;
    ///
    /// let table = NodeTable::parse("a zone=x\nb zone=y\nc zone=x\nd zone=y\n")?;
    /// let zoned = table.zoned_replicas()?;
    /// let keys: Vec<u64> = (0..1000).collect();
    /// let (mut first, mut second) = (vec![0; 1000], vec![0; 1000]);
    /// zoned.batch(&keys, &mut [&mut first, &mut second])?;
    /// for i in 0..1000 {
    ///     assert_eq!(table.nodes()[first[i] as usize], table.node(keys[i]));
    ///     assert_ne!(table.zone_of(first[i] as usize), table.zone_of(second[i] as usize));
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn batch(&self, keys: &[u64], columns: &mut [&mut [u32]]) -> Result<(), ZoneError> {
        self.check(columns.len())?;
        if let Some(bad) = columns.iter().find(|c| c.len() != keys.len()) {
            return Err(ZoneError::LengthMismatch {
                keys: keys.len(),
                out: bad.len(),
            });
        }
        if self.each_alone(keys, columns) {
            return Ok(());
        }
        let kernel = crate::active_kernel();
        if self.on_lanes(columns.len()) {
            self.lane_rounds(kernel, keys, columns);
        } else {
            self.rounds(kernel, keys, columns);
        }
        Ok(())
    }
}

#[cfg(test)]
mod lanes_tests;
#[cfg(test)]
mod tests;
