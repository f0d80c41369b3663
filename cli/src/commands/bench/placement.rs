//! `jumpshard bench --placement`: what the calls built on Figure 1 cost,
//! as users call them: the plain batch, Memento after removals, replica
//! sets (plain, after Memento removals, across zones), weighted tables, the
//! bounded-load router, each over the same random keys at N = 1000 and as a
//! ratio to the C++ Figure 1 on those keys in the same run.
//!
//! Each repetition times, for every call in turn, Figure 1 over all the
//! keys and then the call over the same keys, back to back; a call's ratio
//! is the median over the repetitions of Figure 1's time over the call's,
//! and its ns per key the median of its times. Timing the two alternately
//! lets a busy neighbour slow both of a pair rather than one side of the
//! ratio, and the median drops the pairs it slowed unevenly.
//!
//! The calls are the rows of [`CALLS`]; a new one is a line there.

use std::hint::black_box;
use std::time::Instant;

use jumpshard::placement::BoundedLoads;
use jumpshard::verify::SplitMix64;
use jumpshard::weights::Weights;
use jumpshard::zones::ZonedReplicas;
use jumpshard::{reference, replicas, BucketCount, Cpu, Memento, NodeTable};
use serde::Serialize;

use super::buffers;
use super::kernels::{machine_line, median};
use crate::out::stdout::Stdout;

/// The bucket count of every call: a cluster of a thousand nodes.
const N: u32 = 1000;

/// One call the bench measures.
#[derive(Clone, Copy)]
pub enum Call {
    /// `jumpshard::batch`.
    Batch,
    /// `Memento::batch` with this percentage of the buckets removed.
    Memento(u32),
    /// `replicas::batch`, sets of this many.
    Replicas(usize),
    /// `Memento::replicas_batch`: sets of `.0` with `.1` percent removed.
    MementoReplicas(usize, u32),
    /// `Weights::batch` over one of the weight mixes.
    Weights(Mix),
    /// `ZonedReplicas::batch`: sets of `.0` on a table of `N` nodes dealt
    /// round-robin to `.1` zones.
    Zoned(usize, usize),
    /// `BoundedLoads::acquire` and `release` of each key, one at a time,
    /// with load factor `c` = 1.25 and 100 requests per node in flight.
    Bounded,
    /// `BoundedLoads::acquire_batch` of [`BOUNDED_BLOCK`] keys at a time,
    /// then `release_batch` of their nodes, on a router loaded as
    /// [`Call::Bounded`]'s.
    BoundedBatch,
}

/// The keys of one `acquire_batch` in [`Call::BoundedBatch`]: a service's
/// batch of requests, and few enough that the load in flight stays that
/// of the one-by-one row.
const BOUNDED_BLOCK: usize = 256;

/// The weights of a weighted table of `N` nodes.
#[derive(Clone, Copy)]
pub enum Mix {
    /// Every node weight 1.
    Equal,
    /// Odd nodes weight 4, even ones 1: hosts of two sizes.
    OneAndFour,
    /// Node 0 at 100, the others 1: one big node.
    OneAt100,
    /// Odd nodes at 0, even ones 1: half the cluster drained.
    HalfDrained,
}

/// The rows of the table, in order.
pub const CALLS: [Call; 17] = [
    Call::Batch,
    Call::Memento(0),
    Call::Memento(1),
    Call::Memento(10),
    Call::Memento(50),
    Call::Memento(99),
    Call::Replicas(3),
    Call::MementoReplicas(3, 10),
    Call::Weights(Mix::Equal),
    Call::Weights(Mix::OneAndFour),
    Call::Weights(Mix::OneAt100),
    Call::Weights(Mix::HalfDrained),
    Call::Zoned(3, 3),
    Call::Zoned(3, 5),
    Call::Zoned(3, 12),
    Call::Bounded,
    Call::BoundedBatch,
];

impl Call {
    /// The row's name, as the table, the JSON and the chart show it.
    pub fn name(self) -> String {
        match self {
            Call::Batch => "batch".into(),
            Call::Memento(p) => format!("Memento::batch, {p}% removed"),
            Call::Replicas(k) => format!("replicas::batch, k = {k}"),
            Call::MementoReplicas(k, p) => {
                format!("Memento::replicas_batch, k = {k}, {p}% removed")
            }
            Call::Weights(mix) => format!("Weights::batch, {}", mix.name()),
            Call::Zoned(k, zones) => format!("ZonedReplicas::batch, k = {k}, {zones} zones"),
            Call::Bounded => "BoundedLoads acquire+release, c = 1.25".into(),
            Call::BoundedBatch => "BoundedLoads acquire_batch+release_batch, c = 1.25".into(),
        }
    }

    /// The node table the call draws from, if it needs one: the zoned
    /// calls' `N` nodes `n0`, `n1`, ... dealt round-robin to zones `z0`,
    /// `z1`, ... Built apart from [`Call::prepare`] because the prepared
    /// call borrows it.
    fn table(self) -> Result<Option<NodeTable>, String> {
        let Call::Zoned(_, zones) = self else {
            return Ok(None);
        };
        let lines: String = (0..N)
            .map(|i| format!("n{i} zone=z{}\n", i as usize % zones))
            .collect();
        NodeTable::parse(&lines)
            .map(Some)
            .map_err(|e| e.to_string())
    }

    /// What the call needs, built before any timing; `table` is what
    /// [`Call::table`] built for it.
    fn prepare<'t>(self, table: Option<&'t NodeTable>) -> Result<Prepared<'t>, String> {
        let n = BucketCount::new(N).map_err(|e| e.to_string())?;
        let memento = |percent: u32| removed(n, percent);
        Ok(match self {
            Call::Batch => Prepared::Batch(n),
            Call::Memento(p) => Prepared::Memento(memento(p)?),
            Call::Replicas(k) => Prepared::Replicas(n, k),
            Call::MementoReplicas(k, p) => Prepared::MementoReplicas(memento(p)?, k),
            Call::Weights(mix) => {
                Prepared::Weights(Weights::new(&mix.weights()).map_err(|e| e.to_string())?)
            }
            Call::Zoned(k, _) => {
                let table = table.expect("a zoned call's table is built");
                let zoned = table.zoned_replicas().map_err(|e| e.to_string())?;
                zoned.check(k).map_err(|e| e.to_string())?;
                Prepared::Zoned(zoned, k)
            }
            Call::Bounded => Prepared::Bounded(loaded_router(n)?),
            Call::BoundedBatch => Prepared::BoundedBatch(loaded_router(n)?),
        })
    }
}

impl Mix {
    fn name(self) -> &'static str {
        match self {
            Mix::Equal => "all weights equal",
            Mix::OneAndFour => "half weight 1, half weight 4",
            Mix::OneAt100 => "one node at 100x",
            Mix::HalfDrained => "half drained to 0",
        }
    }

    fn weights(self) -> Vec<f64> {
        (0..N)
            .map(|i| match self {
                Mix::Equal => 1.0,
                Mix::OneAndFour => [1.0, 4.0][i as usize % 2],
                Mix::OneAt100 if i == 0 => 100.0,
                Mix::OneAt100 => 1.0,
                Mix::HalfDrained => [1.0, 0.0][i as usize % 2],
            })
            .collect()
    }
}

/// A Memento of `n` buckets with `percent` of them removed, in a fixed
/// random order (never the last bucket, whose removal shrinks the array
/// instead of being remembered).
fn removed(n: BucketCount, percent: u32) -> Result<Memento, String> {
    let mut order = SplitMix64::new(99);
    let mut memento = Memento::new(n);
    let target = (u64::from(n.get()) * u64::from(percent) / 100) as usize;
    while memento.removals().len() < target {
        let b = (order.next_u64() % u64::from(n.get())) as u32;
        if !memento.is_removed(b) && b != n.get() - 1 {
            memento.remove(b).map_err(|e| e.to_string())?;
        }
    }
    Ok(memento)
}

/// A bounded-load router over `n` nodes with c = 1.25 and 100 requests
/// per node held (a bound of 125), as a busy service runs it.
fn loaded_router(n: BucketCount) -> Result<BoundedLoads, String> {
    let router = BoundedLoads::new(Memento::new(n), 1.25).map_err(|e| e.to_string())?;
    for key in SplitMix64::new(0xB0B).keys(100 * n.get() as usize) {
        router.acquire(key);
    }
    Ok(router)
}

/// A call ready to run, borrowing its node table if it has one.
enum Prepared<'t> {
    Batch(BucketCount),
    Memento(Memento),
    Replicas(BucketCount, usize),
    MementoReplicas(Memento, usize),
    Weights(Weights),
    Zoned(ZonedReplicas<'t>, usize),
    Bounded(BoundedLoads),
    BoundedBatch(BoundedLoads),
}

impl Prepared<'_> {
    /// Runs the call over `keys` into `out` (and, for replica sets, the
    /// first `k` of `columns`).
    fn run(&self, keys: &[u64], out: &mut [u32], columns: &mut [Vec<u32>]) {
        let done = match self {
            Prepared::Batch(n) => jumpshard::batch(keys, *n, out),
            Prepared::Memento(m) => m.batch(keys, out),
            Prepared::Replicas(n, k) => replicas::batch(keys, *n, &mut first(columns, *k)),
            Prepared::MementoReplicas(m, k) => m.replicas_batch(keys, &mut first(columns, *k)),
            Prepared::Weights(w) => w.batch(keys, out),
            Prepared::Zoned(z, k) => {
                z.batch(keys, &mut first(columns, *k))
                    .expect("lengths and set sizes checked");
                Ok(())
            }
            Prepared::Bounded(router) => keys.iter().zip(out).try_for_each(|(&key, o)| {
                *o = router.acquire(key);
                router.release(*o)
            }),
            Prepared::BoundedBatch(router) => keys
                .chunks(BOUNDED_BLOCK)
                .zip(out.chunks_mut(BOUNDED_BLOCK))
                .try_for_each(|(keys, out)| {
                    router.acquire_batch(keys, out)?;
                    router.release_batch(out)
                }),
        };
        done.expect("lengths and set sizes checked");
    }

    /// The replica columns it needs.
    fn columns(&self) -> usize {
        match self {
            Prepared::Replicas(_, k) | Prepared::MementoReplicas(_, k) | Prepared::Zoned(_, k) => {
                *k
            }
            _ => 0,
        }
    }
}

/// The first `k` columns, as the replica calls take them.
fn first(columns: &mut [Vec<u32>], k: usize) -> Vec<&mut [u32]> {
    columns[..k].iter_mut().map(|c| &mut c[..]).collect()
}

/// One row of the report.
#[derive(Serialize)]
pub struct PlacementRow {
    /// What was called.
    pub call: String,
    /// The call's time per key, median of the repetitions.
    pub ns_per_key: f64,
    /// Figure 1's time per key on the same keys, median.
    pub reference_ns_per_key: f64,
    /// Figure 1's time over the call's, median of the repetitions.
    pub ratio_vs_reference: f64,
    /// This ratio over the plain batch's: the fraction of `batch`'s speed.
    pub fraction_of_batch: f64,
}

/// The whole report, as `--json` prints it.
#[derive(Serialize)]
pub struct Report {
    /// The CPU, as `jumpshard kernels` names it.
    pub cpu: String,
    /// The kernel the calls ran on, with its division strategy.
    pub kernel: String,
    pub buckets: u32,
    pub keys: usize,
    pub repetitions: u32,
    pub rows: Vec<PlacementRow>,
}

/// Measures every call of [`CALLS`] on `keys` random keys, median of
/// `repeat`, prints the table (or JSON) and returns the report.
pub fn run(keys: usize, repeat: u32, json: bool) -> Result<Report, String> {
    let mut stdout = Stdout::open()?;
    let tables: Vec<Option<NodeTable>> =
        CALLS.iter().map(|c| c.table()).collect::<Result<_, _>>()?;
    let calls: Vec<Prepared> = CALLS
        .iter()
        .zip(&tables)
        .map(|(c, table)| c.prepare(table.as_ref()))
        .collect::<Result<_, _>>()?;
    let asked = format!("--keys {keys}");
    let keys = buffers::random_keys(0x91ACE, keys, &asked)?;
    let mut out = buffers::filled(keys.len(), 0u32, &asked)?;
    let mut out_ref = buffers::filled(keys.len(), 0i32, &asked)?;
    let widest = calls.iter().map(Prepared::columns).max().unwrap_or(0);
    let mut columns = (0..widest)
        .map(|_| buffers::filled(keys.len(), 0u32, &asked))
        .collect::<Result<Vec<_>, _>>()?;
    // Per call, per repetition: (Figure 1's seconds, the call's).
    let mut samples = vec![Vec::with_capacity(repeat as usize); calls.len()];
    // One untimed pass first: the outputs' pages are mapped on first
    // write, and the tables warm, before any call is timed.
    reference::batch(&keys, N as i32, &mut out_ref);
    for call in &calls {
        call.run(&keys, &mut out, &mut columns);
    }
    for _ in 0..repeat {
        for (call, samples) in calls.iter().zip(&mut samples) {
            let reference = seconds(|| {
                reference::batch(black_box(&keys), N as i32, &mut out_ref);
                black_box(&mut out_ref);
            });
            let it = seconds(|| {
                call.run(black_box(&keys), &mut out, &mut columns);
                black_box((&mut out, &mut columns));
            });
            samples.push((reference, it));
        }
    }
    let per_key = |s: f64| s * 1e9 / keys.len() as f64;
    let mut rows: Vec<PlacementRow> = CALLS
        .iter()
        .zip(&samples)
        .map(|(call, s)| PlacementRow {
            call: call.name(),
            ns_per_key: per_key(median(s.iter().map(|p| p.1))),
            reference_ns_per_key: per_key(median(s.iter().map(|p| p.0))),
            ratio_vs_reference: median(s.iter().map(|p| p.0 / p.1)),
            fraction_of_batch: f64::NAN,
        })
        .collect();
    // The plain batch is the first row.
    let batch = rows[0].ratio_vs_reference;
    for r in &mut rows {
        r.fraction_of_batch = r.ratio_vs_reference / batch;
    }
    let kernel = jumpshard::active_kernel();
    let report = Report {
        cpu: Cpu::this().to_string(),
        kernel: format!("{} ({})", kernel.name(), kernel.division()),
        buckets: N,
        keys: keys.len(),
        repetitions: repeat,
        rows,
    };
    if json {
        writeln!(
            stdout,
            "{}",
            serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?
        )?;
    } else {
        print_table(&mut stdout, &report)?;
    }
    stdout.finish()?;
    Ok(report)
}

fn print_table(out: &mut Stdout, r: &Report) -> Result<(), String> {
    writeln!(
        out,
        "jumpshard bench --placement: N = {}, {} random keys per call, 1 thread, {} kernel, median of {} repetitions, each call timed right after Figure 1 on the same keys",
        r.buckets, r.keys, r.kernel, r.repetitions
    )?;
    writeln!(out, "{}", machine_line())?;
    writeln!(
        out,
        "{:<48} {:>10} {:>10} {:>10}",
        "call", "ns/key", "vs Fig. 1", "vs batch"
    )?;
    for row in &r.rows {
        writeln!(
            out,
            "{:<48} {:>10.2} {:>9.2}x {:>10.3}",
            row.call, row.ns_per_key, row.ratio_vs_reference, row.fraction_of_batch
        )?;
    }
    Ok(())
}

fn seconds(f: impl FnOnce()) -> f64 {
    let start = Instant::now();
    f();
    start.elapsed().as_secs_f64()
}
