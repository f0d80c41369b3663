//! The CPU this process runs on, as the division table and the benchmark
//! name it: vendor, family, model and the marketing name, from `cpuid` on
//! x86-64 (elsewhere only the architecture is known, and so under Miri,
//! which cannot run `cpuid`: there the table's default, IEEE division,
//! applies).

use std::sync::OnceLock;

/// Who made the CPU and which microarchitecture it is.
///
/// ```
/// let cpu = jumpshard::Cpu::this();
/// assert!(!cpu.vendor.is_empty());
/// println!("{cpu}");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cpu {
    /// The `cpuid` vendor string (`GenuineIntel`, `AuthenticAMD`, ...), or
    /// the architecture's name where there is no `cpuid`.
    pub vendor: String,
    /// The display family (base family plus extended family), 0 if unknown.
    pub family: u32,
    /// The display model (with the extended model bits), 0 if unknown.
    pub model: u32,
    /// The brand string, trimmed; empty when the CPU reports none.
    pub name: String,
}

impl Cpu {
    /// The CPU this process runs on, read once.
    pub fn this() -> &'static Cpu {
        static CPU: OnceLock<Cpu> = OnceLock::new();
        CPU.get_or_init(read)
    }
}

impl core::fmt::Display for Cpu {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "{} family {} (0x{:X}) model {} (0x{:X})",
            self.vendor, self.family, self.family, self.model, self.model
        )?;
        if !self.name.is_empty() {
            write!(f, ", {}", self.name)?;
        }
        Ok(())
    }
}

#[cfg(all(target_arch = "x86_64", not(miri)))]
fn read() -> Cpu {
    use core::arch::x86_64::__cpuid;

    let words = |regs: &[u32]| -> String {
        let bytes: Vec<u8> = regs.iter().flat_map(|r| r.to_le_bytes()).collect();
        String::from_utf8_lossy(&bytes)
            .trim_matches(|c: char| c == '\0' || c.is_whitespace())
            .to_owned()
    };
    let leaf0 = __cpuid(0);
    let vendor = words(&[leaf0.ebx, leaf0.edx, leaf0.ecx]);
    let signature = __cpuid(1).eax;
    let base_family = (signature >> 8) & 0xF;
    let base_model = (signature >> 4) & 0xF;
    let family = if base_family == 0xF {
        base_family + ((signature >> 20) & 0xFF)
    } else {
        base_family
    };
    let model = if base_family == 0x6 || base_family == 0xF {
        base_model | (((signature >> 16) & 0xF) << 4)
    } else {
        base_model
    };
    let name = if __cpuid(0x8000_0000).eax >= 0x8000_0004 {
        let regs: Vec<u32> = (0x8000_0002..=0x8000_0004u32)
            .flat_map(|leaf| {
                let r = __cpuid(leaf);
                [r.eax, r.ebx, r.ecx, r.edx]
            })
            .collect();
        words(&regs)
    } else {
        String::new()
    };
    Cpu {
        vendor,
        family,
        model,
        name,
    }
}

#[cfg(any(not(target_arch = "x86_64"), miri))]
fn read() -> Cpu {
    Cpu {
        vendor: std::env::consts::ARCH.to_owned(),
        family: 0,
        model: 0,
        name: String::new(),
    }
}

#[cfg(all(test, target_arch = "x86_64", not(miri)))]
mod tests {
    use super::*;

    #[test]
    fn x86_cpus_name_their_vendor_and_family() {
        let cpu = Cpu::this();
        assert_eq!(cpu.vendor.len(), 12, "{cpu}");
        assert!(cpu.family >= 6, "{cpu}");
    }
}
