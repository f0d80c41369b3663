//! The move plan in the caller's buffers.

use super::*;

extern "C" {
    fn jumpshard_plan(
        keys: *const u64,
        len: usize,
        from_buckets: i32,
        to_buckets: i32,
        positions: *mut u64,
        sources: *mut i32,
        destinations: *mut i32,
        capacity: usize,
        moved: *mut usize,
    ) -> i32;
    fn jumpshard_plan_parallel(
        keys: *const u64,
        len: usize,
        from_buckets: i32,
        to_buckets: i32,
        positions: *mut u64,
        sources: *mut i32,
        destinations: *mut i32,
        capacity: usize,
        moved: *mut usize,
        threads: usize,
    ) -> i32;
}

/// The raw arguments of one plan call: `keys` and `len` may disagree, and
/// any output may be NULL or point anywhere.
#[derive(Clone, Copy)]
struct PlanArgs {
    keys: *const u64,
    len: usize,
    from: i32,
    to: i32,
    positions: *mut u64,
    sources: *mut i32,
    destinations: *mut i32,
    capacity: usize,
    moved: *mut usize,
}

/// A plan function as the tests call it.
type PlanFn = fn(PlanArgs) -> i32;

/// Both plan functions (and the parallel one on several thread counts), so
/// that every case runs through each.
fn plan_fns() -> [(&'static str, PlanFn); 3] {
    // The tests pass either buffers valid for their lengths, or arguments
    // that the checks under test refuse before any memory is touched; that
    // is the contract of both plan functions.
    [
        ("plan", |a| {
            // SAFETY: as the contract above says.
            unsafe {
                jumpshard_plan(
                    a.keys,
                    a.len,
                    a.from,
                    a.to,
                    a.positions,
                    a.sources,
                    a.destinations,
                    a.capacity,
                    a.moved,
                )
            }
        }),
        ("plan_parallel(0)", |a| {
            // SAFETY: as the contract above says.
            unsafe {
                jumpshard_plan_parallel(
                    a.keys,
                    a.len,
                    a.from,
                    a.to,
                    a.positions,
                    a.sources,
                    a.destinations,
                    a.capacity,
                    a.moved,
                    0,
                )
            }
        }),
        ("plan_parallel(3)", |a| {
            // SAFETY: as the contract above says.
            unsafe {
                jumpshard_plan_parallel(
                    a.keys,
                    a.len,
                    a.from,
                    a.to,
                    a.positions,
                    a.sources,
                    a.destinations,
                    a.capacity,
                    a.moved,
                    3,
                )
            }
        }),
    ]
}

/// Output buffers of `capacity` elements, filled with UNTOUCHED.
struct PlanOut {
    positions: Vec<u64>,
    sources: Vec<i32>,
    destinations: Vec<i32>,
    moved: usize,
}

impl PlanOut {
    fn new(capacity: usize) -> PlanOut {
        PlanOut {
            positions: vec![UNTOUCHED as u64; capacity],
            sources: vec![UNTOUCHED; capacity],
            destinations: vec![UNTOUCHED; capacity],
            moved: usize::MAX,
        }
    }

    fn args(&mut self, keys: &[u64], from: i32, to: i32, with_sources: bool) -> PlanArgs {
        PlanArgs {
            keys: keys.as_ptr(),
            len: keys.len(),
            from,
            to,
            positions: self.positions.as_mut_ptr(),
            sources: match with_sources {
                true => self.sources.as_mut_ptr(),
                false => std::ptr::null_mut(),
            },
            destinations: self.destinations.as_mut_ptr(),
            capacity: self.positions.len(),
            moved: &mut self.moved,
        }
    }

    fn untouched(&self) -> bool {
        self.positions.iter().all(|&p| p == UNTOUCHED as u64)
            && self.sources.iter().all(|&s| s == UNTOUCHED)
            && self.destinations.iter().all(|&d| d == UNTOUCHED)
    }
}

/// The plan Figure 1 gives, key by key: (position, from, to) of every key
/// whose bucket differs.
fn figure1_plan(keys: &[u64], from: i32, to: i32) -> Vec<(u64, i32, i32)> {
    let jump = jumpshard::reference::jump_consistent_hash;
    keys.iter()
        .enumerate()
        .map(|(i, &k)| (i as u64, jump(k, from), jump(k, to)))
        .filter(|&(_, a, b)| a != b)
        .collect()
}

/// Checks every plan function against Figure 1 on `keys`, with and
/// without sources, for every capacity case: `len`, exactly enough, one
/// too few (refused, only `*moved` written) and more than `len`.
fn check_plans(keys: &[u64], from: i32, to: i32) {
    let want = figure1_plan(keys, from, to);
    for (name, f) in plan_fns() {
        for with_sources in [true, false] {
            let what = format!(
                "{name} {from}->{to} len {} sources {with_sources}",
                keys.len()
            );
            let capacities = [keys.len(), want.len(), keys.len() + 5];
            for capacity in capacities {
                let mut out = PlanOut::new(capacity);
                assert_eq!(f(out.args(keys, from, to, with_sources)), OK, "{what}");
                assert_eq!(out.moved, want.len(), "{what}");
                for (i, &(p, a, b)) in want.iter().enumerate() {
                    assert_eq!(out.positions[i], p, "{what}: position {i}");
                    assert_eq!(out.destinations[i], b, "{what}: destination {i}");
                    let source = if with_sources { a } else { UNTOUCHED };
                    assert_eq!(out.sources[i], source, "{what}: source {i}");
                }
                assert!(out.positions[want.len()..]
                    .iter()
                    .all(|&p| p == UNTOUCHED as u64));
            }
            if let Some(short) = want.len().checked_sub(1) {
                let mut out = PlanOut::new(short);
                assert_eq!(
                    f(out.args(keys, from, to, with_sources)),
                    CAPACITY,
                    "{what}"
                );
                assert_eq!(out.moved, want.len(), "{what}: needed");
                assert!(out.untouched(), "{what}: written past a capacity error");
            }
        }
    }
}

#[test]
fn plans_are_figure_1_s_for_every_length_and_kernel() {
    let _guard = KERNEL.lock().unwrap();
    let before = std::ffi::CString::new(kernel_name()).unwrap();
    let keys = keys(300);
    for kernel in Kernel::supported() {
        let name = std::ffi::CString::new(kernel.name()).unwrap();
        assert_eq!(set_kernel(&name), OK);
        for len in 0..=keys.len() {
            check_plans(&keys[..len], 10, 12);
            check_plans(&keys[..len], 12, 10);
        }
        for (from, to) in [(1, 2), (2, 1), (1, i32::MAX), (i32::MAX, 1), (1000, 1001)] {
            check_plans(&keys, from, to);
        }
        // Unaligned starts inside the key buffer.
        check_plans(&keys[3..250], 7, 30);
    }
    assert_eq!(set_kernel(&before), OK);
}

#[test]
fn large_plans_across_blocks_and_threads() {
    let keys = jumpshard::verify::SplitMix64::new(11).keys(1_000_000);
    check_plans(&keys, 10, 12);
    check_plans(&keys, 12, 10);
}

#[test]
fn bad_plan_arguments_get_their_status_and_write_nothing() {
    let keys = keys(64);
    let null_u64 = std::ptr::null_mut::<u64>();
    let null_i32 = std::ptr::null_mut::<i32>();
    for (name, f) in plan_fns() {
        let mut out = PlanOut::new(keys.len());
        let good = out.args(&keys, 10, 12, true);
        let cases: Vec<(&str, i32, PlanArgs)> = vec![
            ("from 0", INVALID_BUCKET_COUNT, PlanArgs { from: 0, ..good }),
            ("to -1", INVALID_BUCKET_COUNT, PlanArgs { to: -1, ..good }),
            (
                "from min",
                INVALID_BUCKET_COUNT,
                PlanArgs {
                    from: i32::MIN,
                    ..good
                },
            ),
            (
                "from == to",
                INVALID_BUCKET_COUNT,
                PlanArgs { to: 10, ..good },
            ),
            (
                "from == to, empty",
                INVALID_BUCKET_COUNT,
                PlanArgs {
                    to: 10,
                    len: 0,
                    ..good
                },
            ),
            (
                "moved NULL",
                NULL_POINTER,
                PlanArgs {
                    moved: std::ptr::null_mut(),
                    ..good
                },
            ),
            (
                "keys NULL",
                NULL_POINTER,
                PlanArgs {
                    keys: std::ptr::null(),
                    ..good
                },
            ),
            (
                "positions NULL",
                NULL_POINTER,
                PlanArgs {
                    positions: null_u64,
                    ..good
                },
            ),
            (
                "destinations NULL",
                NULL_POINTER,
                PlanArgs {
                    destinations: null_i32,
                    ..good
                },
            ),
            (
                "keys misaligned",
                MISALIGNED_POINTER,
                PlanArgs {
                    keys: good.keys.cast::<u8>().wrapping_add(4).cast(),
                    len: 1,
                    ..good
                },
            ),
            (
                "positions misaligned",
                MISALIGNED_POINTER,
                PlanArgs {
                    positions: good.positions.cast::<u8>().wrapping_add(4).cast(),
                    ..good
                },
            ),
            (
                "sources misaligned",
                MISALIGNED_POINTER,
                PlanArgs {
                    sources: good.sources.cast::<u8>().wrapping_add(2).cast(),
                    ..good
                },
            ),
            (
                "destinations misaligned",
                MISALIGNED_POINTER,
                PlanArgs {
                    destinations: good.destinations.cast::<u8>().wrapping_add(1).cast(),
                    ..good
                },
            ),
            (
                "moved misaligned",
                MISALIGNED_POINTER,
                PlanArgs {
                    moved: good.moved.cast::<u8>().wrapping_add(4).cast(),
                    ..good
                },
            ),
            (
                "keys too long",
                INVALID_LENGTH,
                PlanArgs {
                    len: usize::MAX / 4,
                    ..good
                },
            ),
            (
                "positions are the keys",
                OVERLAPPING_BUFFERS,
                PlanArgs {
                    positions: good.keys.cast_mut(),
                    ..good
                },
            ),
            (
                "sources are the destinations",
                OVERLAPPING_BUFFERS,
                PlanArgs {
                    sources: good.destinations,
                    ..good
                },
            ),
            (
                "destinations overlap the keys",
                OVERLAPPING_BUFFERS,
                PlanArgs {
                    destinations: good.keys.cast_mut().cast(),
                    ..good
                },
            ),
            (
                "moved inside the positions",
                OVERLAPPING_BUFFERS,
                PlanArgs {
                    moved: good.positions.cast(),
                    ..good
                },
            ),
        ];
        for (what, status, args) in cases {
            let moved = out.moved;
            assert_eq!(f(args), status, "{name}: {what}");
            assert!(out.untouched(), "{name}: {what}: written");
            assert_eq!(out.moved, moved, "{name}: {what}: moved written");
        }
        // NULL buffers are fine when there is nothing to plan or no room.
        let empty = PlanArgs {
            keys: std::ptr::null(),
            len: 0,
            positions: null_u64,
            sources: null_i32,
            destinations: null_i32,
            capacity: 0,
            ..good
        };
        assert_eq!(f(empty), OK, "{name}");
        assert_eq!(out.moved, 0, "{name}");
        let sizing = PlanArgs {
            positions: null_u64,
            sources: null_i32,
            destinations: null_i32,
            capacity: 0,
            ..good
        };
        assert_eq!(f(sizing), CAPACITY, "{name}");
        assert_eq!(out.moved, figure1_plan(&keys, 10, 12).len(), "{name}");
    }
}
