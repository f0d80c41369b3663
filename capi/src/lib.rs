//! jumpshard's C ABI: `extern "C"` functions that C, C++ and any language
//! with a C foreign-function interface call through `include/jumpshard.h`,
//! which cbindgen generates from this crate (see `capi/cbindgen.toml`).
//! This crate builds `libjumpshard.so` and `libjumpshard.a`; Rust users
//! depend on the `jumpshard` crate itself, which exports no C symbols.
//!
//! Every entry point is a panic boundary ([`guard`]), checks every pointer
//! and count before it reads or writes anything, and reports what it refuses
//! as a [`status::jumpshard_status`]. Nothing here keeps state of its own:
//! the functions only read their arguments and the library's atomic kernel
//! choice, so any number of threads may call them at once.

#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod batch;
mod buffers;
mod bytes;
mod guard;
mod kernel;
mod message;
mod plan;
mod status;
mod version;

/// The C ABI called from Rust exactly as C calls it, through the exported
/// symbols. Part of the unit tests rather than an integration test: the
/// crate builds no rlib for an integration test to link (its lib name is
/// the C library's, which the `jumpshard` rlib already has).
#[cfg(test)]
mod tests;
