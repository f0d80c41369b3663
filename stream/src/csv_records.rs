//! CSV records, parsed by `csv_core` (the `csv` crate's parser: quoted
//! fields, doubled quotes, `\n`, `\r\n` or `\r` line ends, empty lines
//! skipped), each with the line it starts on, for the key sources and the
//! weighted keys.
//!
//! The reader keeps its own buffer so that it sees every byte the parser
//! consumes. That gives:
//!
//! - **the true line of each record**, counting the empty lines skipped
//!   before it and the `\n` of the `\r\n` that ended the record before it
//!   (the `csv` crate's positions, taken before those are read, named the
//!   line above: one short at every record of a `\r\n` file);
//! - **a quote never closed** refused, naming the line where its record
//!   starts: the parser takes everything to the end of the input into that
//!   one field, without an error, which would drop every key after it;
//! - **a bound on a record's bytes**, from its first byte (the empty lines
//!   before it not counted), checked as the parser reads, so that a field
//!   without an end never fills memory.

use std::io::{self, Read};

use csv_core::ReadRecordResult;

use crate::error::Error;
use crate::newlines;

/// Bytes read from the source at a time.
const BUFFER: usize = 64 << 10;

/// CSV records read one at a time from `R`.
pub(crate) struct Records<R> {
    source: R,
    /// The input's name, for messages.
    name: String,
    parser: csv_core::Reader,
    buffer: Box<[u8]>,
    /// The unparsed bytes of `buffer`.
    unparsed: std::ops::Range<usize>,
    /// Whether the source has ended.
    ended: bool,
    /// Line ends parsed so far.
    line_ends: u64,
    /// Bytes parsed so far.
    parsed: u64,
    /// The longest record accepted, in bytes.
    max_record: usize,
    /// The current record's fields, one after the other, and where each
    /// ends.
    fields: Vec<u8>,
    ends: Vec<usize>,
    len: usize,
    /// The line the current record starts on, from 1.
    line: u64,
}

impl<R: Read> Records<R> {
    /// The records of `source`, named `name` in messages, each at most
    /// `max_record` bytes.
    pub(crate) fn new(source: R, name: String, max_record: usize) -> Records<R> {
        Records {
            source,
            name,
            parser: csv_core::Reader::new(),
            buffer: vec![0; BUFFER].into_boxed_slice(),
            unparsed: 0..0,
            ended: false,
            line_ends: 0,
            parsed: 0,
            max_record,
            fields: vec![0; 1024],
            ends: vec![0; 16],
            len: 0,
            line: 0,
        }
    }

    /// Reads the next record: false at the end of the input.
    pub(crate) fn next(&mut self) -> Result<bool, Error> {
        let (mut written, mut ended_fields) = (0, 0);
        // The record's bytes from its first, once it has one (the empty
        // lines before it are not the record's).
        let mut size: Option<u64> = None;
        // Whether the line end that closes a record at the end of the input
        // has been given to the parser (see below).
        let mut closed = false;
        loop {
            if self.unparsed.is_empty() && !self.ended {
                self.fill()?;
            }
            // A record the input ends in gets a line end of its own: it
            // ends the record as the end of the input would, unless the
            // record is inside a quoted field, which takes it as its own.
            // (`csv_core` says nothing of a quote left open, and a clone of
            // its reader cannot be probed: it drops the parser's tables.)
            let closing = self.unparsed.is_empty() && size.is_some() && !closed;
            let input = match closing {
                true => b"\n",
                false => &self.buffer[self.unparsed.clone()],
            };
            let (result, read, wrote, ends) = self.parser.read_record(
                input,
                &mut self.fields[written..],
                &mut self.ends[ended_fields..],
            );
            if closing {
                closed = read == 1;
                if closed && result == ReadRecordResult::InputEmpty && wrote > 0 {
                    return Err(Error::Csv {
                        name: self.name.clone(),
                        line: Some(self.line),
                        why: "a quoted field is never closed: its quote runs to the end of the \
                              input, which would take every line after it as part of the field"
                            .into(),
                    });
                }
            } else {
                let mut raw = &input[..read];
                if size.is_none() {
                    // Line ends before the record: empty lines, or the `\n`
                    // of the `\r\n` that ended the record before.
                    let skipped = raw
                        .iter()
                        .take_while(|&&b| b == b'\n' || b == b'\r')
                        .count();
                    self.line_ends += newlines::count(&raw[..skipped]);
                    raw = &raw[skipped..];
                    if !raw.is_empty() {
                        size = Some(0);
                        self.line = self.line_ends + 1;
                    }
                }
                self.line_ends += newlines::count(raw);
                self.parsed += read as u64;
                self.unparsed.start += read;
                if let Some(size) = size.as_mut() {
                    *size += raw.len() as u64;
                    if *size > self.max_record as u64 {
                        return Err(Error::RecordTooLong {
                            name: self.name.clone(),
                            line: self.line,
                            limit: self.max_record,
                        });
                    }
                }
            }
            written += wrote;
            ended_fields += ends;
            match result {
                ReadRecordResult::InputEmpty => {}
                ReadRecordResult::OutputFull => {
                    let grown = self.fields.len() * 2;
                    self.fields.resize(grown, 0);
                }
                ReadRecordResult::OutputEndsFull => {
                    let grown = self.ends.len() * 2;
                    self.ends.resize(grown, 0);
                }
                ReadRecordResult::Record => {
                    self.len = ended_fields;
                    return Ok(true);
                }
                ReadRecordResult::End => {
                    self.len = 0;
                    return Ok(false);
                }
            }
        }
    }

    /// Reads more of the source into the buffer.
    fn fill(&mut self) -> Result<(), Error> {
        loop {
            match self.source.read(&mut self.buffer) {
                Ok(read) => {
                    self.unparsed = 0..read;
                    self.ended = read == 0;
                    return Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(source) => {
                    return Err(Error::Read {
                        name: self.name.clone(),
                        source,
                    })
                }
            }
        }
    }

    /// The first record's fields, as a header line: none in an empty input.
    pub(crate) fn header(&mut self) -> Result<Vec<Vec<u8>>, Error> {
        Ok(match self.next()? {
            true => self.fields().map(<[u8]>::to_vec).collect(),
            false => Vec::new(),
        })
    }

    /// The input's name, for messages.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// The line the current record starts on, from 1.
    pub(crate) fn line(&self) -> u64 {
        self.line
    }

    /// The current record's fields.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Field `index` of the current record, spaces around it left out.
    pub(crate) fn get(&self, index: usize) -> Option<&[u8]> {
        (index < self.len).then(|| {
            let start = index.checked_sub(1).map_or(0, |i| self.ends[i]);
            self.fields[start..self.ends[index]].trim_ascii()
        })
    }

    /// The current record's fields, spaces around each left out.
    pub(crate) fn fields(&self) -> impl Iterator<Item = &[u8]> {
        (0..self.len).filter_map(|i| self.get(i))
    }

    /// The bytes of the input parsed so far.
    pub(crate) fn parsed(&self) -> u64 {
        self.parsed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each record's line and fields.
    fn records(text: &str) -> Result<Vec<(u64, Vec<String>)>, String> {
        let mut records = Records::new(text.as_bytes(), "in".into(), 1000);
        let mut all = Vec::new();
        while records.next().map_err(|e| e.to_string())? {
            let fields = records.fields().map(|f| String::from_utf8_lossy(f).into());
            all.push((records.line(), fields.collect()));
        }
        Ok(all)
    }

    fn lines(text: &str) -> Vec<u64> {
        records(text).unwrap().into_iter().map(|(l, _)| l).collect()
    }

    #[test]
    fn lines_count_every_line_end() {
        assert_eq!(lines("a\nb\nc\n"), [1, 2, 3]);
        assert_eq!(lines("a\r\nb\r\nc\r\n"), [1, 2, 3]);
        assert_eq!(lines("a\rb\rc"), [1, 1, 1]);
        assert_eq!(lines("a\n\n\n\nb\n\r\n\r\nc"), [1, 5, 8]);
        assert_eq!(lines("\n\na,\"x\ny\"\nb\n"), [3, 5]);
        assert_eq!(lines("\u{feff}a\nb"), [1, 2]);
    }

    #[test]
    fn fields_are_trimmed_and_unquoted() {
        let got = records(" 5 ,\"a \"\"b\"\" \" , \r\n").unwrap();
        assert_eq!(
            got,
            [(1, vec!["5".into(), "a \"b\"".into(), String::new()])]
        );
    }

    #[test]
    fn a_quote_never_closed_is_refused_at_its_line() {
        let err = records("id,x\n5,\"oops\n7,b\n8,c\n").unwrap_err();
        assert!(
            err.starts_with("in line 2: a quoted field is never closed"),
            "{err}"
        );
        let err = records("id\r\n\r\n\"5").unwrap_err();
        assert!(err.starts_with("in line 3: a quoted field"), "{err}");
        // Closed, even at the very end, or empty: fine.
        assert_eq!(records("a,\"x\"").unwrap().len(), 1);
        assert_eq!(records("a,\"\"\n").unwrap().len(), 1);
    }

    #[test]
    fn records_past_the_bound_are_refused_where_they_start() {
        let mut records = Records::new("\n\nab\nabcdef\n".as_bytes(), "in".into(), 3);
        assert!(records.next().unwrap());
        let err = records.next().unwrap_err().to_string();
        assert!(
            err.starts_with("in line 4: a CSV record longer than 3 bytes"),
            "{err}"
        );
    }
}
