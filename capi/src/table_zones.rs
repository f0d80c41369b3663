//! Replica sets of a node table's keys, and its zones: on a zoned table
//! (slot lines with `zone=NAME`) each key's set is `k` distinct live nodes
//! in distinct zones, exactly as the CLI, Python and Rust give it.

use crate::guard::{guard, guard_status};
use crate::handle;
use crate::replicas::columns;
use crate::status::jumpshard_status::{
    self, JUMPSHARD_ERROR_NOT_ZONED, JUMPSHARD_ERROR_SHARED_NODE,
    JUMPSHARD_ERROR_TOO_MANY_REPLICAS, JUMPSHARD_ERROR_WEIGHTED_TABLE,
};
use crate::table::{jumpshard_table, slot_text};
use jumpshard::nodes::ReplicaError;
use jumpshard::zones::ZoneError;

/// The status of a refused replica set.
fn status_of(error: &ReplicaError) -> jumpshard_status {
    match error {
        ReplicaError::Weighted | ReplicaError::Zone(ZoneError::Weighted) => {
            JUMPSHARD_ERROR_WEIGHTED_TABLE
        }
        ReplicaError::SharedNode { .. } => JUMPSHARD_ERROR_SHARED_NODE,
        ReplicaError::Zone(ZoneError::NotZoned) => JUMPSHARD_ERROR_NOT_ZONED,
        ReplicaError::LengthMismatch { .. }
        | ReplicaError::Zone(ZoneError::LengthMismatch { .. }) => {
            jumpshard_status::JUMPSHARD_ERROR_INVALID_LENGTH
        }
        // `k` out of range, and any refusal a later version may add.
        _ => JUMPSHARD_ERROR_TOO_MANY_REPLICAS,
    }
}

/// Writes the replica sets of `keys[0..len]` in the table as `k` columns
/// of `len` slots, one after the other in `out` (`k * len` elements):
/// member `j` of the set of `keys[i]` is `out[j * len + i]`, and column 0
/// is `jumpshard_table_batch`'s result (the Rust API's
/// `NodeTable::replicas_batch`, bit for bit). On a zoned table the sets are
/// the zoned ones: `k` distinct live nodes in distinct zones whenever `k`
/// zones have live nodes, each member given as its node's first working
/// slot (`jumpshard_table_slot_name` names it, `jumpshard_table_zone_name`
/// its zone), so column 0 names `jumpshard_table_batch`'s node but, for a node
/// of several slots (`+NAME` lines), not always its slot; otherwise `k`
/// distinct working slots of distinct nodes.
///
/// Returns `JUMPSHARD_OK`, or the status of the first check that fails, in
/// this order: for `table`, `JUMPSHARD_ERROR_NULL_POINTER` and
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER`; `JUMPSHARD_ERROR_WEIGHTED_TABLE`
/// (the table has weights); `JUMPSHARD_ERROR_SHARED_NODE` (a table without
/// zones where a node serves several slots); `JUMPSHARD_ERROR_TOO_MANY_REPLICAS`
/// (`k` is 0, above the working slots, or on a zoned table the live nodes,
/// or above 1024); for `keys` (`len` elements), then `out` (`k * len`
/// elements): `JUMPSHARD_ERROR_NULL_POINTER` (NULL with elements),
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER`, `JUMPSHARD_ERROR_INVALID_LENGTH`
/// (also when `k * len` overflows); then
/// `JUMPSHARD_ERROR_OVERLAPPING_BUFFERS`. On any error `out` is not
/// written (after `JUMPSHARD_ERROR_PANIC` its contents are unspecified).
/// With `len == 0` nothing is written and the buffers may be NULL.
///
/// # Safety
/// `table` must be NULL or a live handle; unless `len` is 0, `keys` must
/// point to `len` readable `uint64_t` and `out` to `k * len` writable
/// `int32_t`; no other thread may write either during the call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_table_replicas_batch(
    table: *const jumpshard_table,
    keys: *const u64,
    len: usize,
    k: usize,
    out: *mut i32,
) -> jumpshard_status {
    guard_status(|| {
        // SAFETY: the caller promises a live handle.
        let table = unsafe { handle::borrow(table) }?;
        table.0.check_replicas(k).map_err(|e| status_of(&e))?;
        // SAFETY: the caller's contract, stated above, is the one
        // `columns` needs.
        unsafe {
            columns(keys, len, k, out, |keys, columns| {
                table.0.replicas_batch(keys, columns).map_err(|e| match e {
                    // `k` was checked, so only the columns' length can fail.
                    ReplicaError::LengthMismatch { keys, out } => {
                        jumpshard::Error::LengthMismatch { keys, out }
                    }
                    _ => jumpshard::Error::TooManyReplicas {
                        replicas: k,
                        buckets: 0,
                    },
                })
            })
        }
    })
}

/// 1 when the table is zoned (its slot lines name zones with `zone=NAME`),
/// 0 when it is not, -1 when `table` is NULL or misaligned.
///
/// # Safety
/// `table` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_table_is_zoned(table: *const jumpshard_table) -> i32 {
    guard(-1, || {
        // SAFETY: the caller promises a live handle.
        let table = unsafe { handle::borrow(table) };
        table.map_or(-1, |t| i32::from(t.0.is_zoned()))
    })
}

/// Writes to `*name` and `*name_len` the zone of the node serving `slot`
/// (or that served it, if it is removed): UTF-8, not NUL-terminated, owned
/// by the table and valid until it is freed.
///
/// Returns `JUMPSHARD_OK`, or the status of the first check that fails, in
/// this order: for `table`, `name`, then `name_len`:
/// `JUMPSHARD_ERROR_NULL_POINTER`, `JUMPSHARD_ERROR_MISALIGNED_POINTER`;
/// `JUMPSHARD_ERROR_OVERLAPPING_BUFFERS` (`name` and `name_len` share
/// bytes); then `JUMPSHARD_ERROR_NOT_A_BUCKET` (`slot` outside `0..len`), then
/// `JUMPSHARD_ERROR_NOT_ZONED` (the table names no zone). On any error
/// nothing is written.
///
/// # Safety
/// `table` must be NULL or a live handle; `name` and `name_len` must point
/// to a writable `const uint8_t *` and `size_t` that no other thread
/// accesses during the call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_table_zone_name(
    table: *const jumpshard_table,
    slot: i32,
    name: *mut *const u8,
    name_len: *mut usize,
) -> jumpshard_status {
    // SAFETY: the caller's promises, passed on unchanged.
    unsafe {
        slot_text(table, slot, name, name_len, |t, slot| {
            t.zone_of(t.slot_nodes()[slot] as usize)
                .ok_or(JUMPSHARD_ERROR_NOT_ZONED)
        })
    }
}
