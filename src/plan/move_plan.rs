//! The moves of one batch, as columns.

use std::ops::Range;

use crate::plan::{DestinationCounts, PlanScratch};

/// One moving key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// The key's position in the input.
    pub position: u64,
    /// Its bucket among the old count.
    pub from: u32,
    /// Its bucket among the new count.
    pub to: u32,
}

/// The moving keys of one batch, in input order, with the number of keys
/// per destination bucket. Stored as columns (positions, from, to) so that
/// they can be written out or gathered in bulk; reused across batches, it
/// keeps its buffers.
#[derive(Clone, Debug, Default)]
pub struct MovePlan {
    pub(super) keys: usize,
    pub(super) positions: Vec<u64>,
    pub(super) from: Vec<u32>,
    pub(super) to: Vec<u32>,
    pub(super) per_destination: DestinationCounts,
    /// One block's buckets and movers.
    pub(super) scratch: PlanScratch,
    /// One plan per run of `Resize::plan_parallel`, kept for their buffers.
    #[cfg(feature = "parallel")]
    pub(super) parts: Vec<MovePlan>,
}

impl MovePlan {
    /// An empty plan, to be filled by [`Resize::plan`](crate::Resize::plan).
    pub fn new() -> MovePlan {
        MovePlan::default()
    }

    /// Empties the plan for `keys` keys, with room for `room` moves to the
    /// buckets `destinations`.
    pub(super) fn reset(&mut self, keys: usize, room: usize, destinations: Range<u32>) {
        self.keys = keys;
        self.positions.clear();
        self.from.clear();
        self.to.clear();
        self.positions.reserve(room);
        self.from.reserve(room);
        self.to.reserve(room);
        self.per_destination.reset(destinations);
    }

    /// The number of keys planned, moving or not.
    pub fn keys(&self) -> usize {
        self.keys
    }

    /// The number of moving keys.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Whether no key moves.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// The moving keys' positions, increasing.
    pub fn positions(&self) -> &[u64] {
        &self.positions
    }

    /// The moving keys' old buckets, one per position.
    pub fn from(&self) -> &[u32] {
        &self.from
    }

    /// The moving keys' new buckets, one per position.
    pub fn to(&self) -> &[u32] {
        &self.to
    }

    /// The moves, in input order.
    pub fn moves(&self) -> impl Iterator<Item = Move> + '_ {
        self.positions
            .iter()
            .zip(&self.from)
            .zip(&self.to)
            .map(|((&position, &from), &to)| Move { position, from, to })
    }

    /// How many moving keys go to each new bucket.
    pub fn per_destination(&self) -> &DestinationCounts {
        &self.per_destination
    }
}
