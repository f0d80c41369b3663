//! The library's integration tests: one test binary of one module per
//! subject, so that the test builds (native and the aarch64 cross build)
//! link them once and their tests share both cores. Apart stay `dispatch`
//! (run again with each kernel forced), `scale` (which bounds its process's
//! peak memory), `parallel_short`, `huge` (ignored unless asked for) and
//! `zones`. The modules held against the C++ Figure 1 need the `reference`
//! feature, as the separate binaries did.

#[cfg(feature = "reference")]
mod common;

#[cfg(feature = "reference")]
mod bytes;
#[cfg(feature = "reference")]
mod differential;
mod errors;
mod fingerprint;
#[cfg(feature = "reference")]
mod memento;
mod nodes;
#[cfg(feature = "reference")]
mod plan;
#[cfg(feature = "reference")]
mod properties;
mod weights;
mod zoned_table_replicas;
