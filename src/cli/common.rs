//! Helpers shared by several subcommands.

use anyhow::{Context, Result};
use posfilter::shogi::Position;

/// Parses a user-given SFEN (`startpos` and a leading `sfen ` accepted) and checks that the
/// position is possible.
pub fn parse_position(sfen: &str) -> Result<Position> {
    let text = sfen.trim();
    let text = text.strip_prefix("sfen ").unwrap_or(text);
    let pos = Position::from_sfen(text).with_context(|| format!("bad SFEN {text:?}"))?;
    pos.validate()
        .with_context(|| format!("impossible position {text:?}"))?;
    Ok(pos)
}
