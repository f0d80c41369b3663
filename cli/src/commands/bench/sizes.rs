//! `jumpshard bench --sizes`: nanoseconds per key against keys per call,
//! the storage hot path, through `jumpshard::batch` (the entry point users
//! call, dispatch included) with each kernel made active in turn, against
//! Figure 1 over the same calls in the same run.
//!
//! Each measurement walks a pool of keys in calls of the given size, so
//! that every call sees new keys. The walk is timed in slices of whole
//! calls, at least 4096 keys (at least 32 slices, calls longer than 4096
//! keys walking the pool again), and within one repetition the fastest
//! slice counts: on a shared machine a slice this short (tens of microseconds
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

/// Repetitions by default: on a shared host (Zen 3, 2 vCPUs) the medians
/// of 5 moved by 10-30% from run to run wherever a busy spell fell; those
/// of 15 are steadier, for about 20 seconds in all. (Cliffs are confirmed
/// apart, [`confirm_cliffs`], whatever the count.)
pub const REPEAT: u32 = 15;

/// Keys walked per measurement (a multiple of every size from 2048 up).
const POOL: usize = 1 << 17;

/// Keys per timed slice, at least.
const SLICE: usize = 4096;

/// Timed slices per cell and repetition, at least: what calls of up to
/// [`SLICE`] keys get from one walk of the pool.
const SLICES: usize = POOL / SLICE;

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

    /// The kernels' timed slices of this cell, as ranges of the pool:
    /// every whole slice of the pool, and for calls longer than [`SLICE`]
    /// the pool again, round after round, until there are as many as a
    /// call of [`SLICE`] keys gets ([`SLICES`]). The fastest of two slices
    /// of 65536 keys, a millisecond or more each, was often a slow one on
    /// a shared host: 27% under the 4096-key calls on Zen 3 in two runs of
    /// three, for the scalar kernel as much as for AVX2, whose long calls
    /// take no other path.
    fn slices(&self) -> impl Iterator<Item = core::ops::Range<usize>> {
        let slice = self.slice();
        let per_pool = POOL / slice;
        (0..per_pool.max(SLICES)).map(move |i| {
            let start = i % per_pool * slice;
            start..start + slice
        })
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
    let mut pool = Pool::new();
    let mut stdout = Stdout::open()?;
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
            samples.push(pool.measure(cell, &kernels));
        }
    }
    let mut rows = rows(&cells, &samples, &kernels);
    confirm_cliffs(&mut pool, &mut rows, &kernels);
    jumpshard::set_active_kernel(before);
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

/// The keys every measurement walks, and the answers' buffers.
struct Pool {
    keys: Vec<u64>,
    out: Vec<u32>,
    out_ref: Vec<i32>,
}

impl Pool {
    fn new() -> Pool {
        Pool {
            keys: SplitMix64::new(0x51_2E5).keys(POOL),
            out: vec![0; POOL],
            out_ref: vec![0; POOL],
        }
    }

    /// One repetition of `cell`: Figure 1's ns per key over its calls
    /// (the fastest slice), then each of `kernels`' (made active in turn).
    fn measure(&mut self, cell: &Cell, kernels: &[Kernel]) -> Vec<f64> {
        let Cell { n, count, size } = *cell;
        let (slice, ref_slice) = (cell.slice(), cell.reference_slice());
        let ref_call = size.min(ref_slice);
        let mut best_ref = Timing::NONE;
        for (keys, out_ref) in self
            .keys
            .chunks_exact(ref_slice)
            .zip(self.out_ref.chunks_exact_mut(ref_slice))
        {
            best_ref = best_ref.min(Timing::of(|| {
                for (k, o) in keys.chunks(ref_call).zip(out_ref.chunks_mut(ref_call)) {
                    reference::batch(black_box(k), n as i32, o);
                }
                black_box(&mut *out_ref);
            }));
        }
        let mut sample = vec![best_ref.seconds * 1e9 / ref_slice as f64];
        for &kernel in kernels {
            jumpshard::set_active_kernel(kernel);
            let mut best = Timing::NONE;
            for range in cell.slices() {
                let (keys, out) = (&self.keys[range.clone()], &mut self.out[range]);
                best = best.min(Timing::of(|| {
                    for (k, o) in keys.chunks(size).zip(out.chunks_mut(size)) {
                        jumpshard::batch(black_box(k), count, o).expect("lengths match");
                    }
                    black_box(&mut *out);
                }));
            }
            sample.push(best.seconds * 1e9 / slice as f64);
        }
        sample
    }
}

/// Rounds of a cliff's confirmation.
const CONFIRM: usize = 15;

/// Measures every cliff the sweep found again before it is reported: its cell
/// and the best smaller one, timed back to back (in alternating order)
/// [`CONFIRM`] times, Figure 1 and the kernel in each, and keeps it only where
/// the median of the rounds' own drops still passes the tolerance
/// ([`cliff::confirm`]), with the two cells' median ratios. A neighbour busy on
/// the same core for seconds lowers a kernel's ratio (and much less Figure 1's)
/// in every cell it overlaps, so a sweep of 15 repetitions on a shared host
/// (Zen 3, 2 vCPUs) showed drops of 10-33% in one run of three, the scalar
/// kernel's too, which has no paths to switch between; two cells measured
/// within milliseconds of each other share such a spell.
fn confirm_cliffs(pool: &mut Pool, rows: &mut [SizeRow], kernels: &[Kernel]) {
    for row in rows.iter_mut() {
        let Some(found) = row.cliff else { continue };
        let kernel = *kernels
            .iter()
            .find(|k| k.name() == row.kernel && k.division().name() == row.division)
            .expect("a row of a measured kernel");
        let at = Cell::new(row.buckets, row.keys_per_call);
        let best = Cell::new(row.buckets, found.best_keys_per_call);
        let (mut at_ratios, mut best_ratios) = (Vec::new(), Vec::new());
        for round in 0..CONFIRM {
            let ratio = |pool: &mut Pool, cell: &Cell| {
                let sample = pool.measure(cell, &[kernel]);
                sample[0] / sample[1]
            };
            if round % 2 == 0 {
                best_ratios.push(ratio(pool, &best));
                at_ratios.push(ratio(pool, &at));
            } else {
                at_ratios.push(ratio(pool, &at));
                best_ratios.push(ratio(pool, &best));
            }
        }
        row.cliff = cliff::confirm(found.best_keys_per_call, &at_ratios, &best_ratios);
    }
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
                "jumpshard: warning: {} ({}) at N = {}: {:.2}x Figure 1 at {} keys per call, {:.0}% below {:.2}x at {}, timed in turn {CONFIRM} times each (a cliff: the cost per key should only fall as calls grow)",
                r.kernel,
                r.division,
                r.buckets,
                c.ratio,
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
