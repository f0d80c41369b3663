//! Huge pages for the large arrays the module allocates itself.
//!
//! glibc maps every allocation over 32 MiB on its own and unmaps it when
//! freed, so each new result of that size starts as untouched memory, and
//! the batch then takes one page fault per 4 KiB it writes. Under a
//! hypervisor those faults cost more than the batch itself: measured on
//! 10^7 keys (40 MB of int32), a new array made `batch` 2.6 times slower
//! than the same call into a reused `out=`. Asking for transparent huge
//! pages (2 MiB) on such an array, before anything writes it, takes the
//! faults down 512-fold. It is advice: where the kernel offers no huge
//! pages the call fails or is ignored and nothing else changes.

/// Arrays smaller than this are left alone: they hold at most one whole
/// huge page, and usually come from memory glibc reuses.
const MIN_BYTES: usize = 4 << 20;

/// The size of a transparent huge page on x86-64 and on aarch64 with
/// 4 KiB base pages.
const HUGE_PAGE: usize = 2 << 20;

/// Advises huge pages for the whole huge pages inside `bytes` bytes at
/// `address`, memory that nothing has written yet.
#[cfg(target_os = "linux")]
pub(crate) fn advise_huge(address: usize, bytes: usize) {
    if bytes < MIN_BYTES {
        return;
    }
    let start = address.next_multiple_of(HUGE_PAGE);
    let end = (address + bytes) / HUGE_PAGE * HUGE_PAGE;
    if end > start {
        // SAFETY: `start..end` lies inside the caller's live allocation, and
        // MADV_HUGEPAGE changes only how the kernel backs those pages, not
        // their contents or whether they are mapped. Its result is ignored
        // on purpose: a refusal leaves ordinary pages, which are correct.
        unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
    }
}

/// Elsewhere there is no such advice to give.
#[cfg(not(target_os = "linux"))]
pub(crate) fn advise_huge(_address: usize, _bytes: usize) {}
