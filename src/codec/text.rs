//! The line formats: SFEN lines and USI position lines.
//!
//! - SFEN line: `[sfen ]<board> <side> <hands> [<move number>]`.
//! - USI line: `[position ]startpos [moves m1 m2 …]` or `[position ]sfen <SFEN> [moves …]`
//!   (the SFEN's move number is optional). The record is the position after the last move;
//!   the moves are its history, kept as a [`History`] for the repetition filter.
//!
//! # Invariants
//! - Every returned position passes [`Position::validate`]; every replayed move was legal
//!   ([`Position::is_legal`]) in the position it was played from. The start position of a
//!   USI line is validated too.
//! - Parsers never panic on any input.

use super::format::CodecError;
use crate::shogi::{Color, Hand, Move, Position};

/// The state of one position of a USI line's history, enough for repetition checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlyState {
    /// `Position::board_key` (board + side to move).
    pub board_key: u64,
    /// Both hands, Black first.
    pub hands: [Hand; 2],
    /// Side to move.
    pub side: Color,
    /// Whether the side to move was in check.
    pub in_check: bool,
}

impl PlyState {
    /// The state of `pos`.
    pub fn of(pos: &Position) -> PlyState {
        PlyState {
            board_key: pos.board_key(),
            hands: pos.hands(),
            side: pos.side_to_move(),
            in_check: pos.in_check(),
        }
    }
}

/// The history of a USI line: its start position, the moves, and the state of every
/// position before the final one.
#[derive(Clone, Debug)]
pub struct History {
    /// The position the line starts from.
    pub start: Position,
    /// The moves, in order.
    pub moves: Vec<Move>,
    /// `plies[i]` is the position before `moves[i]` (so `plies[0]` is the start position);
    /// the final position (the record) is not included.
    pub plies: Vec<PlyState>,
}

/// The text of a line record: UTF-8, without a trailing `\r`/`\n`.
pub fn line_str(bytes: &[u8]) -> Result<&str, CodecError> {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| CodecError::Text(format!("not UTF-8 at byte {}", e.valid_up_to())))?;
    let text = text.trim_end_matches(['\r', '\n']);
    if text.trim().is_empty() {
        return Err(CodecError::Text("empty line".into()));
    }
    Ok(text)
}

/// Parses an SFEN line (optional `sfen ` prefix) into a validated position.
pub fn parse_sfen_line(line: &str) -> Result<Position, CodecError> {
    let mut text = line.trim();
    if let Some(rest) = text.strip_prefix("sfen ") {
        text = rest;
    }
    let pos = Position::from_sfen(text)?;
    pos.validate()?;
    Ok(pos)
}

/// Parses a position a user typed: an SFEN (`startpos` and a leading `sfen ` accepted), or
/// a USI position command with moves (`[position] startpos | sfen <SFEN> moves <m1> ...`,
/// as engine logs print them), replayed to its last position with every move checked. The
/// position returned is validated. `posfilter mate`, `perft` and the Python binding's
/// `mate` read their positions with it.
pub fn parse_position(text: &str) -> Result<Position, CodecError> {
    let text = text.trim();
    let usi =
        text.starts_with("position ") || text.split_ascii_whitespace().any(|word| word == "moves");
    if usi {
        Ok(parse_usi_line(text)?.0)
    } else {
        parse_sfen_line(text)
    }
}

/// Parses and replays a USI line; returns the final position and its history.
pub fn parse_usi_line(line: &str) -> Result<(Position, History), CodecError> {
    let usi = |what: String| CodecError::Usi { what };
    let mut words = line.split_ascii_whitespace().peekable();
    if words.peek() == Some(&"position") {
        words.next();
    }
    let mut start = match words.next() {
        Some("startpos") => Position::startpos(),
        Some("sfen") => {
            let mut fields = Vec::with_capacity(4);
            while let Some(&w) = words.peek() {
                if w == "moves" || fields.len() == 4 {
                    break;
                }
                fields.push(w);
                words.next();
            }
            Position::from_sfen(&fields.join(" "))?
        }
        Some(other) => {
            return Err(usi(format!(
                "expected 'startpos' or 'sfen', found {other:?}"
            )))
        }
        None => return Err(usi("empty line".into())),
    };
    start.validate()?;
    start.clear_history();
    match words.next() {
        None => {}
        Some("moves") => {}
        Some(other) => return Err(usi(format!("expected 'moves', found {other:?}"))),
    }
    let mut pos = start.clone();
    let mut moves = Vec::new();
    let mut plies = Vec::new();
    for (i, word) in words.enumerate() {
        let m = Move::from_usi(word)
            .ok_or_else(|| usi(format!("move {} {word:?} is not a USI move", i + 1)))?;
        if !pos.is_legal(m) {
            return Err(usi(format!(
                "move {} {word} is illegal in {}",
                i + 1,
                pos.to_sfen()
            )));
        }
        plies.push(PlyState::of(&pos));
        moves.push(m);
        pos.do_move(m);
    }
    pos.clear_history();
    Ok((
        pos,
        History {
            start,
            moves,
            plies,
        },
    ))
}
