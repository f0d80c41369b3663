//! `jumpshard bench --sizes`: nanoseconds per key against keys per call,
//! the storage hot path, through `jumpshard::batch` (the entry point users
//! call, dispatch included) with each kernel made active in turn, against
//! Figure 1 over the same calls in the same run.
//!
//! Each measurement walks a pool of keys in calls of the given size, so
//! that every call sees new keys. The walk is timed in slices of at least
//! 4096 keys, and the fastest slice of all the repetitions counts: on a
//! shared machine a slice this short (tens of microseconds for the kernels,
//! about a millisecond for Figure 1) often runs uninterrupted, so the
//! reference and the kernels are both measured at their unloaded speed,
//! whichever of them takes longer in total.
//!
//! A repetition is one sweep over every cell (N, keys per call), not
//! several passes over one cell: a busy neighbour on a shared host can slow
//! every slice for a second or more, longer than one cell takes, and only
//! samples spread over the whole run let each cell find a quiet moment.

use std::hint::black_box;

use jumpshard::verify::SplitMix64;
use jumpshard::{reference, BucketCount, Kernel};
use serde::Serialize;

use super::kernels::{machine_line, measured_kernels, Timing};
use crate::out::stdout::Stdout;

/// Keys per call.
pub const SIZES: [usize; 11] = [1, 2, 4, 8, 16, 32, 64, 256, 1024, 4096, 65536];

/// The counts of the storage use case: a small cluster and a huge one.
const COUNTS: [u32; 2] = [1000, 1_000_000];

/// Keys walked per measurement (a multiple of every size).
const POOL: usize = 1 << 17;

/// Keys per timed slice, at least (a multiple of every size below it).
const SLICE: usize = 4096;

/// One (N, keys per call) of the sweep.
#[derive(Clone, Copy)]
struct Cell {
    n: u32,
    count: BucketCount,
    size: usize,
}

impl Cell {
    fn new(n: u32, size: usize) -> Cell {
        let count = BucketCount::new(n).expect("valid count");
        Cell { n, count, size }
    }

    /// Keys per timed slice of a kernel: whole calls, at least [`SLICE`].
    /// (Figure 1 costs the same per key whatever the call size, so its
    /// slices stay at [`SLICE`], its calls cut to fit; a kernel's call is
    /// never cut.)
    fn slice(&self) -> usize {
        self.size.max(SLICE)
    }
}

/// One measurement.
#[derive(Serialize, Clone)]
pub struct SizeRow {
    /// `reference` or a kernel name.
    pub kernel: &'static str,
    /// The kernel's division strategy (`ieee` for the reference).
    pub division: &'static str,
    /// N.
    pub buckets: u32,
    pub keys_per_call: usize,
    pub ns_per_key: f64,
    pub ratio_vs_reference: f64,
}

/// Measures ns per key at every size, best of `repeat`, for every kernel
/// (every division strategy with `all_divisions`); prints the table (or
/// JSON) and returns its rows.
pub fn run(repeat: u32, json: bool, all_divisions: bool) -> Result<Vec<SizeRow>, String> {
    let keys = SplitMix64::new(0x51_2E5).keys(POOL);
    let mut stdout = Stdout::open()?;
    let mut out = vec![0u32; POOL];
    let mut out_ref = vec![0i32; POOL];
    let kernels = measured_kernels(all_divisions);
    let before = jumpshard::active_kernel();
    let cells: Vec<Cell> = COUNTS
        .iter()
        .flat_map(|&n| SIZES.iter().map(move |&size| Cell::new(n, size)))
        .collect();
    let mut best_ref = vec![Timing::NONE; cells.len()];
    let mut best = vec![vec![Timing::NONE; kernels.len()]; cells.len()];
    // Each repetition sweeps every cell, so that a cell's samples spread
    // over the whole run rather than a few milliseconds of it.
    for _ in 0..repeat {
        for (cell, (best_ref, best)) in cells.iter().zip(best_ref.iter_mut().zip(&mut best)) {
            let Cell { n, count, size } = *cell;
            let slice = cell.slice();
            // Figure 1's calls are cut to its slices (see `Cell::slice`).
            let ref_call = size.min(SLICE);
            for (keys, out_ref) in keys.chunks(SLICE).zip(out_ref.chunks_mut(SLICE)) {
                *best_ref = best_ref.min(Timing::of(|| {
                    for (k, o) in keys.chunks(ref_call).zip(out_ref.chunks_mut(ref_call)) {
                        reference::batch(black_box(k), n as i32, o);
                    }
                    black_box(&mut *out_ref);
                }));
            }
            for (&kernel, best) in kernels.iter().zip(best.iter_mut()) {
                jumpshard::set_active_kernel(kernel);
                for (keys, out) in keys.chunks(slice).zip(out.chunks_mut(slice)) {
                    *best = best.min(Timing::of(|| {
                        for (k, o) in keys.chunks(size).zip(out.chunks_mut(size)) {
                            jumpshard::batch(black_box(k), count, o).expect("lengths match");
                        }
                        black_box(&mut *out);
                    }));
                }
            }
        }
    }
    let ns = |t: Timing, slice: usize| t.seconds * 1e9 / slice as f64;
    let mut rows = Vec::new();
    for (cell, (best_ref, best)) in cells.iter().zip(best_ref.iter().zip(&best)) {
        let reference_ns = ns(*best_ref, SLICE);
        let row = |kernel, division, ns_per_key| SizeRow {
            kernel,
            division,
            buckets: cell.n,
            keys_per_call: cell.size,
            ns_per_key,
            ratio_vs_reference: reference_ns / ns_per_key,
        };
        rows.push(row("reference", "ieee", reference_ns));
        for (kernel, &t) in kernels.iter().zip(best) {
            rows.push(row(
                kernel.name(),
                kernel.division().name(),
                ns(t, cell.slice()),
            ));
        }
    }
    jumpshard::set_active_kernel(before);
    if json {
        writeln!(
            stdout,
            "{}",
            serde_json::to_string_pretty(&rows).map_err(|e| e.to_string())?
        )?;
    } else {
        print_table(&mut stdout, &rows, &kernels, repeat)?;
    }
    stdout.finish()?;
    Ok(rows)
}

/// One line per (N, size): ns per key and the ratio for each kernel.
fn print_table(
    out: &mut Stdout,
    rows: &[SizeRow],
    kernels: &[Kernel],
    repeat: u32,
) -> Result<(), String> {
    writeln!(
        out,
        "jumpshard bench --sizes: {POOL} random keys per measurement, in calls of each size to jumpshard::batch, 1 thread, fastest slice of {SLICE}+ keys over {repeat} repetitions"
    )?;
    writeln!(out, "{}", machine_line())?;
    write!(out, "{:>10} {:>6} {:>10}", "N", "keys", "Fig. 1 ns")?;
    for k in kernels {
        write!(out, " {:>20}", format!("{} ({})", k.name(), k.division()))?;
    }
    writeln!(out)?;
    for line in rows.chunks(kernels.len() + 1) {
        let r = &line[0];
        write!(
            out,
            "{:>10} {:>6} {:>10.2}",
            r.buckets, r.keys_per_call, r.ns_per_key
        )?;
        for k in &line[1..] {
            write!(
                out,
                " {:>20}",
                format!("{:.2} ns {:.2}x", k.ns_per_key, k.ratio_vs_reference)
            )?;
        }
        writeln!(out)?;
    }
    Ok(())
}
