//! The shogi rules core: types, bitboards, attack tables, hands, keys, positions, SFEN,
//! validity, legal move generation and perft. No I/O.
//!
//! Layering: `types` → `bitboard` → `attacks` → `hand`, `zobrist` → `position` (its files:
//! the position itself, then `attack`, `build`, `sfen`, `validity` beside it) → `movegen` →
//! `checks` → `mate1` → `perft`, `declaration`. Nothing here depends on codecs, the solver or the
//! pipeline.

pub mod attacks;
pub mod bitboard;
pub mod checks;
pub mod declaration;
pub mod hand;
pub mod keys_after;
pub mod mate1;
pub mod movegen;
pub mod moves;
pub mod perft;
pub mod position;
#[cfg(test)]
pub(crate) mod random_walk;
pub mod types;
pub mod zobrist;

pub use bitboard::Bitboard;
pub use hand::{Hand, HandRelation, HAND_BIT_MASK, HAND_BORROW_MASK};
pub use moves::{Move, MoveList};
pub(crate) use position::build::Builder;
pub use position::sfen::{SfenError, STARTPOS};
pub use position::validity::Invalid;
pub use position::Position;
pub use types::{Color, Piece, PieceType, Square};
pub use zobrist::Fingerprint;
