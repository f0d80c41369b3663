//! The C ABI, called from Rust exactly as C calls it: through the exported
//! symbols, with raw pointers and plain integer status codes. Each status,
//! the untouched output on every error, and NULL buffers with length 0.

// Miri runs each module's own unit tests; these repeat them through the
// symbols at a cost Miri would take minutes over.
#![cfg(not(miri))]

use std::ffi::{c_char, CStr};
use std::sync::Mutex;

use jumpshard::{BucketCount, Kernel};

extern "C" {
    fn jumpshard_bucket(key: u64, num_buckets: i32) -> i32;
    fn jumpshard_batch(keys: *const u64, len: usize, num_buckets: i32, out: *mut i32) -> i32;
    fn jumpshard_batch_parallel(
        keys: *const u64,
        len: usize,
        num_buckets: i32,
        out: *mut i32,
        threads: usize,
    ) -> i32;
    fn jumpshard_kernel_name() -> *const c_char;
    fn jumpshard_set_kernel(name: *const c_char) -> i32;
    fn jumpshard_status_message(status: i32) -> *const c_char;
    fn jumpshard_version() -> *const c_char;
    fn jumpshard_prehash_bytes(data: *const u8, len: usize, out: *mut u64) -> i32;
    fn jumpshard_bucket_bytes(data: *const u8, len: usize, num_buckets: i32) -> i32;
    fn jumpshard_prehash_bytes_seeded(data: *const u8, len: usize, seed: u64, out: *mut u64)
        -> i32;
    fn jumpshard_batch_bytes_seeded(
        data: *const u8,
        data_len: usize,
        offsets: *const u64,
        offsets_len: usize,
        seed: u64,
        num_buckets: i32,
        out: *mut i32,
        out_len: usize,
    ) -> i32;
    fn jumpshard_batch_bytes(
        data: *const u8,
        data_len: usize,
        offsets: *const u64,
        offsets_len: usize,
        num_buckets: i32,
        out: *mut i32,
        out_len: usize,
    ) -> i32;
}

// The status codes are ABI: these values may never change.
const OK: i32 = 0;
const NULL_POINTER: i32 = 1;
const INVALID_BUCKET_COUNT: i32 = 2;
const UNKNOWN_KERNEL: i32 = 3;
const UNSUPPORTED_KERNEL: i32 = 4;
const PANIC: i32 = 5;
const MISALIGNED_POINTER: i32 = 6;
const INVALID_LENGTH: i32 = 7;
const OVERLAPPING_BUFFERS: i32 = 8;
const INVALID_OFFSETS: i32 = 9;
const CAPACITY: i32 = 10;

/// Tests that change the active kernel take this, so that a test checking
/// that a refused change left the kernel alone sees no one else's change.
static KERNEL: Mutex<()> = Mutex::new(());

const UNTOUCHED: i32 = 0x5A5A_5A5A;

/// A batch function as the tests call it.
type Batch = fn(*const u64, usize, i32, *mut i32) -> i32;

// SAFETY (for the three wrappers): the tests pass either buffers valid for
// `len` elements, or arguments that the checks under test refuse before
// any memory is touched; that is the contract of both batch functions.
/// Both batch functions, so every case runs through each.
fn batch_fns() -> [(&'static str, Batch); 3] {
    [
        ("batch", |k, l, n, o| unsafe { jumpshard_batch(k, l, n, o) }),
        ("parallel(0)", |k, l, n, o| unsafe {
            jumpshard_batch_parallel(k, l, n, o, 0)
        }),
        ("parallel(3)", |k, l, n, o| unsafe {
            jumpshard_batch_parallel(k, l, n, o, 3)
        }),
    ]
}

fn bucket(key: u64, num_buckets: i32) -> i32 {
    // SAFETY: takes two integers by value, any values.
    unsafe { jumpshard_bucket(key, num_buckets) }
}

fn kernel_name() -> &'static str {
    // SAFETY: takes nothing.
    c_str(unsafe { jumpshard_kernel_name() })
}

fn set_kernel(name: &CStr) -> i32 {
    // SAFETY: a NUL-terminated string.
    unsafe { jumpshard_set_kernel(name.as_ptr()) }
}

fn status_message(status: i32) -> &'static str {
    // SAFETY: takes an integer by value, any value.
    c_str(unsafe { jumpshard_status_message(status) })
}

fn keys(n: usize) -> Vec<u64> {
    (0..n as u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (i << 7))
        .collect()
}

fn c_str(ptr: *const c_char) -> &'static str {
    assert!(!ptr.is_null());
    // SAFETY: every jumpshard function returning a string returns a static
    // NUL-terminated one.
    unsafe { CStr::from_ptr(ptr) }.to_str().unwrap()
}

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

/// Checks that a call refused with `status` and left `out` untouched.
fn refused(name: &str, status: i32, got: i32, out: &[i32]) {
    assert_eq!(got, status, "{name}: status");
    assert!(
        out.iter().all(|&b| b == UNTOUCHED),
        "{name}: output was written"
    );
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
    ];
    let unknown = status_message(-1);
    let mut messages: Vec<&str> = codes.iter().map(|&c| status_message(c)).collect();
    assert_eq!(messages[0], "success");
    messages.push(unknown);
    messages.sort_unstable();
    messages.dedup();
    assert_eq!(messages.len(), codes.len() + 1);
    for code in [11, 1000, i32::MAX, i32::MIN] {
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

    let header = include_str!("../../include/jumpshard.h");
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

/// Byte strings of every length 0..=40 and a few long ones, with the
/// offsets that cut them out of one data buffer, starting at `start`.
fn byte_keys(start: usize) -> (Vec<u8>, Vec<u64>) {
    let mut data: Vec<u8> = (0..start).map(|i| i as u8).collect();
    let mut offsets = vec![start as u64];
    let lengths = (0..=40).chain([0, 1, 255, 256, 1000, 3]).cycle().take(600);
    for (k, len) in lengths.enumerate() {
        data.extend((0..len).map(|i| (i * 31 + k * 7) as u8));
        offsets.push(data.len() as u64);
    }
    (data, offsets)
}

fn prehash(data: *const u8, len: usize, out: &mut u64) -> i32 {
    // SAFETY: the tests pass `len` readable bytes, or arguments the checks
    // under test refuse before any memory is touched.
    unsafe { jumpshard_prehash_bytes(data, len, out) }
}

fn bucket_bytes(data: *const u8, len: usize, num_buckets: i32) -> i32 {
    // SAFETY: as for `prehash`.
    unsafe { jumpshard_bucket_bytes(data, len, num_buckets) }
}

/// `jumpshard_batch_bytes` on slices (or, with `None`, NULL).
fn batch_bytes(data: Option<&[u8]>, offsets: Option<&[u64]>, n: i32, out: &mut [i32]) -> i32 {
    let (d, dl) = data.map_or((std::ptr::null(), 0), |d| (d.as_ptr(), d.len()));
    let (o, ol) = offsets.map_or((std::ptr::null(), 0), |o| (o.as_ptr(), o.len()));
    // SAFETY: every buffer is a live slice of its stated length.
    unsafe { jumpshard_batch_bytes(d, dl, o, ol, n, out.as_mut_ptr(), out.len()) }
}

#[test]
fn seeded_byte_keys_agree_with_the_rust_api() {
    let (data, offsets) = byte_keys(5);
    for seed in [0, 1, 42, u64::MAX] {
        for w in offsets.windows(2) {
            let key = &data[w[0] as usize..w[1] as usize];
            let mut hash = 0;
            // SAFETY: `key` is a live slice of `key.len()` bytes.
            let status =
                unsafe { jumpshard_prehash_bytes_seeded(key.as_ptr(), key.len(), seed, &mut hash) };
            assert_eq!(status, OK);
            assert_eq!(hash, jumpshard::bytes::prehash_seeded(key, seed));
        }
        for n in [1, 12, i32::MAX] {
            let count = n.try_into().unwrap();
            let mut want = vec![0u32; offsets.len() - 1];
            jumpshard::bytes::batch_bytes_seeded(&data, &offsets, seed, count, &mut want).unwrap();
            let mut out = vec![UNTOUCHED; want.len()];
            // SAFETY: every buffer is a live slice of its stated length.
            let status = unsafe {
                jumpshard_batch_bytes_seeded(
                    data.as_ptr(),
                    data.len(),
                    offsets.as_ptr(),
                    offsets.len(),
                    seed,
                    n,
                    out.as_mut_ptr(),
                    out.len(),
                )
            };
            assert_eq!(status, OK);
            assert!(
                out.iter().zip(&want).all(|(&g, &w)| g == w as i32),
                "seed {seed} n {n}"
            );
        }
    }
    // Errors as the unseeded functions give them, outputs untouched.
    let mut hash = 7;
    // SAFETY: NULL with a length is refused before any memory is touched.
    let status = unsafe { jumpshard_prehash_bytes_seeded(std::ptr::null(), 3, 9, &mut hash) };
    assert_eq!((status, hash), (NULL_POINTER, 7));
    let mut out = [UNTOUCHED; 2];
    // SAFETY: the offsets lie past the data, which is refused before `out`
    // is written.
    let status = unsafe {
        jumpshard_batch_bytes_seeded(
            b"ab".as_ptr(),
            2,
            [0u64, 1, 5].as_ptr(),
            3,
            9,
            10,
            out.as_mut_ptr(),
            2,
        )
    };
    assert_ne!(status, OK);
    assert_eq!(out, [UNTOUCHED; 2]);
    // SAFETY: as above, with a bucket count of 0.
    let status = unsafe {
        jumpshard_batch_bytes_seeded(
            b"ab".as_ptr(),
            2,
            [0u64, 1, 2].as_ptr(),
            3,
            9,
            0,
            out.as_mut_ptr(),
            2,
        )
    };
    assert_eq!((status, out), (INVALID_BUCKET_COUNT, [UNTOUCHED; 2]));
}

#[test]
fn byte_keys_agree_with_the_rust_api() {
    let (data, offsets) = byte_keys(3);
    for w in offsets.windows(2) {
        let key = &data[w[0] as usize..w[1] as usize];
        let mut hash = 0;
        assert_eq!(prehash(key.as_ptr(), key.len(), &mut hash), OK);
        assert_eq!(hash, jumpshard::bytes::prehash(key));
        for n in [1, 10, 1000, i32::MAX] {
            let expected = jumpshard::bucket_bytes(key, n.try_into().unwrap());
            assert_eq!(bucket_bytes(key.as_ptr(), key.len(), n), expected as i32);
        }
    }
    // The empty string, from NULL too.
    let mut hash = 0;
    assert_eq!(prehash(std::ptr::null(), 0, &mut hash), OK);
    assert_eq!(hash, 0x2D06_8005_38D3_94C2);
    assert_eq!(bucket_bytes(std::ptr::null(), 0, 1000), 241);

    let _guard = KERNEL.lock().unwrap();
    let before = std::ffi::CString::new(kernel_name()).unwrap();
    for kernel in Kernel::supported() {
        let name = std::ffi::CString::new(kernel.name()).unwrap();
        assert_eq!(set_kernel(&name), OK);
        for n in [1, 12, 1 << 20, i32::MAX] {
            let mut want = vec![0u32; offsets.len() - 1];
            let count = n.try_into().unwrap();
            jumpshard::batch_bytes(&data, &offsets, count, &mut want).unwrap();
            let mut out = vec![UNTOUCHED; want.len()];
            assert_eq!(batch_bytes(Some(&data), Some(&offsets), n, &mut out), OK);
            for (i, (&got, &want)) in out.iter().zip(&want).enumerate() {
                assert_eq!(got, want as i32, "{kernel} n {n} key {i}");
            }
        }
    }
    assert_eq!(set_kernel(&before), OK);
}

#[test]
fn empty_byte_batches_need_one_offset() {
    let mut out = [UNTOUCHED; 1];
    let no_out = &mut out[..0];
    assert_eq!(batch_bytes(None, Some(&[0]), 10, no_out), OK);
    // SAFETY: nothing is read or written with all lengths but one 0.
    let all_null = unsafe {
        jumpshard_batch_bytes(
            std::ptr::null(),
            0,
            [0u64].as_ptr(),
            1,
            10,
            std::ptr::null_mut(),
            0,
        )
    };
    assert_eq!(all_null, OK);
    assert_eq!(batch_bytes(Some(b"abc"), Some(&[3]), 10, no_out), OK);
    refused(
        "no offsets",
        INVALID_OFFSETS,
        batch_bytes(None, None, 10, no_out),
        &out,
    );
    assert_eq!(out, [UNTOUCHED]);
}

#[test]
fn bad_byte_key_arguments_get_their_status_and_leave_out_untouched() {
    let data = b"alicebobcarol".to_vec();
    let offsets = [0u64, 5, 8, 13];
    let mut out = [UNTOUCHED; 3];
    let o = out.as_mut_ptr();
    let (d, dl, f, fl) = (data.as_ptr(), data.len(), offsets.as_ptr(), offsets.len());
    // SAFETY: valid buffers, or arguments refused before any memory is
    // touched; `out` is never read by the call.
    let call = |d, dl, f, fl, n, o, ol| unsafe { jumpshard_batch_bytes(d, dl, f, fl, n, o, ol) };
    let cases: Vec<(&str, i32, i32)> = vec![
        ("n 0", INVALID_BUCKET_COUNT, call(d, dl, f, fl, 0, o, 3)),
        ("n -1", INVALID_BUCKET_COUNT, call(d, dl, f, fl, -1, o, 3)),
        (
            "n min",
            INVALID_BUCKET_COUNT,
            call(d, dl, f, fl, i32::MIN, o, 3),
        ),
        (
            "n 0, nothing to hash",
            INVALID_BUCKET_COUNT,
            call(std::ptr::null(), 0, f, 1, 0, std::ptr::null_mut(), 0),
        ),
        (
            "NULL data",
            NULL_POINTER,
            call(std::ptr::null(), dl, f, fl, 10, o, 3),
        ),
        (
            "NULL offsets",
            NULL_POINTER,
            call(d, dl, std::ptr::null(), fl, 10, o, 3),
        ),
        (
            "NULL out",
            NULL_POINTER,
            call(d, dl, f, fl, 10, std::ptr::null_mut(), 3),
        ),
        (
            "misaligned offsets",
            MISALIGNED_POINTER,
            call(d, dl, f.cast::<u8>().wrapping_add(4).cast(), 2, 10, o, 1),
        ),
        (
            "misaligned out",
            MISALIGNED_POINTER,
            call(d, dl, f, 2, 10, o.cast::<u8>().wrapping_add(2).cast(), 1),
        ),
        (
            "data too long",
            INVALID_LENGTH,
            call(d, usize::MAX, f, fl, 10, o, 3),
        ),
        (
            "offsets too long",
            INVALID_LENGTH,
            call(d, dl, f, isize::MAX as usize / 8 + 1, 10, o, 3),
        ),
        (
            "out too long",
            INVALID_LENGTH,
            call(d, dl, f, fl, 10, o, isize::MAX as usize / 4 + 1),
        ),
        (
            "too few offsets",
            INVALID_OFFSETS,
            call(d, dl, f, 3, 10, o, 3),
        ),
        (
            "too many offsets",
            INVALID_OFFSETS,
            call(d, dl, f, 4, 10, o, 2),
        ),
        (
            "past the data",
            INVALID_OFFSETS,
            call(d, 12, f, fl, 10, o, 3),
        ),
    ];
    for (name, status, got) in cases {
        refused(name, status, got, &out);
    }
    let n = 10;
    let bad_offsets: [(&str, [u64; 4]); 4] = [
        ("decreasing", [0, 8, 5, 13]),
        ("first past the data", [14, 14, 14, 14]),
        ("negative int64_t", [0, 5, -1i64 as u64, 13]),
        ("last past the data", [0, 5, 8, 14]),
    ];
    for (name, offsets) in bad_offsets {
        let got = batch_bytes(Some(&data), Some(&offsets), n, &mut out);
        refused(name, INVALID_OFFSETS, got, &out);
    }

    // out overlapping data or offsets; data and offsets may overlap.
    let mut shared = vec![0u64; 8];
    shared[..4].copy_from_slice(&[0, 1, 2, 3]);
    let base = shared.as_mut_ptr();
    let (bytes, out_in_shared) = (base.cast::<u8>(), base.wrapping_add(4).cast::<i32>());
    let in_offsets = call(bytes, 64, base, 4, n, base.cast(), 3);
    refused("out in offsets", OVERLAPPING_BUFFERS, in_offsets, &out);
    let in_data = call(bytes, 64, f, fl, n, out_in_shared, 3);
    refused("out in data", OVERLAPPING_BUFFERS, in_data, &out);
    assert_eq!(shared, [0, 1, 2, 3, 0, 0, 0, 0], "an input was written");
    let inputs_overlap = call(bytes, 32, base, 4, n, o, 3);
    assert_eq!(inputs_overlap, OK);
    let bytes: Vec<u8> = shared[..4].iter().flat_map(|k| k.to_ne_bytes()).collect();
    for (i, &got) in out.iter().enumerate() {
        let want = jumpshard::bucket_bytes(&bytes[i..=i], BucketCount::new(10).unwrap());
        assert_eq!(got, want as i32, "inputs overlapping: key {i}");
    }
}

#[test]
fn bad_single_byte_keys_are_refused() {
    let data = *b"0123456789abcdef";
    let near_top = std::ptr::without_provenance::<u8>(usize::MAX - 7);
    for n in [0, -1, i32::MIN] {
        assert_eq!(bucket_bytes(data.as_ptr(), data.len(), n), -1);
        assert_eq!(bucket_bytes(std::ptr::null(), 0, n), -1);
    }
    assert_eq!(bucket_bytes(std::ptr::null(), 1, 10), -1);
    assert_eq!(bucket_bytes(data.as_ptr(), usize::MAX, 10), -1);
    assert_eq!(bucket_bytes(near_top, 9, 10), -1);

    const UNTOUCHED_HASH: u64 = 0x5A5A_5A5A_5A5A_5A5A;
    let mut hash = UNTOUCHED_HASH;
    let h: *mut u64 = &mut hash;
    let mut words = [0u64; 4];
    let w = words.as_mut_ptr();
    let cases = [
        ("NULL data", NULL_POINTER, std::ptr::null(), 1, h),
        (
            "data too long",
            INVALID_LENGTH,
            data.as_ptr(),
            isize::MAX as usize + 1,
            h,
        ),
        ("data past the top", INVALID_LENGTH, near_top, 9, h),
        (
            "NULL out",
            NULL_POINTER,
            data.as_ptr(),
            4,
            std::ptr::null_mut(),
        ),
        (
            "misaligned out",
            MISALIGNED_POINTER,
            data.as_ptr(),
            4,
            h.cast::<u8>().wrapping_add(1).cast(),
        ),
        (
            "out in data",
            OVERLAPPING_BUFFERS,
            w.cast_const().cast(),
            32,
            w.wrapping_add(3),
        ),
    ];
    for (name, status, data, len, out) in cases {
        // SAFETY: each case is refused before any memory is touched.
        let got = unsafe { jumpshard_prehash_bytes(data, len, out) };
        assert_eq!(got, status, "{name}");
        assert_eq!(hash, UNTOUCHED_HASH, "{name}: out was written");
        assert_eq!(words, [0; 4], "{name}: out was written");
    }
    // Adjacent is not overlapping.
    let (key, after) = words.split_at_mut(3);
    assert_eq!(prehash(key.as_ptr().cast(), 24, &mut after[0]), OK);
    assert_eq!(after[0], jumpshard::bytes::prehash(&[0; 24]));
}

// The move plan.

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
    // SAFETY (for the three): the tests pass either buffers valid for
    // their lengths, or arguments that the checks under test refuse before
    // any memory is touched; that is the contract of both plan functions.
    [
        ("plan", |a| unsafe {
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
        }),
        ("plan_parallel(0)", |a| unsafe {
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
        }),
        ("plan_parallel(3)", |a| unsafe {
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
