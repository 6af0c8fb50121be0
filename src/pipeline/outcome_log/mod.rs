//! A shard's outcome log (`outcomes.bin`): every batch of the shard's part as the workers
//! decided it, before the commit, so that the gather of a job split over tasks replays the
//! one ordered commit of a single run over all parts ([`super::replay`]) and writes its
//! bytes (zstd frames, shard files, audit, mates) by the same code.
//!
//! # Layout (little-endian)
//! `PFOUTC03`, then per batch: `B`, the frame's length (u64) and CRC-32 (u32), the frame;
//! then `E`. A frame: the header (varint length + JSON: format, the reader's point after the
//! batch, hcpe games inferred, games logged, the first record's index, the record count,
//! the input file), the kept records' bytes (varint length + bytes), the records' entries
//! ([`records`]: runs of plain kept records, single entries for the rest), each game (a game
//! format written as itself: its offset, its record count, its input bytes with a length,
//! all varints; decoded again on reading).
//!
//! # Invariants
//! A log read back yields exactly the batches appended, each record's outcome equal in
//! every field the commit reads (see [`records`] for the two it leaves out); a log without
//! its end mark (a task killed while writing), with a frame that fails its CRC, or of
//! another version is refused, naming the file.

mod extra;
mod records;
#[cfg(test)]
mod tests;

use super::worker::{BatchOutcome, GameOut};
use crate::codec::game::{decode_game, Game, GameFormat};
use crate::codec::Format;
use crate::io::batch::{Batch, ResumePoint};
use crate::io::output::{Counted, FileMark};
use records::{get_records, put_bytes, put_records, put_varint, Bytes};
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{self, BufReader, Read, Write};
use std::path::{Path, PathBuf};

/// The log's file name in a shard directory.
pub(crate) const OUTCOME_LOG: &str = "outcomes.bin";

const MAGIC: &[u8; 8] = b"PFOUTC03";
/// The magic of the logs of earlier versions (refused by name).
const OLDER: [&[u8; 8]; 2] = [b"PFOUTC01", b"PFOUTC02"];

/// A batch's header: what the commit and the checkpoints need besides the outcomes.
#[derive(Serialize, Deserialize)]
struct Header {
    format: Format,
    next: ResumePoint,
    /// hcpe: games inferred in the batch.
    hcpe_games: u64,
    /// Games logged after the records (a game format written as itself).
    games: u32,
    /// The index of the batch's first record (the others follow it).
    first_index: u64,
    /// Records in the batch.
    records: u64,
    /// The input file the batch was read from.
    file: u32,
}

/// One logged batch: its format, where the reader stood after it, its outcomes.
pub(crate) struct LoggedBatch {
    /// The batch's input format.
    pub(crate) format: Format,
    /// The reader's point right after the batch (checkpoints are due by it).
    pub(crate) next: ResumePoint,
    /// The outcomes, as the worker gave them (dedup keys aside, see [`records::REPLAYED_KEY`]).
    pub(crate) outcome: BatchOutcome,
}

/// Appends batches to a new log.
pub(crate) struct OutcomeLogWriter {
    out: Counted,
    path: PathBuf,
    /// The frame being built (kept to reuse its allocation).
    frame: Vec<u8>,
}

impl OutcomeLogWriter {
    /// Creates (or truncates) the log at `path`.
    pub(crate) fn create(path: &Path) -> io::Result<OutcomeLogWriter> {
        let mut out = Counted::create(path).map_err(|e| named(path, e))?;
        out.write_all(MAGIC).map_err(|e| named(path, e))?;
        Ok(OutcomeLogWriter {
            out,
            path: path.to_path_buf(),
            frame: Vec::new(),
        })
    }

    /// Reopens the log of a stopped shard at its checkpoint `mark` (checked, and what
    /// follows it cut off).
    pub(crate) fn resume(path: &Path, mark: FileMark) -> io::Result<OutcomeLogWriter> {
        Ok(OutcomeLogWriter {
            out: Counted::reopen(path, mark).map_err(|e| named(path, e))?,
            path: path.to_path_buf(),
            frame: Vec::new(),
        })
    }

    /// Flushes the batches appended so far; their mark, for a checkpoint.
    pub(crate) fn mark(&mut self) -> io::Result<FileMark> {
        self.out.mark().map_err(|e| named(&self.path, e))
    }

    /// Appends one batch's outcomes.
    pub(crate) fn append(&mut self, batch: &Batch, outcome: &BatchOutcome) -> io::Result<()> {
        let frame = self.frame(batch, outcome).map_err(|why| {
            io::Error::other(format!(
                "{}: batch at record {}: {why}",
                self.path.display(),
                batch.first_index
            ))
        })?;
        let mut head = [0u8; 13];
        head[0] = b'B';
        head[1..9].copy_from_slice(&(frame.len() as u64).to_le_bytes());
        head[9..].copy_from_slice(&crc32fast::hash(&frame).to_le_bytes());
        let written = self
            .out
            .write_all(&head)
            .and_then(|_| self.out.write_all(&frame));
        self.frame = frame;
        written.map_err(|e| named(&self.path, e))
    }

    /// The frame of one batch (see the module's layout).
    fn frame(&mut self, batch: &Batch, outcome: &BatchOutcome) -> Result<Vec<u8>, String> {
        // The games the commit writes are the batch's own, in order: log their input bytes.
        let games: Vec<_> = match outcome.games.is_empty() {
            true => Vec::new(),
            false => batch.games().collect(),
        };
        if games.len() != outcome.games.len() {
            let (decided, read) = (outcome.games.len(), games.len());
            return Err(format!("{decided} games decided, {read} read"));
        }
        let first_index = outcome
            .records
            .first()
            .map_or(batch.first_index, |r| r.index);
        let header = serde_json::to_vec(&Header {
            format: batch.format,
            next: batch.next,
            hcpe_games: outcome.hcpe_games,
            games: games.len() as u32,
            first_index,
            records: outcome.records.len() as u64,
            file: batch.file as u32,
        })
        .map_err(|e| e.to_string())?;
        let mut buf = std::mem::take(&mut self.frame);
        buf.clear();
        put_bytes(&mut buf, &header);
        put_bytes(&mut buf, &outcome.out);
        put_records(&mut buf, &outcome.records, first_index, batch.file as u32)?;
        for g in &games {
            put_varint(&mut buf, g.span.offset);
            put_varint(&mut buf, u64::from(g.span.records));
            put_bytes(&mut buf, g.bytes);
        }
        Ok(buf)
    }

    /// Writes the end mark, flushes and syncs.
    pub(crate) fn finish(mut self) -> io::Result<()> {
        let path = self.path;
        self.out.write_all(b"E").map_err(|e| named(&path, e))?;
        self.out.finish().map(|_| ()).map_err(|e| named(&path, e))
    }
}

/// Reads a log's batches in order.
pub(crate) struct OutcomeLogReader {
    input: BufReader<File>,
    path: PathBuf,
    ended: bool,
    /// Batches read so far (for messages).
    batches: u64,
    /// The frame being read (kept to reuse its allocation).
    frame: Vec<u8>,
}

impl OutcomeLogReader {
    /// Opens the log at `path` and checks its magic.
    pub(crate) fn open(path: &Path) -> io::Result<OutcomeLogReader> {
        let file = File::open(path).map_err(|e| named(path, e))?;
        let mut r = OutcomeLogReader {
            input: BufReader::with_capacity(1 << 20, file),
            path: path.to_path_buf(),
            ended: false,
            batches: 0,
            frame: Vec::new(),
        };
        let mut magic = [0u8; 8];
        r.fill(&mut magic)?;
        if OLDER.contains(&&magic) {
            return Err(r.bad(&format!(
                "an outcome log of an earlier posfilter ({}; this one reads {}): run the \
                 shard again with this version",
                String::from_utf8_lossy(&magic),
                String::from_utf8_lossy(MAGIC)
            )));
        }
        if &magic != MAGIC {
            return Err(r.bad("not a posfilter outcome log"));
        }
        Ok(r)
    }

    /// The next batch; `None` after the end mark.
    pub(crate) fn next_batch(&mut self) -> io::Result<Option<LoggedBatch>> {
        if self.ended {
            return Ok(None);
        }
        match self.u8()? {
            b'E' => {
                self.ended = true;
                return Ok(None);
            }
            b'B' => {}
            _ => return Err(self.bad("damaged (no batch mark)")),
        }
        let mut head = [0u8; 12];
        self.fill(&mut head)?;
        let len = u64::from_le_bytes(head[..8].try_into().unwrap_or_default());
        let crc = u32::from_le_bytes(head[8..].try_into().unwrap_or_default());
        let mut frame = std::mem::take(&mut self.frame);
        frame.clear();
        let read = (&mut self.input).take(len).read_to_end(&mut frame);
        let read = read.map_err(|e| named(&self.path, e))?;
        if (read as u64) < len {
            return Err(self.bad("ends early: the task that wrote it did not finish"));
        }
        self.batches += 1;
        if crc32fast::hash(&frame) != crc {
            let why = format!("damaged (batch {} fails its CRC-32)", self.batches);
            return Err(self.bad(&why));
        }
        let batch = self.parse(&frame).map_err(|why| {
            let why = format!("batch {}: {why}", self.batches);
            self.bad(&why)
        });
        self.frame = frame;
        batch.map(Some)
    }

    /// The batch in `frame` (its CRC checked).
    fn parse(&self, frame: &[u8]) -> Result<LoggedBatch, String> {
        let mut bytes = Bytes::new(frame);
        let header: Header = serde_json::from_slice(bytes.counted()?)
            .map_err(|e| format!("damaged batch header: {e}"))?;
        let out = bytes.counted()?.to_vec();
        let n = usize::try_from(header.records).map_err(|_| "damaged (record count)")?;
        let mut records = Vec::with_capacity(n.min(frame.len()));
        let place = (header.first_index, header.file, out.len());
        get_records(&mut bytes, n, place, &mut records)?;
        let games = games(&mut bytes, header.format, header.games)?;
        if !bytes.is_empty() {
            return Err("damaged (bytes after its last entry)".into());
        }
        Ok(LoggedBatch {
            format: header.format,
            next: header.next,
            outcome: BatchOutcome {
                records,
                out,
                games,
                hcpe_games: header.hcpe_games,
            },
        })
    }

    fn fill(&mut self, buf: &mut [u8]) -> io::Result<()> {
        self.input.read_exact(buf).map_err(|e| match e.kind() {
            io::ErrorKind::UnexpectedEof => {
                self.bad("ends early: the task that wrote it did not finish")
            }
            _ => named(&self.path, e),
        })
    }

    fn u8(&mut self) -> io::Result<u8> {
        let mut b = [0u8; 1];
        self.fill(&mut b)?;
        Ok(b[0])
    }

    fn bad(&self, why: &str) -> io::Error {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: {why}", self.path.display()),
        )
    }
}

/// The `n` logged games of a batch of `format`, decoded as the worker decoded them.
fn games(bytes: &mut Bytes<'_>, format: Format, n: u32) -> Result<Vec<GameOut>, String> {
    if n == 0 {
        return Ok(Vec::new());
    }
    let format = GameFormat::of(format).ok_or("games of a record format")?;
    let mut games = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let offset = bytes.varint()?;
        let records = u32::try_from(bytes.varint()?).map_err(|_| "damaged game (records)")?;
        let mut game = Game::new(format);
        decode_game(bytes.counted()?, offset, &mut game, &mut |_, _, _| {});
        games.push(GameOut { game, records });
    }
    Ok(games)
}

fn named(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}
