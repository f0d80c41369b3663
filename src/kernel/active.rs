//! Which kernel the plain batch calls use.
//!
//! The choice is made once, on the first batch call (or the first call to
//! [`active_kernel`]), and cached in an atomic: later calls load it and never
//! detect again. It starts as [`Kernel::detect`]'s choice unless the
//! `JUMPSHARD_KERNEL` environment variable names another kernel; an override
//! this CPU cannot honour is reported on stderr once and in
//! [`kernel_selection`], and the detected kernel is used instead, so an
//! instruction the CPU lacks is never executed. `JUMPSHARD_DIVISION` then
//! sets that kernel's [`Division`] strategy the same way: one the kernel
//! lacks is reported and the table's choice kept.

use std::io::Write as _;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::OnceLock;

use crate::{Division, Error, Kernel, DIVISION_ENV};

/// The environment variable that overrides kernel detection; read once.
pub const KERNEL_ENV: &str = "JUMPSHARD_KERNEL";

/// 0 until the first selection; then a [`Kernel::to_id`].
static ACTIVE: AtomicU8 = AtomicU8::new(0);
static SELECTION: OnceLock<KernelSelection> = OnceLock::new();

/// How the first kernel was chosen: detection, and the `JUMPSHARD_KERNEL`
/// override if one was given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelSelection {
    /// What [`Kernel::detect`] found.
    pub detected: Kernel,
    /// The value of `JUMPSHARD_KERNEL`, when it was set and not empty.
    pub requested: Option<String>,
    /// Why the override was not honoured, when it was not.
    pub refused: Option<Error>,
    /// The value of `JUMPSHARD_DIVISION`, when it was set and not empty.
    pub division_requested: Option<String>,
    /// Why the division override was not honoured, when it was not.
    pub division_refused: Option<Error>,
    /// The kernel the batch calls started with, with its strategy.
    pub kernel: Kernel,
}

/// The first selection, made (and any refusal reported) on first use.
///
/// ```
/// let selection = jumpshard::kernel_selection();
/// if selection.requested.is_none() {
///     assert_eq!(selection.kernel, jumpshard::Kernel::detect());
/// }
/// ```
pub fn kernel_selection() -> &'static KernelSelection {
    SELECTION.get_or_init(|| {
        let var = |name| std::env::var(name).ok().filter(|v: &String| !v.is_empty());
        let selection = select(Kernel::detect(), var(KERNEL_ENV), var(DIVISION_ENV));
        if let (Some(requested), Some(why)) = (&selection.requested, &selection.refused) {
            // Not `eprintln!`, which panics when standard error cannot take
            // the message (`2> /dev/full`): a warning is not worth that.
            let _ = writeln!(
                std::io::stderr(),
                "jumpshard: {KERNEL_ENV}={requested} refused ({why}); using {}",
                selection.kernel
            );
        }
        if let (Some(requested), Some(why)) =
            (&selection.division_requested, &selection.division_refused)
        {
            let _ = writeln!(
                std::io::stderr(),
                "jumpshard: {DIVISION_ENV}={requested} refused ({why}); using {}",
                selection.kernel.division()
            );
        }
        selection
    })
}

fn select(
    detected: Kernel,
    requested: Option<String>,
    division_requested: Option<String>,
) -> KernelSelection {
    let (kernel, refused) = match requested.as_deref().map(Kernel::by_name) {
        None => (detected, None),
        Some(Ok(kernel)) => (kernel, None),
        Some(Err(why)) => (detected, Some(why)),
    };
    let division = division_requested
        .as_deref()
        .map(|name| Division::by_name(name).and_then(|d| kernel.with_division(d)));
    let (kernel, division_refused) = match division {
        None => (kernel, None),
        Some(Ok(kernel)) => (kernel, None),
        Some(Err(why)) => (kernel, Some(why)),
    };
    KernelSelection {
        detected,
        requested,
        refused,
        division_requested,
        division_refused,
        kernel,
    }
}

/// The kernel that [`crate::batch`] runs now.
///
/// ```
/// let k = jumpshard::active_kernel();
/// assert!(jumpshard::Kernel::supported().contains(&k));
/// ```
#[inline]
pub fn active_kernel() -> Kernel {
    match Kernel::from_id(ACTIVE.load(Ordering::Relaxed)) {
        Some(kernel) => kernel,
        None => first_selection(),
    }
}

#[cold]
fn first_selection() -> Kernel {
    let kernel = kernel_selection().kernel;
    // A concurrent `set_active_kernel` may have won; keep its choice.
    match ACTIVE.compare_exchange(0, kernel.to_id(), Ordering::Relaxed, Ordering::Relaxed) {
        Ok(_) => kernel,
        Err(current) => Kernel::from_id(current).unwrap_or(kernel),
    }
}

/// Makes every later [`crate::batch`] call, on every thread, use `kernel`.
/// A `Kernel` value is always one this CPU runs, so this cannot fail.
///
/// ```
/// use jumpshard::{active_kernel, set_active_kernel, Kernel};
///
/// let before = active_kernel();
/// set_active_kernel(Kernel::scalar());
/// assert_eq!(active_kernel(), Kernel::scalar());
/// set_active_kernel(before);
/// ```
pub fn set_active_kernel(kernel: Kernel) {
    ACTIVE.store(kernel.to_id(), Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_override_uses_detection() {
        let s = select(Kernel::scalar(), None, None);
        assert_eq!(s.kernel, Kernel::scalar());
        assert_eq!(s.refused, None);
    }

    #[test]
    fn supported_override_is_honoured() {
        let s = select(Kernel::detect(), Some("scalar".into()), None);
        assert_eq!(s.kernel, Kernel::scalar());
        assert_eq!(s.refused, None);
    }

    #[test]
    fn unknown_override_falls_back_to_detection() {
        let s = select(Kernel::detect(), Some("sse9".into()), None);
        assert_eq!(s.kernel, Kernel::detect());
        assert_eq!(
            s.refused,
            Some(Error::UnknownKernel {
                name: "sse9".into()
            })
        );
    }

    #[test]
    fn unsupported_override_falls_back_to_detection() {
        // Some named kernel is always missing: neon on x86, avx2 elsewhere.
        let missing = Kernel::NAMES
            .into_iter()
            .find(|name| Kernel::by_name(name).is_err())
            .expect("no CPU runs every kernel");
        let s = select(Kernel::detect(), Some(missing.into()), None);
        assert_eq!(s.kernel, Kernel::detect());
        assert_eq!(s.refused, Some(Error::UnsupportedKernel { name: missing }));
    }

    #[test]
    fn division_override_is_honoured_or_reported() {
        let s = select(
            Kernel::detect(),
            Some("scalar".into()),
            Some("newton".into()),
        );
        assert_eq!(s.kernel, Kernel::scalar());
        assert_eq!(
            s.division_refused,
            Some(Error::UnsupportedDivision {
                kernel: "scalar",
                division: "newton"
            })
        );
        let s = select(Kernel::scalar(), None, Some("ieee".into()));
        assert_eq!((s.kernel, s.division_refused), (Kernel::scalar(), None));
        let s = select(Kernel::scalar(), None, Some("slow".into()));
        assert_eq!(
            s.division_refused,
            Some(Error::UnknownDivision {
                name: "slow".into()
            })
        );
        for kernel in Kernel::supported() {
            for &d in kernel.divisions() {
                let s = select(kernel, None, Some(d.name().into()));
                assert_eq!(s.kernel.division(), d);
                assert_eq!(s.division_refused, None);
            }
        }
    }
}
