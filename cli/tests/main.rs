//! The CLI's tests, run as a user runs the binary: one test binary of one
//! module per subject, so that CI builds and links the tests once, and
//! their many short runs of the binary share both cores (as 23 binaries
//! they took a seventh of the test build's compile time, 107 of 740 s on
//! Zen 3, and ran one binary at a time).
//! The doc examples are a binary of their own (`--test doc_examples`).

mod support;

mod assign;
mod bad_input;
mod balance;
mod basics;
mod bench;
mod cluster;
mod columns;
mod detection;
mod flags;
mod help;
mod integers;
mod nodes;
mod output_names;
mod outputs;
mod overrides;
mod parquet;
mod remove;
mod replicas_golden;
mod reshard;
mod resources;
mod several_outputs;
mod signals;
mod stdout;
mod table;
mod zones;
