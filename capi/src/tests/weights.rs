//! Weighted buckets through their handle, against the Rust API.

use super::*;
use jumpshard::weights::Weights;

#[repr(C)]
struct CWeights {
    _opaque: [u8; 0],
}

extern "C" {
    fn jumpshard_weights_new(weights: *const f64, len: usize, out: *mut *mut CWeights) -> i32;
    fn jumpshard_weights_free(weights: *mut CWeights);
    fn jumpshard_weights_len(weights: *const CWeights) -> i32;
    fn jumpshard_weights_bucket(weights: *const CWeights, key: u64, out: *mut i32) -> i32;
    fn jumpshard_weights_batch(
        weights: *const CWeights,
        keys: *const u64,
        len: usize,
        out: *mut i32,
    ) -> i32;
}

/// A live handle, freed on drop.
struct Handle(*mut CWeights);

impl Handle {
    fn new(weights: &[f64]) -> Result<Handle, i32> {
        let sentinel = std::ptr::without_provenance_mut(8);
        let mut out = sentinel;
        // SAFETY: a live slice and a writable pointer slot.
        match unsafe { jumpshard_weights_new(weights.as_ptr(), weights.len(), &mut out) } {
            OK => Ok(Handle(out)),
            status => {
                assert_eq!(out, sentinel, "a handle written on error");
                Err(status)
            }
        }
    }

    fn bucket(&self, key: u64) -> i32 {
        let mut out = UNTOUCHED;
        // SAFETY: a live handle and one writable `int32_t`.
        let got = unsafe { jumpshard_weights_bucket(self.0, key, &mut out) };
        assert_eq!(got, OK);
        out
    }

    fn batch(&self, keys: &[u64]) -> Vec<i32> {
        let mut out = vec![UNTOUCHED; keys.len() + 1];
        // SAFETY: a live handle and live slices of `keys.len()` elements.
        let status =
            unsafe { jumpshard_weights_batch(self.0, keys.as_ptr(), keys.len(), out.as_mut_ptr()) };
        assert_eq!(status, OK);
        assert_eq!(out.pop(), Some(UNTOUCHED), "written past out[len - 1]");
        out
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: a live handle, freed once, by its one owner.
        unsafe { jumpshard_weights_free(self.0) }
    }
}

#[test]
fn weighted_buckets_agree_with_the_rust_api() {
    let keys = keys(400);
    let cases: [&[f64]; 6] = [
        &[1.0],
        &[2.5; 10],
        &[1.0, 0.25, 1.0, 0.0],
        &[1.0, 0.8, 1.0, 0.3, 1.0, 0.6, 0.05, 1.0],
        &[0.0, 0.0, -0.0, 3.0],
        &[1e-300, 1.0, 1e300],
    ];
    for weights in cases {
        let handle = Handle::new(weights).unwrap();
        let rust = Weights::new(weights).unwrap();
        // SAFETY: a live handle.
        let got = unsafe { jumpshard_weights_len(handle.0) };
        assert_eq!(got, weights.len() as i32);
        let want: Vec<i32> = keys.iter().map(|&k| rust.bucket(k) as i32).collect();
        for (&k, &w) in keys.iter().zip(&want) {
            assert_eq!(handle.bucket(k), w);
            assert!(weights[w as usize] > 0.0, "a key on a bucket of weight 0");
        }
        for len in 0..=keys.len() {
            assert_eq!(
                handle.batch(&keys[..len]),
                want[..len],
                "{weights:?} len {len}"
            );
        }
    }
    // Equal weights are Figure 1.
    let even = Handle::new(&[0.5; 1000]).unwrap();
    assert!(keys.iter().all(|&k| even.bucket(k) == bucket(k, 1000)));
}

#[test]
fn weight_refusals_write_nothing() {
    let refused = |w: &[f64]| Handle::new(w).err();
    assert_eq!(refused(&[]), Some(INVALID_BUCKET_COUNT));
    assert_eq!(refused(&[1.0, -1.0]), Some(INVALID_WEIGHT));
    assert_eq!(refused(&[f64::NAN]), Some(INVALID_WEIGHT));
    assert_eq!(refused(&[1.0, f64::INFINITY]), Some(INVALID_WEIGHT));
    assert_eq!(refused(&[f64::NEG_INFINITY, 0.0]), Some(INVALID_WEIGHT));
    assert_eq!(refused(&[0.0, -0.0]), Some(ALL_WEIGHTS_ZERO));
    assert_eq!(
        refused(&[-1.0, 0.0]),
        Some(INVALID_WEIGHT),
        "the first failure"
    );

    let sentinel: *mut CWeights = std::ptr::without_provenance_mut(8);
    let mut out = sentinel;
    let w = [1.0f64, 2.0];
    let odd = w.as_ptr().cast::<u8>().wrapping_add(4).cast::<f64>();
    // SAFETY: every call below is refused before memory is read or written.
    unsafe {
        assert_eq!(
            jumpshard_weights_new(std::ptr::null(), 2, &mut out),
            NULL_POINTER
        );
        assert_eq!(
            jumpshard_weights_new(std::ptr::null(), 0, &mut out),
            INVALID_BUCKET_COUNT
        );
        let too_many = i32::MAX as usize + 1;
        assert_eq!(
            jumpshard_weights_new(w.as_ptr(), too_many, &mut out),
            INVALID_BUCKET_COUNT
        );
        assert_eq!(
            jumpshard_weights_new(w.as_ptr(), 2, std::ptr::null_mut()),
            NULL_POINTER
        );
        assert_eq!(jumpshard_weights_new(odd, 1, &mut out), MISALIGNED_POINTER);
        let shared = w.as_ptr().cast_mut().cast::<*mut CWeights>();
        assert_eq!(
            jumpshard_weights_new(w.as_ptr(), 2, shared),
            OVERLAPPING_BUFFERS
        );
    }
    assert_eq!((out, w), (sentinel, [1.0, 2.0]));

    let handle = Handle::new(&[1.0, 0.5]).unwrap();
    let keys = keys(4);
    let mut buf = [UNTOUCHED; 4];
    let o = buf.as_mut_ptr();
    let null_handle = std::ptr::null();
    let odd_handle = std::ptr::without_provenance(3);
    // SAFETY: every call below is refused before any buffer is touched.
    unsafe {
        assert_eq!(jumpshard_weights_len(null_handle), -1);
        assert_eq!(jumpshard_weights_len(odd_handle), -1);
        assert_eq!(jumpshard_weights_bucket(null_handle, 1, o), NULL_POINTER);
        assert_eq!(
            jumpshard_weights_bucket(odd_handle, 1, o),
            MISALIGNED_POINTER
        );
        assert_eq!(
            jumpshard_weights_bucket(handle.0, 1, std::ptr::null_mut()),
            NULL_POINTER
        );
        assert_eq!(
            jumpshard_weights_batch(null_handle, keys.as_ptr(), 4, o),
            NULL_POINTER
        );
        assert_eq!(
            jumpshard_weights_batch(handle.0, std::ptr::null(), 4, o),
            NULL_POINTER
        );
        let shared = keys.as_ptr().cast_mut();
        assert_eq!(
            jumpshard_weights_batch(handle.0, shared, 2, shared.add(1).cast()),
            OVERLAPPING_BUFFERS
        );
        assert_eq!(
            jumpshard_weights_batch(handle.0, std::ptr::null(), 0, std::ptr::null_mut()),
            OK
        );
        jumpshard_weights_free(std::ptr::null_mut());
        jumpshard_weights_free(odd_handle.cast_mut());
    }
    assert_eq!(buf, [UNTOUCHED; 4]);
}

/// `testdata/weights/golden.txt` (format in its README) through the
/// handle: each lookup one key at a time, and each table's keys in one
/// batch.
#[test]
fn golden_vectors_through_the_handle() {
    let text = include_str!("../../../testdata/weights/golden.txt");
    let mut tables: Vec<(Vec<f64>, Vec<u64>, Vec<i32>)> = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let words: Vec<&str> = line.split(' ').collect();
        match words[0] {
            "table" if words[1] == "zeros" => {
                let mut w = vec![0.0; words[2].parse().unwrap()];
                for spot in &words[3..] {
                    let (i, v) = spot.split_once('=').unwrap();
                    w[i.parse::<usize>().unwrap()] = v.parse().unwrap();
                }
                tables.push((w, Vec::new(), Vec::new()));
            }
            "table" => {
                let w = words[1..].iter().map(|w| w.parse().unwrap()).collect();
                tables.push((w, Vec::new(), Vec::new()));
            }
            "lookup" => {
                let table = tables.last_mut().unwrap();
                table.1.push(words[1].parse().unwrap());
                table.2.push(words[2].parse().unwrap());
            }
            _ => panic!("unknown golden line {line:?}"),
        }
    }
    assert_eq!(tables.len(), 12);
    for (weights, keys, want) in &tables {
        let handle = Handle::new(weights).unwrap();
        let one: Vec<i32> = keys.iter().map(|&k| handle.bucket(k)).collect();
        assert_eq!(&one, want, "{weights:?}");
        assert_eq!(&handle.batch(keys), want, "{weights:?}");
    }
}
