//! Answers in the order keys finish, written back to `out` in batches.
//!
//! Keys finish out of order, a few per iteration. Rather than scattering
//! each answer as it comes (slower: see docs/kernels.md) or branching per
//! finished lane (unpredictable), a kernel packs each finished lane as
//! `(position << 32) | bucket` and appends a whole vector of them, finished
//! lanes first, with one unconditional store; only the count of finished
//! lanes advances the fill level. A scalar loop the branch predictor
//! follows easily copies them to `out`, a few each round
//! ([`Outbox::trickle`]) and the rest when the outbox fills or the batch
//! ends ([`Outbox::flush`]).

/// Packs a position and an answer: the position must be below 2^32, which
/// the kernels ensure by working on chunks of at most [`CHUNK`] keys.
pub(super) const CHUNK: usize = 1 << 32;

/// The bits of the double `2^52`: adding `2^52` to an integer-valued double
/// `b < 2^52` gives the double whose bits are `PACK_BIAS + b`, so that an
/// integer add of `(position << 32) - PACK_BIAS` packs the answer.
pub(super) const PACK_BIAS: u64 = 0x4330_0000_0000_0000;

/// `2^52`, whose bits are [`PACK_BIAS`].
pub(super) const PACK_BIAS_F64: f64 = 4_503_599_627_370_496.0;
const _: () = assert!(PACK_BIAS_F64.to_bits() == PACK_BIAS);

/// What a lane at `position` holds to pack its answer with one add.
#[inline]
pub(super) fn packed_position(position: usize) -> u64 {
    ((position as u64) << 32).wrapping_sub(PACK_BIAS)
}

/// Packed answers waiting to be written.
pub(super) struct Outbox {
    packed: [u64; Outbox::CAPACITY],
    len: usize,
    /// The answers before this one are already in `out`.
    written: usize,
}

impl Outbox {
    const CAPACITY: usize = 512;
    /// Answers [`Outbox::trickle`] writes at a time: 16 measured ahead of 8
    /// and 24, level with 32 (see docs/kernels.md).
    const TRICKLE: usize = 16;

    pub(super) fn new() -> Outbox {
        Outbox {
            packed: [0; Outbox::CAPACITY],
            len: 0,
            written: 0,
        }
    }

    /// Flushes to `out` unless `reserve` slots are free. Kernels reserve
    /// for a whole round (every group's full vector) so that the check runs
    /// once a round, not once a vector.
    #[inline]
    pub(super) fn make_room(&mut self, reserve: usize, out: &mut [u32]) {
        if self.len + reserve > Outbox::CAPACITY {
            self.flush(out);
        }
    }

    /// The `width` slots at the fill level (bounds-checked: a kernel that
    /// reserved too little panics instead of writing out of bounds).
    #[inline]
    pub(super) fn slots(&mut self, width: usize) -> &mut [u64] {
        &mut self.packed[self.len..self.len + width]
    }

    /// Keeps the first `count` slots returned by [`Outbox::slots`].
    #[inline]
    pub(super) fn commit(&mut self, count: usize) {
        self.len += count;
    }

    /// Writes every waiting answer to `out`.
    #[inline]
    pub(super) fn flush(&mut self, out: &mut [u32]) {
        write(&self.packed[self.written..self.len], out);
        self.len = 0;
        self.written = 0;
    }

    /// Writes the oldest [`Outbox::TRICKLE`] waiting answers, if there are
    /// that many. Kernels call it once a round, so that the copy, scalar
    /// work on other ports, overlaps their vector work instead of stopping
    /// it for a whole outbox at a time. The test holds in most rounds, and
    /// when it fails the backlog is small.
    #[inline]
    pub(super) fn trickle(&mut self, out: &mut [u32]) {
        if self.len - self.written >= Outbox::TRICKLE {
            let start = self.written;
            write(&self.packed[start..start + Outbox::TRICKLE], out);
            self.written = start + Outbox::TRICKLE;
        }
    }
}

/// Writes each packed answer to its position in `out`.
#[inline]
fn write(packed: &[u64], out: &mut [u32]) {
    for &p in packed {
        out[(p >> 32) as usize] = p as u32;
    }
}
