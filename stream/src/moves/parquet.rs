//! Move lists as Parquet files: an id column and two bucket (uint32) or
//! node-name (utf8) columns, snappy-compressed.

use std::io::Write;
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, StringArray, UInt32Array, UInt64Array};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use crate::error::Error;

/// A Parquet move list being written.
pub(super) struct ParquetMoves<W: Write + Send> {
    writer: ArrowWriter<W>,
    schema: SchemaRef,
    /// Node names, when moves name nodes by index.
    names: Option<Vec<String>>,
    name: String,
}

/// A Parquet writer's error as the engine's, naming the output.
fn failed(name: &str, e: impl std::fmt::Display) -> Error {
    Error::Write {
        name: name.to_owned(),
        source: std::io::Error::other(e.to_string()),
    }
}

impl<W: Write + Send> ParquetMoves<W> {
    /// Starts a move list on `file`, named `name` in messages, with id
    /// column `id`.
    pub(super) fn create(
        file: W,
        name: &str,
        id: &str,
        names: Option<&[String]>,
    ) -> Result<ParquetMoves<W>, Error> {
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
        let writer =
            ArrowWriter::try_new(file, schema.clone(), Some(props)).map_err(|e| failed(name, e))?;
        Ok(ParquetMoves {
            writer,
            schema,
            names: names.map(<[String]>::to_vec),
            name: name.to_owned(),
        })
    }

    /// Appends moves: `ids`, and `from`/`to` as buckets or node indices.
    pub(super) fn write(&mut self, ids: &[u64], from: &[u32], to: &[u32]) -> Result<(), Error> {
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
            .map_err(|e| failed(&self.name, e))?;
        self.writer.write(&batch).map_err(|e| failed(&self.name, e))
    }

    /// Where the list goes.
    pub(super) fn get_ref(&self) -> &W {
        self.writer.inner()
    }

    /// Writes the footer and hands back the output.
    pub(super) fn finish(self) -> Result<W, Error> {
        let name = self.name;
        self.writer.into_inner().map_err(|e| failed(&name, e))
    }
}
