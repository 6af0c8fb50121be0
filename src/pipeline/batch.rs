//! [`WorkBatch`]: the unit of work handed to a worker: records of one input file with
//! their global indices, byte offsets and game boundaries, owning their bytes so a batch can
//! move to another thread.
//!
//! # Invariants
//! Records are in input order with strictly increasing global indices; `range` lies inside
//! `data`; `game_start` is set on the first record of every psv game (and on every record of
//! formats without game order). A batch of a psv file starts at a game boundary so that a
//! worker sees whole games (repetition needs the game's history).

use crate::codec::Format;
use std::ops::Range;

/// Where one record sits.
#[derive(Debug, Clone)]
pub struct RecordMeta {
    /// Global record index (counting from 0 over all inputs).
    pub index: u64,
    /// Byte offset in its file (in the decompressed stream for .zst).
    pub offset: u64,
    /// Its bytes in [`WorkBatch::data`] (text: the line without its newline).
    pub range: Range<usize>,
    /// First record of a game.
    pub game_start: bool,
}

/// A record as a worker sees it.
#[derive(Debug, Clone, Copy)]
pub struct InRecord<'a> {
    /// Global record index.
    pub index: u64,
    /// Byte offset in its file.
    pub offset: u64,
    /// The record's bytes.
    pub bytes: &'a [u8],
    /// First record of a game.
    pub game_start: bool,
}

/// Records of one file, owning their bytes.
#[derive(Debug, Clone)]
pub struct WorkBatch {
    /// Input file number.
    pub file: u32,
    /// The file's format.
    pub format: Format,
    /// Record bytes.
    pub data: Vec<u8>,
    /// The records, in order.
    pub records: Vec<RecordMeta>,
}

impl WorkBatch {
    /// Number of records.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether the batch holds no record.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The records in order.
    pub fn records(&self) -> impl Iterator<Item = InRecord<'_>> {
        self.records.iter().map(|r| InRecord {
            index: r.index,
            offset: r.offset,
            bytes: self.data.get(r.range.clone()).unwrap_or(&[]),
            game_start: r.game_start,
        })
    }
}
