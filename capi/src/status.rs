//! The status codes, their messages, and how library errors map onto them.

use core::ffi::CStr;

use jumpshard::Error;

/// What every fallible function returns: `JUMPSHARD_OK` (0) on success,
/// otherwise one code per kind of error. The values are part of the ABI:
/// new codes may be added, existing ones never change.
/// `jumpshard_status_message` describes any code.
#[allow(non_camel_case_types)] // the C names, as C users spell them
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum jumpshard_status {
    /// Success: the outputs are written.
    JUMPSHARD_OK = 0,
    /// A pointer was NULL where the call needs memory: a buffer with
    /// `len > 0`, a string, or a handle (`jumpshard_memento`,
    /// `jumpshard_weights`).
    JUMPSHARD_ERROR_NULL_POINTER = 1,
    /// `num_buckets` is outside 1..INT32_MAX; Figure 1 has no bucket for it.
    /// Also a number of weights outside that range, and a restore that
    /// would grow a Memento b-array past INT32_MAX buckets.
    JUMPSHARD_ERROR_INVALID_BUCKET_COUNT = 2,
    /// The kernel name is not one of "scalar", "avx2", "avx512", "neon"
    /// (or is not valid UTF-8).
    JUMPSHARD_ERROR_UNKNOWN_KERNEL = 3,
    /// The kernel is known, but this CPU cannot run it.
    JUMPSHARD_ERROR_UNSUPPORTED_KERNEL = 4,
    /// A Rust panic was caught at the boundary; it is a bug in jumpshard.
    /// The process is intact, but an output buffer's contents are
    /// unspecified after this status.
    JUMPSHARD_ERROR_PANIC = 5,
    /// A buffer pointer is not aligned for its element type (8 bytes for
    /// `uint64_t`, 4 for `int32_t`), or a handle pointer is not aligned
    /// as no handle can be.
    JUMPSHARD_ERROR_MISALIGNED_POINTER = 6,
    /// `len` elements cannot fit in the address space from that pointer
    /// (more than PTRDIFF_MAX bytes, or past the end of memory).
    JUMPSHARD_ERROR_INVALID_LENGTH = 7,
    /// An output buffer overlaps an input buffer (`keys` and `out`, or
    /// `out` and `data` or `offsets`).
    JUMPSHARD_ERROR_OVERLAPPING_BUFFERS = 8,
    /// The `offsets` of a byte-key batch do not cut `data` into `out_len`
    /// keys: not exactly `out_len + 1` of them, one past `data_len`, or one
    /// smaller than the one before.
    JUMPSHARD_ERROR_INVALID_OFFSETS = 9,
    /// More keys move than the plan's output buffers hold (`capacity`);
    /// `*moved` is the number needed, and nothing else is written.
    JUMPSHARD_ERROR_CAPACITY = 10,
    /// The bucket does not exist in the Memento cluster: it is negative or
    /// not below the b-array size (`jumpshard_memento_barray`).
    JUMPSHARD_ERROR_NOT_A_BUCKET = 11,
    /// The bucket is already removed from the Memento cluster.
    JUMPSHARD_ERROR_ALREADY_REMOVED = 12,
    /// The bucket is the Memento cluster's only working bucket, which is
    /// never removed.
    JUMPSHARD_ERROR_LAST_WORKING_BUCKET = 13,
    /// A removal list's first removal is the b-array's last bucket: that
    /// removal shrinks the cluster and is never remembered, so the list
    /// describes a cluster with one bucket fewer.
    JUMPSHARD_ERROR_SHRINK_IN_REMOVALS = 14,
    /// The replica count is out of range: 0, more than there are buckets
    /// (`k` above `num_buckets`: a replica set holds distinct buckets), or
    /// more than 1024, the most members a set may have.
    JUMPSHARD_ERROR_TOO_MANY_REPLICAS = 15,
    /// A bucket weight is negative, NaN or infinite.
    JUMPSHARD_ERROR_INVALID_WEIGHT = 16,
    /// Every bucket weight is zero: no bucket could take a key.
    JUMPSHARD_ERROR_ALL_WEIGHTS_ZERO = 17,
    /// The node-table text is not UTF-8 or not a valid table (its line is
    /// reported where the function says).
    JUMPSHARD_ERROR_INVALID_TABLE = 18,
    /// A bounded-load router's load factor is NaN or not greater than 1
    /// (infinity is allowed).
    JUMPSHARD_ERROR_INVALID_LOAD_FACTOR = 19,
    /// A bounded-load router's walk is 0 or more than 1024 members.
    JUMPSHARD_ERROR_INVALID_WALK = 20,
    /// A release of a node whose load is already 0.
    JUMPSHARD_ERROR_NO_LOAD = 21,
    /// Replica sets were asked of a node table with weights, which sets are
    /// not drawn with.
    JUMPSHARD_ERROR_WEIGHTED_TABLE = 22,
    /// Replica sets were asked of a node table without zones where a node
    /// serves several slots, so a set could hold it twice.
    JUMPSHARD_ERROR_SHARED_NODE = 23,
    /// A zone was asked of a node table that names no zone.
    JUMPSHARD_ERROR_NOT_ZONED = 24,
    /// A bounded-load router over more buckets than it counts (2^24): it
    /// keeps a counter per bucket id.
    JUMPSHARD_ERROR_ROUTER_TOO_LARGE = 25,
}

impl jumpshard_status {
    /// Every status, in code order.
    const ALL: [jumpshard_status; 26] = [
        jumpshard_status::JUMPSHARD_OK,
        jumpshard_status::JUMPSHARD_ERROR_NULL_POINTER,
        jumpshard_status::JUMPSHARD_ERROR_INVALID_BUCKET_COUNT,
        jumpshard_status::JUMPSHARD_ERROR_UNKNOWN_KERNEL,
        jumpshard_status::JUMPSHARD_ERROR_UNSUPPORTED_KERNEL,
        jumpshard_status::JUMPSHARD_ERROR_PANIC,
        jumpshard_status::JUMPSHARD_ERROR_MISALIGNED_POINTER,
        jumpshard_status::JUMPSHARD_ERROR_INVALID_LENGTH,
        jumpshard_status::JUMPSHARD_ERROR_OVERLAPPING_BUFFERS,
        jumpshard_status::JUMPSHARD_ERROR_INVALID_OFFSETS,
        jumpshard_status::JUMPSHARD_ERROR_CAPACITY,
        jumpshard_status::JUMPSHARD_ERROR_NOT_A_BUCKET,
        jumpshard_status::JUMPSHARD_ERROR_ALREADY_REMOVED,
        jumpshard_status::JUMPSHARD_ERROR_LAST_WORKING_BUCKET,
        jumpshard_status::JUMPSHARD_ERROR_SHRINK_IN_REMOVALS,
        jumpshard_status::JUMPSHARD_ERROR_TOO_MANY_REPLICAS,
        jumpshard_status::JUMPSHARD_ERROR_INVALID_WEIGHT,
        jumpshard_status::JUMPSHARD_ERROR_ALL_WEIGHTS_ZERO,
        jumpshard_status::JUMPSHARD_ERROR_INVALID_TABLE,
        jumpshard_status::JUMPSHARD_ERROR_INVALID_LOAD_FACTOR,
        jumpshard_status::JUMPSHARD_ERROR_INVALID_WALK,
        jumpshard_status::JUMPSHARD_ERROR_NO_LOAD,
        jumpshard_status::JUMPSHARD_ERROR_WEIGHTED_TABLE,
        jumpshard_status::JUMPSHARD_ERROR_SHARED_NODE,
        jumpshard_status::JUMPSHARD_ERROR_NOT_ZONED,
        jumpshard_status::JUMPSHARD_ERROR_ROUTER_TOO_LARGE,
    ];

    /// The status with this code; C may pass any `int32_t`, so this is how
    /// a code coming in from C becomes an enum value without undefined
    /// behaviour.
    pub(crate) fn from_code(code: i32) -> Option<jumpshard_status> {
        jumpshard_status::ALL
            .into_iter()
            .find(|&status| status as i32 == code)
    }

    pub(crate) fn message(self) -> &'static CStr {
        use jumpshard_status::*;
        match self {
            JUMPSHARD_OK => c"success",
            JUMPSHARD_ERROR_NULL_POINTER => c"a required pointer argument is NULL",
            JUMPSHARD_ERROR_INVALID_BUCKET_COUNT => {
                c"invalid bucket count: it must be between 1 and 2147483647"
            }
            JUMPSHARD_ERROR_UNKNOWN_KERNEL => {
                c"unknown kernel name: expected one of scalar, avx2, avx512, neon"
            }
            JUMPSHARD_ERROR_UNSUPPORTED_KERNEL => c"the kernel is not supported by this CPU",
            JUMPSHARD_ERROR_PANIC => c"internal error: a panic was caught inside jumpshard",
            JUMPSHARD_ERROR_MISALIGNED_POINTER => {
                c"a buffer pointer is not aligned for its element type"
            }
            JUMPSHARD_ERROR_INVALID_LENGTH => {
                c"the length is larger than any buffer at that address can be"
            }
            JUMPSHARD_ERROR_OVERLAPPING_BUFFERS => c"an output buffer overlaps an input buffer",
            JUMPSHARD_ERROR_INVALID_OFFSETS => {
                c"invalid offsets: they must be out_len + 1 non-decreasing offsets within the data"
            }
            JUMPSHARD_ERROR_CAPACITY => {
                c"the output buffers are too small for the moving keys: *moved is the capacity needed"
            }
            JUMPSHARD_ERROR_NOT_A_BUCKET => {
                c"the bucket does not exist: it must be between 0 and the b-array size minus 1"
            }
            JUMPSHARD_ERROR_ALREADY_REMOVED => c"the bucket is already removed",
            JUMPSHARD_ERROR_LAST_WORKING_BUCKET => {
                c"the bucket is the last working bucket: a cluster keeps at least one"
            }
            JUMPSHARD_ERROR_SHRINK_IN_REMOVALS => {
                c"the first removal is of the last bucket, a shrink that is never remembered: \
                  describe the cluster with one bucket fewer"
            }
            JUMPSHARD_ERROR_TOO_MANY_REPLICAS => {
                c"the replica count is 0, or more than the buckets or than 1024: a replica set holds 1 to 1024 distinct buckets"
            }
            JUMPSHARD_ERROR_INVALID_WEIGHT => {
                c"invalid weight: weights must be finite and not negative"
            }
            JUMPSHARD_ERROR_ALL_WEIGHTS_ZERO => {
                c"every weight is zero: at least one bucket must take keys"
            }
            JUMPSHARD_ERROR_INVALID_TABLE => {
                c"invalid node table: not UTF-8, or a line the table syntax refuses"
            }
            JUMPSHARD_ERROR_INVALID_LOAD_FACTOR => {
                c"invalid load factor: it must be greater than 1 (infinity allowed)"
            }
            JUMPSHARD_ERROR_INVALID_WALK => c"invalid walk: it must hold 1 to 1024 nodes",
            JUMPSHARD_ERROR_NO_LOAD => c"the node has no load to release",
            JUMPSHARD_ERROR_WEIGHTED_TABLE => {
                c"the node table has weights: replica sets are drawn without them"
            }
            JUMPSHARD_ERROR_SHARED_NODE => {
                c"a node serves several slots of a table without zones: a set could hold it twice"
            }
            JUMPSHARD_ERROR_NOT_ZONED => c"the node table names no zone (zone=NAME)",
            JUMPSHARD_ERROR_ROUTER_TOO_LARGE => {
                c"a bounded-load router counts at most 2^24 buckets, one counter each"
            }
        }
    }

    /// The status for a library error.
    pub(super) fn of(error: &Error) -> jumpshard_status {
        match error {
            Error::InvalidBucketCount { .. } => {
                jumpshard_status::JUMPSHARD_ERROR_INVALID_BUCKET_COUNT
            }
            Error::LengthMismatch { .. } => jumpshard_status::JUMPSHARD_ERROR_INVALID_LENGTH,
            Error::UnknownKernel { .. } => jumpshard_status::JUMPSHARD_ERROR_UNKNOWN_KERNEL,
            Error::UnsupportedKernel { .. } => jumpshard_status::JUMPSHARD_ERROR_UNSUPPORTED_KERNEL,
            // Division strategies are chosen from the environment only,
            // never through the C ABI; these map to their kernel kin.
            Error::UnknownDivision { .. } => jumpshard_status::JUMPSHARD_ERROR_UNKNOWN_KERNEL,
            Error::UnsupportedDivision { .. } => {
                jumpshard_status::JUMPSHARD_ERROR_UNSUPPORTED_KERNEL
            }
            Error::SameBucketCount { .. } => jumpshard_status::JUMPSHARD_ERROR_INVALID_BUCKET_COUNT,
            Error::OffsetCount { .. }
            | Error::OffsetOutOfRange { .. }
            | Error::OffsetDecreasing { .. } => jumpshard_status::JUMPSHARD_ERROR_INVALID_OFFSETS,
            Error::NotABucket { .. } => jumpshard_status::JUMPSHARD_ERROR_NOT_A_BUCKET,
            Error::AlreadyRemoved { .. } => jumpshard_status::JUMPSHARD_ERROR_ALREADY_REMOVED,
            Error::LastWorkingBucket { .. } => {
                jumpshard_status::JUMPSHARD_ERROR_LAST_WORKING_BUCKET
            }
            Error::ShrinkInRemovals { .. } => jumpshard_status::JUMPSHARD_ERROR_SHRINK_IN_REMOVALS,
            Error::TooManyReplicas { .. } | Error::ReplicasOverLimit { .. } => {
                jumpshard_status::JUMPSHARD_ERROR_TOO_MANY_REPLICAS
            }
            Error::InvalidWeight { .. } => jumpshard_status::JUMPSHARD_ERROR_INVALID_WEIGHT,
            Error::AllWeightsZero => jumpshard_status::JUMPSHARD_ERROR_ALL_WEIGHTS_ZERO,
            Error::InvalidLoadFactor { .. } => {
                jumpshard_status::JUMPSHARD_ERROR_INVALID_LOAD_FACTOR
            }
            Error::InvalidWalk { .. } => jumpshard_status::JUMPSHARD_ERROR_INVALID_WALK,
            Error::NoLoad { .. } => jumpshard_status::JUMPSHARD_ERROR_NO_LOAD,
            Error::RouterTooLarge { .. } => jumpshard_status::JUMPSHARD_ERROR_ROUTER_TOO_LARGE,
            // The library's errors are non-exhaustive; one this crate does
            // not map yet is a bug here, reported as such.
            _ => jumpshard_status::JUMPSHARD_ERROR_PANIC,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_are_dense() {
        for (code, status) in jumpshard_status::ALL.into_iter().enumerate() {
            assert_eq!(status as i32, code as i32);
            assert_eq!(jumpshard_status::from_code(code as i32), Some(status));
        }
        let past_end = jumpshard_status::ALL.len() as i32;
        for code in [-1, past_end, i32::MIN, i32::MAX] {
            assert_eq!(jumpshard_status::from_code(code), None);
        }
    }

    #[test]
    fn offset_errors_have_their_own_status() {
        let offset_errors = [
            Error::OffsetCount {
                offsets: 0,
                keys: 0,
            },
            Error::OffsetOutOfRange {
                index: 1,
                offset: 5,
                data_len: 4,
            },
            Error::OffsetDecreasing {
                index: 1,
                offset: 0,
                previous: 1,
            },
        ];
        for error in offset_errors {
            let status = jumpshard_status::of(&error);
            assert_eq!(status, jumpshard_status::JUMPSHARD_ERROR_INVALID_OFFSETS);
        }
        assert_eq!(
            jumpshard_status::of(&Error::SameBucketCount { value: 3 }),
            jumpshard_status::JUMPSHARD_ERROR_INVALID_BUCKET_COUNT
        );
    }

    /// Each error of Memento, replica sets and weights has its own status,
    /// never the panic status of an error this crate does not map.
    #[test]
    fn memento_replica_and_weight_errors_have_their_own_status() {
        use jumpshard_status::*;
        let cases = [
            (
                Error::NotABucket {
                    bucket: 7,
                    barray: 3,
                },
                JUMPSHARD_ERROR_NOT_A_BUCKET,
            ),
            (
                Error::AlreadyRemoved { bucket: 1 },
                JUMPSHARD_ERROR_ALREADY_REMOVED,
            ),
            (
                Error::LastWorkingBucket { bucket: 1 },
                JUMPSHARD_ERROR_LAST_WORKING_BUCKET,
            ),
            (
                Error::ShrinkInRemovals { bucket: 9 },
                JUMPSHARD_ERROR_SHRINK_IN_REMOVALS,
            ),
            (
                Error::TooManyReplicas {
                    replicas: 4,
                    buckets: 3,
                },
                JUMPSHARD_ERROR_TOO_MANY_REPLICAS,
            ),
            (
                Error::InvalidWeight {
                    index: 0,
                    weight: "NaN".to_owned(),
                },
                JUMPSHARD_ERROR_INVALID_WEIGHT,
            ),
            (Error::AllWeightsZero, JUMPSHARD_ERROR_ALL_WEIGHTS_ZERO),
            (
                Error::InvalidLoadFactor {
                    value: "1".to_owned(),
                },
                JUMPSHARD_ERROR_INVALID_LOAD_FACTOR,
            ),
            (
                Error::InvalidWalk {
                    walk: 0,
                    limit: 1024,
                },
                JUMPSHARD_ERROR_INVALID_WALK,
            ),
            (Error::NoLoad { node: 2 }, JUMPSHARD_ERROR_NO_LOAD),
        ];
        for (error, status) in cases {
            assert_eq!(jumpshard_status::of(&error), status, "{error}");
        }
    }

    #[test]
    fn every_status_has_its_own_message() {
        let mut seen: Vec<&CStr> = jumpshard_status::ALL
            .map(jumpshard_status::message)
            .to_vec();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), jumpshard_status::ALL.len());
    }
}
