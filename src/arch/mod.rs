//! Instruction-set specific kernels, one module per architecture.
//!
//! Each architecture module holds only ISA primitives arranged into the same
//! lane algorithm (see `x86_64`'s documentation); the portable definition of
//! the arithmetic is `crate::scalar`. Nothing here is reachable except
//! through `crate::kernel`, which constructs a kernel only after runtime
//! detection of every feature the kernel enables.

#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64;

/// Whether keys take many iterations at this count (about `ln N + 0.58`),
/// which decides a kernel's round length: a lane finishing mid-round waits
/// `S - 1` iterations at most, `(S - 1) / 2` on average, while the refill
/// and answer packing are paid once per round. On x86, rounds of 3
/// iterations measured best below 1000 buckets (fewer than 7.5 iterations
/// per key) and rounds of 4 from there on; the NEON kernel takes rounds of
/// 2 and 3 at the same threshold, not yet measured on ARM hardware.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[inline]
pub(crate) fn long_keys(num_buckets: u32) -> bool {
    num_buckets >= 1000
}
