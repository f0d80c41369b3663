//! The validated bucket count.

use crate::Error;

/// A bucket count in `1..=2^31-1`: the only counts for which Figure 1
/// returns a bucket (it returns -1 for counts below 1, and its `int32_t`
/// parameter cannot hold more).
///
/// Holding a `BucketCount` is proof the count is valid, so the hashing
/// functions cannot fail on it.
///
/// ```
/// use jumpshard::BucketCount;
///
/// let n = BucketCount::new(12)?;
/// assert_eq!(n.get(), 12);
/// assert!(BucketCount::new(0).is_err());
/// assert!(BucketCount::try_from(1u64 << 31).is_err());
/// assert!(BucketCount::try_from(-5i32).is_err());
/// # Ok::<(), jumpshard::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BucketCount(u32);

impl BucketCount {
    /// The smallest count, 1.
    pub const MIN: BucketCount = BucketCount(1);
    /// The largest count, 2^31 - 1 (`INT32_MAX`).
    pub const MAX: BucketCount = BucketCount(i32::MAX as u32);

    /// Checks `n` and wraps it, or names it in [`Error::InvalidBucketCount`].
    pub const fn new(n: u32) -> Result<BucketCount, Error> {
        if n >= 1 && n <= i32::MAX as u32 {
            Ok(BucketCount(n))
        } else {
            Err(Error::InvalidBucketCount { value: n as i128 })
        }
    }

    /// The count as a `u32`.
    pub const fn get(self) -> u32 {
        self.0
    }
}

macro_rules! try_from_int {
    ($($t:ty),*) => {$(
        impl TryFrom<$t> for BucketCount {
            type Error = Error;

            fn try_from(n: $t) -> Result<BucketCount, Error> {
                match u32::try_from(n) {
                    Ok(n) => BucketCount::new(n),
                    Err(_) => Err(Error::InvalidBucketCount { value: n as i128 }),
                }
            }
        }
    )*};
}

try_from_int!(i8, i16, i32, i64, isize, u8, u16, u64, usize);

impl TryFrom<u32> for BucketCount {
    type Error = Error;

    fn try_from(n: u32) -> Result<BucketCount, Error> {
        BucketCount::new(n)
    }
}

impl From<BucketCount> for u32 {
    fn from(n: BucketCount) -> u32 {
        n.0
    }
}

impl core::fmt::Display for BucketCount {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.0.fmt(f)
    }
}
