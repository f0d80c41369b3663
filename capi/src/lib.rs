//! jumpshard's C ABI: `extern "C"` functions that C, C++ and any language
//! with a C foreign-function interface call through `include/jumpshard.h`,
//! which cbindgen generates from this crate (see `capi/cbindgen.toml`).
//! This crate builds `libjumpshard.so` and `libjumpshard.a`; Rust users
//! depend on the `jumpshard` crate itself, which exports no C symbols.
//!
//! Every entry point is a panic boundary ([`guard`]), checks every pointer
//! and count before it reads or writes anything, and reports what it refuses
//! as a [`status::jumpshard_status`]. The only state is the library's
//! atomic kernel choice and the caller's opaque handles ([`handle`]): a
//! Memento cluster, which its `remove` and `restore` change and which
//! every other call only reads, and weights, which never change. So any
//! number of threads may call any function at once, except that a
//! cluster's `remove`, `restore` and `free` need it to themselves.

#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod batch;
mod bounded;
mod buffers;
mod bytes;
mod guard;
mod handle;
mod kernel;
mod memento;
mod message;
mod plan;
mod replicas;
mod status;
mod table;
mod table_fingerprint;
mod table_zones;
mod version;
mod weights;

/// The C ABI called from Rust exactly as C calls it, through the exported
/// symbols. Part of the unit tests rather than an integration test: the
/// crate builds no rlib for an integration test to link (its lib name is
/// the C library's, which the `jumpshard` rlib already has).
#[cfg(test)]
mod tests;
