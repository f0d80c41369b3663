//! The one error type of the library.

use core::fmt;

use crate::kernel::names::{DIVISIONS, KERNELS};

/// Everything the library can refuse, each naming the offending value.
///
/// ```
/// use jumpshard::{BucketCount, Error};
///
/// let err = BucketCount::try_from(0i64).unwrap_err();
/// assert_eq!(err, Error::InvalidBucketCount { value: 0 });
/// assert_eq!(
///     err.to_string(),
///     "invalid bucket count 0: it must be between 1 and 2147483647"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A bucket count outside `1..=2^31-1`, the range Figure 1's `int32_t`
    /// parameter can hold and the loop can answer.
    InvalidBucketCount {
        /// The rejected count, widened so that any integer type fits.
        value: i128,
    },
    /// An output slice whose length differs from the input's.
    LengthMismatch {
        /// Number of input keys.
        keys: usize,
        /// Length of the output slice.
        out: usize,
    },
    /// A kernel name that is not one of [`crate::Kernel::NAMES`].
    UnknownKernel {
        /// The name that was asked for.
        name: String,
    },
    /// A known kernel that this CPU cannot run.
    UnsupportedKernel {
        /// The kernel's name.
        name: &'static str,
    },
    /// A division strategy name that is not one of
    /// [`crate::Division::NAMES`].
    UnknownDivision {
        /// The name that was asked for.
        name: String,
    },
    /// A division strategy that a kernel does not have (the scalar and
    /// NEON kernels only divide).
    UnsupportedDivision {
        /// The kernel's name.
        kernel: &'static str,
        /// The strategy's name.
        division: &'static str,
    },
    /// A resize from a bucket count to itself: nothing can move, so a plan
    /// for it is almost certainly a mistake in the caller's arguments.
    SameBucketCount {
        /// The count given as both the old and the new one.
        value: u32,
    },
    /// A byte-key offsets array whose length is not one more than the
    /// number of keys.
    OffsetCount {
        /// Number of offsets given.
        offsets: usize,
        /// Number of keys (the output's length); `keys + 1` offsets are needed.
        keys: usize,
    },
    /// A byte-key offset that is negative or past the end of the data.
    OffsetOutOfRange {
        /// Its index in the offsets array.
        index: usize,
        /// The offset, widened so that any integer type fits.
        offset: i128,
        /// The length of the data buffer.
        data_len: usize,
    },
    /// A byte-key offset smaller than the one before it.
    OffsetDecreasing {
        /// Its index in the offsets array.
        index: usize,
        /// The offset.
        offset: i128,
        /// The offset before it.
        previous: i128,
    },
    /// A bucket beyond a Memento cluster's b-array.
    NotABucket {
        /// The bucket.
        bucket: u32,
        /// The b-array size.
        barray: u32,
    },
    /// A removal of a bucket already removed.
    AlreadyRemoved {
        /// The bucket.
        bucket: u32,
    },
    /// A removal of the only working bucket left.
    LastWorkingBucket {
        /// The bucket.
        bucket: u32,
    },
    /// A weight that is negative, NaN or infinite.
    InvalidWeight {
        /// Its bucket.
        index: usize,
        /// The weight, as written.
        weight: String,
    },
    /// Weights that are all zero: no bucket could take a key.
    AllWeightsZero,
    /// A replica set larger than the buckets it is drawn from.
    TooManyReplicas {
        /// The replicas asked for.
        replicas: usize,
        /// The buckets available.
        buckets: u32,
    },
    /// A replica set larger than any set may be
    /// ([`crate::replicas::MAX_REPLICAS`]), whatever the buckets.
    ReplicasOverLimit {
        /// The replicas asked for.
        replicas: usize,
        /// The most members a set may have.
        limit: usize,
    },
    /// A removal list whose first removal is the b-array's last bucket,
    /// which is a shrink, never remembered.
    ShrinkInRemovals {
        /// The bucket.
        bucket: u32,
    },
    /// A load factor that is NaN or not greater than 1 (infinity is
    /// allowed: loads then never bound anything).
    InvalidLoadFactor {
        /// The factor, as written.
        value: String,
    },
    /// A preference walk of no member, or of more than
    /// [`crate::replicas::MAX_REPLICAS`].
    InvalidWalk {
        /// The walk's length asked for.
        walk: usize,
        /// The longest walk allowed.
        limit: usize,
    },
    /// A release of a node whose load is already 0.
    NoLoad {
        /// The node.
        node: u32,
    },
    /// A bounded-load router over a b-array larger than it counts
    /// ([`crate::placement::MAX_NODES`]).
    RouterTooLarge {
        /// The b-array's buckets the router would count.
        buckets: u32,
        /// The most it counts.
        limit: u32,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidBucketCount { value } => write!(
                f,
                "invalid bucket count {value}: it must be between 1 and {}",
                i32::MAX
            ),
            Error::LengthMismatch { keys, out } => write!(
                f,
                "output length {out} does not match the {keys} input keys"
            ),
            Error::UnknownKernel { name } => write!(
                f,
                "unknown kernel {name:?}: expected one of {}",
                KERNELS.join(", ")
            ),
            Error::UnsupportedKernel { name } => {
                write!(f, "kernel {name} is not supported by this CPU")
            }
            Error::UnknownDivision { name } => write!(
                f,
                "unknown division strategy {name:?}: expected one of {}",
                DIVISIONS.join(", ")
            ),
            Error::UnsupportedDivision { kernel, division } => {
                write!(f, "kernel {kernel} has no {division} division strategy")
            }
            Error::SameBucketCount { value } => write!(
                f,
                "the old and the new bucket count are both {value}: no key can move"
            ),
            Error::OffsetCount { offsets, keys } => write!(
                f,
                "{offsets} offsets for {keys} byte keys: expected {}",
                *keys as u128 + 1
            ),
            Error::OffsetOutOfRange {
                index,
                offset,
                data_len,
            } => write!(
                f,
                "offset {offset} at index {index} is outside the {data_len}-byte data buffer"
            ),
            Error::OffsetDecreasing {
                index,
                offset,
                previous,
            } => write!(
                f,
                "offset {offset} at index {index} is smaller than the offset {previous} before it"
            ),
            Error::NotABucket { bucket, barray: 0 } => {
                write!(
                    f,
                    "bucket {bucket} does not exist: the cluster has no bucket"
                )
            }
            Error::NotABucket { bucket, barray } => write!(
                f,
                "bucket {bucket} does not exist: the cluster has buckets 0 to {}",
                barray - 1
            ),
            Error::AlreadyRemoved { bucket } => write!(f, "bucket {bucket} is already removed"),
            Error::LastWorkingBucket { bucket } => write!(
                f,
                "bucket {bucket} is the last working bucket: a cluster keeps at least one"
            ),
            Error::InvalidWeight { index, weight } => write!(
                f,
                "weight {weight} of bucket {index}: weights must be finite and not negative"
            ),
            Error::AllWeightsZero => {
                f.write_str("every weight is zero: at least one bucket must take keys")
            }
            Error::ReplicasOverLimit { replicas, limit } => write!(
                f,
                "{replicas} replicas asked: a set holds at most {limit} members"
            ),
            Error::TooManyReplicas { replicas, buckets } => write!(
                f,
                "{replicas} replicas asked of {buckets} buckets: a set holds distinct buckets"
            ),
            Error::ShrinkInRemovals { bucket } => write!(
                f,
                "the first removal, of the last bucket {bucket}, shrinks the cluster and is not \
                 remembered: describe the cluster with {bucket} buckets instead"
            ),
            Error::InvalidLoadFactor { value } => write!(
                f,
                "load factor {value}: it must be a number greater than 1 (inf allowed)"
            ),
            Error::InvalidWalk { walk, limit } => write!(
                f,
                "a walk of {walk} nodes: it must hold between 1 and {limit}"
            ),
            Error::NoLoad { node } => {
                write!(f, "node {node} has no load to release")
            }
            Error::RouterTooLarge { buckets, limit } => write!(
                f,
                "a bounded-load router keeps a counter per bucket: {buckets} buckets \
                 are more than its limit of {limit}"
            ),
        }
    }
}

impl std::error::Error for Error {}
