//! A table's batch on a kernel the caller names: what the batch calls
//! built on the table (the zoned sets) run on when a test forces a kernel.

use crate::{Error, Kernel, NodeTable};

impl NodeTable {
    /// [`NodeTable::batch`] on `kernel`, whichever the batch calls use.
    pub(crate) fn batch_on(
        &self,
        kernel: Kernel,
        keys: &[u64],
        out: &mut [u32],
    ) -> Result<(), Error> {
        self.placement()
            .batch_on(kernel, keys, self.bucket_count(), out)?;
        self.pins().apply(keys, out);
        Ok(())
    }
}
