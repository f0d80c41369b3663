//! What the commands that change node tables report: the summary of a
//! change over the keys, and its picture.

pub mod balance_plot;
pub mod change_plot;
pub mod change_summary;
pub mod columns;
pub mod fraction;
