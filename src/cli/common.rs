//! Helpers shared by several subcommands.

use anyhow::{anyhow, Result};
use posfilter::codec::CodecError;
use posfilter::shogi::Position;

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
