//! Move plans between two states of a Memento cluster: a removal, a
//! restore, or any two states with the same keys.

use super::jumpshard_memento;
use crate::guard::guard_status;
use crate::handle;
use crate::plan::PlanBuffers;
use crate::status::jumpshard_status;

/// The keys of one round, placed in both states.
const ROUND: usize = 4096;

/// The move plan of `keys` from the cluster state `before` to `after`
/// (for instance a copy taken before `jumpshard_memento_remove`): every key
/// whose bucket differs, in input order. On success `*moved` is their
/// number and, for each `i < *moved`, `positions[i]` is the index in `keys`
/// of the `i`-th moving key, `from[i]` its bucket in `before` and `to[i]`
/// in `after` (`jumpshard_memento_bucket`'s). A removal's plan holds
/// exactly the removed bucket's keys, a restore's exactly those coming
/// back. `from` may be NULL.
///
/// `positions`, `from` and `to` each hold `capacity` elements; `capacity =
/// len` always suffices. If more than `capacity` keys move, the status is
/// `JUMPSHARD_ERROR_CAPACITY`, `*moved` is the number needed and nothing
/// else is written.
///
/// Returns `JUMPSHARD_OK`, or the status of the first check that fails, in
/// this order: for `before`, then `after`, `JUMPSHARD_ERROR_NULL_POINTER`
/// and `JUMPSHARD_ERROR_MISALIGNED_POINTER`; for `moved` (never NULL), then
/// `keys` (`len` elements), then `positions`, `from` and `to`
/// (`min(capacity, len)` elements each): `JUMPSHARD_ERROR_NULL_POINTER`,
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER`, `JUMPSHARD_ERROR_INVALID_LENGTH`;
/// then `JUMPSHARD_ERROR_OVERLAPPING_BUFFERS`; then
/// `JUMPSHARD_ERROR_CAPACITY`. On these errors no output is written (but
/// `*moved` on `JUMPSHARD_ERROR_CAPACITY`).
///
/// # Safety
/// `before` and `after` must be NULL or live handles that no thread
/// mutates during the call; `moved` must point to a writable `size_t`;
/// unless `len` is 0, `keys` must point to `len` readable `uint64_t`;
/// unless `capacity` is 0, `positions`, `to` and (if not NULL) `from` must
/// point to `capacity` writable elements. No other thread may write any of
/// them during the call.
#[no_mangle]
#[allow(clippy::too_many_arguments)] // the C signature, one by one
pub unsafe extern "C" fn jumpshard_memento_plan(
    before: *const jumpshard_memento,
    after: *const jumpshard_memento,
    keys: *const u64,
    len: usize,
    positions: *mut u64,
    from: *mut i32,
    to: *mut i32,
    capacity: usize,
    moved: *mut usize,
) -> jumpshard_status {
    guard_status(|| {
        // SAFETY: the caller promises live handles nobody mutates.
        let before = unsafe { handle::borrow(before) }?;
        // SAFETY: as above.
        let after = unsafe { handle::borrow(after) }?;
        // SAFETY: the caller's contract for the buffers is
        // `PlanBuffers::new`'s.
        let out = unsafe { PlanBuffers::new(keys, len, positions, from, to, capacity, moved) }?;
        // The moves, in the library's buffers first, so that an error
        // leaves the caller's untouched.
        let (mut moving, mut old_moving, mut new_moving) = (Vec::new(), Vec::new(), Vec::new());
        let rounds = ROUND.min(out.keys.len());
        let (mut old, mut new) = (vec![0u32; rounds], vec![0u32; rounds]);
        for (round, chunk) in out.keys.chunks(ROUND).enumerate() {
            let (old, new) = (&mut old[..chunk.len()], &mut new[..chunk.len()]);
            let status = |e| jumpshard_status::of(&e);
            before.0.batch(chunk, old).map_err(status)?;
            after.0.batch(chunk, new).map_err(status)?;
            for (i, (&a, &b)) in old.iter().zip(&*new).enumerate() {
                if a != b {
                    moving.push((round * ROUND + i) as u64);
                    old_moving.push(a);
                    new_moving.push(b);
                }
            }
        }
        out.write(std::iter::once((
            &moving[..],
            &old_moving[..],
            &new_moving[..],
        )))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memento::{
        jumpshard_memento_free, jumpshard_memento_from_removals, jumpshard_memento_new,
    };
    use jumpshard_status::{JUMPSHARD_ERROR_CAPACITY, JUMPSHARD_OK};

    /// A removal's plan is exactly the removed bucket's keys; a short
    /// capacity reports the count and writes nothing.
    #[test]
    fn a_removal_plans_exactly_its_keys() {
        // Fewer keys under Miri, which runs them a thousand times slower.
        let len = if cfg!(miri) { 300 } else { 3000usize };
        let keys: Vec<u64> = (0..len as u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        let (mut before, mut after) = (std::ptr::null_mut(), std::ptr::null_mut());
        let removals = [3i32];
        let (mut positions, mut from, mut to) =
            (vec![0u64; len], vec![-1i32; len], vec![-1i32; len]);
        let mut moved = 0usize;
        // SAFETY: live handles freed at the end; buffers of `len` elements.
        unsafe {
            assert_eq!(jumpshard_memento_new(10, &mut before), JUMPSHARD_OK);
            assert_eq!(
                jumpshard_memento_from_removals(10, removals.as_ptr(), 1, &mut after),
                JUMPSHARD_OK
            );
            let status = jumpshard_memento_plan(
                before,
                after,
                keys.as_ptr(),
                keys.len(),
                positions.as_mut_ptr(),
                from.as_mut_ptr(),
                to.as_mut_ptr(),
                keys.len(),
                &mut moved,
            );
            assert_eq!(status, JUMPSHARD_OK);
            let n = jumpshard::BucketCount::new(10).unwrap();
            let want: Vec<u64> = (0..len as u64)
                .filter(|&i| jumpshard::bucket(keys[i as usize], n) == 3)
                .collect();
            assert_eq!(&positions[..moved], &want[..]);
            assert!(from[..moved].iter().all(|&b| b == 3) && to[..moved].iter().all(|&b| b != 3));
            let mut short = [7u64; 1];
            let mut count = 0usize;
            let status = jumpshard_memento_plan(
                before,
                after,
                keys.as_ptr(),
                keys.len(),
                short.as_mut_ptr(),
                std::ptr::null_mut(),
                to.as_mut_ptr(),
                1,
                &mut count,
            );
            assert_eq!(
                (status, count, short),
                (JUMPSHARD_ERROR_CAPACITY, moved, [7])
            );
            jumpshard_memento_free(before);
            jumpshard_memento_free(after);
        }
    }
}
