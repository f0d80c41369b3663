//! Move lists as Parquet files: an id column and two bucket (uint32) or
//! node-name (utf8) columns, snappy-compressed, written through an
//! [`Output`] (atomically for a file) so that a failed run leaves nothing
//! behind.

use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, StringArray, UInt32Array, UInt64Array};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use crate::output::Output;

/// The output as the writer's byte sink.
struct Sink(Output);

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write_all(buf).map_err(io::Error::other)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A Parquet move list being written.
pub struct ParquetMoves {
    writer: ArrowWriter<Sink>,
    schema: SchemaRef,
    /// Node names, when moves name nodes by index.
    names: Option<Vec<String>>,
    name: String,
}

impl ParquetMoves {
    /// Starts a move list on `file`, named by `path` in messages.
    pub fn create(
        file: Output,
        path: &Path,
        id: &str,
        names: Option<&[String]>,
    ) -> Result<ParquetMoves, String> {
        let (from, to, kind) = match names {
            Some(_) => ("from_node", "to_node", DataType::Utf8),
            None => ("from", "to", DataType::UInt32),
        };
        let schema = Arc::new(Schema::new(vec![
            Field::new(id, DataType::UInt64, false),
            Field::new(from, kind.clone(), false),
            Field::new(to, kind, false),
        ]));
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .build();
        let name = path.display().to_string();
        let writer = ArrowWriter::try_new(Sink(file), schema.clone(), Some(props))
            .map_err(|e| format!("cannot write {name}: {e}"))?;
        Ok(ParquetMoves {
            writer,
            schema,
            names: names.map(<[String]>::to_vec),
            name,
        })
    }

    /// Appends moves: `ids`, and `from`/`to` as buckets or node indices.
    pub fn write(&mut self, ids: &[u64], from: &[u32], to: &[u32]) -> Result<(), String> {
        if ids.is_empty() {
            return Ok(());
        }
        let column = |values: &[u32]| -> ArrayRef {
            match &self.names {
                Some(names) => Arc::new(StringArray::from_iter_values(
                    values.iter().map(|&i| names[i as usize].as_str()),
                )),
                None => Arc::new(UInt32Array::from(values.to_vec())),
            }
        };
        let columns = vec![
            Arc::new(UInt64Array::from(ids.to_vec())) as ArrayRef,
            column(from),
            column(to),
        ];
        let batch = RecordBatch::try_new(self.schema.clone(), columns)
            .map_err(|e| format!("cannot write {}: {e}", self.name))?;
        self.writer
            .write(&batch)
            .map_err(|e| format!("cannot write {}: {e}", self.name))
    }

    /// Whether the list goes to standard output.
    pub fn is_stdout(&self) -> bool {
        self.writer.inner().0.is_stdout()
    }

    /// Writes the footer and completes the output (a file is renamed into
    /// place).
    pub fn commit(self) -> Result<(), String> {
        let name = self.name;
        let sink = self
            .writer
            .into_inner()
            .map_err(|e| format!("cannot write {name}: {e}"))?;
        sink.0.commit()
    }
}
