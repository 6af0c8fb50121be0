//! Batches of records with stable global indices.
//!
//! # Contract
//! - Records are numbered from 0 across all input files in order (the `index` of audit and
//!   rejected lines); each record also has its byte offset within its file (in the
//!   decompressed stream for `.zst` files).
//! - A batch owns its bytes (`Send`), holds records of one file only, and batches come in
//!   input order with consecutive indices.
//! - Binary files: a final piece shorter than a record (a truncated tail) is yielded as one
//!   more record of that length, so decoding rejects it with its offset and nothing is lost;
//!   [`Batch::tail`] also reports it.
//! - Text files: one record per non-blank line (the newline, a trailing `\r` and a leading
//!   UTF-8 byte-order mark are not part of the record); blank lines are skipped and get no index. A line longer than
//!   [`MAX_LINE`] (a file read with the wrong format) is one record holding only its first
//!   [`MAX_LINE`] bytes, last in its batch, and [`Batch::overlong`] gives its full length, so
//!   that memory stays bounded and the record is rejected, never read as a shorter one.
//! - psv game boundaries: a record starts a new game when its gamePly is not greater than the
//!   previous record's of the same file (and at the start of each file). With
//!   [`BatchOptions::align_games`] a psv batch is cut only at a game start, so a whole game is
//!   in one batch (a game has at most 65,536 records, as gamePly is a strictly increasing u16).
//!   A truncated tail starts no game.
//! - hcpe game boundaries are inferred (`codec::game::infer`: a record continues the game
//!   of the record before it when that one's best move leads to it). With `align_games` an
//!   hcpe batch is cut only where that chain breaks, or after 65,536 records past its size
//!   (a chain can be made to repeat forever); `RecordRef::new_game` does not say it (the
//!   reader decodes only the records around a cut): whoever decodes the records infers it.
//!   Other record formats carry no game order: every record starts its own game.
//! - Fixed-size records: batches end at the multiples of [`BatchOptions::records`] counted
//!   from the file's start, each moved on to the first game start at or after it (psv and
//!   hcpe with `align_games`; two multiples that reach the same game start give one
//!   boundary). So a batch boundary depends only on the few records around it, and a plan
//!   can find the boundary nearest any record without reading the file up to it
//!   ([`super::shard_plan`]).
//! - Game formats (hcpe3, .pack, sbinpack): a batch holds whole games ([`GameSpan`], never
//!   one split between batches), at least `records` records unless the file ends. Each
//!   game's records are counted from its framing alone (`codec::game::Counted`: the
//!   positions before a move, hcpe3's invisible ones not, plus one for the truncated rest of
//!   an incomplete game), so every record has its index before any game is decoded. A
//!   record's offset is its game's. Where the framing is lost the rest of the file is one
//!   unreadable record, as for a broken stream below.
//! - A stream that breaks off (a truncated or corrupt .zst) yields the whole records read
//!   before the break, then one batch holding a single empty record for the unreadable rest
//!   ([`Batch::unreadable`] says why), then goes on with the next file: the run rejects the
//!   rest as one record and counts it instead of stopping.
//! - Each batch carries the reader's state after it ([`Batch::next`]); a reader started by
//!   [`Batches::resume`] at that point yields exactly the batches that followed it.

mod cut;
mod games;
mod reader;
mod records;

pub(crate) use cut::{CutRule, MAX_ALIGN_EXTRA};
pub use reader::{batches_of, Batches};
pub(crate) use records::starts_new_game;
pub use records::{
    Batch, BatchOptions, GameRef, GameSpan, InputSpec, RecordRef, ResumePoint, Tail, MAX_LINE,
};
