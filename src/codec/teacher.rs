//! The teacher fields of psv and hcpe records ([`TeacherFields`]) and the decoding of their
//! 16-bit move fields against the record's position.
//!
//! # Contract
//! A move field is read with the format's own encoding first (psv: YaneuraOu Move16, hcpe:
//! Apery move16); if that is not a legal move in the position, with the other encoding; the
//! result says which encoding gave the move and whether it is legal. Results are converted
//! between the psv (side to move's view) and hcpe (Black's view) conventions.

use super::format::{fixed, Format, HCPE_SIZE, PSV_SIZE};
use super::{hcp, psfen};
use crate::shogi::{Color, Move, Position};

/// Which 16-bit move encoding a move field was read with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveEncoding {
    /// YaneuraOu Move16 (psv's own): drop flag bit 14, promotion bit 15.
    YaneuraOu,
    /// Apery / cshogi / dlshogi move16 (hcpe's own): drops as 81 + kind, promotion bit 14.
    Apery,
}

/// A game result as stored by its format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    /// psv `game_result`: side to move's view, 1 win, -1 loss, 0 draw.
    Psv(i8),
    /// hcpe `gameResult`: Black's view, 0 draw, 1 Black won, 2 White won.
    Hcpe(u8),
}

impl GameResult {
    /// As a psv value for a position with `side` to move (unknown values become 0).
    pub fn to_psv(self, side: Color) -> i8 {
        match self {
            GameResult::Psv(v) => v,
            GameResult::Hcpe(1) => {
                if side == Color::Black {
                    1
                } else {
                    -1
                }
            }
            GameResult::Hcpe(2) => {
                if side == Color::White {
                    1
                } else {
                    -1
                }
            }
            GameResult::Hcpe(_) => 0,
        }
    }

    /// As an hcpe value for a position with `side` to move (unknown values become 0).
    pub fn to_hcpe(self, side: Color) -> u8 {
        match self {
            GameResult::Hcpe(v) => v,
            GameResult::Psv(0) => 0,
            GameResult::Psv(v) => {
                let side_won = v > 0;
                if side_won == (side == Color::Black) {
                    1
                } else {
                    2
                }
            }
        }
    }
}

/// The teacher fields of a psv or hcpe record, with the move field decoded against the
/// record's position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TeacherFields {
    /// Score / eval from the side to move's view.
    pub score: i16,
    /// The move field as stored.
    pub raw_move: u16,
    /// The move field decoded: with the format's own encoding if that gives a legal move, else
    /// with the other 16-bit encoding if that does, else the format's reading of the bits if
    /// they have a move shape. `None` for 0 (no move) and shapeless bits.
    pub mv: Option<Move>,
    /// The encoding `mv` was read with.
    pub move_encoding: Option<MoveEncoding>,
    /// Whether `mv` is a legal move in the record's position.
    pub move_legal: bool,
    /// psv gamePly; `None` for hcpe.
    pub game_ply: Option<u16>,
    /// The stored result.
    pub game_result: GameResult,
    /// The trailing padding / dummy byte.
    pub padding: u8,
}

/// Decodes a 16-bit move field against `pos` (see [`TeacherFields::mv`]); returns
/// `(mv, encoding, legal)`.
pub fn decode_move_field(
    pos: &Position,
    raw: u16,
    native: MoveEncoding,
) -> (Option<Move>, Option<MoveEncoding>, bool) {
    if raw == 0 {
        return (None, None, false);
    }
    let read = |e: MoveEncoding| match e {
        MoveEncoding::YaneuraOu => Move::from_yo16(raw),
        MoveEncoding::Apery => Move::from_apery16(raw),
    };
    let other = match native {
        MoveEncoding::YaneuraOu => MoveEncoding::Apery,
        MoveEncoding::Apery => MoveEncoding::YaneuraOu,
    };
    for e in [native, other] {
        if let Some(m) = read(e) {
            if pos.is_legal(m) {
                return (Some(m), Some(e), true);
            }
        }
    }
    match read(native) {
        Some(m) => (Some(m), Some(native), false),
        None => match read(other) {
            Some(m) => (Some(m), Some(other), false),
            None => (None, None, false),
        },
    }
}

/// The teacher fields of a psv / hcpe record whose position is `pos`; `None` otherwise.
pub fn teacher_fields(format: Format, bytes: &[u8], pos: &Position) -> Option<TeacherFields> {
    match format {
        Format::Psv => {
            let rec = fixed::<{ PSV_SIZE }>(format, bytes).ok()?;
            let t = psfen::PsvTail::read(rec);
            let (mv, move_encoding, move_legal) =
                decode_move_field(pos, t.raw_move, MoveEncoding::YaneuraOu);
            Some(TeacherFields {
                score: t.score,
                raw_move: t.raw_move,
                mv,
                move_encoding,
                move_legal,
                game_ply: Some(t.game_ply),
                game_result: GameResult::Psv(t.game_result),
                padding: t.padding,
            })
        }
        Format::Hcpe => {
            let rec = fixed::<{ HCPE_SIZE }>(format, bytes).ok()?;
            let t = hcp::HcpeTail::read(rec);
            let (mv, move_encoding, move_legal) =
                decode_move_field(pos, t.raw_move, MoveEncoding::Apery);
            Some(TeacherFields {
                score: t.eval,
                raw_move: t.raw_move,
                mv,
                move_encoding,
                move_legal,
                game_ply: None,
                game_result: GameResult::Hcpe(t.game_result),
                padding: t.dummy,
            })
        }
        _ => None,
    }
}
