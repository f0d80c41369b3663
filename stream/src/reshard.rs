//! Streaming a reshard: every key of a source planned against a resize
//! (bucket counts) or a change of node table, each move appended to a
//! move list in input order when one is given, the counts merged.

use std::io::Write;

use jumpshard::{ChangeCounts, DestinationCounts, MovePlan, NodePlan, Resize, TableChange};

use crate::error::Error;
use crate::moves::{encode_buckets, encode_nodes, MoveWriter};
use crate::pipeline;
use crate::progress::Progress;
use crate::source::Source;

/// How a stream runs: its threads and its chunk size.
#[derive(Clone, Copy, Debug)]
pub struct Workers {
    /// Threads that read and compute.
    pub threads: usize,
    /// Keys per chunk (see [`pipeline::chunk_keys`]).
    pub chunk_keys: usize,
}

impl Workers {
    /// `threads` threads with the automatic chunk size.
    pub fn new(threads: usize) -> Workers {
        Workers {
            threads,
            chunk_keys: pipeline::chunk_keys(threads),
        }
    }
}

/// Plans `resize` over `source`, appending each move to `moves` when
/// given; returns the number of keys and the moves per destination.
///
/// ```
/// use std::sync::Arc;
/// use jumpshard::{BucketCount, Resize};
/// use jumpshard_stream::moves::{MoveFormat, MoveId, MoveWriter};
/// use jumpshard_stream::{reshard, InMemory, NoProgress, Source};
///
/// let resize = Resize::new(BucketCount::new(10)?, BucketCount::new(12)?)?;
/// let keys: Vec<u64> = (0..1000).collect();
/// let source = Source::Positional(Box::new(InMemory(Arc::from(keys))));
/// let mut list = MoveWriter::new(Vec::new(), "moves", MoveFormat::Csv, MoveId::Key, None)?;
/// let (read, counts) =
///     reshard::resize(resize, source, reshard::Workers::new(2), &NoProgress, Some(&mut list))?;
/// let text = String::from_utf8(list.finish()?)?;
/// assert_eq!(read, 1000);
/// assert_eq!(text.lines().count() as u64, 1 + counts.total());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn resize<W: Write + Send>(
    resize: Resize,
    source: Source,
    workers: Workers,
    progress: &dyn Progress,
    mut moves: Option<&mut MoveWriter<W>>,
) -> Result<(u64, DestinationCounts), Error> {
    let mut total = DestinationCounts::new(resize);
    let encoding = moves.as_ref().map(|m| (m.format(), m.id()));
    let keys = pipeline::run(
        source,
        workers.chunk_keys,
        workers.threads,
        progress,
        |chunk, part: &mut BucketPart| {
            resize.plan(&chunk.keys, chunk.first, &mut part.plan);
            part.record.clear();
            part.ids.clear();
            let Some((format, id)) = encoding else {
                return;
            };
            for m in part.plan.moves() {
                let id = id.of(m.position, chunk.first, &chunk.keys);
                if format.columnar() {
                    part.ids.push(id);
                } else {
                    encode_buckets(&mut part.record, format, id, m.from, m.to);
                }
            }
        },
        |_, part| {
            total.merge(part.plan.per_destination());
            match moves.as_mut() {
                Some(m) if m.format().columnar() => {
                    m.write_columns(&part.ids, part.plan.from(), part.plan.to())
                }
                Some(m) => m.write_bytes(&part.record),
                None => Ok(()),
            }
        },
    )?;
    Ok((keys, total))
}

/// One chunk's plan and its records in the move list.
#[derive(Default)]
struct BucketPart {
    plan: MovePlan,
    record: Vec<u8>,
    /// The moving keys' ids, for a columnar move list.
    ids: Vec<u64>,
}

/// Plans `change` over `source`, appending each physical move (between
/// nodes) to `moves` when given (whose node names must be
/// `change.nodes()`); returns the counts.
pub fn table_change<W: Write + Send>(
    change: &TableChange,
    source: Source,
    workers: Workers,
    progress: &dyn Progress,
    mut moves: Option<&mut MoveWriter<W>>,
) -> Result<ChangeCounts, Error> {
    let mut total = ChangeCounts::new(change);
    let encoding = moves.as_ref().map(|m| (m.format(), m.id()));
    let names = change.nodes();
    pipeline::run(
        source,
        workers.chunk_keys,
        workers.threads,
        progress,
        |chunk, part: &mut NodePart| {
            change.plan(&chunk.keys, chunk.first, &mut part.plan, encoding.is_some());
            part.record.clear();
            part.ids.clear();
            part.from.clear();
            part.to.clear();
            let Some((format, id)) = encoding else {
                return;
            };
            for m in part.plan.moves() {
                let id = id.of(m.position, chunk.first, &chunk.keys);
                if format.columnar() {
                    part.ids.push(id);
                    part.from.push(m.from);
                    part.to.push(m.to);
                } else {
                    let from = (m.from, names[m.from as usize].as_str());
                    let to = (m.to, names[m.to as usize].as_str());
                    encode_nodes(&mut part.record, format, id, from, to);
                }
            }
        },
        |_, part| {
            total.merge(part.plan.counts());
            match moves.as_mut() {
                Some(m) if m.format().columnar() => {
                    m.write_columns(&part.ids, &part.from, &part.to)
                }
                Some(m) => m.write_bytes(&part.record),
                None => Ok(()),
            }
        },
    )?;
    Ok(total)
}

/// One chunk's plan and its part of the move list.
#[derive(Default)]
struct NodePart {
    plan: NodePlan,
    record: Vec<u8>,
    ids: Vec<u64>,
    from: Vec<u32>,
    to: Vec<u32>,
}
