//! Zoned replica sets through the exported symbols: the golden vectors of
//! `testdata/zones/sets.txt`, zone names, and each refusal with its status
//! and untouched outputs.

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
    fn jumpshard_table_slot_name(
        table: *const CTable,
        slot: i32,
        name: *mut *const u8,
        name_len: *mut usize,
    ) -> i32;
    fn jumpshard_table_replicas_batch(
        table: *const CTable,
        keys: *const u64,
        len: usize,
        k: usize,
        out: *mut i32,
    ) -> i32;
    fn jumpshard_table_is_zoned(table: *const CTable) -> i32;
    fn jumpshard_table_zone_name(
        table: *const CTable,
        slot: i32,
        name: *mut *const u8,
        name_len: *mut usize,
    ) -> i32;
}

/// The table of `text` through the C parser.
fn parse(text: &[u8]) -> *mut CTable {
    let mut table = std::ptr::null_mut();
    // SAFETY: real buffers of the stated lengths.
    let status = unsafe {
        jumpshard_table_parse(text.as_ptr(), text.len(), &mut table, std::ptr::null_mut())
    };
    assert_eq!(status, OK);
    table
}

/// A name the table owns, through `f` (slot or zone name).
fn name(
    table: *const CTable,
    slot: i32,
    f: unsafe extern "C" fn(*const CTable, i32, *mut *const u8, *mut usize) -> i32,
) -> String {
    let (mut ptr, mut len) = (std::ptr::null(), 0usize);
    // SAFETY: a live handle and writable outputs; the name lives as long
    // as the table.
    unsafe {
        assert_eq!(f(table, slot, &mut ptr, &mut len), OK);
        String::from_utf8(std::slice::from_raw_parts(ptr, len).to_vec()).unwrap()
    }
}

#[test]
fn golden_zoned_sets() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/zones/");
    let golden = std::fs::read_to_string(format!("{root}sets.txt")).unwrap();
    let mut checked = 0;
    for line in golden.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split(' ').collect();
        let table = parse(&std::fs::read(format!("{root}{}", f[0])).unwrap());
        let key: u64 = f[1].parse().unwrap();
        let k: usize = f[2].parse().unwrap();
        let mut out = vec![-1i32; k];
        // SAFETY: one key and `k` outputs.
        let status = unsafe { jumpshard_table_replicas_batch(table, &key, 1, k, out.as_mut_ptr()) };
        assert_eq!(status, OK, "{line}");
        let names: Vec<String> = out
            .iter()
            .map(|&s| name(table, s, jumpshard_table_slot_name))
            .collect();
        assert_eq!(names.join(","), f[3], "{line}");
        let mut zones: Vec<String> = out
            .iter()
            .map(|&s| name(table, s, jumpshard_table_zone_name))
            .collect();
        zones.sort();
        zones.dedup();
        // Three or four zones in every table: k members in min(k, zones) zones.
        assert!(zones.len() >= k.min(2), "{line}");
        // SAFETY: a live handle, freed once.
        unsafe {
            assert_eq!(jumpshard_table_is_zoned(table), 1);
            jumpshard_table_free(table);
        }
        checked += 1;
    }
    assert_eq!(checked, 160);
}

#[test]
fn refusals_leave_the_outputs_untouched() {
    let zoned = parse(b"a zone=x\nc zone=x removed=1\nb zone=y\n");
    let plain = parse(b"a\nb\n+a\n");
    let weighted = parse(b"a weight=2\nb\n");
    let keys = [1u64, 2];
    let mut out = [-7i32; 6];
    let (mut ptr, mut len) = (std::ptr::null(), 99usize);
    // SAFETY: live handles (freed at the end), real buffers of the stated
    // lengths.
    unsafe {
        for (table, k, want) in [
            (zoned, 3, TOO_MANY_REPLICAS),
            (zoned, 0, TOO_MANY_REPLICAS),
            (plain, 2, SHARED_NODE),
            (weighted, 1, WEIGHTED_TABLE),
            (std::ptr::null_mut(), 1, NULL_POINTER),
        ] {
            let status =
                jumpshard_table_replicas_batch(table, keys.as_ptr(), 2, k, out.as_mut_ptr());
            assert_eq!(status, want);
        }
        let status =
            jumpshard_table_replicas_batch(zoned, keys.as_ptr(), 2, 2, std::ptr::null_mut());
        assert_eq!(status, NULL_POINTER);
        assert_eq!(out, [-7; 6]);
        assert_eq!(
            jumpshard_table_replicas_batch(zoned, keys.as_ptr(), 2, 2, out.as_mut_ptr()),
            OK
        );
        assert_ne!(out[0], out[2]);
        assert_eq!(
            jumpshard_table_zone_name(plain, 0, &mut ptr, &mut len),
            NOT_ZONED
        );
        assert_eq!(
            jumpshard_table_zone_name(zoned, 3, &mut ptr, &mut len),
            NOT_A_BUCKET
        );
        assert_eq!((ptr, len), (std::ptr::null(), 99));
        assert_eq!(name(zoned, 1, jumpshard_table_zone_name), "x");
        assert_eq!(name(zoned, 2, jumpshard_table_zone_name), "y");
        assert_eq!(jumpshard_table_is_zoned(plain), 0);
        assert_eq!(jumpshard_table_is_zoned(std::ptr::null()), -1);
        for t in [zoned, plain, weighted] {
            jumpshard_table_free(t);
        }
    }
}
