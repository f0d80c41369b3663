//! `jumpshard lookup --nodes TABLE KEY...`: the slot and node of a few
//! keys given on the command line, for checking a router by hand.
//!
//! Keys are decimal u64, or with `--hex` byte strings in hex (`-` for the
//! empty key) placed the Memento-compatible way: XXH64 of the bytes with
//! seed 0 before Figure 1, XXH64 with the bucket as seed for the rehashes
//! (what the Memento authors' engine computes).

use std::path::PathBuf;

use jumpshard::{Memento, NodeTable};

use crate::node_tables;
use crate::out::clash::{self, InputFiles};
use crate::out::stdout::Stdout;

/// The options of `jumpshard lookup`.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
    jumpshard lookup --nodes nodes.txt 1253737204188795044 42   # KEY SLOT NODE per key\n  \
    jumpshard lookup --nodes nodes.txt --hex 757365723a3432 -   # byte keys; - is empty\n  \
    jumpshard lookup --nodes nodes.txt --replicas 3 42")]
pub struct Args {
    /// The node table, with its removals (`removed=K`) or weights (`-`:
    /// standard input).
    #[arg(long, value_name = "TABLE")]
    nodes: PathBuf,
    /// Print each key's replica set of K members.
    #[arg(long, value_name = "K", conflicts_with = "hex", allow_negative_numbers = true,
          value_parser = crate::limits::replicas)]
    replicas: Option<usize>,
    /// The keys are bytes in hex (`-` is the empty key), placed the
    /// Memento-compatible way; the table may not have weights.
    #[arg(long)]
    hex: bool,
    /// The keys: decimal u64 (or hex bytes with --hex, `-` for the empty
    /// key); an empty argument is an error.
    #[arg(required = true, value_name = "KEY")]
    keys: Vec<String>,
}

/// Runs `lookup`: one line per key, `KEY SLOT NODE` (slots and nodes of a
/// replica set joined by `,`).
pub fn run(args: &Args) -> Result<(), String> {
    clash::stdout_not_input(None, &InputFiles::default().with("--nodes", &args.nodes))?;
    let table = node_tables::read("--nodes", &args.nodes)?;
    let mut out = Stdout::open()?;
    let k = args.replicas.unwrap_or(1);
    if args.replicas.is_some() {
        table
            .check_replicas(k)
            .map_err(|e| format!("--replicas {k}: {e}"))?;
    }
    let mut lines = Vec::new();
    for key in &args.keys {
        if key.is_empty() {
            return Err(if args.hex {
                "key \"\": an empty argument is no key; the empty byte key is written - (with \
                 --hex)"
                    .into()
            } else {
                "key \"\": an empty argument is no key; give a decimal unsigned 64-bit integer \
                 (or, with --hex, - for the empty byte key)"
                    .into()
            });
        }
        let slots = if args.hex {
            vec![hex_bucket(&table, key)?]
        } else {
            let value: u64 = key
                .parse()
                .map_err(|_| format!("key {key:?}: not a decimal unsigned 64-bit integer"))?;
            let mut set = vec![0u32; k];
            if args.replicas.is_some() {
                let mut columns: Vec<&mut [u32]> = set.chunks_mut(1).collect();
                table
                    .replicas_batch(&[value], &mut columns)
                    .expect("k checked, columns of one key");
            } else {
                set[0] = table.bucket(value);
            }
            set
        };
        let numbers: Vec<String> = slots.iter().map(u32::to_string).collect();
        let names: Vec<&str> = slots.iter().map(|&s| table.slot(s as usize)).collect();
        lines.push(format!("{key} {} {}\n", numbers.join(","), names.join(",")));
    }
    for line in lines {
        out.write_all(line.as_bytes())?;
    }
    out.finish()
}

/// The slot of a hex byte key, Memento-compatible.
fn hex_bucket(table: &NodeTable, key: &str) -> Result<u32, String> {
    if table.weights().is_some() {
        return Err("--hex: the table has weights; byte keys are placed Memento-style".into());
    }
    let bytes = if key == "-" {
        Vec::new()
    } else {
        let digits = key.as_bytes();
        if !digits.len().is_multiple_of(2) {
            return Err(format!("key {key:?}: an odd number of hex digits"));
        }
        digits
            .chunks(2)
            .map(|pair| {
                std::str::from_utf8(pair)
                    .ok()
                    .and_then(|p| u8::from_str_radix(p, 16).ok())
                    .ok_or_else(|| format!("key {key:?}: not hex bytes (use - for the empty key)"))
            })
            .collect::<Result<_, _>>()?
    };
    // An override names a byte key by its prehash.
    if let Some(slot) = table.pinned(jumpshard::bytes::prehash(&bytes)) {
        return Ok(slot);
    }
    Ok(match table.memento() {
        Some(m) => m.bucket_bytes(&bytes),
        None => Memento::new(table.bucket_count()).bucket_bytes(&bytes),
    })
}
