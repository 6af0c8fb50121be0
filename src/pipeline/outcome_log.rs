//! A shard's outcome log (`outcomes.bin`): every batch of the shard's part as the workers
//! decided it, before the commit, so that the gather of a job split over tasks replays the
//! one ordered commit of a single run over all parts ([`super::replay`]) and writes its
//! bytes (zstd frames, shard files, audit, mates) by the same code.
//!
//! # Layout (little-endian)
//! `PFOUTC02`, then per batch: `B`, the header (u32 length + JSON: format, the reader's
//! point after the batch, hcpe games inferred, games logged), u32 records, u64 + the kept
//! bytes, each record, each game (a game format written as itself: its offset u64, its
//! record count u32 and its input bytes, u32-length, decoded again on reading); then `E`. A
//! record: index u64, file u32, offset u64, nodes u64, out start and end u64, solver
//! microseconds u32, flags u16,
//! the dedup key (u128, when flagged), the decision (u8: 0 keep, 1 drop + u8 reason number
//! in [`DropReason::ALL`], 2 reject + kind and message as u32-length strings), the extra
//! part as u32-length JSON (when flagged).
//!
//! # Invariants
//! A log read back yields exactly the batches appended, each record's outcome equal in
//! every field the commit reads; a log without its end mark (a task killed while writing)
//! is refused, naming the file.

use super::worker::{BatchOutcome, GameOut, MateOut, RecordExtra, RecordOutcome};
use crate::codec::game::{decode_game, Game, GameFormat};
use crate::codec::Format;
use crate::filter::{Decision, DropReason, RejectReason};
use crate::io::batch::{Batch, ResumePoint};
use crate::io::output::{Counted, FileMark};
use crate::shogi::Fingerprint;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fs::File;
use std::io::{self, BufReader, Read, Write};
use std::path::{Path, PathBuf};

/// The log's file name in a shard directory.
pub(crate) const OUTCOME_LOG: &str = "outcomes.bin";

const MAGIC: &[u8; 8] = b"PFOUTC02";

const UNKNOWN: u16 = 1;
const TIMED_OUT: u16 = 1 << 1;
const CACHED: u16 = 1 << 2;
const MOVE_ILLEGAL: u16 = 1 << 3;
const MOVE_CLEARED: u16 = 1 << 4;
const OPEN_PATH: u16 = 1 << 5;
const HAS_KEY: u16 = 1 << 6;
const HAS_EXTRA: u16 = 1 << 7;
const SEARCHED: u16 = 1 << 8;

/// A batch's header: what the commit and the checkpoints need besides the outcomes.
#[derive(Serialize, Deserialize)]
struct Header {
    format: Format,
    next: ResumePoint,
    /// hcpe: games inferred in the batch.
    hcpe_games: u64,
    /// Games logged after the records (a game format written as itself).
    games: u32,
}

/// A record's extra part as the log holds it (owned names).
#[derive(Serialize, Deserialize)]
struct ExtraRepr {
    detail: Value,
    mate: Option<MateRepr>,
    open_path_detail: Value,
    repetition: Option<(String, bool)>,
    raw_hex: Option<String>,
    raw_text: Option<String>,
    raw_len: usize,
    plies_exact: Option<bool>,
}

/// A mate as the log holds it.
#[derive(Serialize, Deserialize)]
struct MateRepr {
    sfen: String,
    kind: String,
    plies: u32,
    pv: Vec<String>,
    nodes: u64,
    binary: Vec<u8>,
    plies_exact: bool,
    game_result: Option<i8>,
}

/// One logged batch: its format, where the reader stood after it, its outcomes.
pub(crate) struct LoggedBatch {
    /// The batch's input format.
    pub(crate) format: Format,
    /// The reader's point right after the batch (checkpoints are due by it).
    pub(crate) next: ResumePoint,
    /// The outcomes, as the worker gave them.
    pub(crate) outcome: BatchOutcome,
}

/// Appends batches to a new log.
pub(crate) struct OutcomeLogWriter {
    out: Counted,
    path: PathBuf,
}

impl OutcomeLogWriter {
    /// Creates (or truncates) the log at `path`.
    pub(crate) fn create(path: &Path) -> io::Result<OutcomeLogWriter> {
        let mut out = Counted::create(path).map_err(|e| named(path, e))?;
        out.write_all(MAGIC).map_err(|e| named(path, e))?;
        Ok(OutcomeLogWriter {
            out,
            path: path.to_path_buf(),
        })
    }

    /// Reopens the log of a stopped shard at its checkpoint `mark` (checked, and what
    /// follows it cut off).
    pub(crate) fn resume(path: &Path, mark: FileMark) -> io::Result<OutcomeLogWriter> {
        Ok(OutcomeLogWriter {
            out: Counted::reopen(path, mark).map_err(|e| named(path, e))?,
            path: path.to_path_buf(),
        })
    }

    /// Flushes the batches appended so far; their mark, for a checkpoint.
    pub(crate) fn mark(&mut self) -> io::Result<FileMark> {
        self.out.mark().map_err(|e| named(&self.path, e))
    }

    /// Appends one batch's outcomes.
    pub(crate) fn append(&mut self, batch: &Batch, outcome: &BatchOutcome) -> io::Result<()> {
        // The games the commit writes are the batch's own, in order: log their input bytes.
        let games: Vec<_> = match outcome.games.is_empty() {
            true => Vec::new(),
            false => batch.games().collect(),
        };
        if games.len() != outcome.games.len() {
            return Err(io::Error::other(format!(
                "batch at record {}: {} games decided, {} read",
                batch.first_index,
                outcome.games.len(),
                games.len()
            )));
        }
        let header = serde_json::to_vec(&Header {
            format: batch.format,
            next: batch.next,
            hcpe_games: outcome.hcpe_games,
            games: games.len() as u32,
        })
        .map_err(io::Error::other)?;
        let mut buf = Vec::with_capacity(64 * outcome.records.len() + outcome.out.len() + 64);
        buf.push(b'B');
        put_bytes(&mut buf, &header);
        buf.extend_from_slice(&(outcome.records.len() as u32).to_le_bytes());
        buf.extend_from_slice(&(outcome.out.len() as u64).to_le_bytes());
        buf.extend_from_slice(&outcome.out);
        for r in &outcome.records {
            put_record(&mut buf, r)?;
        }
        for g in &games {
            buf.extend_from_slice(&g.span.offset.to_le_bytes());
            buf.extend_from_slice(&g.span.records.to_le_bytes());
            put_bytes(&mut buf, g.bytes);
        }
        self.out.write_all(&buf).map_err(|e| named(&self.path, e))
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
}

impl OutcomeLogReader {
    /// Opens the log at `path` and checks its magic.
    pub(crate) fn open(path: &Path) -> io::Result<OutcomeLogReader> {
        let file = File::open(path).map_err(|e| named(path, e))?;
        let mut r = OutcomeLogReader {
            input: BufReader::with_capacity(1 << 20, file),
            path: path.to_path_buf(),
            ended: false,
        };
        let mut magic = [0u8; 8];
        r.fill(&mut magic)?;
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
        let header: Header = serde_json::from_slice(&self.bytes()?)
            .map_err(|e| self.bad(&format!("damaged batch header: {e}")))?;
        let n = self.u32()? as usize;
        let out_len = self.u64()? as usize;
        let mut out = vec![0u8; out_len];
        self.fill(&mut out)?;
        let mut records = Vec::with_capacity(n);
        for _ in 0..n {
            records.push(self.record(out_len)?);
        }
        let games = self.games(header.format, header.games)?;
        Ok(Some(LoggedBatch {
            format: header.format,
            next: header.next,
            outcome: BatchOutcome {
                records,
                out,
                games,
                hcpe_games: header.hcpe_games,
            },
        }))
    }

    /// The `n` logged games of a batch of `format`, decoded as the worker decoded them.
    fn games(&mut self, format: Format, n: u32) -> io::Result<Vec<GameOut>> {
        if n == 0 {
            return Ok(Vec::new());
        }
        let format = GameFormat::of(format).ok_or_else(|| self.bad("games of a record format"))?;
        let mut games = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let (offset, records) = (self.u64()?, self.u32()?);
            let bytes = self.bytes()?;
            let mut game = Game::new(format);
            decode_game(&bytes, offset, &mut game, &mut |_, _, _| {});
            games.push(GameOut { game, records });
        }
        Ok(games)
    }

    fn record(&mut self, out_len: usize) -> io::Result<RecordOutcome> {
        let (index, file, offset, nodes) = (self.u64()?, self.u32()?, self.u64()?, self.u64()?);
        let (start, end) = (self.u64()? as usize, self.u64()? as usize);
        let micros = self.u32()?;
        if start > end || end > out_len {
            return Err(self.bad("damaged record (kept bytes out of range)"));
        }
        let mut flags = [0u8; 2];
        self.fill(&mut flags)?;
        let flags = u16::from_le_bytes(flags);
        let dedup_key = match flags & HAS_KEY {
            0 => None,
            _ => {
                let mut k = [0u8; 16];
                self.fill(&mut k)?;
                Some(Fingerprint(u128::from_le_bytes(k)))
            }
        };
        let decision = self.decision()?;
        let extra = match flags & HAS_EXTRA {
            0 => None,
            _ => Some(Box::new(self.extra()?)),
        };
        Ok(RecordOutcome {
            index,
            file,
            offset,
            decision,
            dedup_key,
            out: start..end,
            nodes,
            unknown: flags & UNKNOWN != 0,
            timed_out: flags & TIMED_OUT != 0,
            cached: flags & CACHED != 0,
            move_illegal: flags & MOVE_ILLEGAL != 0,
            move_cleared: flags & MOVE_CLEARED != 0,
            open_path: flags & OPEN_PATH != 0,
            micros,
            searched: flags & SEARCHED != 0,
            extra,
        })
    }

    fn decision(&mut self) -> io::Result<Decision> {
        match self.u8()? {
            0 => Ok(Decision::Keep),
            1 => {
                let at = self.u8()? as usize;
                let reason = DropReason::ALL
                    .get(at)
                    .ok_or_else(|| self.bad("damaged record (drop reason)"))?;
                Ok(Decision::Drop(*reason))
            }
            2 => {
                let kind = String::from_utf8_lossy(&self.bytes()?).into_owned();
                let text = String::from_utf8_lossy(&self.bytes()?).into_owned();
                Ok(Decision::Reject(RejectReason::Recorded { kind, text }))
            }
            _ => Err(self.bad("damaged record (decision)")),
        }
    }

    fn extra(&mut self) -> io::Result<RecordExtra> {
        let repr: ExtraRepr = serde_json::from_slice(&self.bytes()?)
            .map_err(|e| self.bad(&format!("damaged record detail: {e}")))?;
        let repetition = match repr.repetition {
            Some((name, perpetual)) => Some((
                interned(&name, &["exact", "inferior"])
                    .ok_or_else(|| self.bad("damaged record (repetition kind)"))?,
                perpetual,
            )),
            None => None,
        };
        let mate = match repr.mate {
            Some(m) => Some(MateOut {
                kind: interned(&m.kind, &["mate", "mated", "checkmated"])
                    .ok_or_else(|| self.bad("damaged record (mate kind)"))?,
                sfen: m.sfen,
                plies: m.plies,
                pv: m.pv,
                nodes: m.nodes,
                binary: m.binary,
                plies_exact: m.plies_exact,
                game_result: m.game_result,
            }),
            None => None,
        };
        Ok(RecordExtra {
            detail: repr.detail,
            mate,
            open_path_detail: repr.open_path_detail,
            repetition,
            raw_hex: repr.raw_hex,
            raw_text: repr.raw_text,
            raw_len: repr.raw_len,
            plies_exact: repr.plies_exact,
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

    fn u32(&mut self) -> io::Result<u32> {
        let mut b = [0u8; 4];
        self.fill(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    fn u64(&mut self) -> io::Result<u64> {
        let mut b = [0u8; 8];
        self.fill(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    fn bytes(&mut self) -> io::Result<Vec<u8>> {
        let n = self.u32()? as usize;
        let mut v = vec![0u8; n];
        self.fill(&mut v)?;
        Ok(v)
    }

    fn bad(&self, why: &str) -> io::Error {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: {why}", self.path.display()),
        )
    }
}

/// Appends one record (see the module's layout).
fn put_record(buf: &mut Vec<u8>, r: &RecordOutcome) -> io::Result<()> {
    buf.extend_from_slice(&r.index.to_le_bytes());
    buf.extend_from_slice(&r.file.to_le_bytes());
    for v in [r.offset, r.nodes, r.out.start as u64, r.out.end as u64] {
        buf.extend_from_slice(&v.to_le_bytes());
    }
    buf.extend_from_slice(&r.micros.to_le_bytes());
    let flags = [
        (r.unknown, UNKNOWN),
        (r.timed_out, TIMED_OUT),
        (r.cached, CACHED),
        (r.move_illegal, MOVE_ILLEGAL),
        (r.move_cleared, MOVE_CLEARED),
        (r.open_path, OPEN_PATH),
        (r.dedup_key.is_some(), HAS_KEY),
        (r.extra.is_some(), HAS_EXTRA),
        (r.searched, SEARCHED),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .fold(0u16, |f, (_, bit)| f | bit);
    buf.extend_from_slice(&flags.to_le_bytes());
    if let Some(key) = r.dedup_key {
        buf.extend_from_slice(&key.0.to_le_bytes());
    }
    match &r.decision {
        Decision::Keep => buf.push(0),
        Decision::Drop(reason) => {
            let at = DropReason::ALL
                .iter()
                .position(|d| d == reason)
                .unwrap_or(0);
            buf.extend_from_slice(&[1, at as u8]);
        }
        Decision::Reject(reason) => {
            buf.push(2);
            put_bytes(buf, reason.kind().as_bytes());
            put_bytes(buf, reason.to_string().as_bytes());
        }
    }
    if let Some(extra) = &r.extra {
        let json = serde_json::to_vec(&repr_of(extra)).map_err(io::Error::other)?;
        put_bytes(buf, &json);
    }
    Ok(())
}

/// The extra part as the log holds it.
fn repr_of(e: &RecordExtra) -> ExtraRepr {
    ExtraRepr {
        detail: e.detail.clone(),
        mate: e.mate.as_ref().map(|m| MateRepr {
            sfen: m.sfen.clone(),
            kind: m.kind.to_string(),
            plies: m.plies,
            pv: m.pv.clone(),
            nodes: m.nodes,
            binary: m.binary.clone(),
            plies_exact: m.plies_exact,
            game_result: m.game_result,
        }),
        open_path_detail: e.open_path_detail.clone(),
        repetition: e.repetition.map(|(n, p)| (n.to_string(), p)),
        raw_hex: e.raw_hex.clone(),
        raw_text: e.raw_text.clone(),
        raw_len: e.raw_len,
        plies_exact: e.plies_exact,
    }
}

/// `bytes` with a u32 length in front.
fn put_bytes(buf: &mut Vec<u8>, bytes: &[u8]) {
    buf.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    buf.extend_from_slice(bytes);
}

/// The static name among `names` equal to `name`.
fn interned(name: &str, names: &[&'static str]) -> Option<&'static str> {
    names.iter().copied().find(|n| *n == name)
}

fn named(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}
