//! The records of one logged batch, written relative to each other: a record's index is its
//! place in the batch, its file the batch's, its offset a step from the record before, its
//! kept bytes follow those of the record before; a run of plain kept records (no detail, no
//! solver nodes or time, the same flags, output length and offset step: most records of a
//! job with the mate filter off) is one entry for the whole run.
//!
//! # Entries (little-endian; varints are LEB128, signed ones zigzag)
//! - `0` run: flags (u16), count (varint), the first record's offset step and the step of
//!   each later one (signed varints), the output length of each (varint). Each record of a
//!   run is kept, with no nodes, time or extra part.
//! - `1` one record: flags (u16), offset step (signed varint), the file (varint, with
//!   [`OTHER_FILE`]), the output length (varint), its start (varint, with [`OUT_AT`]),
//!   nodes and microseconds (varints), the decision (u8: 0 keep, 1 drop + u8 reason number
//!   in [`DropReason::ALL`], 2 reject + kind and message as varint-length strings), the
//!   extra part as varint-length JSON (with [`HAS_EXTRA`]).
//!
//! The dedup key is not logged, only whether the record had one ([`HAS_KEY`]): the shard's
//! key runs hold the keys, and the gather's commit takes duplicates from the reduce's lists
//! by index ([`crate::pipeline::known_dups`]), never from a key.
//!
//! # Invariants
//! Read back, every record equals the one written in every field the gather's commit reads,
//! with two exceptions no reader looks at: the dedup key is [`REPLAYED_KEY`], and an empty
//! output range sits where the previous record's bytes end.

use super::extra::{extra_of, repr_of, ExtraRepr};
use crate::filter::{Decision, DropReason, RejectReason};
use crate::pipeline::worker::RecordOutcome;
use crate::shogi::Fingerprint;

const UNKNOWN: u16 = 1;
const TIMED_OUT: u16 = 1 << 1;
const CACHED: u16 = 1 << 2;
const MOVE_ILLEGAL: u16 = 1 << 3;
const MOVE_CLEARED: u16 = 1 << 4;
const OPEN_PATH: u16 = 1 << 5;
const HAS_KEY: u16 = 1 << 6;
const HAS_EXTRA: u16 = 1 << 7;
const SEARCHED: u16 = 1 << 8;
/// The record is of another file than its batch's.
const OTHER_FILE: u16 = 1 << 9;
/// The record's output bytes do not follow the previous record's.
const OUT_AT: u16 = 1 << 10;
/// Flags only a single record's entry may carry.
const SINGLE_ONLY: u16 = HAS_EXTRA | OTHER_FILE | OUT_AT;
const ALL_FLAGS: u16 = (1 << 11) - 1;

const RUN: u8 = 0;
const ONE: u8 = 1;

/// The dedup key of a replayed record that had one (its value is not logged, see the
/// module).
pub(crate) const REPLAYED_KEY: Fingerprint = Fingerprint(0);

/// Where the previous record stood: what the next one is written relative to.
#[derive(Default)]
struct Place {
    offset: u64,
    out_end: usize,
}

impl Place {
    fn step(&self, r: &RecordOutcome) -> i64 {
        r.offset.wrapping_sub(self.offset) as i64
    }

    fn advance(&mut self, r: &RecordOutcome) {
        self.offset = r.offset;
        if !r.out.is_empty() {
            self.out_end = r.out.end;
        }
    }
}

/// A run of plain kept records being gathered.
struct Run {
    count: u64,
    flags: u16,
    first_step: i64,
    step: i64,
    len: usize,
}

impl Run {
    fn takes(&self, flags: u16, len: usize, step: i64) -> bool {
        self.flags == flags && self.len == len && (self.count == 1 || self.step == step)
    }

    fn put(self, buf: &mut Vec<u8>) {
        buf.push(RUN);
        buf.extend_from_slice(&self.flags.to_le_bytes());
        put_varint(buf, self.count);
        put_signed(buf, self.first_step);
        put_signed(buf, self.step);
        put_varint(buf, self.len as u64);
    }
}

/// Appends the entries of `records`, the batch's records from index `first_index`, read
/// from input file `file`. `Err`: the records are not consecutive.
pub(super) fn put_records(
    buf: &mut Vec<u8>,
    records: &[RecordOutcome],
    first_index: u64,
    file: u32,
) -> Result<(), String> {
    let mut at = Place::default();
    let mut run: Option<Run> = None;
    for (due, r) in (first_index..).zip(records) {
        if r.index != due {
            return Err(format!(
                "record {} given where record {due} was due: a batch's records follow \
                 each other",
                r.index
            ));
        }
        let (flags, step) = (flags_of(r), at.step(r));
        let out_follows = r.out.is_empty() || r.out.start == at.out_end;
        let plain = matches!(r.decision, Decision::Keep)
            && r.extra.is_none()
            && r.nodes == 0
            && r.micros == 0
            && r.file == file
            && out_follows;
        match run.as_mut() {
            Some(run) if plain && run.takes(flags, r.out.len(), step) => {
                run.step = step;
                run.count += 1;
            }
            _ => {
                if let Some(done) = run.take() {
                    done.put(buf);
                }
                match plain {
                    true => {
                        run = Some(Run {
                            count: 1,
                            flags,
                            first_step: step,
                            step: 0,
                            len: r.out.len(),
                        })
                    }
                    false => put_one(buf, r, flags, step, file, out_follows)?,
                }
            }
        }
        at.advance(r);
    }
    if let Some(done) = run {
        done.put(buf);
    }
    Ok(())
}

/// The record flags of `r` (without the entry's layout flags).
fn flags_of(r: &RecordOutcome) -> u16 {
    [
        (r.unknown, UNKNOWN),
        (r.timed_out, TIMED_OUT),
        (r.cached, CACHED),
        (r.move_illegal, MOVE_ILLEGAL),
        (r.move_cleared, MOVE_CLEARED),
        (r.open_path, OPEN_PATH),
        (r.dedup_key.is_some(), HAS_KEY),
        (r.searched, SEARCHED),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .fold(0u16, |f, (_, bit)| f | bit)
}

/// Appends the entry of one record that is no plain kept record.
fn put_one(
    buf: &mut Vec<u8>,
    r: &RecordOutcome,
    flags: u16,
    step: i64,
    file: u32,
    out_follows: bool,
) -> Result<(), String> {
    let layout = [
        (r.extra.is_some(), HAS_EXTRA),
        (r.file != file, OTHER_FILE),
        (!out_follows, OUT_AT),
    ];
    let flags = layout
        .iter()
        .filter(|(on, _)| *on)
        .fold(flags, |f, (_, b)| f | b);
    buf.push(ONE);
    buf.extend_from_slice(&flags.to_le_bytes());
    put_signed(buf, step);
    if flags & OTHER_FILE != 0 {
        put_varint(buf, u64::from(r.file));
    }
    put_varint(buf, r.out.len() as u64);
    if flags & OUT_AT != 0 {
        put_varint(buf, r.out.start as u64);
    }
    put_varint(buf, r.nodes);
    put_varint(buf, u64::from(r.micros));
    match &r.decision {
        Decision::Keep => buf.push(0),
        Decision::Drop(reason) => {
            let at = DropReason::ALL.iter().position(|d| d == reason);
            let at = at.ok_or_else(|| format!("record {}: drop reason {reason:?}", r.index))?;
            buf.extend_from_slice(&[1, at as u8]);
        }
        Decision::Reject(reason) => {
            buf.push(2);
            put_bytes(buf, reason.kind().as_bytes());
            put_bytes(buf, reason.to_string().as_bytes());
        }
    }
    if let Some(extra) = &r.extra {
        let json = serde_json::to_vec(&repr_of(extra)).map_err(|e| e.to_string())?;
        put_bytes(buf, &json);
    }
    Ok(())
}

/// Reads the entries of `n` records (the batch's from index `first_index`, of input file
/// `file`, with `out_len` bytes of kept records) into `records`. `Err` says what is damaged.
pub(super) fn get_records(
    bytes: &mut Bytes<'_>,
    n: usize,
    (first_index, file, out_len): (u64, u32, usize),
    records: &mut Vec<RecordOutcome>,
) -> Result<(), &'static str> {
    let mut at = Place::default();
    while records.len() < n {
        let entry = bytes.u8()?;
        let flags = bytes.u16()?;
        if flags & !ALL_FLAGS != 0 {
            return Err("damaged record (flags)");
        }
        let index = first_index + records.len() as u64;
        let r = match entry {
            RUN if flags & SINGLE_ONLY == 0 => {
                let count = bytes.varint()?;
                let (first_step, step) = (bytes.signed()?, bytes.signed()?);
                let len = bytes.varint()? as usize;
                if count == 0 || count > (n - records.len()) as u64 {
                    return Err("damaged (a run past its batch's records)");
                }
                for k in 0..count {
                    let step = if k == 0 { first_step } else { step };
                    let start = at.out_end;
                    let out = (start, start.checked_add(len).ok_or("damaged (run length)")?);
                    let mut r = record(index + k, file, at.offset.wrapping_add(step as u64));
                    set_out(&mut r, out, out_len)?;
                    set_flags(&mut r, flags);
                    at.advance(&r);
                    records.push(r);
                }
                continue;
            }
            ONE => one(bytes, flags, index, file, out_len, &at)?,
            _ => return Err("damaged record (entry kind)"),
        };
        at.advance(&r);
        records.push(r);
    }
    Ok(())
}

/// The rest of a single record's entry, after its flags.
fn one(
    bytes: &mut Bytes<'_>,
    flags: u16,
    index: u64,
    file: u32,
    out_len: usize,
    at: &Place,
) -> Result<RecordOutcome, &'static str> {
    let offset = at.offset.wrapping_add(bytes.signed()? as u64);
    let file = match flags & OTHER_FILE {
        0 => file,
        _ => u32::try_from(bytes.varint()?).map_err(|_| "damaged record (file)")?,
    };
    let len = bytes.varint()? as usize;
    let start = match flags & OUT_AT {
        0 => at.out_end,
        _ => bytes.varint()? as usize,
    };
    let mut r = record(index, file, offset);
    set_out(&mut r, (start, start.saturating_add(len)), out_len)?;
    set_flags(&mut r, flags);
    r.nodes = bytes.varint()?;
    r.micros = u32::try_from(bytes.varint()?).map_err(|_| "damaged record (time)")?;
    r.decision = match bytes.u8()? {
        0 => Decision::Keep,
        1 => Decision::Drop(
            *DropReason::ALL
                .get(bytes.u8()? as usize)
                .ok_or("damaged record (drop reason)")?,
        ),
        2 => {
            let kind = String::from_utf8_lossy(bytes.counted()?).into_owned();
            let text = String::from_utf8_lossy(bytes.counted()?).into_owned();
            Decision::Reject(RejectReason::Recorded { kind, text })
        }
        _ => return Err("damaged record (decision)"),
    };
    if flags & HAS_EXTRA != 0 {
        let repr: ExtraRepr =
            serde_json::from_slice(bytes.counted()?).map_err(|_| "damaged record detail")?;
        r.extra = Some(Box::new(extra_of(repr)?));
    }
    Ok(r)
}

/// A kept record at `index` of `file`, `offset`, with nothing else recorded.
pub(super) fn record(index: u64, file: u32, offset: u64) -> RecordOutcome {
    RecordOutcome {
        index,
        file,
        offset,
        ..RecordOutcome::new()
    }
}

fn set_out(
    r: &mut RecordOutcome,
    (start, end): (usize, usize),
    out_len: usize,
) -> Result<(), &'static str> {
    if end > out_len {
        return Err("damaged record (kept bytes out of range)");
    }
    r.out = start..end;
    Ok(())
}

fn set_flags(r: &mut RecordOutcome, flags: u16) {
    r.unknown = flags & UNKNOWN != 0;
    r.timed_out = flags & TIMED_OUT != 0;
    r.cached = flags & CACHED != 0;
    r.move_illegal = flags & MOVE_ILLEGAL != 0;
    r.move_cleared = flags & MOVE_CLEARED != 0;
    r.open_path = flags & OPEN_PATH != 0;
    r.searched = flags & SEARCHED != 0;
    r.dedup_key = (flags & HAS_KEY != 0).then_some(REPLAYED_KEY);
}

/// `v` as a LEB128 varint.
pub(super) fn put_varint(buf: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        buf.push(v as u8 | 0x80);
        v >>= 7;
    }
    buf.push(v as u8);
}

/// `v` zigzagged, as a varint.
fn put_signed(buf: &mut Vec<u8>, v: i64) {
    put_varint(buf, ((v << 1) ^ (v >> 63)) as u64);
}

/// `bytes` with a varint length in front.
pub(super) fn put_bytes(buf: &mut Vec<u8>, bytes: &[u8]) {
    put_varint(buf, bytes.len() as u64);
    buf.extend_from_slice(bytes);
}

/// A batch's bytes being read; each read says what it found damaged.
pub(super) struct Bytes<'a> {
    rest: &'a [u8],
}

impl<'a> Bytes<'a> {
    /// Reads `bytes` from the start.
    pub(super) fn new(bytes: &'a [u8]) -> Bytes<'a> {
        Bytes { rest: bytes }
    }

    /// Whether everything was read.
    pub(super) fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }

    /// The next `n` bytes.
    pub(super) fn take(&mut self, n: usize) -> Result<&'a [u8], &'static str> {
        if n > self.rest.len() {
            return Err("damaged (a field runs past its batch)");
        }
        let (head, rest) = self.rest.split_at(n);
        self.rest = rest;
        Ok(head)
    }

    fn u8(&mut self) -> Result<u8, &'static str> {
        Ok(self.take(1)?[0])
    }

    fn u16(&mut self) -> Result<u16, &'static str> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    /// A LEB128 varint.
    pub(super) fn varint(&mut self) -> Result<u64, &'static str> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.u8()?;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("damaged (a number too long)")
    }

    fn signed(&mut self) -> Result<i64, &'static str> {
        let v = self.varint()?;
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    /// Bytes with a varint length in front.
    pub(super) fn counted(&mut self) -> Result<&'a [u8], &'static str> {
        let n = self.varint()?;
        self.take(usize::try_from(n).map_err(|_| "damaged (a length too large)")?)
    }
}
