//! `jumpshard kernels`: which kernels this CPU runs, and which one batch
//! calls use.

use crate::out::stdout::Stdout;

/// Lists the kernels: all, or only the supported ones, or every division
/// strategy of each.
pub fn run(only_supported: bool, only_divisions: bool) -> Result<(), String> {
    let mut out = Stdout::open()?;
    let supported = jumpshard::Kernel::supported();
    if only_supported {
        for k in supported {
            writeln!(out, "{k}")?;
        }
        return out.finish();
    }
    if only_divisions {
        for k in &supported {
            for d in k.divisions() {
                writeln!(out, "{k}:{d}")?;
            }
        }
        return out.finish();
    }
    let selection = jumpshard::kernel_selection();
    let active = jumpshard::active_kernel();
    for name in jumpshard::Kernel::NAMES {
        let state = match jumpshard::Kernel::by_name(name) {
            Ok(k) if k.name() == active.name() => {
                format!("supported, active, {} division", active.division())
            }
            Ok(k) => format!("supported, {} division", division_when_active(k)),
            Err(_) => "not supported here".to_owned(),
        };
        writeln!(out, "{name:<8} {state}")?;
    }
    if let (Some(requested), Some(why)) = (&selection.requested, &selection.refused) {
        writeln!(
            out,
            "{} = {requested:?} was refused: {why}",
            jumpshard::KERNEL_ENV
        )?;
    }
    if let (Some(requested), Some(why)) =
        (&selection.division_requested, &selection.division_refused)
    {
        writeln!(
            out,
            "{} = {requested:?} was refused: {why}",
            jumpshard::DIVISION_ENV
        )?;
    }
    writeln!(out, "CPU: {}", jumpshard::Cpu::this())?;
    out.finish()
}

/// The strategy `kernel` divides with when batch calls run on it: the one
/// `JUMPSHARD_DIVISION` forces where the kernel has it, else its table's.
/// The library reads the variable once and applies it to the kernel the
/// batch calls start with; `bench`, which makes every kernel active in
/// turn, applies it to each, and this listing says so. (A strategy the
/// active kernel lacks is reported by the library on first use.)
pub fn division_when_active(kernel: jumpshard::Kernel) -> jumpshard::Division {
    let forced = jumpshard::kernel_selection()
        .division_requested
        .as_deref()
        .and_then(|name| jumpshard::Division::by_name(name).ok())
        .filter(|d| kernel.divisions().contains(d));
    forced.unwrap_or(kernel.division())
}
