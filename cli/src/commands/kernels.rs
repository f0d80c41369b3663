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
            Ok(k) => format!("supported, {} division", k.division()),
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
