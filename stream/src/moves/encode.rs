//! One move as bytes, in the byte formats of a move list.

use super::MoveFormat;

/// Appends one move between buckets: `id,from,to\n` in CSV, or 16
/// little-endian bytes (u64 id, u32 from, u32 to) in binary.
///
/// ```
/// use jumpshard_stream::moves::{encode_buckets, MoveFormat};
///
/// let mut buf = Vec::new();
/// encode_buckets(&mut buf, MoveFormat::Binary, 7, 1, 2);
/// assert_eq!(buf, [7, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0]);
/// ```
pub fn encode_buckets(buf: &mut Vec<u8>, format: MoveFormat, id: u64, from: u32, to: u32) {
    match format {
        MoveFormat::Binary => binary(buf, id, from, to),
        MoveFormat::Csv => {
            let mut itoa = itoa::Buffer::new();
            buf.extend_from_slice(itoa.format(id).as_bytes());
            buf.push(b',');
            buf.extend_from_slice(itoa.format(from).as_bytes());
            buf.push(b',');
            buf.extend_from_slice(itoa.format(to).as_bytes());
            buf.push(b'\n');
        }
        #[cfg(feature = "parquet")]
        MoveFormat::Parquet => unreachable!("Parquet moves are written as columns"),
    }
}

/// Appends one move between nodes: CSV with the nodes' names, or binary
/// with their indices.
pub fn encode_nodes(
    buf: &mut Vec<u8>,
    format: MoveFormat,
    id: u64,
    from: (u32, &str),
    to: (u32, &str),
) {
    match format {
        MoveFormat::Binary => binary(buf, id, from.0, to.0),
        MoveFormat::Csv => {
            let mut itoa = itoa::Buffer::new();
            buf.extend_from_slice(itoa.format(id).as_bytes());
            buf.push(b',');
            buf.extend_from_slice(from.1.as_bytes());
            buf.push(b',');
            buf.extend_from_slice(to.1.as_bytes());
            buf.push(b'\n');
        }
        #[cfg(feature = "parquet")]
        MoveFormat::Parquet => unreachable!("Parquet moves are written as columns"),
    }
}

fn binary(buf: &mut Vec<u8>, id: u64, from: u32, to: u32) {
    buf.extend_from_slice(&id.to_le_bytes());
    buf.extend_from_slice(&from.to_le_bytes());
    buf.extend_from_slice(&to.to_le_bytes());
}
