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
