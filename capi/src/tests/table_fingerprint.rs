//! Table fingerprints through the exported symbols: the golden values of
//! `testdata/fingerprints.txt`, as every front end prints them.

use super::*;

#[repr(C)]
struct CTable {
    _opaque: [u8; 0],
}

extern "C" {
    fn jumpshard_table_parse(
        text: *const u8,
        len: usize,
        out: *mut *mut CTable,
        error_line: *mut usize,
    ) -> i32;
    fn jumpshard_table_free(table: *mut CTable);
    fn jumpshard_table_fingerprint(table: *const CTable, out: *mut c_char) -> i32;
}

/// The fingerprint of `text` through the C functions.
fn fingerprint(text: &[u8]) -> String {
    let mut table = std::ptr::null_mut();
    let mut out = [0 as c_char; 37];
    // SAFETY: real buffers of the stated lengths; the handle is freed
    // before returning.
    unsafe {
        let status =
            jumpshard_table_parse(text.as_ptr(), text.len(), &mut table, std::ptr::null_mut());
        assert_eq!(status, OK);
        assert_eq!(jumpshard_table_fingerprint(table, out.as_mut_ptr()), OK);
        jumpshard_table_free(table);
    }
    // `c_char` is i8 on x86_64 and u8 on aarch64: its one byte either way.
    let bytes = out.map(|c| c.to_ne_bytes()[0]);
    CStr::from_bytes_until_nul(&bytes)
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned()
}

#[test]
fn golden_fingerprints() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/");
    let golden = std::fs::read_to_string(format!("{root}fingerprints.txt")).unwrap();
    let mut checked = 0;
    for line in golden.lines().filter(|l| !l.starts_with('#')) {
        let (want, path) = line.split_once("  ").unwrap();
        let text = std::fs::read(format!("{root}{path}")).unwrap();
        assert_eq!(fingerprint(&text), want, "{path}");
        checked += 1;
    }
    assert!(checked >= 5);
}

#[test]
fn null_and_misaligned_handles_leave_the_buffer_untouched() {
    let mut out = [b'?' as c_char; 37];
    for table in [std::ptr::null(), std::ptr::without_provenance::<CTable>(9)] {
        // SAFETY: NULL and misaligned handles are refused before any use;
        // `out` is a real buffer.
        let status = unsafe { jumpshard_table_fingerprint(table, out.as_mut_ptr()) };
        assert!(
            status == NULL_POINTER || status == MISALIGNED_POINTER,
            "{status}"
        );
        assert!(out.iter().all(|&c| c == b'?' as c_char));
    }
}
