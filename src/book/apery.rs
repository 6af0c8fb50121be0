//! Apery's `book.bin` (also dlshogi's and cshogi's book format).
//!
//! 16-byte little-endian records `u64 key, u16 move, u16 count, i32 score`, sorted by key,
//! the records of one key contiguous. The key is [`apery_key::key`]; the move is Apery's
//! 16-bit move, which is exactly [`Move::raw`]. Positions are not in the file: the reader
//! walks legal book moves breadth-first from root positions (the start position by
//! default) and recovers each position whose key has records. What no walk reaches is
//! counted `unreachable`; a record whose move is legal in no walked position of its key is
//! a key collision (or a broken record), reported and not guessed at.
//!
//! Fields: `score` becomes [`BookMove::value`], `count` [`BookMove::count`]; no ponder, no
//! depth. The writer writes a missing value as 0 and a missing count as 1 (a count above
//! 65535 is written 65535), records sorted by key, each key's moves in
//! [`super::sort_moves`] order.

use super::{apery_key, entry_position, sort_moves, Book, BookFatal, BookMove, BookPosition};
use crate::shogi::{Fingerprint, Move, Position};
use std::collections::{HashMap, HashSet, VecDeque};
use std::io::{self, Write};
use std::path::Path;

/// Bytes per record.
pub const RECORD_SIZE: usize = 16;

/// One record, as stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    /// Apery key of the position.
    pub key: u64,
    /// Apery 16-bit move.
    pub mv: u16,
    /// Times played.
    pub count: u16,
    /// Score from the mover's side.
    pub score: i32,
}

/// An Apery book as recovered by the walk.
#[derive(Debug, Default)]
pub struct AperyRead {
    /// The positions reached whose key has records, breadth-first order.
    pub book: Book,
    /// Records in the file.
    pub records: u64,
    /// Whether the keys never decrease.
    pub sorted: bool,
    /// Records of keys no walk reached.
    pub unreachable: u64,
    /// Records whose key was reached but whose move is legal in no walked position of it
    /// (record number, key, move bits).
    pub collisions: Vec<(u64, u64, u16)>,
    /// Keys reached from two different positions.
    pub shared_keys: u64,
}

/// Parses the records of `bytes`; a size that is not a multiple of 16 refuses the file.
pub fn records(file: &Path, bytes: &[u8]) -> Result<Vec<Record>, BookFatal> {
    if bytes.len() % RECORD_SIZE != 0 {
        return Err(BookFatal::new(
            file,
            format!(
                "{} bytes is not a whole number of 16-byte Apery book records",
                bytes.len()
            ),
        ));
    }
    Ok(bytes
        .chunks_exact(RECORD_SIZE)
        .map(|r| {
            let word = |a: usize, b: usize| {
                r[a..b]
                    .iter()
                    .rev()
                    .fold(0u64, |v, &x| v << 8 | u64::from(x))
            };
            Record {
                key: word(0, 8),
                mv: word(8, 10) as u16,
                count: word(10, 12) as u16,
                score: word(12, 16) as u32 as i32,
            }
        })
        .collect())
}

/// Reads an Apery book by walking legal book moves from `roots` (see the module doc).
pub fn read(file: &Path, bytes: &[u8], roots: &[Position]) -> Result<AperyRead, BookFatal> {
    let recs = records(file, bytes)?;
    let mut by_key: HashMap<u64, Vec<usize>> = HashMap::new();
    for (i, r) in recs.iter().enumerate() {
        by_key.entry(r.key).or_default().push(i);
    }
    let mut out = AperyRead {
        records: recs.len() as u64,
        sorted: recs.windows(2).all(|w| w[0].key <= w[1].key),
        ..AperyRead::default()
    };
    let mut legal_somewhere = vec![false; recs.len()];
    let mut key_owner: HashMap<u64, Fingerprint> = HashMap::new();
    let mut seen: HashSet<Fingerprint> = HashSet::new();
    let mut queue: VecDeque<Position> = VecDeque::new();
    for root in roots {
        if seen.insert(root.fingerprint()) {
            queue.push_back(entry_position(root.clone(), Some(root.ply())));
        }
    }
    while let Some(pos) = queue.pop_front() {
        let key = apery_key::key(&pos);
        let Some(indices) = by_key.get(&key) else {
            continue;
        };
        if *key_owner.entry(key).or_insert(pos.fingerprint()) != pos.fingerprint() {
            out.shared_keys += 1;
        }
        let mut moves = Vec::new();
        for &i in indices {
            let r = recs[i];
            let Some(mv) = Move::from_apery16(r.mv).filter(|&m| pos.is_legal(m)) else {
                continue;
            };
            legal_somewhere[i] = true;
            if moves.iter().any(|m: &BookMove| m.mv == mv) {
                continue;
            }
            moves.push(BookMove {
                mv,
                ponder: None,
                value: Some(r.score),
                depth: None,
                count: Some(u64::from(r.count)),
            });
            let mut child = pos.clone();
            child.do_move(mv);
            if seen.insert(child.fingerprint()) {
                let ply = child.ply();
                queue.push_back(entry_position(child, Some(ply)));
            }
        }
        let line = indices[0] as u64 + 1;
        let ply = Some(pos.ply());
        out.book.positions.push(BookPosition {
            position: pos,
            ply,
            moves,
            line,
        });
    }
    for (i, r) in recs.iter().enumerate() {
        if !key_owner.contains_key(&r.key) {
            out.unreachable += 1;
        } else if !legal_somewhere[i] {
            out.collisions.push((i as u64 + 1, r.key, r.mv));
        }
    }
    Ok(out)
}

/// Writes `book` as Apery records (see the module doc for the field mapping).
pub fn write(book: &Book, out: &mut impl Write) -> io::Result<()> {
    let mut recs: Vec<Record> = Vec::with_capacity(book.move_count());
    for entry in &book.positions {
        let key = apery_key::key(&entry.position);
        let mut moves = entry.moves.clone();
        sort_moves(&mut moves);
        recs.extend(moves.iter().map(|m| Record {
            key,
            mv: m.mv.raw(),
            count: m.count.unwrap_or(1).min(u64::from(u16::MAX)) as u16,
            score: m.value.unwrap_or(0),
        }));
    }
    recs.sort_by_key(|r| r.key);
    let mut bytes = Vec::with_capacity(recs.len() * RECORD_SIZE);
    for r in &recs {
        bytes.extend_from_slice(&r.key.to_le_bytes());
        bytes.extend_from_slice(&r.mv.to_le_bytes());
        bytes.extend_from_slice(&r.count.to_le_bytes());
        bytes.extend_from_slice(&r.score.to_le_bytes());
    }
    out.write_all(&bytes)
}
