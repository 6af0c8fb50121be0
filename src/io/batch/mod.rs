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
//!   Other formats carry no game order: every record starts its own game. A truncated tail
//!   starts no game.
//! - A stream that breaks off (a truncated or corrupt .zst) yields the whole records read
//!   before the break, then one batch holding a single empty record for the unreadable rest
//!   ([`Batch::unreadable`] says why), then goes on with the next file: the run rejects the
//!   rest as one record and counts it instead of stopping.
//! - Each batch carries the reader's state after it ([`Batch::next`]); a reader started by
//!   [`Batches::resume`] at that point yields exactly the batches that followed it.

mod reader;
mod records;

pub use reader::{batches_of, Batches};
pub use records::{Batch, BatchOptions, InputSpec, RecordRef, ResumePoint, Tail, MAX_LINE};
