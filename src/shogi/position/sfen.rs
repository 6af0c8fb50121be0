//! Strict SFEN parsing and formatting.
//!
//! Accepted: `<board> <side> <hands> [<move number>]`, fields separated by single or
//! repeated spaces. The board has nine ranks (rank a first), each listing files 9 to 1, with
//! digits for empty runs and `+` before a promotable piece. Hands are `-` or counts and
//! letters (`2P`, `10p`); any order is accepted, a kind may appear once per colour. The move
//! number defaults to 1. Errors say what is wrong and where (field and character offset).
//! A parsed position is structurally sound (one king per side) but not necessarily valid:
//! call [`Position::validate`] for that.

use super::validity::Invalid;
use super::Position;
use crate::shogi::hand::Hand;
use crate::shogi::types::{Color, Piece, PieceType, Square};
use thiserror::Error;

/// The standard initial position.
pub const STARTPOS: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";

/// Why an SFEN string was rejected.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum SfenError {
    /// Fewer than three fields or more than four.
    #[error(
        "expected 3 or 4 space-separated fields (board, side, hands[, move number]), found {0}"
    )]
    FieldCount(usize),
    /// The board field is malformed.
    #[error("board field, character {offset}: {reason}")]
    Board {
        /// Byte offset in the board field.
        offset: usize,
        /// What is wrong.
        reason: String,
    },
    /// The side field is not `b` or `w`.
    #[error("side to move must be 'b' or 'w', found {0:?}")]
    Side(String),
    /// The hands field is malformed.
    #[error("hands field, character {offset}: {reason}")]
    Hands {
        /// Byte offset in the hands field.
        offset: usize,
        /// What is wrong.
        reason: String,
    },
    /// The move number is not a positive integer.
    #[error("move number must be a positive integer, found {0:?}")]
    MoveNumber(String),
    /// The parts do not form a position (a king is missing or doubled).
    #[error("{0}")]
    Structure(#[from] Invalid),
}

impl Position {
    /// The standard initial position.
    pub fn startpos() -> Position {
        match Position::from_sfen(STARTPOS) {
            Ok(p) => p,
            Err(_) => unreachable!("the start position SFEN is a constant that parses"),
        }
    }

    /// Parses an SFEN (without a leading `sfen ` keyword). `startpos` is accepted as a name
    /// for the initial position.
    pub fn from_sfen(text: &str) -> Result<Position, SfenError> {
        let text = text.trim();
        if text == "startpos" {
            return Position::from_sfen(STARTPOS);
        }
        let fields: Vec<&str> = text.split_ascii_whitespace().collect();
        if !(3..=4).contains(&fields.len()) {
            return Err(SfenError::FieldCount(fields.len()));
        }
        let board = parse_board(fields[0])?;
        let side = match fields[1] {
            "b" => Color::Black,
            "w" => Color::White,
            other => return Err(SfenError::Side(other.to_string())),
        };
        let hands = parse_hands(fields[2])?;
        let ply = match fields.get(3) {
            None => 1,
            Some(s) => match s.parse::<u32>() {
                Ok(n) if n > 0 => n,
                _ => return Err(SfenError::MoveNumber(s.to_string())),
            },
        };
        Ok(Position::from_parts(board, hands, side, ply)?)
    }

    /// The SFEN of this position, move number included.
    pub fn to_sfen(&self) -> String {
        let mut s = String::with_capacity(96);
        for rank in 0..9u8 {
            if rank > 0 {
                s.push('/');
            }
            let mut empty = 0;
            for file in (0..9u8).rev() {
                match self.piece_on(Square::from_file_rank(file, rank)) {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            s.push((b'0' + empty) as char);
                            empty = 0;
                        }
                        s.push_str(&p.sfen());
                    }
                }
            }
            if empty > 0 {
                s.push((b'0' + empty) as char);
            }
        }
        s.push(' ');
        s.push(self.side_to_move().sfen_char());
        s.push(' ');
        let black = self.hand(Color::Black).sfen_part();
        let white = self.hand(Color::White).sfen_part().to_ascii_lowercase();
        if black.is_empty() && white.is_empty() {
            s.push('-');
        } else {
            s.push_str(&black);
            s.push_str(&white);
        }
        s.push(' ');
        s.push_str(&self.ply().to_string());
        s
    }
}

fn board_err(offset: usize, reason: impl Into<String>) -> SfenError {
    SfenError::Board {
        offset,
        reason: reason.into(),
    }
}

fn parse_board(field: &str) -> Result<[Option<Piece>; 81], SfenError> {
    let mut board = [None; 81];
    let bytes = field.as_bytes();
    let (mut rank, mut file) = (0u8, 9i32); // `file` counts down: next square is file-1
    let mut promoted = false;
    for (i, &c) in bytes.iter().enumerate() {
        match c {
            b'/' => {
                if promoted {
                    return Err(board_err(i, "'+' must be followed by a piece letter"));
                }
                if file != 0 {
                    return Err(board_err(
                        i,
                        format!("rank {} has {} squares, expected 9", rank + 1, 9 - file),
                    ));
                }
                rank += 1;
                if rank >= 9 {
                    return Err(board_err(i, "more than 9 ranks"));
                }
                file = 9;
            }
            b'1'..=b'9' => {
                if promoted {
                    return Err(board_err(i, "'+' must be followed by a piece letter"));
                }
                file -= (c - b'0') as i32;
                if file < 0 {
                    return Err(board_err(
                        i,
                        format!("rank {} has more than 9 squares", rank + 1),
                    ));
                }
            }
            b'+' => {
                if promoted {
                    return Err(board_err(i, "'++'"));
                }
                promoted = true;
            }
            _ => {
                let piece = letter_piece(c, promoted, i)?;
                promoted = false;
                if file <= 0 {
                    return Err(board_err(
                        i,
                        format!("rank {} has more than 9 squares", rank + 1),
                    ));
                }
                file -= 1;
                board[Square::from_file_rank(file as u8, rank).index()] = Some(piece);
            }
        }
    }
    if promoted {
        return Err(board_err(bytes.len(), "'+' at the end of the board"));
    }
    if rank != 8 || file != 0 {
        return Err(board_err(
            bytes.len(),
            format!(
                "board ends at rank {} with {} squares; expected 9 full ranks",
                rank + 1,
                9 - file
            ),
        ));
    }
    Ok(board)
}

/// The piece of SFEN letter `c` (at byte `offset` of the board field), promoted when a
/// `+` came before it: uppercase is Black's, lowercase White's.
#[inline(always)]
fn letter_piece(c: u8, promoted: bool, offset: usize) -> Result<Piece, SfenError> {
    let color = if c.is_ascii_uppercase() {
        Color::Black
    } else {
        Color::White
    };
    let Some(base) = PieceType::from_letter(c.to_ascii_uppercase()) else {
        return Err(board_err(
            offset,
            format!("unknown piece letter {:?}", c as char),
        ));
    };
    let pt = if promoted {
        if !base.can_promote() {
            return Err(board_err(
                offset,
                format!("{:?} cannot be promoted", c as char),
            ));
        }
        base.promote()
    } else {
        base
    };
    Ok(Piece::new(color, pt))
}

fn parse_hands(field: &str) -> Result<[Hand; 2], SfenError> {
    let mut hands = [Hand::EMPTY; 2];
    if field == "-" {
        return Ok(hands);
    }
    let err = |offset, reason: String| SfenError::Hands { offset, reason };
    let bytes = field.as_bytes();
    let mut seen = [[false; 7]; 2];
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        let mut count: u32 = 0;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            count = count * 10 + (bytes[i] - b'0') as u32;
            if count > 18 {
                return Err(err(start, "count larger than 18".into()));
            }
            i += 1;
        }
        let digits = i - start;
        if digits > 0 && count < 2 {
            return Err(err(
                start,
                format!("count {count} must be omitted or at least 2"),
            ));
        }
        let Some(&c) = bytes.get(i) else {
            return Err(err(start, "count without a piece letter".into()));
        };
        let color = if c.is_ascii_uppercase() {
            Color::Black
        } else {
            Color::White
        };
        let pt = match PieceType::from_letter(c.to_ascii_uppercase()) {
            Some(PieceType::King) | None => {
                return Err(err(
                    i,
                    format!("{:?} is not a piece that can be in hand", c as char),
                ))
            }
            Some(pt) => pt,
        };
        if std::mem::replace(&mut seen[color.index()][pt.index()], true) {
            return Err(err(i, format!("{:?} appears twice", c as char)));
        }
        let n = if digits == 0 { 1 } else { count as u8 };
        hands[color.index()] = hands[color.index()]
            .with_count(pt, n)
            .ok_or_else(|| err(start, format!("{n} {pt:?} is more than exist")))?;
        i += 1;
    }
    Ok(hands)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip() {
        for s in [
            STARTPOS,
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            "8k/9/9/9/9/9/9/9/K8 b 2R2B4G4S4N4L18P 1",
        ] {
            assert_eq!(Position::from_sfen(s).unwrap().to_sfen(), s);
        }
    }

    #[test]
    fn errors_say_where() {
        let cases = [
            (
                "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1 b - 1",
                "9 full ranks",
            ),
            (
                "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNLL b - 1",
                "more than 9",
            ),
            (
                "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL x - 1",
                "'b' or 'w'",
            ),
            (
                "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b 1P 1",
                "at least 2",
            ),
            (
                "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b K 1",
                "in hand",
            ),
            (
                "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 0",
                "positive",
            ),
            (
                "lnsg1gsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
                "White has no king",
            ),
            (
                "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSN+G b - 1",
                "cannot be promoted",
            ),
            ("lnsgkgsnl b", "3 or 4"),
        ];
        for (sfen, needle) in cases {
            let e = Position::from_sfen(sfen).unwrap_err().to_string();
            assert!(e.contains(needle), "{sfen}: {e}");
        }
    }
}
