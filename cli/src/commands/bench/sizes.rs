//! `jumpshard bench --sizes`: nanoseconds per key against keys per call,
//! the storage hot path, through `jumpshard::batch` (the entry point users
//! call, dispatch included) with each kernel made active in turn, against
//! Figure 1 over the same calls in the same run.
//!
//! Each measurement walks a pool of keys in calls of the given size, so
//! that every call sees new keys. The walk is timed in slices of whole
//! calls, at least 4096 keys, and within one repetition the fastest slice
//! counts: on a shared machine a slice this short (tens of microseconds
//! for the kernels, about a millisecond for Figure 1) often runs
//! uninterrupted, so the reference and the kernels are both measured at
//! their unloaded speed, whichever of them takes longer in total. Each
//! repetition gives one ratio per cell, the reference and every kernel
//! timed back to back on the same calls; the median over the repetitions
//! is reported, so that one lucky or unlucky pass moves nothing.
//!
//! A repetition is one sweep over every cell (N, keys per call), not
//! several passes over one cell: a busy neighbour on a shared host can slow
//! every slice for a second or more, longer than one cell takes, and only
//! samples spread over the whole run let each cell find a quiet moment.
//!
//! The sweep is fine between 8 and 1024 keys, where the kernels switch
//! paths, and every ratio is checked for a cliff ([`super::cliff`]): a
//! warning on standard error and a `cliff` field in the JSON.

use std::hint::black_box;

use jumpshard::verify::SplitMix64;
use jumpshard::{reference, BucketCount, Kernel};
use serde::Serialize;

use super::cliff::{self, Cliff};
use super::kernels::{machine_line, measured_kernels, median, Timing};
use crate::out::stdout::Stdout;

/// Keys per call: steps of 1.5 and 2 from 8 to 1024 (where the kernels'
/// short and long paths meet), doubling beyond; 1 to 4 for the single-key
/// chains.
pub const SIZES: [usize; 23] = [
    1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 1024, 2048, 4096, 8192, 16384,
    32768, 65536,
];

/// The counts of the storage use case: a small cluster and a huge one.
const COUNTS: [u32; 2] = [1000, 1_000_000];

/// Keys walked per measurement (a multiple of every size from 2048 up).
const POOL: usize = 1 << 17;

/// Keys per timed slice, at least.
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

    /// Keys per timed slice of a kernel: whole calls, at least [`SLICE`]
    /// (the keys past the last whole slice of the pool are not timed).
    fn slice(&self) -> usize {
        self.size * SLICE.div_ceil(self.size)
    }

    /// Keys per timed slice of Figure 1: the kernel's slice, in the same
    /// calls, up to [`SLICE`]; beyond, slices of [`SLICE`] with the calls
    /// cut to fit (Figure 1 costs the same per key whatever the call size,
    /// and a longer slice is more often interrupted).
    fn reference_slice(&self) -> usize {
        if self.size <= SLICE {
            self.slice()
        } else {
            SLICE
        }
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
    /// Where this ratio falls more than 10% below the kernel's best at a
    /// smaller call (null for none, and for the reference).
    pub cliff: Option<Cliff>,
}

/// Measures ns per key at every size, median of `repeat`, for every
/// kernel (every division strategy with `all_divisions`); prints the table
/// (or JSON), warns of every cliff on standard error and returns the rows.
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
    // Per cell and repetition: Figure 1's fastest slice, then each kernel's.
    let mut samples = vec![Vec::with_capacity(repeat as usize); cells.len()];
    // Each repetition sweeps every cell, so that a cell's samples spread
    // over the whole run rather than a few milliseconds of it.
    for _ in 0..repeat {
        for (cell, samples) in cells.iter().zip(&mut samples) {
            let Cell { n, count, size } = *cell;
            let (slice, ref_slice) = (cell.slice(), cell.reference_slice());
            let ref_call = size.min(ref_slice);
            let mut best_ref = Timing::NONE;
            for (keys, out_ref) in keys
                .chunks_exact(ref_slice)
                .zip(out_ref.chunks_exact_mut(ref_slice))
            {
                best_ref = best_ref.min(Timing::of(|| {
                    for (k, o) in keys.chunks(ref_call).zip(out_ref.chunks_mut(ref_call)) {
                        reference::batch(black_box(k), n as i32, o);
                    }
                    black_box(&mut *out_ref);
                }));
            }
            let mut sample = vec![best_ref.seconds * 1e9 / ref_slice as f64];
            for &kernel in &kernels {
                jumpshard::set_active_kernel(kernel);
                let mut best = Timing::NONE;
                for (keys, out) in keys.chunks_exact(slice).zip(out.chunks_exact_mut(slice)) {
                    best = best.min(Timing::of(|| {
                        for (k, o) in keys.chunks(size).zip(out.chunks_mut(size)) {
                            jumpshard::batch(black_box(k), count, o).expect("lengths match");
                        }
                        black_box(&mut *out);
                    }));
                }
                sample.push(best.seconds * 1e9 / slice as f64);
            }
            samples.push(sample);
        }
    }
    jumpshard::set_active_kernel(before);
    let rows = rows(&cells, &samples, &kernels);
    warn_of_cliffs(&rows)?;
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

/// The rows of every cell: medians over the repetitions (`samples[cell]`
/// holds, per repetition, Figure 1's ns per key then each kernel's), each
/// kernel's ratios checked for cliffs along its sweep.
fn rows(cells: &[Cell], samples: &[Vec<Vec<f64>>], kernels: &[Kernel]) -> Vec<SizeRow> {
    let mut rows = Vec::new();
    for (cell, samples) in cells.iter().zip(samples) {
        let column = |i: usize| median(samples.iter().map(|s| s[i]));
        let row = |kernel, division, ns_per_key, ratio_vs_reference| SizeRow {
            kernel,
            division,
            buckets: cell.n,
            keys_per_call: cell.size,
            ns_per_key,
            ratio_vs_reference,
            cliff: None,
        };
        rows.push(row("reference", "ieee", column(0), 1.0));
        for (i, kernel) in kernels.iter().enumerate() {
            // The ratio of each repetition, Figure 1 and the kernel timed
            // back to back, then their median.
            let ratio = median(samples.iter().map(|s| s[0] / s[i + 1]));
            rows.push(row(
                kernel.name(),
                kernel.division().name(),
                column(i + 1),
                ratio,
            ));
        }
    }
    // One kernel at one N: every (kernels + 1)-th row from its first.
    let stride = kernels.len() + 1;
    for n in 0..COUNTS.len() {
        for k in 1..stride {
            let at: Vec<usize> = (0..SIZES.len())
                .map(|s| (n * SIZES.len() + s) * stride + k)
                .collect();
            let points: Vec<(usize, f64)> = at
                .iter()
                .map(|&i| (rows[i].keys_per_call, rows[i].ratio_vs_reference))
                .collect();
            for (i, cliff) in at.into_iter().zip(cliff::find(&points)) {
                rows[i].cliff = cliff;
            }
        }
    }
    rows
}

/// One warning on standard error per cliff.
fn warn_of_cliffs(rows: &[SizeRow]) -> Result<(), String> {
    use std::io::Write as _;
    let mut err = std::io::stderr().lock();
    for r in rows {
        if let Some(c) = r.cliff {
            writeln!(
                err,
                "jumpshard: warning: {} ({}) at N = {}: {:.2}x Figure 1 at {} keys per call, {:.0}% below {:.2}x at {} (a cliff: the cost per key should only fall as calls grow)",
                r.kernel,
                r.division,
                r.buckets,
                r.ratio_vs_reference,
                r.keys_per_call,
                c.drop * 100.0,
                c.best_ratio,
                c.best_keys_per_call
            )
            .map_err(|e| format!("standard error: {e}"))?;
        }
    }
    Ok(())
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
        "jumpshard bench --sizes: {POOL} random keys per measurement, in calls of each size to jumpshard::batch, 1 thread, fastest slice of {SLICE}+ keys per repetition, median of {repeat} repetitions"
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
