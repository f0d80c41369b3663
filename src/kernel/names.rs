//! The names of the kernels and of the division strategies, as users write
//! them (`JUMPSHARD_KERNEL`, `JUMPSHARD_DIVISION`, the C ABI, the CLI). A
//! module of its own, importing nothing, so that error messages can list
//! them without the error type depending on the kernels.

/// Every kernel name, whatever this CPU runs.
pub(crate) const KERNELS: [&str; 4] = ["scalar", "avx2", "avx512", "neon"];

/// Every division strategy name.
pub(crate) const DIVISIONS: [&str; 3] = ["ieee", "newton", "hybrid"];
