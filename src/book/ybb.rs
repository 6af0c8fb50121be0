//! YaneuraOu's binary book (`.ybb`).
//!
//! ```text
//! header  32 B   "YANE-BINBOOK-V1\0", u64 record count, u64 flags (bit 0: moves carry depth)
//! index   44 B × count, sorted by the PackedSfen bytes:
//!                PackedSfen 32 B, u64 moves offset (from the end of the index),
//!                u16 ply, u16 move count
//! moves   4 B (u16 YaneuraOu Move16, i16 value) or 6 B (+ u16 depth) each
//! ```
//! All integers little-endian. YaneuraOu's Move16 puts a drop's kind (P 1 … R 6, G 7) in
//! the source field with bit 14 set, and promotion in bit 15 (not Apery's layout).
//!
//! Reading refuses (naming the file) a wrong magic, flags other than bit 0, a truncated
//! header, index or move area, and keys out of order; equal keys are one position under
//! several plies (kept, for [`Book::merge_plies`]). A row whose PackedSfen does not decode
//! to a valid position, or a move that is no Move16 shape, is a [`Rejected`] (record = index
//! row, 1-based). Ply 0 reads as unknown.
//!
//! Writing: one row per position (distinct positions required), sorted, moves in
//! [`super::sort_moves`] order; flag bit 0 when any move has a depth (a missing depth is then
//! 0); a missing value is 0 and values saturate to i16; an unknown ply is 0.

use super::{entry_position, sort_moves, Book, BookFatal, BookMove, BookPosition, Rejected};
use crate::codec::psfen::{decode_psfen, encode_psfen};
use crate::shogi::Move;
use std::io::{self, Write};
use std::path::Path;

/// The magic bytes at the start of a `.ybb` file.
pub const MAGIC: &[u8; 16] = b"YANE-BINBOOK-V1\0";
const HEADER: usize = 32;
const ROW: usize = 44;

/// A `.ybb` book as read.
#[derive(Debug, Default)]
pub struct YbbRead {
    /// The entries, in index order.
    pub book: Book,
    /// Rows or moves that could not be taken.
    pub rejected: Vec<Rejected>,
    /// Whether the moves carry a depth (flag bit 0).
    pub has_depth: bool,
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}

/// Checks the header; returns (row count, whether moves carry depth, start of moves).
fn header(file: &Path, bytes: &[u8]) -> Result<(usize, bool, usize), BookFatal> {
    if bytes.len() < HEADER || &bytes[..16] != MAGIC {
        return Err(BookFatal::new(
            file,
            "not a YaneuraOu .ybb book (no YANE-BINBOOK-V1 header)",
        ));
    }
    let count = u64_at(bytes, 16);
    let flags = u64_at(bytes, 24);
    if flags & !1 != 0 {
        return Err(BookFatal::new(
            file,
            format!("unknown .ybb header flags {flags:#x}"),
        ));
    }
    let moves_start = usize::try_from(count)
        .ok()
        .and_then(|c| c.checked_mul(ROW))
        .and_then(|n| n.checked_add(HEADER))
        .filter(|&n| n <= bytes.len())
        .ok_or_else(|| BookFatal::new(file, format!("index of {count} rows runs past the end")))?;
    Ok((count as usize, flags & 1 != 0, moves_start))
}

/// Reads a `.ybb` book from `bytes` (the contents of `file`).
pub fn read(file: &Path, bytes: &[u8]) -> Result<YbbRead, BookFatal> {
    let (count, has_depth, moves_start) = header(file, bytes)?;
    let width = if has_depth { 6 } else { 4 };
    let mut out = YbbRead {
        has_depth,
        ..YbbRead::default()
    };
    for i in 0..count {
        let row = &bytes[HEADER + i * ROW..HEADER + (i + 1) * ROW];
        if i > 0 && bytes[HEADER + (i - 1) * ROW..HEADER + (i - 1) * ROW + 32] > row[..32] {
            return Err(BookFatal::new(
                file,
                format!("index row {} is out of key order", i + 1),
            ));
        }
        let offset = u64_at(row, 32);
        let n = usize::from(u16_at(row, 42));
        let range = usize::try_from(offset)
            .ok()
            .and_then(|o| o.checked_add(moves_start))
            .and_then(|s| Some(s..s.checked_add(n * width)?))
            .filter(|r| r.end <= bytes.len())
            .ok_or_else(|| {
                BookFatal::new(
                    file,
                    format!("moves of index row {} run past the end", i + 1),
                )
            })?;
        let reject = |is_position, reason: String| Rejected {
            file: file.to_path_buf(),
            line: i as u64 + 1,
            is_position,
            reason,
        };
        let mut packed = [0u8; 32];
        packed.copy_from_slice(&row[..32]);
        let position = match decode_psfen(&packed) {
            Ok(p) => p,
            Err(e) => {
                out.rejected.push(reject(true, e.to_string()));
                out.rejected
                    .extend((0..n).map(|_| reject(false, "under a rejected position".into())));
                continue;
            }
        };
        let ply = Some(u32::from(u16_at(row, 40))).filter(|&p| p > 0);
        let mut moves = Vec::with_capacity(n);
        for m in bytes[range].chunks_exact(width) {
            let raw = u16_at(m, 0);
            let Some(mv) = Move::from_yo16(raw) else {
                out.rejected
                    .push(reject(false, format!("move bits {raw:#06x} are no Move16")));
                continue;
            };
            if moves.iter().any(|x: &BookMove| x.mv == mv) {
                out.rejected
                    .push(reject(false, format!("move {mv} repeated")));
                continue;
            }
            moves.push(BookMove {
                mv,
                ponder: None,
                value: Some(i32::from(u16_at(m, 2) as i16)),
                depth: has_depth.then(|| i32::from(u16_at(m, 4))),
                count: None,
            });
        }
        out.book.positions.push(BookPosition {
            position: entry_position(position, ply),
            ply,
            moves,
            line: i as u64 + 1,
        });
    }
    Ok(out)
}

/// Writes `book` as `.ybb` (see the module doc). The entries must hold distinct
/// positions; a repeated position, or one PackedSfen cannot hold, is an error and nothing
/// is written.
pub fn write(book: &Book, out: &mut impl Write) -> io::Result<()> {
    let invalid = |m: String| io::Error::new(io::ErrorKind::InvalidInput, m);
    let mut rows: Vec<([u8; 32], &BookPosition)> = Vec::with_capacity(book.positions.len());
    for p in &book.positions {
        let packed = encode_psfen(&p.position).map_err(|e| invalid(e.to_string()))?;
        rows.push((packed, p));
    }
    rows.sort_by_key(|a| a.0);
    if rows.windows(2).any(|w| w[0].0 == w[1].0) {
        return Err(invalid(
            "a position appears twice: merge plies first".into(),
        ));
    }
    let has_depth = book
        .positions
        .iter()
        .flat_map(|p| &p.moves)
        .any(|m| m.depth.is_some());
    let mut index = Vec::with_capacity(HEADER + rows.len() * ROW);
    index.extend_from_slice(MAGIC);
    index.extend_from_slice(&(rows.len() as u64).to_le_bytes());
    index.extend_from_slice(&u64::from(has_depth).to_le_bytes());
    let mut moves_area = Vec::new();
    for (packed, p) in rows {
        let n = u16::try_from(p.moves.len()).map_err(|_| invalid("over 65535 moves".into()))?;
        index.extend_from_slice(&packed);
        index.extend_from_slice(&(moves_area.len() as u64).to_le_bytes());
        let ply = p.ply.unwrap_or(0).min(u32::from(u16::MAX)) as u16;
        index.extend_from_slice(&ply.to_le_bytes());
        index.extend_from_slice(&n.to_le_bytes());
        let mut moves = p.moves.clone();
        sort_moves(&mut moves);
        for m in &moves {
            moves_area.extend_from_slice(&m.mv.to_yo16().to_le_bytes());
            let v = m
                .value
                .unwrap_or(0)
                .clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
            moves_area.extend_from_slice(&v.to_le_bytes());
            if has_depth {
                let d = m.depth.unwrap_or(0).clamp(0, i32::from(u16::MAX)) as u16;
                moves_area.extend_from_slice(&d.to_le_bytes());
            }
        }
    }
    out.write_all(&index)?;
    out.write_all(&moves_area)
}
