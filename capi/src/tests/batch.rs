//! Single keys and batches of u64 keys, kernels, status codes, the version.

use super::*;

#[test]
fn bucket_is_figure_1_including_minus_one() {
    assert_eq!(bucket(1253737204188795044, 100), 86);
    assert_eq!(bucket(1431648187546111166, 65536), 55914);
    for n in [0, -1, i32::MIN] {
        assert_eq!(bucket(42, n), -1);
        assert_eq!(
            bucket(42, n),
            jumpshard::reference::jump_consistent_hash(42, n)
        );
    }
    for key in keys(200) {
        for n in [1, 2, 10, 1000, i32::MAX] {
            let expected = jumpshard::reference::jump_consistent_hash(key, n);
            assert_eq!(bucket(key, n), expected);
        }
    }
}

#[test]
fn batches_match_the_single_key_function() {
    let keys = keys(70_000);
    for (name, f) in batch_fns() {
        for n in [1, 7, 1 << 20, i32::MAX] {
            let mut out = vec![UNTOUCHED; keys.len()];
            assert_eq!(
                f(keys.as_ptr(), keys.len(), n, out.as_mut_ptr()),
                OK,
                "{name}"
            );
            for (i, (&k, &b)) in keys.iter().zip(&out).enumerate() {
                assert_eq!(b, bucket(k, n), "{name} key {i} n {n}");
            }
        }
    }
}

#[test]
fn null_buffers_with_length_zero_are_fine() {
    let mut out = [UNTOUCHED; 1];
    for (name, f) in batch_fns() {
        assert_eq!(
            f(std::ptr::null(), 0, 10, std::ptr::null_mut()),
            OK,
            "{name}"
        );
        assert_eq!(f(std::ptr::null(), 0, 10, out.as_mut_ptr()), OK, "{name}");
        assert_eq!(out, [UNTOUCHED]);
    }
}

#[test]
fn bad_arguments_get_their_status_and_leave_out_untouched() {
    let keys = keys(64);
    let len = keys.len();
    for (name, f) in batch_fns() {
        let mut out = vec![UNTOUCHED; len + 1];
        let o = out.as_mut_ptr();
        for n in [0, -1, i32::MIN] {
            refused(
                name,
                INVALID_BUCKET_COUNT,
                f(keys.as_ptr(), len, n, o),
                &out,
            );
            // The count is checked even when there is nothing to hash.
            refused(
                name,
                INVALID_BUCKET_COUNT,
                f(std::ptr::null(), 0, n, o),
                &out,
            );
        }
        refused(name, NULL_POINTER, f(std::ptr::null(), len, 10, o), &out);
        refused(
            name,
            NULL_POINTER,
            f(keys.as_ptr(), len, 10, std::ptr::null_mut()),
            &out,
        );

        let misaligned_keys = keys.as_ptr().cast::<u8>().wrapping_add(4).cast::<u64>();
        refused(name, MISALIGNED_POINTER, f(misaligned_keys, 1, 10, o), &out);
        let misaligned_out = o.cast::<u8>().wrapping_add(2).cast::<i32>();
        refused(
            name,
            MISALIGNED_POINTER,
            f(keys.as_ptr(), 1, 10, misaligned_out),
            &out,
        );

        let too_long = isize::MAX as usize / 8 + 1;
        refused(
            name,
            INVALID_LENGTH,
            f(keys.as_ptr(), too_long, 10, o),
            &out,
        );
        let past_the_top = std::ptr::without_provenance::<u64>(usize::MAX & !7);
        refused(name, INVALID_LENGTH, f(past_the_top, 2, 10, o), &out);

        // out inside keys, and keys starting inside out.
        let mut shared = vec![0u64; len];
        let base = shared.as_mut_ptr();
        refused(
            name,
            OVERLAPPING_BUFFERS,
            f(base, len, 10, base.cast::<i32>().wrapping_add(len)),
            &out,
        );
        let (keys_at_8, out_at_4) = (base.wrapping_add(1), base.cast::<i32>().wrapping_add(1));
        refused(
            name,
            OVERLAPPING_BUFFERS,
            f(keys_at_8, 2, 10, out_at_4),
            &out,
        );
        assert!(shared.iter().all(|&k| k == 0), "{name}: keys were written");
        // Adjacent but disjoint is fine.
        let mut both = vec![0u64; 2];
        let p = both.as_mut_ptr();
        assert_eq!(
            f(p, 1, 10, p.wrapping_add(1).cast::<i32>()),
            OK,
            "{name}: adjacent"
        );
    }
}

#[test]
fn unaligned_offsets_and_every_tail_length() {
    let keys = keys(200);
    let _guard = KERNEL.lock().unwrap();
    for kernel in Kernel::supported() {
        let name = std::ffi::CString::new(kernel.name()).unwrap();
        assert_eq!(set_kernel(&name), OK);
        for start in 0..5 {
            for len in 0..=70 {
                let mut out = vec![UNTOUCHED; len + 8];
                let k = &keys[start..start + len];
                let o = out[3..].as_mut_ptr();
                // SAFETY: `k` holds `len` keys and `o` has room for `len`.
                let status = unsafe { jumpshard_batch(k.as_ptr(), len, 1000, o) };
                assert_eq!(status, OK);
                for i in 0..len {
                    assert_eq!(out[3 + i], bucket(k[i], 1000), "{kernel}");
                }
                assert!(out[..3]
                    .iter()
                    .chain(&out[3 + len..])
                    .all(|&b| b == UNTOUCHED));
            }
        }
    }
}

#[test]
fn kernels_are_set_by_name_and_refusals_change_nothing() {
    let _guard = KERNEL.lock().unwrap();
    let before = kernel_name();
    assert_eq!(before, jumpshard::active_kernel().name());

    let refusals: [(&CStr, i32); 4] = [
        (c"sse9", UNKNOWN_KERNEL),
        (c"", UNKNOWN_KERNEL),
        (c"SCALAR", UNKNOWN_KERNEL),
        (c"sc\xffalar", UNKNOWN_KERNEL),
    ];
    for (name, status) in refusals {
        assert_eq!(set_kernel(name), status, "{name:?}");
        assert_eq!(kernel_name(), before);
    }
    assert_eq!(
        // SAFETY: NULL is an accepted argument.
        unsafe { jumpshard_set_kernel(std::ptr::null()) },
        NULL_POINTER
    );
    assert_eq!(kernel_name(), before);

    for name in Kernel::NAMES {
        let c = std::ffi::CString::new(name).unwrap();
        let status = set_kernel(&c);
        match Kernel::by_name(name) {
            Ok(kernel) => {
                assert_eq!(status, OK, "{name}");
                assert_eq!(kernel_name(), name);
                assert_eq!(jumpshard::active_kernel(), kernel);
            }
            Err(_) => {
                assert_eq!(status, UNSUPPORTED_KERNEL, "{name}");
                assert_ne!(kernel_name(), name);
            }
        }
    }
    let restore = std::ffi::CString::new(before).unwrap();
    assert_eq!(set_kernel(&restore), OK);
}

#[test]
fn every_status_has_a_distinct_message_and_unknown_codes_one_too() {
    let codes = [
        OK,
        NULL_POINTER,
        INVALID_BUCKET_COUNT,
        UNKNOWN_KERNEL,
        UNSUPPORTED_KERNEL,
        PANIC,
        MISALIGNED_POINTER,
        INVALID_LENGTH,
        OVERLAPPING_BUFFERS,
        INVALID_OFFSETS,
        CAPACITY,
        NOT_A_BUCKET,
        ALREADY_REMOVED,
        LAST_WORKING_BUCKET,
        SHRINK_IN_REMOVALS,
        TOO_MANY_REPLICAS,
        INVALID_WEIGHT,
        ALL_WEIGHTS_ZERO,
        INVALID_TABLE,
        INVALID_LOAD_FACTOR,
        INVALID_WALK,
        NO_LOAD,
        WEIGHTED_TABLE,
        SHARED_NODE,
        NOT_ZONED,
        ROUTER_TOO_LARGE,
    ];
    assert!(codes.iter().enumerate().all(|(i, &c)| c == i as i32));
    let unknown = status_message(-1);
    let mut messages: Vec<&str> = codes.iter().map(|&c| status_message(c)).collect();
    assert_eq!(messages[0], "success");
    messages.push(unknown);
    messages.sort_unstable();
    messages.dedup();
    assert_eq!(messages.len(), codes.len() + 1);
    for code in [26, 1000, i32::MAX, i32::MIN] {
        assert_eq!(status_message(code), unknown);
    }
}

#[test]
fn version_is_cargo_toml_s_and_the_header_s() {
    assert_eq!(
        // SAFETY: takes nothing.
        c_str(unsafe { jumpshard_version() }),
        env!("CARGO_PKG_VERSION")
    );

    let header = include_str!("../../../include/jumpshard.h");
    let define = |name: &str| -> String {
        let prefix = format!("#define {name} ");
        let line = header
            .lines()
            .find_map(|l| l.strip_prefix(&prefix))
            .unwrap_or_else(|| panic!("include/jumpshard.h lacks {name}"));
        line.trim().to_owned()
    };
    assert_eq!(
        define("JUMPSHARD_VERSION_MAJOR"),
        env!("CARGO_PKG_VERSION_MAJOR")
    );
    assert_eq!(
        define("JUMPSHARD_VERSION_MINOR"),
        env!("CARGO_PKG_VERSION_MINOR")
    );
    assert_eq!(
        define("JUMPSHARD_VERSION_PATCH"),
        env!("CARGO_PKG_VERSION_PATCH")
    );
    assert_eq!(
        define("JUMPSHARD_VERSION"),
        format!("\"{}\"", env!("CARGO_PKG_VERSION"))
    );
}
