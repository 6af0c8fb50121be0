//! ShogiGUI's book (`.sbk`, read only): a protobuf `SBook` whose field 3 repeats
//! `SBookState` messages.
//!
//! A state has an id (1), optionally a position SFEN (7) and repeated moves (9), each with
//! a move word (1), an evaluation (2), a weight (3) and the id of the state it leads to (4).
//! A state with an SFEN is a root (so is state 0 without one: the start position); the
//! others are reached by following a legal move to its next state, breadth-first in file
//! order. The move word packs from-rank (bits 0–3), from-file (4–7), to-rank (8–11),
//! to-file (12–15), promotion (bit 19) and the moving kind (bits 24–28, for a drop 1 P,
//! 2 L, 3 N, 4 S, 5 G, 6 B, 7 R); a drop has from = 0.
//!
//! Fields: evaluation becomes [`BookMove::value`], a non-negative weight [`BookMove::count`].
//! A state no walk reaches is counted `unreachable`; a state or move that cannot be decoded is
//! a [`Rejected`] (record = state number, 1-based).

use super::protobuf::{Fields, Value};
use super::{entry_position, Book, BookFatal, BookMove, BookPosition, Rejected};
use crate::codec::text::parse_sfen_line;
use crate::shogi::{Move, PieceType, Position, Square};
use std::collections::{HashMap, VecDeque};
use std::path::Path;

/// A `.sbk` book as read.
#[derive(Debug, Default)]
pub struct SbkRead {
    /// The states reached, breadth-first from each root in file order.
    pub book: Book,
    /// States and moves that could not be taken.
    pub rejected: Vec<Rejected>,
    /// States no walk reaches.
    pub unreachable: u64,
}

/// One decoded move of a state.
struct RawMove {
    word: i32,
    evaluation: Option<i32>,
    weight: Option<i32>,
    next: Option<i32>,
}

/// One decoded state.
#[derive(Default)]
struct RawState {
    id: Option<i32>,
    sfen: Option<String>,
    moves: Vec<RawMove>,
}

fn parse_state(bytes: &[u8]) -> Result<RawState, String> {
    let mut state = RawState::default();
    for field in Fields::new(bytes) {
        match field? {
            (1, Value::Varint(v)) => state.id = Some(v as i32),
            (7, Value::Bytes(b)) => {
                let s = std::str::from_utf8(b).map_err(|_| "position is not UTF-8")?;
                state.sfen = Some(s.to_string());
            }
            (9, Value::Bytes(b)) => state.moves.push(parse_move(b)?),
            _ => {}
        }
    }
    Ok(state)
}

fn parse_move(bytes: &[u8]) -> Result<RawMove, String> {
    let mut m = RawMove {
        word: 0,
        evaluation: None,
        weight: None,
        next: None,
    };
    for field in Fields::new(bytes) {
        match field? {
            (1, Value::Varint(v)) => m.word = v as i32,
            (2, Value::Varint(v)) => m.evaluation = Some(v as i32),
            (3, Value::Varint(v)) => m.weight = Some(v as i32),
            (4, Value::Varint(v)) => m.next = Some(v as i32),
            _ => {}
        }
    }
    Ok(m)
}

/// The move a ShogiGUI move word describes (shape only).
pub fn move_from_word(word: i32) -> Option<Move> {
    let w = word as u32;
    let nibble = |shift: u32| (w >> shift) & 0xf;
    let (from_rank, from_file, to_rank, to_file) = (nibble(0), nibble(4), nibble(8), nibble(12));
    let square = |file: u32, rank: u32| {
        ((1..=9).contains(&file) && (1..=9).contains(&rank))
            .then(|| Square::from_file_rank(file as u8 - 1, rank as u8 - 1))
    };
    let to = square(to_file, to_rank)?;
    if from_file == 0 && from_rank == 0 {
        let kind = match (w >> 24) & 0xf {
            1 => PieceType::Pawn,
            2 => PieceType::Lance,
            3 => PieceType::Knight,
            4 => PieceType::Silver,
            5 => PieceType::Gold,
            6 => PieceType::Bishop,
            7 => PieceType::Rook,
            _ => return None,
        };
        return Some(Move::drop(kind, to));
    }
    let from = square(from_file, from_rank)?;
    (from != to).then(|| Move::new(from, to, w & (1 << 19) != 0))
}

/// Reads a `.sbk` book from `bytes` (the contents of `file`).
pub fn read(file: &Path, bytes: &[u8]) -> Result<SbkRead, BookFatal> {
    let mut out = SbkRead::default();
    let mut states: Vec<Option<RawState>> = Vec::new();
    for field in Fields::new(bytes) {
        let field = field.map_err(|e| BookFatal::new(file, format!("not a ShogiGUI book: {e}")))?;
        if let (3, Value::Bytes(b)) = field {
            let number = states.len() as u64 + 1;
            match parse_state(b) {
                Ok(s) => states.push(Some(s)),
                Err(reason) => {
                    out.rejected.push(rejected(file, number, true, reason));
                    states.push(None);
                }
            }
        }
    }
    let mut by_id: HashMap<i32, usize> = HashMap::new();
    for (i, s) in states.iter().enumerate() {
        if let Some(s) = s {
            by_id.entry(s.id.unwrap_or(i as i32)).or_insert(i);
        }
    }
    let mut reached = vec![false; states.len()];
    for root in 0..states.len() {
        let Some(state) = &states[root] else { continue };
        if reached[root] || (state.sfen.is_none() && root != 0) {
            continue;
        }
        reached[root] = true;
        walk(file, &states, &by_id, root, &mut reached, &mut out);
    }
    let live = states.iter().filter(|s| s.is_some()).count();
    out.unreachable = (live - reached.iter().filter(|&&r| r).count()) as u64;
    Ok(out)
}

fn rejected(file: &Path, line: u64, is_position: bool, reason: String) -> Rejected {
    Rejected {
        file: file.to_path_buf(),
        line,
        is_position,
        reason,
    }
}

/// Breadth-first from state `root`, marking states reached and appending their entries.
fn walk(
    file: &Path,
    states: &[Option<RawState>],
    by_id: &HashMap<i32, usize>,
    root: usize,
    reached: &mut [bool],
    out: &mut SbkRead,
) {
    let mut queue: VecDeque<(usize, Option<Position>)> = VecDeque::from([(root, None)]);
    while let Some((index, derived)) = queue.pop_front() {
        let Some(state) = &states[index] else {
            continue;
        };
        let number = index as u64 + 1;
        let own = state.sfen.as_deref().map(|s| parse_sfen_line(s.trim()));
        let position = match (own, derived) {
            (Some(Ok(p)), _) => p,
            (Some(Err(e)), _) => {
                out.rejected
                    .push(rejected(file, number, true, e.to_string()));
                continue;
            }
            (None, Some(p)) => p,
            (None, None) => Position::startpos(),
        };
        let ply = Some(position.ply());
        let mut moves = Vec::new();
        for m in &state.moves {
            let Some(mv) = move_from_word(m.word) else {
                let reason = format!("move word {:#010x} is no move", m.word);
                out.rejected.push(rejected(file, number, false, reason));
                continue;
            };
            if moves.iter().any(|x: &BookMove| x.mv == mv) {
                continue;
            }
            moves.push(BookMove {
                mv,
                ponder: None,
                value: m.evaluation,
                depth: None,
                count: m.weight.and_then(|w| u64::try_from(w).ok()),
            });
            let next = m.next.and_then(|id| by_id.get(&id).copied());
            if let Some(next) = next.filter(|&n| !reached[n] && position.is_legal(mv)) {
                reached[next] = true;
                let mut child = position.clone();
                child.do_move(mv);
                let child_ply = Some(child.ply());
                queue.push_back((next, Some(entry_position(child, child_ply))));
            }
        }
        out.book.positions.push(BookPosition {
            position: entry_position(position, ply),
            ply,
            moves,
            line: number,
        });
    }
}
