//! A node table's fingerprint: one short text that names what the table
//! means (its slots, their nodes, removals and weights), not how its file
//! is written, so that two routers can tell in one comparison whether
//! they place keys alike.
//!
//! # The encoding, version 1
//!
//! The fingerprint is XXH3-128 (seed 0, the `XXH3_128bits` of the xxHash
//! specification) of the byte string below, printed as `jt1:` followed by
//! the 128-bit value in 32 lowercase hexadecimal digits, most significant
//! first (xxHash's canonical, big-endian form). Integers are little-endian.
//!
//! 1. The format tag: the four bytes `j`, `t`, `1`, `0x00`.
//! 2. N, the number of slots (removed ones included), as a `u32`.
//! 3. For each slot, in slot order (slot `i` is the file's line `i + 1`):
//!    - the length in bytes of its node's name, as a `u32`, then the name
//!      in UTF-8, exactly as written (a repeated node, `+NAME` in the
//!      file, is its bare name again: the `+` is spelling);
//!    - its attributes, in increasing tag order, each only when the slot
//!      has it:
//!      - tag `0x01`, removed: the byte `0x01`, then K of `removed=K` (its
//!        place in the removal order, 1 for the first) as a `u32`;
//!      - tag `0x02`, weight: the byte `0x02`, then the weight's IEEE 754
//!        binary64 bits as a `u64`, present only when the table is
//!        weighted and the weight is not the default 1 (`-0` is written as
//!        `0`);
//!      - tag `0x04`, zone (a zoned table's slots all have it): the byte
//!        `0x04`, the length in bytes of the zone's name as a `u32`, then
//!        the name in UTF-8;
//!      - tag `0x05`, rack: the byte `0x05`, the length in bytes of the
//!        rack's name as a `u32`, then the name in UTF-8;
//!    - the byte `0x00`, ending the slot.
//! 4. For each override line (`override KEY NODE`), in increasing key
//!    order: the byte `0x03`, the key as a `u64`, then the length in bytes
//!    of the node's name as a `u32` and the name in UTF-8. A table without
//!    overrides adds no byte here, so its fingerprint is the one it had
//!    before overrides existed; how a key is spelled (decimal or `0x`
//!    hex) and the order of the lines are not hashed.
//!
//! Nothing else is hashed: not comments, blank space, the order of a
//! line's attributes, nor how a number is spelled. A weight is hashed as
//! the binary64 value the file's decimal reads as, not as a decimal text,
//! because that value is what places keys: `1`, `1.0`, `1e0` and
//! `1.00000000000000001` are all the same double and place keys alike,
//! whereas a canonical decimal would ask every other implementation for
//! the same shortest round-trip printing. An absent attribute adds no
//! byte, so that attributes added in later versions (failure domains,
//! overrides), with tags of their own, leave the fingerprint of a table
//! without them unchanged. A table whose weights are all equal places keys
//! exactly as Figure 1 and reads as a plain table: it has the plain
//! table's fingerprint.
//!
//! ```
//! use jumpshard::NodeTable;
//!
//! let written = NodeTable::parse("alpha weight=2.0  # the larger one\nbeta\n")?;
//! let respelled = NodeTable::parse("alpha weight=2e0\nbeta weight=1\n")?;
//! assert_eq!(written.fingerprint(), respelled.fingerprint());
//! assert_eq!(
//!     written.fingerprint().to_string(),
//!     "jt1:8b360973732a5cd3b4fa2ac6a5bbcb76"
//! );
//! let heavier = NodeTable::parse("alpha weight=3\nbeta\n")?;
//! assert_ne!(heavier.fingerprint(), written.fingerprint());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use core::fmt;

use xxhash_rust::xxh3::Xxh3;

/// The format tag that starts the hashed bytes.
const TAG: &[u8; 4] = b"jt1\0";
/// The prefix of the printed fingerprint, naming the encoding's version.
pub const FINGERPRINT_PREFIX: &str = "jt1:";
/// The attribute tags, in the order they are hashed.
const REMOVED: u8 = 0x01;
const WEIGHT: u8 = 0x02;
const OVERRIDE: u8 = 0x03;
const ZONE: u8 = 0x04;
const RACK: u8 = 0x05;
const END_OF_SLOT: u8 = 0x00;

/// The fingerprint of a node table's meaning (see [`NodeTable::fingerprint`](crate::nodes::NodeTable::fingerprint));
/// it prints as `jt1:` and 32 hexadecimal digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TableFingerprint(u128);

impl TableFingerprint {
    /// The 128-bit XXH3 value.
    pub fn value(self) -> u128 {
        self.0
    }

    /// The 16 bytes of the value, most significant first (as printed).
    pub fn to_bytes(self) -> [u8; 16] {
        self.0.to_be_bytes()
    }
}

impl fmt::Display for TableFingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{FINGERPRINT_PREFIX}{:032x}", self.0)
    }
}

/// Why a text is not a fingerprint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FingerprintParseError;

impl fmt::Display for FingerprintParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a table fingerprint is jt1: and 32 hexadecimal digits")
    }
}

impl std::error::Error for FingerprintParseError {}

impl core::str::FromStr for TableFingerprint {
    type Err = FingerprintParseError;

    /// Reads the printed form back (hex digits in either case).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let digits = text
            .strip_prefix(FINGERPRINT_PREFIX)
            .filter(|d| d.len() == 32 && d.bytes().all(|b| b.is_ascii_hexdigit()))
            .ok_or(FingerprintParseError)?;
        u128::from_str_radix(digits, 16)
            .map(TableFingerprint)
            .map_err(|_| FingerprintParseError)
    }
}

/// The fingerprint being hashed, one slot after another, as the module
/// documentation says.
pub(super) struct Hasher(Xxh3);

impl Hasher {
    /// A fingerprint of `len` slots.
    pub(super) fn new(len: usize) -> Hasher {
        let mut hasher = Xxh3::new();
        hasher.update(TAG);
        // A table has at most MAX_SLOTS (2^31 - 1) slots.
        hasher.update(&(len as u32).to_le_bytes());
        Hasher(hasher)
    }

    /// The next slot: its node's name, its place in the removal order (1
    /// for the first) if removed, its weight if the table is weighted, and
    /// its node's zone and rack if the table is zoned.
    pub(super) fn slot(
        &mut self,
        name: &str,
        removal: Option<u32>,
        weight: Option<f64>,
        domain: Option<(&str, Option<&str>)>,
    ) {
        let hasher = &mut self.0;
        hasher.update(&(name.len() as u32).to_le_bytes());
        hasher.update(name.as_bytes());
        if let Some(k) = removal {
            hasher.update(&[REMOVED]);
            hasher.update(&k.to_le_bytes());
        }
        if let Some(w) = weight.filter(|&w| w != 1.0) {
            // -0 and 0 weigh the same: one spelling of nothing.
            let w = if w == 0.0 { 0.0f64 } else { w };
            hasher.update(&[WEIGHT]);
            hasher.update(&w.to_bits().to_le_bytes());
        }
        if let Some((zone, rack)) = domain {
            for (tag, name) in [(ZONE, Some(zone)), (RACK, rack)] {
                let Some(name) = name else { continue };
                hasher.update(&[tag]);
                hasher.update(&(name.len() as u32).to_le_bytes());
                hasher.update(name.as_bytes());
            }
        }
        hasher.update(&[END_OF_SLOT]);
    }

    /// An override, after every slot: `key` pinned to node `name`.
    pub(super) fn pin(&mut self, key: u64, name: &str) {
        let hasher = &mut self.0;
        hasher.update(&[OVERRIDE]);
        hasher.update(&key.to_le_bytes());
        hasher.update(&(name.len() as u32).to_le_bytes());
        hasher.update(name.as_bytes());
    }

    /// The fingerprint of the slots given.
    pub(super) fn finish(self) -> TableFingerprint {
        TableFingerprint(self.0.digest128())
    }
}
