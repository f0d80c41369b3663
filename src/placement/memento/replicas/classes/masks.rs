//! The class pass in plain code, and what the lanes' passes share with it:
//! each key's mask of removed members, and the lists of each class.

use core::ops::Range;

/// The bit of a key's mask that stands for every slot from 15 on.
pub(super) const PAST: u32 = 15;

/// Room past a block's length in the lists, so that the lanes' passes can
/// store a whole vector of positions at any length.
pub(super) const WIDE: usize = 16;

/// Sets `mask[i]`, the mask of removed members of the key of row
/// `rows.start + i` of `columns` (bit `j` for member `j`, bit [`PAST`] for
/// any from it on), and packs the positions `i` of the keys with a removed
/// member into the three `lists`, as long as the rows: the first member
/// alone removed, one member past it, the others. Returns the lists'
/// lengths.
pub(super) fn classify(
    columns: &[&mut [u32]],
    rows: Range<usize>,
    removed: impl Fn(u32) -> u16,
    mask: &mut [u16],
    lists: [&mut [u16]; 3],
) -> [usize; 3] {
    mask.fill(0);
    for (j, column) in columns.iter().enumerate() {
        let bit = PAST.min(j as u32);
        for (mask, &b) in mask.iter_mut().zip(&column[rows.clone()]) {
            *mask |= removed(b) << bit;
        }
    }
    let [lone, one, several] = lists;
    let mut counts = [0; 3];
    for (i, &mask) in mask.iter().enumerate() {
        let i = i as u16;
        lone[counts[0]] = i;
        one[counts[1]] = i;
        several[counts[2]] = i;
        let is_lone = mask == 1;
        let is_one = mask & mask.wrapping_sub(1) == 0 && mask.wrapping_sub(2) < (1 << PAST) - 2;
        counts[0] += usize::from(is_lone);
        counts[1] += usize::from(is_one);
        counts[2] += usize::from(mask != 0 && !is_lone && !is_one);
    }
    counts
}
