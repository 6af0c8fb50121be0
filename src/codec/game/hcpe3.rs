//! dlshogi hcpe3: one variable-length record per game.
//!
//! # Layout (little-endian; dlshogi `cppshogi/cppshogi.h`, see tests/data/README.md)
//! ```text
//! HuffmanCodedPosAndEval3 (36 B)  hcp[32] start position | moveNum u16 | result u8 | opponent u8
//! then moveNum times:
//!   MoveInfo (6 B)                selectedMove16 u16 | eval i16 | candidateNum u16
//!   candidateNum × MoveVisits (4 B)  move16 u16 | visitNum u16
//! ```
//! `result`: bits 0-1 the winner (0 draw, 1 Black, 2 White), 0x4 repetition (千日手), 0x8
//! declaration (入玉宣言), 0x10 maximum moves. Moves are Apery move16 (our [`Move`] bits).
//!
//! # Invisible positions
//! dlshogi's loader (`__load_hcpe3` in `cppshogi/python_module.cpp`) skips a position whose
//! `candidateNum` is 0 ("candidateNum==0の手は読み飛ばす"): it reads no MoveVisits, makes no
//! training record, and still plays the selected move. The writer uses exactly that to drop
//! a position and keep the game whole.

use super::model::{
    fault, Fault, Frame, Game, GameErrorKind, GameMeta, GameMove, Replay, Visit, MAX_GAME_BYTES,
};
use crate::codec::hcp::{decode_hcp, encode_hcp};
use crate::codec::CodecError;
use crate::shogi::{Move, Position};

/// Bytes of the game header.
pub const HEADER_SIZE: usize = 36;
/// Bytes of a MoveInfo.
pub const MOVE_INFO_SIZE: usize = 6;
/// Bytes of a MoveVisits.
pub const VISIT_SIZE: usize = 4;
/// The largest candidate count accepted: a shogi position has at most 593 legal moves.
pub const MAX_CANDIDATES: u16 = 593;

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

/// Frames the next game of an hcpe3 file (see [`super::Framer`]).
pub(crate) fn frame(buf: &[u8], eof: bool) -> Frame {
    let partial = || {
        if eof {
            Frame::Game(buf.len())
        } else {
            Frame::NeedMore
        }
    };
    if buf.len() < HEADER_SIZE {
        return partial();
    }
    let moves = u16_at(buf, 32);
    let mut at = HEADER_SIZE;
    for _ in 0..moves {
        if at + MOVE_INFO_SIZE > buf.len() {
            return partial();
        }
        let candidates = u16_at(buf, at + 4);
        if candidates > MAX_CANDIDATES {
            return Frame::Corrupt(format!(
                "hcpe3 candidate count {candidates} at byte {} is more than any position's \
                 {MAX_CANDIDATES} legal moves: the game framing is lost",
                at + 4
            ));
        }
        at += MOVE_INFO_SIZE + VISIT_SIZE * candidates as usize;
        if at > MAX_GAME_BYTES {
            return Frame::Corrupt(format!("an hcpe3 game longer than {MAX_GAME_BYTES} bytes"));
        }
    }
    if at > buf.len() {
        return partial();
    }
    Frame::Game(at)
}

/// The visible positions (candidates > 0) whose MoveInfo and candidates are all in `bytes`,
/// and whether the whole game is.
pub(crate) fn count(bytes: &[u8]) -> (u32, bool) {
    if bytes.len() < HEADER_SIZE {
        return (0, false);
    }
    let (mut visible, mut at) = (0, HEADER_SIZE);
    for _ in 0..u16_at(bytes, 32) {
        if at + MOVE_INFO_SIZE > bytes.len() {
            return (visible, false);
        }
        let candidates = u16_at(bytes, at + 4);
        at += MOVE_INFO_SIZE + VISIT_SIZE * candidates as usize;
        if at > bytes.len() {
            return (visible, false);
        }
        visible += (candidates > 0) as u32;
    }
    (visible, true)
}

/// Decodes one framed hcpe3 game into `game` (format fields, moves, visits).
pub(crate) fn decode(
    bytes: &[u8],
    game: &mut Game,
    on_position: &mut dyn FnMut(usize, &Position, &GameMove),
) -> Result<(), Fault> {
    let Some(head) = bytes.get(..HEADER_SIZE) else {
        return Err(fault(
            0,
            GameErrorKind::Truncated("the file ends inside the game header"),
        ));
    };
    game.declared = u16_at(head, 32) as u32;
    game.meta = GameMeta::Hcpe3 {
        result: head[34],
        opponent: head[35],
    };
    let hcp: &[u8; 32] = head[..32].try_into().map_err(|_| fault(0, truncated()))?;
    game.start = decode_hcp(hcp).map_err(|e| fault(0, GameErrorKind::Start(e)))?;
    let mut replay = Replay::new(&game.start);
    let mut at = HEADER_SIZE;
    for i in 0..game.declared as usize {
        let Some(info) = bytes.get(at..at + MOVE_INFO_SIZE) else {
            return Err(fault(
                at,
                GameErrorKind::Truncated("the move count runs past the end"),
            ));
        };
        let raw = u16_at(info, 0);
        let eval = i16::from_le_bytes([info[2], info[3]]) as i32;
        let candidates = u16_at(info, 4);
        let list = at + MOVE_INFO_SIZE;
        let end = list + VISIT_SIZE * candidates as usize;
        let Some(visits) = bytes.get(list..end) else {
            return Err(fault(
                at + 4,
                GameErrorKind::Truncated("the candidate count runs past the end"),
            ));
        };
        let mv = replay
            .check(Move::from_apery16(raw), raw)
            .map_err(|k| fault(at, k))?;
        let visit_start = game.visits.len() as u32;
        game.visits
            .extend(visits.chunks_exact(VISIT_SIZE).map(|v| Visit {
                move16: u16_at(v, 0),
                visits: u16_at(v, 2),
            }));
        let gm = GameMove {
            mv,
            eval,
            visit_start,
            candidates,
        };
        on_position(i, &replay.pos, &gm);
        game.moves.push(gm);
        replay.play(mv);
        at = end;
    }
    Ok(())
}

fn truncated() -> GameErrorKind {
    GameErrorKind::Truncated("the game header")
}

/// Appends `game` as hcpe3 with every move `i` for which `keep(i)` is false made invisible
/// (candidate count 0, its visits left out). Returns the number of visible positions.
pub(crate) fn encode(
    game: &Game,
    keep: &dyn Fn(usize) -> bool,
    out: &mut Vec<u8>,
) -> Result<usize, CodecError> {
    let (result, opponent) = match game.meta {
        GameMeta::Hcpe3 { result, opponent } => (result, opponent),
        _ => (game.winner_code(), 0),
    };
    let count = u16::try_from(game.moves.len()).map_err(|_| {
        CodecError::Unrepresentable("an hcpe3 game has at most 65,535 moves".into())
    })?;
    out.extend_from_slice(&encode_hcp(&game.start)?);
    out.extend_from_slice(&count.to_le_bytes());
    out.push(result);
    out.push(opponent);
    let mut visible = 0;
    for (i, m) in game.moves.iter().enumerate() {
        let shown = if keep(i) { game.candidates(i) } else { &[] };
        let eval = m.eval.clamp(i16::MIN as i32, i16::MAX as i32) as i16;
        out.extend_from_slice(&m.mv.raw().to_le_bytes());
        out.extend_from_slice(&eval.to_le_bytes());
        out.extend_from_slice(&(shown.len() as u16).to_le_bytes());
        for v in shown {
            out.extend_from_slice(&v.move16.to_le_bytes());
            out.extend_from_slice(&v.visits.to_le_bytes());
        }
        visible += !shown.is_empty() as usize;
    }
    Ok(visible)
}
