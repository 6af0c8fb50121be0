//! A batch of records ([`Batch`]) and what describes it: the records in it ([`RecordRef`]),
//! a truncated tail ([`Tail`]), how batches are cut ([`BatchOptions`]) and where a reader
//! stands between two of them ([`ResumePoint`]). See the contract in `batch/mod.rs`.

use crate::codec::psfen::{psv_game_ply, PSV_SIZE};
use crate::codec::{Format, Framing};
use crate::io::input::InputError;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::Arc;

/// The longest text line read whole (a USI game of thousands of plies is a few tens of KB).
pub const MAX_LINE: usize = 1 << 20;
/// A text batch stops growing at this many bytes, whatever its record count.
pub(super) const MAX_TEXT_BATCH: usize = 64 << 20;

/// Where a reader stands between two batches: enough to start a new reader
/// ([`Batches::resume`]) that yields exactly the batches the first would have yielded from
/// there (a checkpointed run goes on from it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResumePoint {
    /// Index of the file in the input list.
    pub file: usize,
    /// Byte offset in that file's (decompressed) stream.
    pub offset: u64,
    /// Global index of the next record.
    pub next_index: u64,
    /// Number of the next batch.
    pub seq: u64,
    /// psv: gamePly of the record before `offset` in the same file (game boundaries).
    pub last_ply: Option<u16>,
    /// sbinpack: bytes left in the chunk that holds `offset` (0 between chunks).
    #[serde(default)]
    pub chunk_left: u64,
}

/// How to cut batches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchOptions {
    /// Target records per batch (at least 1).
    pub records: usize,
    /// Cut psv and hcpe batches only at game starts (hcpe: where the chain of best moves
    /// breaks, see `codec::game::infer`).
    pub align_games: bool,
}

impl Default for BatchOptions {
    fn default() -> Self {
        BatchOptions {
            records: 1 << 16,
            align_games: false,
        }
    }
}

/// One input file and its format.
#[derive(Clone, Debug)]
pub struct InputSpec {
    /// The file.
    pub path: PathBuf,
    /// Its format (from [`detect`](crate::io::detect::detect) or the configuration).
    pub format: Format,
}

/// A truncated final piece of a binary file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tail {
    /// The file.
    pub path: Arc<PathBuf>,
    /// Byte offset of the piece.
    pub offset: u64,
    /// Its length (less than a record).
    pub len: usize,
}

/// One record of a batch.
#[derive(Clone, Copy, Debug)]
pub struct RecordRef<'a> {
    /// Global index across all input files.
    pub index: u64,
    /// Byte offset in its file.
    pub offset: u64,
    /// The record's bytes (a text line without its newline).
    pub bytes: &'a [u8],
    /// Whether this record starts a game (see the module doc).
    pub new_game: bool,
}

/// One game of a batch of a game format (hcpe3, .pack, sbinpack).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameSpan {
    /// Where its bytes start in [`Batch::bytes`].
    pub start: u32,
    /// Its length in bytes.
    pub len: u32,
    /// Byte offset of the game in its file.
    pub offset: u64,
    /// Its records, counted from the framing ([`crate::codec::game::Counted`]).
    pub records: u32,
}

/// One game of a batch with its bytes and the global index of its first record.
#[derive(Clone, Copy, Debug)]
pub struct GameRef<'a> {
    /// The game's place.
    pub span: GameSpan,
    /// Global index of its first record.
    pub first_index: u64,
    /// The game's bytes.
    pub bytes: &'a [u8],
}

/// A run of consecutive records of one file, owning its bytes.
#[derive(Clone, Debug)]
pub struct Batch {
    /// Batch number, from 0, in input order.
    pub seq: u64,
    /// Index of the file in the input list.
    pub file: usize,
    /// The file.
    pub path: Arc<PathBuf>,
    /// The file's format.
    pub format: Format,
    /// Global index of the first record.
    pub first_index: u64,
    /// Byte offset of `bytes[0]` in the file.
    pub offset: u64,
    /// The raw bytes (binary: whole records, maybe a tail; text: the lines with newlines).
    pub bytes: Vec<u8>,
    /// Text formats: (start, len) of each record in `bytes`.
    pub(super) spans: Vec<(u32, u32)>,
    /// Game formats: the games in `bytes` (whole games only; sbinpack chunk headers are
    /// not kept).
    pub(super) games: Vec<GameSpan>,
    /// Whether the first record starts a game.
    pub(super) first_new_game: bool,
    /// Bytes of the file on disk read when this batch was cut (compressed bytes for .zst,
    /// where the decoder reads a little ahead): for progress over a known total.
    pub disk_end: u64,
    /// Set on the batch that stands for the unreadable rest of a broken stream: the read
    /// error. Such a batch has one empty record at the offset of the break.
    pub(super) broken: Option<String>,
    /// The full length of the batch's last record when that is a text line longer than
    /// [`MAX_LINE`] (its bytes hold only the first [`MAX_LINE`]).
    pub overlong: Option<u64>,
    /// Where the reader stood right after cutting this batch.
    pub next: ResumePoint,
}

impl Batch {
    /// Number of records (a truncated tail counts as one, the rest of a broken stream too).
    pub fn len(&self) -> usize {
        if self.broken.is_some() {
            return 1;
        }
        match self.format.framing() {
            Framing::Fixed(size) => self.bytes.len().div_ceil(size),
            Framing::Line => self.spans.len(),
            Framing::Game => self.games.iter().map(|g| g.records as usize).sum(),
        }
    }

    /// The games of a batch of a game format, in order (none for other formats and for the
    /// unreadable rest of a file).
    pub fn games(&self) -> impl Iterator<Item = GameRef<'_>> + '_ {
        let live = self.broken.is_none();
        let first = self.first_index;
        self.games
            .iter()
            .filter(move |_| live)
            .scan(first, move |next, span| {
                let at = *next;
                *next += span.records as u64;
                let start = span.start as usize;
                Some(GameRef {
                    span: *span,
                    first_index: at,
                    bytes: self
                        .bytes
                        .get(start..start + span.len as usize)
                        .unwrap_or(&[]),
                })
            })
    }

    /// Whether the batch has no record.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `i`-th record; `None` past the end. A record of a game format is its game: the
    /// game's offset and bytes, `new_game` on its first record.
    pub fn get(&self, i: usize) -> Option<RecordRef<'_>> {
        if self.format.is_game() && self.broken.is_none() {
            return self.game_record(i);
        }
        if self.broken.is_some() {
            return (i == 0).then_some(RecordRef {
                index: self.first_index,
                offset: self.offset,
                bytes: &[],
                new_game: true,
            });
        }
        let (start, len) = match self.format.record_size() {
            Some(size) => {
                let start = i.checked_mul(size)?;
                if start >= self.bytes.len() {
                    return None;
                }
                (start, size.min(self.bytes.len() - start))
            }
            None => {
                let &(s, l) = self.spans.get(i)?;
                (s as usize, l as usize)
            }
        };
        let bytes = &self.bytes[start..start + len];
        let new_game = match i {
            0 if bytes.len() == PSV_SIZE => self.first_new_game,
            _ => starts_new_game(
                self.format,
                i.checked_sub(1).map(|j| self.get_raw(j)),
                bytes,
            ),
        };
        Some(RecordRef {
            index: self.first_index + i as u64,
            offset: self.offset + start as u64,
            bytes,
            new_game,
        })
    }

    /// Record `i` of a batch of a game format (see [`Batch::get`]).
    fn game_record(&self, i: usize) -> Option<RecordRef<'_>> {
        let mut skip = i as u64;
        let game = self.games().find(|g| {
            let inside = skip < g.span.records as u64;
            if !inside {
                skip -= g.span.records as u64;
            }
            inside
        })?;
        Some(RecordRef {
            index: game.first_index + skip,
            offset: game.span.offset,
            bytes: game.bytes,
            new_game: skip == 0,
        })
    }

    /// The bytes of record `i` of a binary batch (clipped at the end of the bytes).
    pub(super) fn get_raw(&self, i: usize) -> &[u8] {
        let size = self.format.record_size().unwrap_or(1);
        let start = i * size;
        &self.bytes[start..(start + size).min(self.bytes.len())]
    }

    /// The records in order.
    pub fn iter(&self) -> impl Iterator<Item = RecordRef<'_>> + '_ {
        let by_game = self.format.is_game() && self.broken.is_none();
        let each = (!by_game).then(|| (0..self.len()).filter_map(move |i| self.get(i)));
        let games = by_game.then(|| {
            self.games().flat_map(|g| {
                (0..g.span.records as u64).map(move |k| RecordRef {
                    index: g.first_index + k,
                    offset: g.span.offset,
                    bytes: g.bytes,
                    new_game: k == 0,
                })
            })
        });
        each.into_iter()
            .flatten()
            .chain(games.into_iter().flatten())
    }

    /// Why the rest of the file cannot be read, if this batch stands for it (its one
    /// record is empty and sits at the offset of the break).
    pub fn unreadable(&self) -> Option<InputError> {
        self.broken.as_ref().map(|reason| InputError::Unreadable {
            path: self.path.to_path_buf(),
            offset: self.offset,
            reason: reason.clone(),
        })
    }

    /// The truncated tail of the file, if this batch ends with one.
    pub fn tail(&self) -> Option<Tail> {
        if self.broken.is_some() {
            return None;
        }
        let size = self.format.record_size()?;
        let rem = self.bytes.len() % size;
        (rem != 0).then(|| Tail {
            path: self.path.clone(),
            offset: self.offset + (self.bytes.len() - rem) as u64,
            len: rem,
        })
    }
}

/// [`RecordRef::new_game`] of record `rec` of a fixed-size or text format after the record
/// `prev` of its file (`None` for the file's first): psv by gamePly (a truncated tail starts
/// nothing), every record of the other formats.
pub(crate) fn starts_new_game(format: Format, prev: Option<&[u8]>, rec: &[u8]) -> bool {
    if format != Format::Psv {
        return true;
    }
    if rec.len() != PSV_SIZE {
        return false;
    }
    match (prev.and_then(psv_game_ply), psv_game_ply(rec)) {
        (Some(prev), Some(cur)) => cur <= prev,
        _ => true,
    }
}
