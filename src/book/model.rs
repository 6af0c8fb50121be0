//! The book model every format reads into and writes from: [`Book`], [`BookPosition`],
//! [`BookMove`], what a reader rejects ([`Rejected`]) or refuses ([`BookFatal`]), merging
//! one position's entries ([`Book::merge_plies`]) and YaneuraOu's move order.

use crate::shogi::{Fingerprint, Move, Position};
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// One book move with the fields the formats carry, each as the file had it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    /// The move (never [`Move::NONE`]).
    pub mv: Move,
    /// The expected reply, if the book names one.
    pub ponder: Option<Move>,
    /// Value in centipawns from the mover's side (mate = ±(32000 − plies); −32768 unknown).
    pub value: Option<i32>,
    /// Search depth (9999 / 9998 / 9997 mark cycles in peta-shock books).
    pub depth: Option<i32>,
    /// How often the move was played (Apery's count, ShogiGUI's weight).
    pub count: Option<u64>,
}

impl BookMove {
    /// A move with no other field.
    pub fn bare(mv: Move) -> BookMove {
        BookMove {
            mv,
            ponder: None,
            value: None,
            depth: None,
            count: None,
        }
    }
}

/// One book entry: a validated position, its ply and its moves.
#[derive(Clone, Debug)]
pub struct BookPosition {
    /// The position (validated; move number = `ply`, or 1 when unknown).
    pub position: Position,
    /// The ply the file gives (`None` when missing or 0).
    pub ply: Option<u32>,
    /// The moves in file order; no two with the same [`BookMove::mv`].
    pub moves: Vec<BookMove>,
    /// Where the entry came from: 1-based line (text) or record (binary) number.
    pub line: u64,
}

/// A book: its entries in file order (several may hold one position until
/// [`Book::merge_plies`]).
#[derive(Clone, Debug, Default)]
pub struct Book {
    /// The entries.
    pub positions: Vec<BookPosition>,
}

/// A line or record a reader could not take, with where and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejected {
    /// The file.
    pub file: PathBuf,
    /// 1-based line (text) or record (binary) number.
    pub line: u64,
    /// Whether the line was a position (`false`: a move).
    pub is_position: bool,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for Rejected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = if self.is_position { "position" } else { "move" };
        write!(
            f,
            "{}:{}: {what} rejected: {}",
            self.file.display(),
            self.line,
            self.reason
        )
    }
}

/// A file a book reader refuses as a whole (it is not the format), naming the file.
#[derive(Debug, Error)]
#[error("{}: {reason}", file.display())]
pub struct BookFatal {
    /// The file.
    pub file: PathBuf,
    /// Why the file is refused.
    pub reason: String,
}

impl BookFatal {
    /// A refusal of `file` for `reason`.
    pub fn new(file: &Path, reason: impl Into<String>) -> BookFatal {
        BookFatal {
            file: file.to_path_buf(),
            reason: reason.into(),
        }
    }
}

/// What [`Book::merge_plies`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Merged {
    /// Entries folded into an entry of the same position at a smaller (or equal) ply.
    pub entries: usize,
    /// Distinct positions that had more than one entry.
    pub positions: usize,
    /// Moves of folded entries that the kept entry did not have, now united into it.
    pub moves_added: usize,
}

impl Book {
    /// Number of moves over all entries.
    pub fn move_count(&self) -> usize {
        self.positions.iter().map(|p| p.moves.len()).sum()
    }

    /// Folds every entry whose position another entry also holds into the one at the
    /// smallest ply (an unknown ply counts as larger than any known one; ties: the first in
    /// the file). Moves are united; where both have a move, the kept entry's fields win.
    /// Entry order is otherwise kept.
    pub fn merge_plies(&mut self) -> Merged {
        let mut order: Vec<usize> = (0..self.positions.len()).collect();
        order.sort_by_key(|&i| (self.positions[i].ply.unwrap_or(u32::MAX), i));
        let mut keeper: HashMap<Fingerprint, usize> = HashMap::new();
        let mut target = vec![usize::MAX; self.positions.len()];
        let mut merged = Merged::default();
        let mut several = std::collections::HashSet::new();
        for &i in &order {
            let fp = self.positions[i].position.fingerprint();
            match keeper.get(&fp) {
                None => {
                    keeper.insert(fp, i);
                }
                Some(&k) => {
                    target[i] = k;
                    merged.entries += 1;
                    several.insert(k);
                }
            }
        }
        merged.positions = several.len();
        for &i in &order {
            let k = target[i];
            if k == usize::MAX {
                continue;
            }
            let moves = std::mem::take(&mut self.positions[i].moves);
            let kept = &mut self.positions[k].moves;
            for m in moves {
                if !kept.iter().any(|x| x.mv == m.mv) {
                    kept.push(m);
                    merged.moves_added += 1;
                }
            }
        }
        let mut index = 0;
        self.positions.retain(|_| {
            let keep = target[index] == usize::MAX;
            index += 1;
            keep
        });
        merged
    }

    /// Positions held by more than one entry.
    pub fn positions_under_several_plies(&self) -> usize {
        let mut seen: HashMap<Fingerprint, u32> = HashMap::new();
        for p in &self.positions {
            *seen.entry(p.position.fingerprint()).or_default() += 1;
        }
        seen.values().filter(|&&n| n > 1).count()
    }

    /// Every (entry index, move) whose move is not legal in its entry's position.
    pub fn illegal_moves(&self) -> Vec<(usize, Move)> {
        let mut out = Vec::new();
        for (i, p) in self.positions.iter().enumerate() {
            for m in &p.moves {
                if !p.position.is_legal(m.mv) {
                    out.push((i, m.mv));
                }
            }
        }
        out
    }
}

/// Moves in the order YaneuraOu writes them: count, then value, both descending; a
/// missing field ranks below any present one; ties keep their order (stable).
pub fn sort_moves(moves: &mut [BookMove]) {
    moves.sort_by_key(|m| std::cmp::Reverse((m.count, m.value)));
}

/// The SFEN of `pos` without its move number (`<board> <side> <hands>`), the key books
/// sort and look up by.
pub fn canonical_sfen(pos: &Position) -> String {
    let mut s = pos.to_sfen();
    if let Some(cut) = s.rfind(' ') {
        s.truncate(cut);
    }
    s
}

/// `pos` with move number `ply` (1 when unknown) and no history: how entries hold it.
pub(crate) fn entry_position(mut pos: Position, ply: Option<u32>) -> Position {
    pos.clear_history();
    pos.set_ply(ply.unwrap_or(1));
    pos
}
