//! Byte-string keys: the pre-hash, single keys and batches with offsets.

use super::*;

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
