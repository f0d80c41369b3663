//! The key and weight columns of a Parquet file, read whole with Arrow's
//! record batch reader (a weights file is held in memory by its planner
//! anyway, so the key sources' piece-by-piece reading buys nothing here).

use std::fs::File;
use std::path::Path;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, Float64Type, Int32Type, Int64Type, UInt32Type, UInt64Type};
use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::{ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
use parquet::arrow::ProjectionMask;

use crate::error::Error;
use crate::parquet_column::column_of;
use crate::weighted_key::{checked, Place, WeightColumns, WeightedKey};

/// Every key and weight of the Parquet file at `path`.
pub(crate) fn read(path: &Path, columns: &WeightColumns<'_>) -> Result<Vec<WeightedKey>, Error> {
    let name = path.display().to_string();
    let bad = |why: String| Error::BadParquet {
        name: name.clone(),
        why,
    };
    let file = File::open(path).map_err(|source| Error::Open {
        name: name.clone(),
        source,
    })?;
    let options = ArrowReaderOptions::new().with_skip_arrow_metadata(true);
    let builder = ParquetRecordBatchReaderBuilder::try_new_with_options(file, options)
        .map_err(|e| bad(format!("not a readable Parquet file: {e}")))?;
    let schema = builder.schema().clone();
    let find =
        |column: &str| column_of(&schema, &name, column).map(|(i, f)| (i, f.data_type().clone()));
    let (key_at, key_type) = find(columns.key)?;
    let (weight_at, weight_type) = find(columns.weight)?;
    if !matches!(key_type, DataType::UInt64 | DataType::Int64) {
        return Err(Error::ColumnType {
            name,
            column: columns.key.to_owned(),
            found: key_type.to_string(),
            wanted: "uint64 or int64 keys",
        });
    }
    let numeric = matches!(
        weight_type,
        DataType::Float64
            | DataType::Float32
            | DataType::Int64
            | DataType::UInt64
            | DataType::Int32
            | DataType::UInt32
    );
    if !numeric {
        return Err(bad(format!(
            "column {:?} holds {weight_type}, not numbers (weights)",
            columns.weight
        )));
    }
    let mask = ProjectionMask::roots(builder.parquet_schema(), [key_at, weight_at]);
    let reader = builder
        .with_projection(mask)
        .build()
        .map_err(|e| bad(e.to_string()))?;
    // The projected batch keeps the file's column order.
    let (key_col, weight_col) = if key_at < weight_at { (0, 1) } else { (1, 0) };
    let mut all = Vec::new();
    for batch in reader {
        let batch = batch.map_err(|e| bad(e.to_string()))?;
        let keys = batch.column(key_col);
        let weights = batch.column(weight_col);
        for i in 0..batch.num_rows() {
            let row = all.len() as u64 + 1;
            let null = |column: &str| Error::Null {
                name: name.clone(),
                column: column.to_owned(),
                position: row - 1,
                row: row - 1,
            };
            if keys.is_null(i) {
                return Err(null(columns.key));
            }
            if weights.is_null(i) {
                return Err(null(columns.weight));
            }
            let key = match keys.data_type() {
                DataType::UInt64 => keys.as_primitive::<UInt64Type>().value(i),
                _ => keys.as_primitive::<Int64Type>().value(i) as u64,
            };
            let w = value(weights, i);
            let weight = checked(Some(w), || Error::BadWeightRow {
                name: name.clone(),
                row: row - 1,
                column: columns.weight.to_owned(),
                text: w.to_string(),
            })?;
            all.push(WeightedKey {
                key,
                weight,
                place: Place::Row(row - 1),
            });
        }
    }
    Ok(all)
}

/// Row `i` of the numeric column `column`, as a double.
fn value(column: &ArrayRef, i: usize) -> f64 {
    match column.data_type() {
        DataType::Float64 => column.as_primitive::<Float64Type>().value(i),
        DataType::Float32 => f64::from(column.as_primitive::<Float32Type>().value(i)),
        DataType::Int64 => column.as_primitive::<Int64Type>().value(i) as f64,
        DataType::UInt64 => column.as_primitive::<UInt64Type>().value(i) as f64,
        DataType::Int32 => f64::from(column.as_primitive::<Int32Type>().value(i)),
        _ => f64::from(column.as_primitive::<UInt32Type>().value(i)),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{Int64Array, RecordBatch, UInt64Array};
    use parquet::arrow::ArrowWriter;

    use super::*;

    fn write(path: &Path, weights: Vec<i64>) {
        let n = weights.len() as u64;
        let batch = RecordBatch::try_from_iter([
            // The weight column first: the projection keeps file order.
            ("w", Arc::new(Int64Array::from(weights)) as ArrayRef),
            (
                "k",
                Arc::new(UInt64Array::from_iter_values(10..10 + n)) as ArrayRef,
            ),
        ])
        .unwrap();
        let file = File::create(path).unwrap();
        let mut writer = ArrowWriter::try_new(file, batch.schema(), None).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
    }

    #[test]
    fn integer_weights_before_the_keys_and_a_negative_one_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.parquet");
        let columns = WeightColumns {
            key: "k",
            weight: "w",
            header: true,
        };
        write(&path, vec![5, 0, 7]);
        let read = crate::read_weighted(&path, &columns).unwrap();
        let got: Vec<(u64, f64, Place)> = read.iter().map(|w| (w.key, w.weight, w.place)).collect();
        let rows = [(10, 5.0, 0), (11, 0.0, 1), (12, 7.0, 2)];
        assert_eq!(got, rows.map(|(k, w, r)| (k, w, Place::Row(r))));
        write(&path, vec![5, -2]);
        let err = crate::read_weighted(&path, &columns)
            .unwrap_err()
            .to_string();
        assert!(
            err.ends_with(
                "column \"w\" has weight -2 at row 1 of the file, from 0, not a finite number \
                 of 0 or more"
            ),
            "{err}"
        );
        let err = crate::read_weighted(
            &path,
            &WeightColumns {
                weight: "x",
                ..columns
            },
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("no column \"x\""), "{err}");
    }
}
