//! The C ABI: `extern "C"` functions that C, C++ and any language with a C
//! foreign-function interface call through `include/jumpshard.h`, which
//! cbindgen generates from this module (see `cbindgen.toml`).
//!
//! Every entry point is a panic boundary ([`guard`]), checks every pointer
//! and count before it reads or writes anything, and reports what it refuses
//! as a [`status::jumpshard_status`]. Nothing here keeps state of its own:
//! the functions only read their arguments and the library's atomic kernel
//! choice, so any number of threads may call them at once.

#![deny(unsafe_op_in_unsafe_fn)]

mod batch;
mod buffers;
mod bytes;
mod guard;
mod kernel;
mod plan;
mod status;
mod version;
