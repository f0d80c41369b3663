//! The removed buckets of a [`super::Memento`]: for each, the working count
//! right after its removal, its resolved replacer and the bucket removed
//! before it, with a membership test cheap enough to run once per key of a
//! batch, and, for b-arrays up to [`LINK_LIMIT`] buckets, a table of links
//! indexed by bucket that the lanes gather from.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// What a lookup needs of one removed bucket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Link {
    /// The working count right after the removal: keys of this bucket are
    /// rehashed into `0..working`.
    pub(super) working: u32,
    /// The bucket that took this one's place at its removal: the bucket
    /// numbered `working`, or, if that one was already removed, where its
    /// own replacers led. Stored resolved so that a lookup after many
    /// removals follows one step where the plain chain would take many.
    pub(super) replacer: u32,
}

impl Link {
    /// The link as one table word: `working` in the low half (never 0,
    /// as one bucket always works, so 0 marks a bucket not removed),
    /// `replacer` in the high half.
    fn word(self) -> u64 {
        u64::from(self.working) | u64::from(self.replacer) << 32
    }

    fn of_word(word: u64) -> Option<Link> {
        (word != 0).then_some(Link {
            working: word as u32,
            replacer: (word >> 32) as u32,
        })
    }
}

/// What is remembered of one removed bucket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Entry {
    pub(super) link: Link,
    /// The bucket removed just before this one (the b-array size if none),
    /// restored after it.
    pub(super) previous: u32,
}

/// b-array sizes up to which membership is a bitmap (16 MiB at most);
/// beyond, the map alone answers, so that a few removals from 2^31 - 1
/// buckets do not cost 256 MiB.
const BITMAP_LIMIT: u32 = 1 << 27;

/// b-array sizes up to which the links are also a table indexed by bucket
/// (8 bytes a bucket, 32 MiB at most), made at the first removal.
pub(super) const LINK_LIMIT: u32 = 1 << 22;

/// The removed buckets, newest last in `order`.
#[derive(Clone, Debug, Default)]
pub(super) struct Removed {
    entries: HashMap<u32, Entry, BuildHasherDefault<BucketHasher>>,
    /// Bit `b` set when bucket `b` is removed; empty above `BITMAP_LIMIT`.
    bitmap: Vec<u64>,
    /// Word `b` is bucket `b`'s [`Link::word`], 0 when it works; empty
    /// until the first removal and above [`LINK_LIMIT`].
    links: Vec<u64>,
    /// The b-array size, which the link table covers.
    barray: u32,
    /// The removed buckets in removal order.
    order: Vec<u32>,
}

impl Removed {
    /// An empty table for a b-array of `barray` buckets.
    pub(super) fn new(barray: u32) -> Removed {
        let mut removed = Removed::default();
        removed.resize(barray);
        removed
    }

    /// Makes the bitmap fit a b-array of `barray` buckets (it only changes
    /// while nothing is removed).
    pub(super) fn resize(&mut self, barray: u32) {
        debug_assert!(self.order.is_empty());
        let words = if barray <= BITMAP_LIMIT {
            (barray as usize).div_ceil(64)
        } else {
            0
        };
        self.bitmap.clear();
        self.bitmap.resize(words, 0);
        self.links = Vec::new();
        self.barray = barray;
    }

    pub(super) fn len(&self) -> usize {
        self.order.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// The removed buckets, oldest first.
    pub(super) fn order(&self) -> &[u32] {
        &self.order
    }

    /// Whether `bucket` is removed.
    #[inline]
    pub(super) fn contains(&self, bucket: u32) -> bool {
        if self.bitmap.is_empty() {
            return self.entries.contains_key(&bucket);
        }
        self.bitmap
            .get(bucket as usize / 64)
            .is_some_and(|word| word >> (bucket % 64) & 1 == 1)
    }

    /// The link of `bucket` if it is removed.
    #[inline]
    pub(super) fn link(&self, bucket: u32) -> Option<Link> {
        if !self.links.is_empty() {
            return Link::of_word(self.links.get(bucket as usize).copied().unwrap_or(0));
        }
        if !self.bitmap.is_empty() && !self.contains(bucket) {
            return None;
        }
        self.entries.get(&bucket).map(|e| e.link)
    }

    /// The bitmap (bit `b % 64` of word `b / 64` set when bucket `b` is
    /// removed), covering every bucket of the b-array; `None` over
    /// [`BITMAP_LIMIT`], where [`Removed::contains`] asks the map.
    pub(super) fn bitmap(&self) -> Option<&[u64]> {
        (!self.bitmap.is_empty()).then_some(&self.bitmap[..])
    }

    /// The bitmap (bit `b % 64` of word `b / 64` set when bucket `b` is
    /// removed) and the link table (word `b` is bucket `b`'s
    /// [`Link::word`], 0 when it works), each covering every bucket of the
    /// b-array; `None` when nothing is removed or the b-array is over
    /// [`LINK_LIMIT`].
    pub(super) fn lane_tables(&self) -> Option<(&[u64], &[u64])> {
        (!self.is_empty() && !self.links.is_empty()).then_some((&self.bitmap[..], &self.links[..]))
    }

    pub(super) fn insert(&mut self, bucket: u32, entry: Entry) {
        if let Some(word) = self.bitmap.get_mut(bucket as usize / 64) {
            *word |= 1 << (bucket % 64);
        }
        if self.links.is_empty() && self.barray <= LINK_LIMIT {
            self.links = vec![0; self.barray as usize];
        }
        if let Some(word) = self.links.get_mut(bucket as usize) {
            *word = entry.link.word();
        }
        self.entries.insert(bucket, entry);
        self.order.push(bucket);
    }

    /// Forgets the newest removal, which must be `bucket`.
    pub(super) fn pop(&mut self, bucket: u32) -> Entry {
        debug_assert_eq!(self.order.last(), Some(&bucket));
        self.order.pop();
        if let Some(word) = self.bitmap.get_mut(bucket as usize / 64) {
            *word &= !(1 << (bucket % 64));
        }
        if let Some(word) = self.links.get_mut(bucket as usize) {
            *word = 0;
        }
        self.entries
            .remove(&bucket)
            .expect("the newest removal is remembered")
    }
}

impl PartialEq for Removed {
    fn eq(&self, other: &Removed) -> bool {
        // The order determines every entry (see `Memento::from_removals`).
        self.order == other.order
    }
}

impl Eq for Removed {}

/// A hasher for bucket numbers: one multiply by an odd constant, whose high
/// bits the map uses. Bucket numbers are not attacker-chosen in a way that
/// matters here (they come from a node table the operator writes), and the
/// standard SipHash would cost more than the rest of a lookup.
#[derive(Default)]
struct BucketHasher(u64);

impl Hasher for BucketHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0 ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}
