//! Validity of a position that came from a file: [`Position::validate`] and [`Invalid`].
//!
//! A valid position has one king per side; no more pieces of a kind (board and hands,
//! promoted or not) than a set holds; no pawn, lance or knight on a rank it could never
//! leave; no two unpromoted pawns of one side on a file; and the side *not* to move is not
//! in check (it would have had to leave its king en prise).

use super::Position;
use crate::shogi::bitboard::Bitboard;
use crate::shogi::types::{Color, Piece, PieceType, Square};
use thiserror::Error;

/// Why a position is impossible. The first problem found is reported.
#[derive(Debug, Error, Clone, Copy, PartialEq, Eq)]
pub enum Invalid {
    /// A side has no king.
    #[error("{0:?} has no king")]
    MissingKing(Color),
    /// A side has two or more kings.
    #[error("{0:?} has more than one king")]
    ExtraKing(Color),
    /// More pieces of a kind than exist (board and hands, both colours).
    #[error("{count} pieces of kind {kind:?} (at most {max} exist)")]
    TooMany {
        /// The unpromoted kind.
        kind: PieceType,
        /// How many were found.
        count: u32,
        /// How many exist.
        max: u8,
    },
    /// A pawn, lance or knight on a rank it can never leave.
    #[error("{piece:?} on {square} can never move")]
    DeadPiece {
        /// The piece.
        piece: PieceType,
        /// Its owner.
        color: Color,
        /// Where it stands.
        square: Square,
    },
    /// Two unpromoted pawns of one side on a file (二歩).
    #[error("{color:?} has two pawns on file {}", file + 1)]
    TwoPawns {
        /// The side.
        color: Color,
        /// 0-based file.
        file: u8,
    },
    /// The side not to move is in check.
    #[error("{0:?} is in check but it is not its move")]
    OpponentInCheck(Color),
}

impl Position {
    /// Checks every rule a position from a file must satisfy (see the module doc).
    pub fn validate(&self) -> Result<(), Invalid> {
        // Per kind: board pieces (promoted or not) by popcount, no per-square branches.
        let mut counts = [0u32; 8];
        for pt in PieceType::HAND {
            let mut on_board = self.pieces_of_type(pt);
            if pt.can_promote() {
                on_board |= self.pieces_of_type(pt.promote());
            }
            counts[pt.index()] = on_board.count();
        }
        for c in Color::ALL {
            for pt in PieceType::HAND {
                counts[pt.index()] += self.hand(c).count(pt) as u32;
            }
        }
        for pt in PieceType::HAND {
            let max = pt.max_count();
            if counts[pt.index()] > max as u32 {
                return Err(Invalid::TooMany {
                    kind: pt,
                    count: counts[pt.index()],
                    max,
                });
            }
        }
        for c in Color::ALL {
            let dead = [
                (PieceType::Pawn, Bitboard::forward_ranks(c, 1)),
                (PieceType::Lance, Bitboard::forward_ranks(c, 1)),
                (PieceType::Knight, Bitboard::forward_ranks(c, 2)),
            ];
            for (pt, zone) in dead {
                if let Some(square) = (self.pieces(c, pt) & zone).lsb() {
                    return Err(Invalid::DeadPiece {
                        piece: pt,
                        color: c,
                        square,
                    });
                }
            }
            let pawns = self.pieces(c, PieceType::Pawn);
            for file in 0..9 {
                if (pawns & Bitboard::file(file)).more_than_one() {
                    return Err(Invalid::TwoPawns { color: c, file });
                }
            }
        }
        let them = self.side_to_move().flip();
        if self.is_attacked(self.side_to_move(), self.king_square(them)) {
            return Err(Invalid::OpponentInCheck(them));
        }
        Ok(())
    }
}

/// Convenience for building a board from (square, piece) pairs in tests and codecs.
pub fn board_from(pieces: &[(Square, Piece)]) -> [Option<Piece>; 81] {
    let mut board = [None; 81];
    for &(sq, p) in pieces {
        board[sq.index()] = Some(p);
    }
    board
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(sfen: &str) -> Result<(), Invalid> {
        Position::from_sfen(sfen).unwrap().validate()
    }

    #[test]
    fn reasons() {
        assert_eq!(check(crate::shogi::STARTPOS), Ok(()));
        assert_eq!(
            check("4k4/9/9/9/4b4/9/9/9/4K4 b 2B 1"),
            Err(Invalid::TooMany {
                kind: PieceType::Bishop,
                count: 3,
                max: 2
            })
        );
        assert!(matches!(
            check("P3k4/9/9/9/9/9/9/9/4K4 b - 1"),
            Err(Invalid::DeadPiece { .. })
        ));
        assert!(matches!(
            check("4k4/N8/9/9/9/9/9/9/4K4 b - 1"),
            Err(Invalid::DeadPiece { .. })
        ));
        assert!(matches!(
            check("4k4/9/9/9/9/9/9/9/4K3l w - 1"),
            Err(Invalid::DeadPiece { .. })
        ));
        assert_eq!(
            check("4k4/9/9/4P4/9/4P4/9/9/4K4 b - 1"),
            Err(Invalid::TwoPawns {
                color: Color::Black,
                file: 4
            })
        );
        // A promoted pawn does not count for two-pawns.
        assert_eq!(check("4k4/9/9/4+P4/9/4P4/9/9/4K4 b - 1"), Ok(()));
        // Black to move while White's king is attacked by Black's rook.
        assert_eq!(
            check("4k4/9/9/9/4R4/9/9/9/3K5 b - 1"),
            Err(Invalid::OpponentInCheck(Color::White))
        );
        assert_eq!(check("4k4/9/9/9/4R4/9/9/9/3K5 w - 1"), Ok(()));
    }
}
