//! The offsets of a byte-key layout: the integer types they come in, and
//! their check.

use crate::Error;

pub(super) mod sealed {
    pub trait Sealed {
        /// The offset as a `u64`, a negative one past 2^63 (past any
        /// data's length), for the checks and the lanes.
        fn to_u64(self) -> u64;

        /// Whether every offset after the first is within `0..=len` and
        /// none is smaller than the one before, compared in the offsets'
        /// own type with no branch per offset (so that the loop runs on
        /// the vector unit).
        fn in_order(offsets: &[Self], len: usize) -> bool
        where
            Self: Sized;
    }
}

/// An integer type usable as a byte-key offset: Arrow's `i32` and `i64`
/// offsets, and the unsigned types.
pub trait Offset: Copy + sealed::Sealed {
    /// The offset widened so that every value of every offset type fits.
    fn widen(self) -> i128;
}

macro_rules! offset {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {
            #[inline]
            fn to_u64(self) -> u64 {
                // Sign extension first: a negative offset lands past 2^63.
                self as i64 as u64
            }

            #[inline]
            fn in_order(offsets: &[Self], len: usize) -> bool {
                // Past the type's range, every offset is within the data.
                let limit = <$t>::try_from(len).unwrap_or(<$t>::MAX);
                let after = offsets.get(1..).unwrap_or_default();
                !offsets
                    .iter()
                    .zip(after)
                    .fold(false, |wrong, (&a, &b)| wrong | (b < a) | (b > limit))
            }
        }
        impl Offset for $t {
            #[inline]
            fn widen(self) -> i128 {
                self as i128
            }
        }
    )*};
}

offset!(i32, i64, u32, u64, usize);

/// Checks that `offsets` cut `data` into `keys` byte strings: `keys + 1`
/// offsets, each within `0..=data.len()`, none smaller than the one before.
pub(crate) fn check_offsets<O: Offset>(
    data: &[u8],
    offsets: &[O],
    keys: usize,
) -> Result<(), Error> {
    if offsets.len() != keys.saturating_add(1) {
        return Err(Error::OffsetCount {
            offsets: offsets.len(),
            keys,
        });
    }
    // One pass with no branch per offset finds whether any is wrong (the
    // first within the data and none decreasing, none is negative); the
    // loop below, only run then, finds the first and says how.
    let first = offsets[0].to_u64();
    if first <= data.len() as u64 && sealed::Sealed::in_order(offsets, data.len()) {
        return Ok(());
    }
    let mut previous = 0i128;
    for (index, offset) in offsets.iter().map(|o| o.widen()).enumerate() {
        if offset < 0 || offset > data.len() as i128 {
            return Err(Error::OffsetOutOfRange {
                index,
                offset,
                data_len: data.len(),
            });
        }
        if index > 0 && offset < previous {
            return Err(Error::OffsetDecreasing {
                index,
                offset,
                previous,
            });
        }
        previous = offset;
    }
    Ok(())
}

/// The byte strings of a checked offsets array, in order.
pub(crate) fn slices<'a, O: Offset>(
    data: &'a [u8],
    offsets: &'a [O],
) -> impl Iterator<Item = &'a [u8]> {
    // The offsets were checked to lie in 0..=data.len(), so they fit in usize.
    offsets
        .windows(2)
        .map(move |w| &data[w[0].widen() as usize..w[1].widen() as usize])
}
