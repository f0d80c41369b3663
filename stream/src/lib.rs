//! jumpshard's streaming engine: key sources, the ordered pipeline and
//! move-list writers, for inputs far larger than memory.

#![deny(missing_docs)]
