//! The Parquet key reader's own tests; the command-line tests
//! (`cli/tests/parquet/`) hold the rest.

use super::*;

use arrow_array::{ArrayRef, RecordBatch, UInt64Array};
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;

/// A page whose bytes changed after it was written fails its checksum
/// when the writer stored one: `testdata/page-checksums.parquet` holds
/// keys 0 to 999, one uncompressed PLAIN page written by pyarrow with
/// `write_page_checksum=True` (parquet's own writer stores none).
#[test]
fn a_page_that_fails_its_checksum_is_an_error_naming_the_file() {
    let sound = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/page-checksums.parquet");
    let read = |path: &Path| -> Result<Vec<u64>, Error> {
        let Source::Pieces(pieces) = open(path, "k", None)?.source else {
            panic!("a Parquet input reads in pieces");
        };
        let mut keys = Vec::new();
        pieces.read(0, &mut keys)?;
        Ok(keys)
    };
    assert!(read(&sound).unwrap() == (0..1000).collect::<Vec<u64>>());
    let dir = tempfile::tempdir().unwrap();
    let corrupt = dir.path().join("corrupt.parquet");
    let mut bytes = std::fs::read(&sound).unwrap();
    let column = ArrowReaderMetadata::load(&File::open(&sound).unwrap(), Default::default())
        .unwrap()
        .metadata()
        .row_group(0)
        .column(0)
        .clone();
    // The high byte of the last key, 999: still a key, if read.
    let last = (column.data_page_offset() + column.compressed_size() - 1) as usize;
    bytes[last] ^= 1;
    std::fs::write(&corrupt, &bytes).unwrap();
    let err = read(&corrupt).unwrap_err().to_string();
    assert!(
        err.contains("corrupt.parquet") && err.contains("CRC"),
        "{err}"
    );
}

/// A row group longer than a piece is read in pieces, the later ones
/// skipping the rows before them, and together they give every key
/// once, at its position.
#[test]
fn a_row_group_longer_than_a_piece() {
    let rows = PIECE_ROWS as usize * 2 + 12_345;
    let keys: Vec<u64> = (0..rows as u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.parquet");
    let column = Arc::new(UInt64Array::from(keys.clone())) as ArrayRef;
    write(&path, vec![("k", column)], rows);
    let Source::Pieces(pieces) = open(&path, "k", None).unwrap().source else {
        panic!("a Parquet input reads in pieces");
    };
    assert_eq!(pieces.count(), 3);
    let (got, byte_keys) = keys_of(&path, "k", None).unwrap();
    assert!(got == keys && !byte_keys);
}

/// Writes `columns` to `path` in row groups of `group` rows.
fn write(path: &Path, columns: Vec<(&str, ArrayRef)>, group: usize) {
    let batch = RecordBatch::try_from_iter(columns).unwrap();
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(group))
        .build();
    let mut writer =
        ArrowWriter::try_new(File::create(path).unwrap(), batch.schema(), Some(props)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
}

/// Every key of `path`'s column `column`, piece by piece, at its position.
fn keys_of(path: &Path, column: &str, seed: Option<u64>) -> Result<(Vec<u64>, bool), Error> {
    let input = open(path, column, seed)?;
    let Source::Pieces(pieces) = input.source else {
        panic!("a Parquet input reads in pieces");
    };
    let mut got = vec![0; input.size.unwrap() as usize];
    let mut buffer = Vec::new();
    for index in 0..pieces.count() {
        let first = pieces.read(index, &mut buffer)? as usize;
        got[first..first + buffer.len()].copy_from_slice(&buffer);
    }
    Ok((got, input.byte_keys))
}

/// String and binary columns (32- and 64-bit offsets, and of one width)
/// are byte keys, each value pre-hashed with the seed as a byte-key line
/// is, in a row group longer than a piece (the later pieces skip rows),
/// values of 0 to 34 bytes (on both sides of the lanes' 16); a null names
/// its position.
#[test]
fn string_and_binary_columns_are_byte_keys() {
    use arrow_array::{
        BinaryArray, FixedSizeBinaryArray, LargeBinaryArray, LargeStringArray, StringArray,
    };
    let rows = PIECE_ROWS as usize * 2 + 1_234;
    let values: Vec<String> = (0..rows)
        .map(|i| {
            let hex = format!("k{:x}", (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let text = hex.repeat(2);
            text[..(i * 7) % (text.len() + 1)].to_string()
        })
        .collect();
    let bytes: Vec<&[u8]> = values.iter().map(String::as_bytes).collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.parquet");
    write(
        &path,
        vec![
            (
                "s",
                Arc::new(StringArray::from_iter_values(&values)) as ArrayRef,
            ),
            (
                "ls",
                Arc::new(LargeStringArray::from_iter_values(&values)) as ArrayRef,
            ),
            (
                "b",
                Arc::new(BinaryArray::from_iter_values(&bytes)) as ArrayRef,
            ),
            (
                "lb",
                Arc::new(LargeBinaryArray::from_iter_values(&bytes)) as ArrayRef,
            ),
        ],
        rows,
    );
    // Values of one width, as UUIDs are stored.
    let fixed: Vec<[u8; 12]> = (0..rows as u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15).to_le_bytes())
        .map(|w| std::array::from_fn(|b| w[b % 8] ^ b as u8))
        .collect();
    let path_fixed = dir.path().join("f.parquet");
    let array = FixedSizeBinaryArray::try_from_iter(fixed.iter()).unwrap();
    write(&path_fixed, vec![("f", Arc::new(array) as ArrayRef)], rows);
    for seed in [None, Some(0), Some(0x5EED)] {
        let hash = |v: &[u8]| jumpshard::bytes::prehash_seeded(v, seed.unwrap_or(0));
        let want: Vec<u64> = bytes.iter().map(|v| hash(v)).collect();
        for column in ["s", "ls", "b", "lb"] {
            let (got, byte_keys) = keys_of(&path, column, seed).unwrap();
            assert!(byte_keys, "{column}");
            assert!(got == want, "{column}, seed {seed:?}");
        }
        let want: Vec<u64> = fixed.iter().map(|v| hash(v)).collect();
        let (got, byte_keys) = keys_of(&path_fixed, "f", seed).unwrap();
        assert!(byte_keys && got == want, "fixed width, seed {seed:?}");
    }

    let holes = dir.path().join("holes.parquet");
    let late = (0..rows).map(|i| (i != PIECE_ROWS as usize + 5).then_some("x"));
    write(
        &holes,
        vec![("s", Arc::new(StringArray::from_iter(late)) as ArrayRef)],
        rows,
    );
    match keys_of(&holes, "s", None) {
        Err(Error::Null { position, row, .. }) => {
            assert_eq!((position, row), (PIECE_ROWS + 5, PIECE_ROWS + 5));
        }
        other => panic!("{other:?}"),
    }
}

/// A seed for the pre-hash is refused for an integer column, even 0.
#[test]
fn a_hash_seed_is_refused_for_integers() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.parquet");
    let column = Arc::new(UInt64Array::from(vec![1, 2, 3])) as ArrayRef;
    write(&path, vec![("k", column)], 3);
    let err = keys_of(&path, "k", Some(0)).unwrap_err().to_string();
    assert!(
        err.contains("--hash-seed") && err.contains("integer keys"),
        "{err}"
    );
    let (keys, byte_keys) = keys_of(&path, "k", None).unwrap();
    assert_eq!((keys, byte_keys), (vec![1, 2, 3], false));
}
