//! The kernels, and the checks that guard them.
//!
//! A [`Kernel`] value can only be made for an instruction set this CPU
//! runs: [`Kernel::detect`], [`Kernel::scalar`] and the per-ISA constructors
//! check first. That is what makes [`Kernel::batch`] safe to call on any
//! kernel value, and it is the only place the arch modules are entered.
//!
//! The rest of the choice lives beside it: [`cpu`] identifies the CPU,
//! [`division`] holds the strategies and the per-CPU table that picks one,
//! and [`active`] caches the kernel that plain batch calls use, with the
//! environment overrides. [`scalar`] is the portable loop every kernel
//! must match; [`filter`] picks a block's moving keys for move plans.

pub(crate) mod active;
pub(crate) mod cpu;
pub(crate) mod division;
pub(crate) mod filter;
pub(crate) mod names;
pub(crate) mod scalar;
pub(crate) mod xxh3;
pub(crate) mod xxh64;

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
use crate::arch;
#[cfg(target_arch = "x86_64")]
use crate::Cpu;
use crate::{BucketCount, Division, Error};
#[cfg(target_arch = "x86_64")]
use division::{preferred, Width};

/// An implementation of the batch loop: the portable scalar one, or one for
/// a SIMD instruction set this CPU has been checked to run.
///
/// ```
/// use jumpshard::{BucketCount, Kernel};
///
/// let keys = [1u64, 2, 3, 4, 5];
/// let mut out = [0u32; 5];
/// let n = BucketCount::new(1000)?;
/// // Every kernel this CPU runs gives the same answer.
/// for kernel in Kernel::supported() {
///     kernel.batch(&keys, n, &mut out)?;
///     assert_eq!(out[0], jumpshard::bucket(1, n));
/// }
/// // Constructors for instruction sets the CPU lacks return None.
/// if let Some(avx2) = Kernel::avx2() {
///     assert_eq!(avx2.name(), "avx2");
///     // Each SIMD kernel has every division strategy, all bit-exact.
///     for &d in avx2.divisions() {
///         avx2.with_division(d)?.batch(&keys, n, &mut out)?;
///         assert_eq!(out[0], jumpshard::bucket(1, n));
///     }
/// }
/// # Ok::<(), jumpshard::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Kernel {
    isa: Isa,
    /// Always one of `isa`'s strategies (see [`Kernel::divisions`]).
    division: Division,
}

/// Kept private so that no `Kernel` exists for an instruction set that has
/// not been detected. The discriminants are what the dispatch cache stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub(crate) enum Isa {
    Scalar = 1,
    #[cfg(target_arch = "x86_64")]
    Avx2 = 2,
    #[cfg(target_arch = "x86_64")]
    Avx512 = 3,
    #[cfg(target_arch = "aarch64")]
    Neon = 4,
}

impl Kernel {
    /// Every kernel name the library knows, whatever this CPU runs, as
    /// accepted by [`Kernel::by_name`] and the `JUMPSHARD_KERNEL` variable.
    pub const NAMES: [&'static str; 4] = names::KERNELS;

    /// The best kernel this CPU runs: the widest SIMD kernel, or scalar.
    pub fn detect() -> Kernel {
        *Kernel::supported()
            .last()
            .expect("the scalar kernel is always supported")
    }

    /// The portable kernel, available everywhere.
    pub fn scalar() -> Kernel {
        Kernel::with_isa(Isa::Scalar)
    }

    /// The kernel for `isa` (detected by the caller) with the strategy the
    /// division table picks for this CPU.
    fn with_isa(isa: Isa) -> Kernel {
        let division = match isa {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => preferred(Cpu::this(), Width::Avx2),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => preferred(Cpu::this(), Width::Avx512),
            _ => Division::Ieee,
        };
        Kernel { isa, division }
    }

    /// How this kernel computes the quotient: the table's choice for this
    /// CPU unless [`Kernel::with_division`] or `JUMPSHARD_DIVISION` chose.
    pub fn division(self) -> Division {
        self.division
    }

    /// The division strategies this kernel has: all of them on AVX2 and
    /// AVX-512, only IEEE division on scalar and NEON.
    pub fn divisions(self) -> &'static [Division] {
        match self.isa {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 | Isa::Avx512 => &Division::ALL,
            _ => &[Division::Ieee],
        }
    }

    /// This kernel with another division strategy, or
    /// [`Error::UnsupportedDivision`] when it does not have that one.
    ///
    /// ```
    /// use jumpshard::{Division, Error, Kernel};
    ///
    /// assert_eq!(
    ///     Kernel::scalar().with_division(Division::Hybrid),
    ///     Err(Error::UnsupportedDivision { kernel: "scalar", division: "hybrid" })
    /// );
    /// ```
    pub fn with_division(self, division: Division) -> Result<Kernel, Error> {
        if self.divisions().contains(&division) {
            Ok(Kernel { division, ..self })
        } else {
            Err(Error::UnsupportedDivision {
                kernel: self.name(),
                division: division.name(),
            })
        }
    }

    /// The AVX2 kernel (4 lanes), or `None` where the CPU (or the target)
    /// lacks AVX2, FMA or POPCNT.
    pub fn avx2() -> Option<Kernel> {
        #[cfg(target_arch = "x86_64")]
        if is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("fma")
            && is_x86_feature_detected!("popcnt")
        {
            return Some(Kernel::with_isa(Isa::Avx2));
        }
        None
    }

    /// The AVX-512 kernel (8 lanes), or `None` where the CPU (or the
    /// target) lacks AVX-512F, AVX-512DQ, AVX2, FMA or POPCNT (every
    /// AVX-512 CPU has the last three; the kernel runs 3 or 4 keys in one
    /// AVX2 vector).
    pub fn avx512() -> Option<Kernel> {
        #[cfg(target_arch = "x86_64")]
        if is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512dq")
            && is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("fma")
            && is_x86_feature_detected!("popcnt")
        {
            return Some(Kernel::with_isa(Isa::Avx512));
        }
        None
    }

    /// The NEON kernel, or `None` off aarch64.
    pub fn neon() -> Option<Kernel> {
        #[cfg(target_arch = "aarch64")]
        if std::arch::is_aarch64_feature_detected!("neon") {
            return Some(Kernel::with_isa(Isa::Neon));
        }
        None
    }

    /// The kernels this CPU runs, slowest first, so the last is
    /// [`Kernel::detect`]'s choice.
    pub fn supported() -> Vec<Kernel> {
        [
            Some(Kernel::scalar()),
            Kernel::avx2(),
            Kernel::avx512(),
            Kernel::neon(),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    /// Every kernel this CPU runs, with each of its division strategies:
    /// what the differential tests force in turn.
    #[cfg(test)]
    pub(crate) fn every_strategy() -> Vec<Kernel> {
        Kernel::supported()
            .into_iter()
            .flat_map(|k| k.divisions().iter().map(move |&d| k.with_division(d)))
            .collect::<Result<_, _>>()
            .expect("a kernel's own strategies")
    }

    /// The kernel called `name` (one of [`Kernel::NAMES`]), if this CPU runs
    /// it.
    ///
    /// ```
    /// use jumpshard::{Error, Kernel};
    ///
    /// assert_eq!(Kernel::by_name("scalar"), Ok(Kernel::scalar()));
    /// assert!(matches!(Kernel::by_name("sse9"), Err(Error::UnknownKernel { .. })));
    /// ```
    pub fn by_name(name: &str) -> Result<Kernel, Error> {
        let found = match name {
            "scalar" => Some(Kernel::scalar()),
            "avx2" => Kernel::avx2(),
            "avx512" => Kernel::avx512(),
            "neon" => Kernel::neon(),
            _ => {
                return Err(Error::UnknownKernel {
                    name: name.to_owned(),
                })
            }
        };
        let name = Kernel::NAMES
            .into_iter()
            .find(|&known| known == name)
            .expect("matched above");
        found.ok_or(Error::UnsupportedKernel { name })
    }

    /// The kernel's name, as in [`Kernel::NAMES`].
    pub fn name(self) -> &'static str {
        match self.isa {
            Isa::Scalar => "scalar",
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => "avx2",
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => "avx512",
            #[cfg(target_arch = "aarch64")]
            Isa::Neon => "neon",
        }
    }

    /// How many keys the kernel works on at once (1 for scalar).
    pub fn lanes(self) -> usize {
        match self.isa {
            Isa::Scalar => 1,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => 4,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => 8,
            #[cfg(target_arch = "aarch64")]
            Isa::Neon => arch::aarch64::neon::LANES,
        }
    }

    /// Computes the bucket of every key in `keys` into `out`, with this
    /// kernel. Fails, leaving `out` untouched, when the lengths differ.
    pub fn batch(
        self,
        keys: &[u64],
        num_buckets: BucketCount,
        out: &mut [u32],
    ) -> Result<(), Error> {
        check_lengths(keys, out)?;
        self.run(keys, num_buckets.get(), out);
        Ok(())
    }

    /// The unchecked batch: `keys.len() == out.len()` and `num_buckets` is a
    /// valid count.
    pub(crate) fn run(self, keys: &[u64], num_buckets: u32, out: &mut [u32]) {
        debug_assert_eq!(keys.len(), out.len());
        match self.isa {
            Isa::Scalar => scalar::batch(keys, num_buckets, out),
            // SAFETY: a `Kernel` with `Isa::Avx2` is only made by
            // `Kernel::avx2` after detecting AVX2, FMA and POPCNT, the
            // features the kernel enables; the lengths are equal and the
            // count valid, as this function's contract says.
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => unsafe {
                arch::x86_64::avx2::batch(keys, num_buckets, out, self.division)
            },
            // SAFETY: a `Kernel` with `Isa::Avx512` is only made by
            // `Kernel::avx512` after detecting AVX-512F, AVX-512DQ, AVX2,
            // FMA and POPCNT, the features the kernel enables; the lengths
            // are equal and the count valid, as this function's contract
            // says.
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => unsafe {
                arch::x86_64::avx512::batch(keys, num_buckets, out, self.division)
            },
            // SAFETY: a `Kernel` with `Isa::Neon` is only made by `Kernel::neon`
            // after detecting NEON, the feature the kernel enables; the
            // lengths are equal and the count valid, as this function's
            // contract says.
            #[cfg(target_arch = "aarch64")]
            Isa::Neon => unsafe { arch::aarch64::neon::batch(keys, num_buckets, out) },
        }
    }

    /// Stages every `i` with `buckets[i] >= threshold` as (position
    /// `base + i`, `keys[i]`, `buckets[i]`), in order; returns how many.
    /// `keys` and `buckets` have equal lengths, every bucket and the
    /// threshold are below 2^31, and `staged` has room for every key.
    pub(crate) fn filter_movers(
        self,
        keys: &[u64],
        buckets: &[u32],
        threshold: u32,
        base: u64,
        staged: &mut crate::kernel::filter::Staged,
    ) -> usize {
        assert!(keys.len() == buckets.len() && staged.keys.len() >= keys.len());
        match self.isa {
            // SAFETY: a `Kernel` with `Isa::Avx512` is only made by
            // `Kernel::avx512` after detecting AVX-512F and POPCNT, which
            // the selection enables; the lengths were checked above.
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => unsafe {
                crate::arch::x86_64::filter::movers(keys, buckets, threshold, base, staged)
            },
            _ => crate::kernel::filter::filter_from(keys, buckets, threshold, base, staged, 0, 0),
        }
    }

    /// The instruction set in the low four bits, the division above.
    pub(crate) fn to_id(self) -> u8 {
        self.isa as u8 | (self.division as u8) << 4
    }

    /// The inverse of [`Kernel::to_id`]. No detection runs here: the
    /// dispatch cache only stores ids of `Kernel` values, which were checked
    /// when they were made.
    pub(crate) fn from_id(id: u8) -> Option<Kernel> {
        let isa = match id & 0xF {
            x if x == Isa::Scalar as u8 => Isa::Scalar,
            #[cfg(target_arch = "x86_64")]
            x if x == Isa::Avx2 as u8 => Isa::Avx2,
            #[cfg(target_arch = "x86_64")]
            x if x == Isa::Avx512 as u8 => Isa::Avx512,
            #[cfg(target_arch = "aarch64")]
            x if x == Isa::Neon as u8 => Isa::Neon,
            _ => return None,
        };
        let division = Division::from_id(id >> 4)?;
        Some(Kernel { isa, division })
    }
}

impl core::fmt::Display for Kernel {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

pub(crate) fn check_lengths(keys: &[u64], out: &[u32]) -> Result<(), Error> {
    if keys.len() == out.len() {
        Ok(())
    } else {
        Err(Error::LengthMismatch {
            keys: keys.len(),
            out: out.len(),
        })
    }
}

#[cfg(test)]
mod tests {
    //! Every kernel this CPU (or Miri, with the target features it was
    //! built with) runs, against the scalar loop: short batches of every
    //! length around the lane counts, from unaligned starts. Small enough
    //! for Miri, which checks the kernels' memory accesses: `.ci/miri` runs
    //! it with AVX2 enabled, so the scalar and AVX2 kernels run there. The
    //! AVX-512 kernel cannot: Miri does not implement its expand-load and
    //! compress intrinsics.

    use super::*;

    /// The lengths, each with the bucket counts it is run with: every
    /// length up to 70 (the scalar shortcuts of one and two keys, every
    /// fill of a vector, the short paths' blocks of 24 and 64 keys and
    /// batches of two blocks), and the lengths around the end of each
    /// short path (NEON's 8 keys; AVX2's 192 with the refined reciprocal
    /// and 256 without; AVX-512's 512), where the refilling loop takes
    /// over, with a count for each of its round lengths (3 iterations
    /// below 1000 buckets, 4 from there). Under Miri, which checks memory
    /// accesses rather than arithmetic and runs each key a thousand times
    /// slower, the kernels it runs (scalar and AVX2) on every fill of a
    /// vector, around a block of 24, and past each of AVX2's short paths,
    /// with few and short walks.
    fn cases() -> Vec<(usize, &'static [u32])> {
        const COUNTS: &[u32] = &[1, 2, 10, 1000, (1 << 31) - 1];
        if cfg!(miri) {
            let vectors = (0..=9).map(|len| (len, COUNTS));
            let blocks = [23, 24, 25, 49].map(|len| (len, &[10, 1000][..]));
            let runs = [(193, &[10][..]), (257, &[1000][..])];
            return vectors.chain(blocks).chain(runs).collect();
        }
        let long = [
            127, 128, 129, 191, 192, 193, 255, 256, 257, 300, 511, 512, 513,
        ];
        let long = long.map(|len| (len, &[10, (1 << 31) - 1][..]));
        (0..=70).map(|len| (len, COUNTS)).chain(long).collect()
    }

    #[test]
    fn every_kernel_matches_the_scalar_loop() {
        // Miri answers detection from the enabled target features: built
        // with AVX2, the AVX2 kernel must be among those tested.
        #[cfg(all(
            target_feature = "avx2",
            target_feature = "fma",
            target_feature = "popcnt"
        ))]
        assert!(Kernel::avx2().is_some());
        let keys = crate::splitmix::SplitMix64::new(0x6B65_726E).keys(520);
        let kernels = Kernel::every_strategy();
        for (len, counts) in cases() {
            // Misaligned by 0, 1 and 3 keys; under Miri by one of them, in
            // turn from one length to the next.
            for (i, skip) in [0, 1, 3].into_iter().enumerate() {
                if cfg!(miri) && i != len % 3 {
                    continue;
                }
                let keys = &keys[skip..skip + len];
                for &n in counts {
                    let count = BucketCount::new(n).expect("valid count");
                    let want: Vec<u32> = keys.iter().map(|&k| scalar::jump(k, n)).collect();
                    for &kernel in &kernels {
                        let mut out = vec![u32::MAX; len];
                        kernel.batch(keys, count, &mut out).expect("equal lengths");
                        let division = kernel.division();
                        assert_eq!(
                            out, want,
                            "{kernel} ({division:?}), N {n}, {len} keys from {skip}"
                        );
                    }
                }
            }
        }
    }
}
