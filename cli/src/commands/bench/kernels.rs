//! `jumpshard bench`: single-thread throughput of every kernel this CPU runs
//! and of the compiled Figure 1 reference, measured in the same run so that
//! the ratio means something on any machine.
//!
//! Each repetition times the reference and every kernel back to back on the
//! same keys, in calls of 65536 keys for the kernels and slices of 4096 for
//! the reference (both well under a millisecond); the fastest call or slice
//! of all repetitions counts, per loop iteration, which filters out
//! interruptions by other processes on a shared machine and treats the
//! reference and the kernels alike. A repetition sweeps every N in turn, so
//! that each N's samples spread over the whole run, not over the second or
//! so in which a busy neighbour might slow all of them.

use std::hint::black_box;
use std::time::Instant;

use jumpshard::{reference, BucketCount, Cpu, Division, Kernel};
use serde::Serialize;

use super::{buffers, clock};
use crate::out::stdout::Stdout;

/// The bucket counts measured.
const COUNTS: [u32; 4] = [10, 1000, 1_000_000, (1 << 31) - 1];

/// One measurement of the throughput table.
#[derive(Serialize, Clone)]
pub struct Row {
    /// `reference` or a kernel name.
    pub kernel: &'static str,
    /// The kernel's division strategy (`ieee` for the reference).
    pub division: &'static str,
    /// N.
    pub buckets: u32,
    pub threads: u32,
    pub keys: usize,
    pub mkeys_per_s: f64,
    pub ratio_vs_reference: f64,
    /// Time-stamp-counter ticks per Figure 1 loop iteration of one key
    /// (null where there is no such counter).
    pub cycles_per_lane_iteration: Option<f64>,
    /// Core clock cycles per Figure 1 loop iteration of one key, estimated
    /// from the ticks and the core clock measured right after (see
    /// `clock`; null where there is no counter).
    pub core_cycles_per_lane_iteration: Option<f64>,
}

/// Measures every kernel (every division strategy with `all_divisions`)
/// and the reference on `keys` random keys, best of `repeat`, prints the
/// table (or JSON) and returns its rows.
pub fn run(keys: usize, repeat: u32, json: bool, all_divisions: bool) -> Result<Vec<Row>, String> {
    if keys == 0 {
        return Err("--keys must be at least 1".into());
    }
    let mut out = Stdout::open()?;
    let asked = format!("--keys {keys}");
    let keys = buffers::random_keys(0xBE7C4, keys, &asked)?;
    let kernels = measured_kernels(all_divisions);
    let counts: Vec<Count> = COUNTS
        .iter()
        .map(|&n| Count {
            n,
            count: BucketCount::new(n).expect("valid count"),
            per_key: lane_iterations(&keys, n) as f64 / keys.len() as f64,
            ref_slices: Slices::new(&keys, REFERENCE_SLICE, n),
            slices: Slices::new(&keys, KERNEL_CALL, n),
        })
        .collect();
    let mut out_ref = buffers::filled(keys.len(), 0i32, &asked)?;
    let mut out_kernel = buffers::filled(keys.len(), 0u32, &asked)?;
    let mut best_ref = vec![PerIteration::NONE; counts.len()];
    let mut best = vec![vec![PerIteration::NONE; kernels.len()]; counts.len()];
    // Each repetition sweeps every N, so that the samples of one N spread
    // over the whole run.
    for _ in 0..repeat {
        for ((c, best_ref), best) in counts.iter().zip(&mut best_ref).zip(&mut best) {
            *best_ref = best_ref.min(c.ref_slices.fastest(&mut out_ref, |k, o| {
                reference::batch(black_box(k), c.n as i32, o);
            }));
            for (kernel, best) in kernels.iter().zip(best.iter_mut()) {
                *best = best.min(c.slices.fastest(&mut out_kernel, |k, o| {
                    kernel
                        .batch(black_box(k), c.count, o)
                        .expect("lengths match");
                }));
            }
        }
    }
    let mut rows = Vec::new();
    for ((c, &best_ref), best) in counts.iter().zip(&best_ref).zip(&best) {
        let rate = |t: PerIteration| 1e-6 / (t.seconds * c.per_key);
        let row = |kernel, division, t: PerIteration| Row {
            kernel,
            division,
            buckets: c.n,
            threads: 1,
            keys: keys.len(),
            mkeys_per_s: rate(t),
            ratio_vs_reference: rate(t) / rate(best_ref),
            cycles_per_lane_iteration: t.cycles,
            core_cycles_per_lane_iteration: t.cycles.zip(t.clock).map(|(c, r)| c * r),
        };
        rows.push(row("reference", "ieee", best_ref));
        for (kernel, &t) in kernels.iter().zip(best) {
            rows.push(row(kernel.name(), kernel.division().name(), t));
        }
    }
    if json {
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&rows).map_err(|e| e.to_string())?
        )?;
    } else {
        print_table(&mut out, &rows, keys.len(), repeat)?;
    }
    out.finish()?;
    Ok(rows)
}

/// Keys per kernel call: long enough for the refilling loop at full speed,
/// short enough (well under a millisecond) that on a shared machine many
/// calls run uninterrupted.
const KERNEL_CALL: usize = 1 << 16;

/// Keys per timed slice of Figure 1, whose cost per key does not depend on
/// the call's length: about as long in time as a kernel call.
const REFERENCE_SLICE: usize = 1 << 12;

/// One N of the table and what its measurements need.
struct Count<'a> {
    n: u32,
    count: BucketCount,
    /// Figure 1 loop iterations per key at `n`, on average.
    per_key: f64,
    ref_slices: Slices<'a>,
    slices: Slices<'a>,
}

/// The keys cut into timed slices, with the Figure 1 iterations of each.
struct Slices<'a> {
    slices: Vec<(&'a [u64], u64)>,
    len: usize,
}

impl<'a> Slices<'a> {
    fn new(keys: &'a [u64], len: usize, n: u32) -> Slices<'a> {
        let slices = keys
            .chunks(len)
            .map(|s| (s, lane_iterations(s, n)))
            .collect();
        Slices { slices, len }
    }

    /// Runs `f` on every slice and returns the fastest, per iteration, with
    /// the core clock measured right after.
    fn fastest<T>(&self, out: &mut [T], mut f: impl FnMut(&[u64], &mut [T])) -> PerIteration {
        let mut best = PerIteration::NONE;
        for (&(keys, iterations), out) in self.slices.iter().zip(out.chunks_mut(self.len)) {
            let t = Timing::of(|| {
                f(keys, out);
                black_box(&mut *out);
            });
            best = best.min(PerIteration {
                seconds: t.seconds / iterations as f64,
                cycles: t.cycles.map(|c| c as f64 / iterations as f64),
                clock: None,
            });
        }
        // The highest of a few readings: an interrupted one reads low.
        best.clock = (0..CLOCK_READINGS)
            .filter_map(|_| clock::cycles_per_tick())
            .reduce(f64::max);
        best
    }
}

/// Readings of the core clock after each pass over the slices.
const CLOCK_READINGS: usize = 3;

/// Seconds and time-stamp-counter ticks per Figure 1 loop iteration of one
/// key, and core cycles per tick just after the pass that measured them.
#[derive(Clone, Copy)]
struct PerIteration {
    seconds: f64,
    cycles: Option<f64>,
    clock: Option<f64>,
}

impl PerIteration {
    const NONE: PerIteration = PerIteration {
        seconds: f64::INFINITY,
        cycles: None,
        clock: None,
    };

    fn min(self, other: PerIteration) -> PerIteration {
        if other.seconds < self.seconds {
            other
        } else {
            self
        }
    }
}

/// The kernels to measure: each supported kernel with the strategy the
/// batch calls would give it (the table's, or the one `JUMPSHARD_DIVISION`
/// forces where the kernel has it), or with every strategy it has.
pub fn measured_kernels(all_divisions: bool) -> Vec<Kernel> {
    Kernel::supported()
        .into_iter()
        .flat_map(|k| {
            let divisions: Vec<Division> = if all_divisions {
                k.divisions().to_vec()
            } else {
                vec![crate::commands::kernels::division_when_active(k)]
            };
            divisions
                .into_iter()
                .map(move |d| k.with_division(d).expect("one of its strategies"))
        })
        .collect()
}

/// How many times Figure 1's loop body runs over `keys` at `n`: the work
/// each lane does, whatever the kernel.
pub fn lane_iterations(keys: &[u64], n: u32) -> u64 {
    let n = i64::from(n);
    keys.iter()
        .map(|&key| {
            let (mut key, mut j, mut count) = (key, 0i64, 0u64);
            while j < n {
                // Figure 1's `b = j` before the step.
                let b = j;
                key = key
                    .wrapping_mul(jumpshard::verify::LCG_MULTIPLIER)
                    .wrapping_add(1);
                j = ((b + 1) as f64 * ((1u64 << 31) as f64 / ((key >> 33) + 1) as f64)) as i64;
                count += 1;
            }
            count
        })
        .sum()
}

/// A wall-clock time and, on x86-64, the time-stamp counter's ticks.
#[derive(Clone, Copy)]
pub struct Timing {
    pub seconds: f64,
    pub cycles: Option<u64>,
}

impl Timing {
    pub const NONE: Timing = Timing {
        seconds: f64::INFINITY,
        cycles: None,
    };

    pub fn of(f: impl FnOnce()) -> Timing {
        let start_ticks = clock::ticks();
        let start = Instant::now();
        f();
        let seconds = start.elapsed().as_secs_f64();
        let cycles = start_ticks.and_then(|t| clock::ticks().map(|u| u.wrapping_sub(t)));
        Timing { seconds, cycles }
    }

    pub fn min(self, other: Timing) -> Timing {
        if other.seconds < self.seconds {
            other
        } else {
            self
        }
    }
}

/// The median of `values` (the mean of the middle two for an even count).
pub fn median(values: impl Iterator<Item = f64>) -> f64 {
    let mut v: Vec<f64> = values.collect();
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    if v.len() % 2 == 1 {
        v[mid]
    } else {
        (v[mid - 1] + v[mid]) / 2.0
    }
}

/// The header line that names the machine: CPU, load, strategies.
pub fn machine_line() -> String {
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "?".into());
    format!("CPU: {}; load {load}", Cpu::this())
}

fn print_table(out: &mut Stdout, rows: &[Row], keys: usize, repeat: u32) -> Result<(), String> {
    writeln!(
        out,
        "jumpshard bench: {} random keys, 1 thread, fastest call of {} keys (Figure 1: slice of {}) over {} repetitions, {}",
        keys,
        keys.min(KERNEL_CALL),
        keys.min(REFERENCE_SLICE),
        repeat,
        std::env::consts::ARCH
    )?;
    writeln!(out, "{}", machine_line())?;
    writeln!(
        out,
        "{:<10} {:<8} {:>12} {:>12} {:>10} {:>14} {:>14}",
        "kernel", "division", "N", "Mkeys/s", "vs Fig. 1", "ticks/lane-it", "cycles/lane-it"
    )?;
    let two = |c: Option<f64>| c.map_or("-".to_owned(), |c| format!("{c:.2}"));
    for r in rows {
        writeln!(
            out,
            "{:<10} {:<8} {:>12} {:>12.1} {:>9.2}x {:>14} {:>14}",
            r.kernel,
            r.division,
            r.buckets,
            r.mkeys_per_s,
            r.ratio_vs_reference,
            two(r.cycles_per_lane_iteration),
            two(r.core_cycles_per_lane_iteration)
        )?;
    }
    writeln!(
        out,
        "(ticks: time-stamp counter, at the CPU's nominal clock; cycles: core clock, estimated from a chain of 3-cycle multiplies timed right after each measurement)"
    )?;
    Ok(())
}
