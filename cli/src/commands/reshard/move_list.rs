//! Opening the move list of `reshard` where `--output` says.

use jumpshard_stream::moves::{MoveId, MoveWriter};

use super::args::Args;
use crate::out::destination::Output;

/// The move list `args` ask for, if any; `byte_keys` says whether keys are
/// byte strings (named by position); `nodes` are the names moves refer to
/// (`None`: moves name buckets).
pub fn open(
    args: &Args,
    byte_keys: bool,
    nodes: Option<&[String]>,
) -> Result<Option<MoveWriter<Output>>, String> {
    let Some(path) = args.output.as_deref() else {
        return Ok(None);
    };
    let format = args.move_format()?;
    let out = Output::create(path, args.input.input_files())?;
    let name = out.name().to_owned();
    let id = match args.positions || byte_keys {
        true => MoveId::Position,
        false => MoveId::Key,
    };
    Ok(Some(MoveWriter::new(out, name, format.into(), id, nodes)?))
}
