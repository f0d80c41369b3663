//! How the SIMD kernels compute Figure 1's quotient `2^31 / d`: the
//! strategies, their names, and the table that picks one per CPU.
//!
//! Every strategy gives the IEEE quotient bit for bit (the replacements
//! are checked over all 2^31 divisors); they differ only in which
//! execution units do the work, and so in speed, which depends on the
//! microarchitecture:
//!
//! - `ieee`: IEEE division on every vector. Best where the divider keeps
//!   up with the rest of the loop (AMD Zen 5: `vdivpd zmm` about every 4
//!   cycles).
//! - `newton`: a reciprocal estimate refined by FMA steps on every vector,
//!   leaving the divider idle. Best where division is slow and the FMA
//!   ports have room (Intel Sapphire Rapids class: `vdivpd zmm` every 16
//!   cycles, two 512-bit FMA ports).
//! - `hybrid`: the vectors of a kernel alternate between the two, so the
//!   divider and the FMA ports work at once.
//!
//! The choice is a table keyed by vendor and family ([`preferred`]), not a
//! calibration at start-up: a timing taken on a loaded two-core machine
//! (where these kernels are developed and tested) is noisy enough to pick
//! differently from one run to the next, which would make benchmarks and
//! bug reports irreproducible, and it would cost every process a few
//! milliseconds. Unknown CPUs get IEEE division, Figure 1's own operation.

use crate::{Cpu, Error};

/// The environment variable that overrides the table; read once.
pub const DIVISION_ENV: &str = "JUMPSHARD_DIVISION";

/// A way to compute the quotient; see the module documentation.
///
/// ```
/// use jumpshard::{Division, Kernel};
///
/// assert_eq!(Division::by_name("newton"), Ok(Division::Newton));
/// // The scalar kernel only divides.
/// assert!(Kernel::scalar().with_division(Division::Newton).is_err());
/// assert_eq!(Kernel::scalar().division(), Division::Ieee);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Division {
    /// IEEE division on every vector.
    Ieee = 0,
    /// Reciprocal estimate plus FMA refinement on every vector.
    Newton = 1,
    /// Division on half the vectors, the refinement on the other half.
    Hybrid = 2,
}

impl Division {
    /// Every strategy, in the order of [`Division::NAMES`].
    pub const ALL: [Division; 3] = [Division::Ieee, Division::Newton, Division::Hybrid];

    /// The names accepted by [`Division::by_name`] and `JUMPSHARD_DIVISION`.
    pub const NAMES: [&'static str; 3] = super::names::DIVISIONS;

    /// The strategy called `name`, one of [`Division::NAMES`].
    pub fn by_name(name: &str) -> Result<Division, Error> {
        Division::ALL
            .into_iter()
            .find(|d| d.name() == name)
            .ok_or_else(|| Error::UnknownDivision {
                name: name.to_owned(),
            })
    }

    /// The strategy's name, as in [`Division::NAMES`].
    pub fn name(self) -> &'static str {
        Division::NAMES[self as usize]
    }

    pub(crate) fn from_id(id: u8) -> Option<Division> {
        Division::ALL.get(usize::from(id)).copied()
    }
}

impl core::fmt::Display for Division {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// Which SIMD width a table row is for. (Only x86 kernels have
/// alternatives; the table and its tests build everywhere.)
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Width {
    /// AVX2, 4 lanes of 256 bits.
    Avx2,
    /// AVX-512, 8 lanes.
    Avx512,
}

/// The strategy for a kernel of `width` on `cpu`. The table in
/// docs/kernels.md says which rows were measured and which inferred.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) fn preferred(cpu: &Cpu, width: Width) -> Division {
    match (cpu.vendor.as_str(), cpu.family, width) {
        // Intel cores since Skylake-SP (family 6): 512-bit division every
        // 16 cycles, 256-bit every 8; measured on two Sapphire Rapids-class
        // hosts (Emerald Rapids, model 0xCF, and one KVM reports as 0xA7).
        ("GenuineIntel", 6, Width::Avx512) => Division::Hybrid,
        ("GenuineIntel", 6, Width::Avx2) => Division::Ieee,
        // AMD Zen 3 and Zen 4 (family 0x19). Zen 4: 9-cycle `vdivpd zmm` on
        // 256-bit datapaths; the bit-exact AVX-512 prototype split the work.
        ("AuthenticAMD", 0x19, Width::Avx512) => Division::Hybrid,
        // Zen 4's `vdivpd ymm` issues every ~4.5 cycles, about 1.1 per lane,
        // while the AVX2 loop spends about 3 per lane-iteration on its
        // other operations: the divider is not the bound, and the refined
        // reciprocal only adds operations. On Intel, whose AVX2 divider is
        // busier (2 cycles per lane), it makes AVX2 11-41% slower.
        // Zen 3 (AVX2 only) measured too: IEEE 7.4x Figure 1, the hybrid
        // 5.2x, Newton's 4.3x.
        ("AuthenticAMD", 0x19, Width::Avx2) => Division::Ieee,
        // AMD Zen 5 (family 0x1A), measured: the divider keeps up.
        ("AuthenticAMD", 0x1A, _) => Division::Ieee,
        _ => Division::Ieee,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cpu(vendor: &str, family: u32) -> Cpu {
        Cpu {
            vendor: vendor.into(),
            family,
            model: 0,
            name: String::new(),
        }
    }

    #[test]
    fn names_round_trip() {
        for d in Division::ALL {
            assert_eq!(Division::by_name(d.name()), Ok(d));
            assert_eq!(Division::from_id(d as u8), Some(d));
        }
        assert_eq!(
            Division::by_name("fast"),
            Err(Error::UnknownDivision {
                name: "fast".into()
            })
        );
    }

    #[test]
    fn amd_and_unknown_cpus_divide_except_zen4_avx512() {
        for width in [Width::Avx2, Width::Avx512] {
            assert_eq!(preferred(&cpu("AuthenticAMD", 0x1A), width), Division::Ieee);
            assert_eq!(preferred(&cpu("AuthenticAMD", 0x17), width), Division::Ieee);
            assert_eq!(preferred(&cpu("HygonGenuine", 0x18), width), Division::Ieee);
        }
        assert_eq!(
            preferred(&cpu("AuthenticAMD", 0x19), Width::Avx512),
            Division::Hybrid
        );
        assert_eq!(
            preferred(&cpu("AuthenticAMD", 0x19), Width::Avx2),
            Division::Ieee
        );
    }
}
