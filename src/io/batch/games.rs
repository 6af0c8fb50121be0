//! Reading a file of a game format (hcpe3, .pack, sbinpack) in whole games: the
//! [`GameReader`] the batch reader uses for them. See the contract in `batch/mod.rs`.

use super::records::GameSpan;
use crate::codec::game::{count_records, Frame, Framer, GameFormat, MAX_GAME_BYTES};
use crate::io::input::read_until_error;
use std::io::BufRead;

/// A game batch stops growing at this many bytes, whatever its record count.
const MAX_GAME_BATCH: usize = 64 << 20;
/// Bytes read from the stream at a time (more when a game is longer).
const READ_AHEAD: usize = 1 << 20;

/// The games cut for one batch.
#[derive(Debug, Default)]
pub(super) struct GameRead {
    /// The games' bytes, back to back.
    pub bytes: Vec<u8>,
    /// Each game's place and record count.
    pub spans: Vec<GameSpan>,
    /// Set when the rest of the file cannot be read: the offset of its first byte and why.
    pub broken: Option<(u64, String)>,
    /// Whether the file has no more games.
    pub done: bool,
}

/// Cuts one file's stream into whole games: the framing state and the bytes read ahead.
#[derive(Debug, Default)]
pub(super) struct GameReader {
    framer: Option<Framer>,
    /// Bytes read from the stream and not yet cut, from `at` on.
    pending: Vec<u8>,
    at: usize,
    /// The stream ended normally.
    ended: bool,
    /// The stream broke off with this error.
    error: Option<String>,
}

impl GameReader {
    /// A reader at the start of a file, or (`chunk_left`) at a resume point inside it.
    pub(super) fn start(format: GameFormat, chunk_left: u64) -> GameReader {
        GameReader {
            framer: Some(Framer::resume(format, chunk_left)),
            ..GameReader::default()
        }
    }

    /// sbinpack: bytes left in the current chunk (for the resume point).
    pub(super) fn chunk_left(&self) -> u64 {
        self.framer.as_ref().map_or(0, Framer::chunk_left)
    }

    /// Reads whole games from `stream` until they hold at least `records` records (or the
    /// file ends, its framing is lost, or its stream breaks); `offset` is the file offset
    /// of the first byte not yet cut and moves past what is cut. `bytes` is a buffer to
    /// reuse.
    pub(super) fn read(
        &mut self,
        stream: &mut dyn BufRead,
        records: usize,
        offset: &mut u64,
        mut bytes: Vec<u8>,
    ) -> GameRead {
        bytes.clear();
        let mut out = GameRead {
            bytes,
            ..GameRead::default()
        };
        let Some(mut framer) = self.framer.take() else {
            out.done = true;
            return out;
        };
        let mut count = 0usize;
        while count < records && out.bytes.len() < MAX_GAME_BATCH {
            let rest = &self.pending[self.at..];
            match framer.next(rest, self.ended) {
                Frame::Game(n) => {
                    let game = &rest[..n];
                    let records = count_records(framer.format(), game).records;
                    out.spans.push(GameSpan {
                        start: out.bytes.len() as u32,
                        len: n as u32,
                        offset: *offset,
                        records,
                    });
                    out.bytes.extend_from_slice(game);
                    count += records as usize;
                    self.consume(n, offset);
                }
                Frame::Skip(n) => self.consume(n, offset),
                Frame::NeedMore => match &self.error {
                    // The game cut by the break belongs to the unreadable rest.
                    Some(e) => {
                        out.broken = Some((*offset, e.clone()));
                        break;
                    }
                    None => self.fill(stream),
                },
                Frame::End => {
                    out.done = true;
                    break;
                }
                Frame::Corrupt(reason) => {
                    out.broken = Some((*offset, reason));
                    break;
                }
            }
        }
        if !out.done && out.broken.is_none() {
            self.framer = Some(framer);
        }
        out
    }

    fn consume(&mut self, n: usize, offset: &mut u64) {
        self.at += n;
        *offset += n as u64;
    }

    /// Reads more of the stream behind the pending bytes (at least as much again as is
    /// pending, so that a long game needs few reads).
    fn fill(&mut self, stream: &mut dyn BufRead) {
        self.pending.drain(..self.at);
        self.at = 0;
        let have = self.pending.len();
        let grow = READ_AHEAD.max(have).min(MAX_GAME_BYTES + READ_AHEAD);
        self.pending.resize(have + grow, 0);
        let (n, error) = read_until_error(&mut &mut *stream, &mut self.pending[have..]);
        self.pending.truncate(have + n);
        match error {
            Some(e) => self.error = Some(e.to_string()),
            None => self.ended = n < grow,
        }
    }
}
