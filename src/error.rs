//! The one error type of the library.

use core::fmt;

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
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidBucketCount { value } => write!(
                f,
                "invalid bucket count {value}: it must be between 1 and {}",
                crate::BucketCount::MAX.get()
            ),
            Error::LengthMismatch { keys, out } => write!(
                f,
                "output length {out} does not match the {keys} input keys"
            ),
            Error::UnknownKernel { name } => write!(
                f,
                "unknown kernel {name:?}: expected one of {}",
                crate::Kernel::NAMES.join(", ")
            ),
            Error::UnsupportedKernel { name } => {
                write!(f, "kernel {name} is not supported by this CPU")
            }
        }
    }
}

impl std::error::Error for Error {}
