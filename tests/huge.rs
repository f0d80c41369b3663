//! One call over more than 2^32 keys: the kernels pack a key's position in
//! 32 bits, so they split longer batches into chunks of 2^32 keys, and only
//! a batch that long reaches the split. Without 48 GiB of memory:
//!
//! - the keys are a 32 GiB anonymous mapping never written but at both
//!   ends, so that reading it maps the shared zero page (jump(0, n) is 0
//!   for every n), with known keys in the first and last pages;
//! - the 16 GiB output is one 64 MiB memory file for its first part and
//!   another mapped over and over for the rest, so that each slot of the
//!   second ends up holding the answer of the last key written there;
//! - while a batch runs, a thread keeps dropping the output's page-table
//!   entries (`MADV_DONTNEED` keeps a shared file's data), so that the
//!   process's resident size stays near a gigabyte instead of the 16 GiB
//!   its mappings would count;
//! - each buffer ends exactly at a guard page (no access), so that a read
//!   or write past the end faults at once.
//!
//! Ignored by default (it takes about half a minute per kernel); `make
//! test-huge` runs it, and `make test` with it.

#![cfg(all(target_os = "linux", target_pointer_width = "64"))]

use std::ptr::null_mut;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use jumpshard::{BucketCount, Kernel};

const PAGE: usize = 4096;
/// Keys in one call: past 2^32 by more than one memory file, and by an
/// amount that fills no vector evenly.
const TOTAL: usize = (1 << 32) + (1 << 23) + 5;
/// Outputs per memory file (64 MiB).
const SLOTS: usize = 1 << 24;
/// Known keys at each end.
const KNOWN: usize = 3000;
const CANARY: u32 = 0xA5A5_A5A5;

/// An address range, unmapped when dropped.
struct Mapping {
    base: *mut u8,
    len: usize,
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: `base..base + len` was mapped by `reserve` and nothing
        // borrows it any more.
        unsafe { libc::munmap(self.base.cast(), self.len) };
    }
}

/// `len` bytes (a multiple of the page) of inaccessible address space, and
/// one guard page after it.
fn reserve(len: usize) -> Mapping {
    let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE;
    // SAFETY: a fresh anonymous mapping at an address of the kernel's
    // choosing touches no existing memory.
    let base = unsafe { libc::mmap(null_mut(), len + PAGE, libc::PROT_NONE, flags, -1, 0) };
    assert_ne!(base, libc::MAP_FAILED, "reserve {len} bytes");
    Mapping {
        base: base.cast(),
        len: len + PAGE,
    }
}

/// A memory file of `len` bytes.
fn memfd(len: usize) -> libc::c_int {
    // SAFETY: the name is a NUL-terminated string.
    let fd = unsafe { libc::memfd_create(c"jumpshard-huge".as_ptr(), 0) };
    assert!(fd >= 0, "memfd_create");
    // SAFETY: `fd` is the file just made.
    assert_eq!(unsafe { libc::ftruncate(fd, len as libc::off_t) }, 0);
    fd
}

/// Maps `len` bytes of `fd` over `at`, inside a reservation.
fn map_file(at: *mut u8, len: usize, fd: libc::c_int) {
    let prot = libc::PROT_READ | libc::PROT_WRITE;
    let flags = libc::MAP_SHARED | libc::MAP_FIXED;
    // SAFETY: `at..at + len` lies inside a reservation of this test, which
    // no reference points into yet.
    let got = unsafe { libc::mmap(at.cast(), len, prot, flags, fd, 0) };
    assert_eq!(got, at.cast(), "map the memory file");
}

/// The bytes before a buffer of `bytes` that make it end on a page.
fn lead(bytes: usize) -> usize {
    (PAGE - bytes % PAGE) % PAGE
}

/// The 64 MiB of one memory file's first mapping, as outputs.
///
/// # Safety
/// `at` is such a mapping, and no other reference into the output lives
/// while the slice does.
unsafe fn words<'a>(at: *mut u8) -> &'a mut [u32] {
    // SAFETY: as the caller promises; mappings are page-aligned.
    unsafe { std::slice::from_raw_parts_mut(at.cast(), SLOTS) }
}

fn known_key(i: usize) -> u64 {
    (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03
}

#[test]
#[ignore = "more than 2^32 keys: run by `make test-huge`"]
fn a_batch_of_more_than_2_pow_32_keys_crosses_the_chunk_split() {
    let n = BucketCount::new((1 << 31) - 1).unwrap();
    assert_eq!(jumpshard::bucket(0, n), 0);

    // Keys: readable zero pages, known keys at both ends.
    let key_lead = lead(TOTAL * 8);
    let key_span = key_lead + TOTAL * 8;
    let keys_map = reserve(key_span);
    // SAFETY: inside the reservation; read and write, still unwritten.
    unsafe {
        let rw = libc::PROT_READ | libc::PROT_WRITE;
        assert_eq!(libc::mprotect(keys_map.base.cast(), key_span, rw), 0);
        // Huge zero pages where the kernel offers them: fewer faults.
        libc::madvise(keys_map.base.cast(), key_span, libc::MADV_HUGEPAGE);
    }
    // SAFETY: `key_lead` is a multiple of 8 (the span is a multiple of the
    // page and 8 divides both), so the keys are aligned; they lie inside
    // the read-write part and end at the guard page.
    let keys: &mut [u64] =
        unsafe { std::slice::from_raw_parts_mut(keys_map.base.add(key_lead).cast(), TOTAL) };
    for i in (0..KNOWN).chain(TOTAL - KNOWN..TOTAL) {
        keys[i] = known_key(i);
    }
    let keys: &[u64] = keys;
    let want = |i: usize| -> u32 {
        if !(KNOWN..TOTAL - KNOWN).contains(&i) {
            jumpshard::bucket(known_key(i), n)
        } else {
            0
        }
    };

    // Output: file `first` for the first 64 MiB, file `rest` over and over.
    let out_lead = lead(TOTAL * 4);
    let out_span = out_lead + TOTAL * 4;
    let out_map = reserve(out_span);
    let file_bytes = SLOTS * 4;
    let (first, rest) = (memfd(file_bytes), memfd(file_bytes));
    map_file(out_map.base, file_bytes, first);
    let mut at = file_bytes;
    while at < out_span {
        let len = file_bytes.min(out_span - at);
        map_file(out_map.base.wrapping_add(at), len, rest);
        at += len;
    }
    let (first_view, rest_view) = (out_map.base, out_map.base.wrapping_add(file_bytes));
    // The slot in its file of output `i`.
    let slot = |i: usize| (out_lead + 4 * i) % file_bytes / 4;
    let in_first = (file_bytes - out_lead) / 4;

    for kernel in Kernel::supported() {
        // SAFETY: each view is the first mapping of its file, and no other
        // slice of the output lives meanwhile.
        unsafe { words(first_view) }.fill(CANARY);
        unsafe { words(rest_view) }.fill(CANARY);
        {
            // SAFETY: `out_lead` is a multiple of 4; the slice lies in the
            // mapped files and ends at the guard page. No view lives
            // meanwhile.
            let out: &mut [u32] =
                unsafe { std::slice::from_raw_parts_mut(out_map.base.add(out_lead).cast(), TOTAL) };
            let done = AtomicBool::new(false);
            let (base, span) = (out_map.base as usize, out_span);
            std::thread::scope(|scope| {
                scope.spawn(|| {
                    while !done.load(Ordering::Relaxed) {
                        std::thread::sleep(Duration::from_millis(100));
                        // SAFETY: the range is this test's mappings of
                        // memory files; dropping their page-table entries
                        // keeps every byte written (the next access maps
                        // the file's page again).
                        unsafe { libc::madvise(base as *mut _, span, libc::MADV_DONTNEED) };
                    }
                });
                let start = Instant::now();
                let result = kernel.batch(keys, n, out);
                eprintln!(
                    "{kernel}: {TOTAL} keys in {:.1} s",
                    start.elapsed().as_secs_f64()
                );
                done.store(true, Ordering::Relaxed);
                result.unwrap();
            });
        }
        // SAFETY: as above, and the output slice is gone.
        let (first_view, rest_view) = unsafe { (words(first_view), words(rest_view)) };
        // The lead before the first output is untouched.
        assert!(
            first_view[..out_lead / 4].iter().all(|&v| v == CANARY),
            "{kernel}: lead written"
        );
        for i in 0..in_first {
            assert_eq!(first_view[slot(i)], want(i), "{kernel}: output {i}");
        }
        // Each slot of the repeated file holds its last output.
        for i in TOTAL - SLOTS..TOTAL {
            assert_eq!(rest_view[slot(i)], want(i), "{kernel}: output {i}");
        }
    }
    // SAFETY: the files' mappings go with the reservation; closing the
    // descriptors leaves them mapped until then.
    unsafe {
        libc::close(first);
        libc::close(rest);
    }
}
