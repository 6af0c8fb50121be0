//! Opening books: positions, each with the moves a book plays from it, read from and
//! written to the book formats engines use.
//!
//! # Map
//! | module | format | read | write |
//! |---|---|---|---|
//! | [`db`] | YaneuraOu DB2016 text (`.db`) | tolerant, line errors | canonical (YaneuraOu's own) |
//! | [`apery`] | Apery / dlshogi / cshogi `book.bin` (keys, no positions) | by a walk from roots | yes |
//! | [`ybb`] | YaneuraOu binary book (`.ybb`) | yes | yes |
//! | [`sbk`] | ShogiGUI book (`.sbk`, protobuf) | by next-state links from roots | no |
//!
//! Beside them: `model` (the book in memory: [`Book`], [`BookPosition`], [`BookMove`],
//! [`Rejected`], [`BookFatal`]), `load` (one door to every format: [`BookFormat`], [`sniff`], [`load`],
//! [`save`], [`roots_from_text`]), [`apery_key`] (Apery's Zobrist key, with its own
//! `mt19937_64`), `protobuf` (the few wire-format reads `.sbk` needs), [`walk`] (the
//! breadth-first walk of a book from its roots, deciding nothing itself).
//!
//! # Invariants
//! - Every [`BookPosition::position`] passes [`crate::shogi::Position::validate`]; its move number is the
//!   entry's ply (1 when the ply is unknown). Moves are shape-checked only: whether a move
//!   is legal in its position is the cleaning's question ([`Book::illegal_moves`]).
//! - Move fields are kept as the file has them: an unknown value (−32768), the cycle
//!   depths 9999 / 9998 / 9997 of peta-shock books, a missing field (`None`).
//! - Readers never panic and never stop on a bad line or record: each becomes a
//!   [`Rejected`] naming the file, the line (or record) and the reason. Only a file that is
//!   not the format at all stops a reader ([`BookFatal`]).
//!
//! Layering: `book` uses `shogi` and `codec` only.

pub mod apery;
pub mod apery_key;
pub mod db;
mod load;
mod model;
pub(crate) mod protobuf;
pub mod sbk;
pub mod walk;
pub mod ybb;

pub use load::{load, roots_from_text, save, sniff, startpos_root, BookFormat, Facts, Loaded};
pub(crate) use model::entry_position;
pub use model::{
    canonical_sfen, sort_moves, Book, BookFatal, BookMove, BookPosition, Merged, Rejected,
};
