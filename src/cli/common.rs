//! Helpers shared by several subcommands.

use anyhow::{Context, Result};
use posfilter::codec::text::parse_usi_line;
use posfilter::shogi::Position;

/// Parses a user-given position and checks that it is possible: an SFEN (`startpos` and a
/// leading `sfen ` accepted), or a USI position command with moves (`[position] startpos |
/// sfen <SFEN> moves <m1> ...`, as engine logs print them), replayed to its last position
/// with every move checked for legality.
pub fn parse_position(sfen: &str) -> Result<Position> {
    let text = sfen.trim();
    let usi =
        text.starts_with("position ") || text.split_ascii_whitespace().any(|word| word == "moves");
    if usi {
        let (pos, _) =
            parse_usi_line(text).with_context(|| format!("bad USI position {text:?}"))?;
        return Ok(pos);
    }
    let text = text.strip_prefix("sfen ").unwrap_or(text);
    let pos = Position::from_sfen(text).with_context(|| format!("bad SFEN {text:?}"))?;
    pos.validate()
        .with_context(|| format!("impossible position {text:?}"))?;
    Ok(pos)
}
