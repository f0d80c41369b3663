//! What the bench's cycle figures count. The time-stamp counter ticks at
//! the CPU's nominal clock, whatever the core runs at: turbo, or a lower
//! clock under wide vector work, makes ticks and core cycles differ (on
//! this project's Emerald Rapids KVM host, 1.3 core cycles a tick, with or
//! without vector work). So besides ticks, the bench estimates core
//! cycles, from a chain of dependent 64-bit multiplies timed in ticks
//! right after each measurement, while the core still runs at the clock
//! the measured code set.

/// Multiplies in one timing of the chain (a multiple of 4): about 33 µs
/// at 3 GHz, short enough to follow every measurement, long enough that
/// the two reads of the counter cost nothing beside it.
const CHAIN: u64 = 1 << 15;

/// Core cycles one multiply of the chain takes: the latency of a 64-bit
/// `imul`, 3 cycles on every Intel core since Nehalem and every AMD Zen.
/// (On a core where it differs, the estimate is off by that ratio.)
const MULTIPLY_LATENCY: f64 = 3.0;

/// The time-stamp counter, on x86-64.
#[cfg(target_arch = "x86_64")]
pub fn ticks() -> Option<u64> {
    // SAFETY: RDTSC exists on every x86-64 CPU and has no preconditions.
    Some(unsafe { core::arch::x86_64::_rdtsc() })
}

#[cfg(not(target_arch = "x86_64"))]
pub fn ticks() -> Option<u64> {
    None
}

/// Core cycles per time-stamp-counter tick, now. A run interrupted by
/// another process reads low, so callers keep the highest of several.
pub fn cycles_per_tick() -> Option<f64> {
    let start = ticks()?;
    multiply_chain();
    let elapsed = ticks()?.wrapping_sub(start);
    Some(CHAIN as f64 * MULTIPLY_LATENCY / elapsed.max(1) as f64)
}

/// [`CHAIN`] multiplies, each waiting for the one before. In assembly: the
/// compiler regroups a chain written in Rust (repeated products by one
/// constant fold into fewer multiplies), which then times no latency.
#[cfg(target_arch = "x86_64")]
fn multiply_chain() {
    // SAFETY: the loop only multiplies and counts down in the two
    // registers given to it (both clobbered, declared so), and touches
    // neither memory nor the stack; it runs `CHAIN / 4` times, at least
    // once.
    unsafe {
        core::arch::asm!(
            "2:",
            "imul {x}, {x}",
            "imul {x}, {x}",
            "imul {x}, {x}",
            "imul {x}, {x}",
            "sub {n}, 1",
            "jnz 2b",
            x = inout(reg) 3u64 => _,
            n = inout(reg) CHAIN / 4 => _,
            options(nomem, nostack),
        );
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn multiply_chain() {}
