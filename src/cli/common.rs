//! Helpers shared by several subcommands.

use anyhow::{anyhow, Result};
use posfilter::codec::CodecError;
use posfilter::pipeline::report::Report;
use posfilter::shogi::Position;
use std::process::ExitCode;

/// Parses a user-given position and checks that it is possible
/// ([`posfilter::codec::text::parse_position`]); the error quotes the text.
pub fn parse_position(text: &str) -> Result<Position> {
    let text = text.trim();
    posfilter::codec::text::parse_position(text).map_err(|e| match e {
        CodecError::Sfen(why) => anyhow!("bad SFEN {text:?}: {why}"),
        CodecError::Invalid(why) => anyhow!("impossible position {text:?}: {why}"),
        other => anyhow!("bad USI position {text:?}: {other}"),
    })
}

/// The exit status of a completed run (or of the merge that stands for one): 0 clean, 1 when
/// part of the input could not be read or too many records were rejected
/// ([`Report::incomplete_input`]), said on stderr even when quiet, since the status alone
/// does not say what is missing.
pub fn completed_status(report: &Report, max_rejected: Option<u64>) -> ExitCode {
    let incomplete = report.incomplete_input(max_rejected);
    if incomplete.is_empty() {
        return ExitCode::SUCCESS;
    }
    eprintln!(
        "posfilter: the run completed, but {}: exit status 1 (see rejected.jsonl)",
        incomplete.join("; ")
    );
    ExitCode::from(1)
}
