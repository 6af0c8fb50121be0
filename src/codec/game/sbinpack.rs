//! rshogi / rsshogi sbinpack (version 2): chunks of chains, a chain being one game from a
//! stem position, its moves stored as indices into an ordered legal-move list.
//!
//! # Layout (little-endian; as rsshogi 1.7 writes and reads it)
//! ```text
//! chunk   "SBN2" | payload length u32 | chains filling the payload exactly
//! chain   PackedSfen[32] stem | score i16 | best move u16 (YaneuraOu Move16)
//!         | result << 10 | ply (6 + 10 bits) u16 | metadata length u8 (<= 127)
//!         | metadata | move count u16
//!         | per move: ULEB128 move index | ULEB128 zigzag eval delta
//! ```
//! A move index counts in the order of `order.rs`. Evals are normalised to the stem's side
//! (negated at odd move indices) and stored as the difference from the previous one, the
//! first from the stem score. Result codes (rsshogi `GameResult`): 0 Black won, 1 White won,
//! 2 repetition draw, 3 error, 4 / 5 Black / White won by declaration, 6 draw by max plies,
//! 7 invalid, 8 / 9 by forfeit, 10 impasse draw, 11 paused, 12 / 13 by illegal move,
//! 14 adjudicated draw, 16 / 17 by timeout, 20 / 21 by try rule. A chain can start at any
//! position, so a game can be cut into chains; it cannot skip a position inside a chain.

use super::model::{
    fault, unplayable, Fault, Frame, Game, GameErrorKind, GameMeta, GameMove, Replay,
};
use super::order;
use crate::codec::psfen::{decode_psfen, encode_psfen};
use crate::codec::CodecError;
use crate::shogi::Position;

/// The chunk magic.
pub const MAGIC: [u8; 4] = *b"SBN2";
/// Bytes of a chunk header.
pub const CHUNK_HEADER: usize = 8;
/// Bytes of a chain header before its metadata.
const STEM: usize = 39;
/// The longest metadata.
pub const MAX_METADATA: usize = 127;
/// The largest eval magnitude read: `2^30 - 1`. A chain cut from a game starts its eval
/// deltas from the stem score again and may flip which evals are negated, so two evals of a
/// game must differ, and each be negated, within i32: only then can every chain cut from a
/// chain read be written (engines' evals are within ±32,000 or so).
pub const MAX_EVAL: i32 = (1 << 30) - 1;

/// Appends a chunk holding `chains` (whole chains from [`super::encode_game`]).
pub fn write_chunk(chains: &[u8], out: &mut Vec<u8>) -> Result<(), CodecError> {
    let len = u32::try_from(chains.len())
        .map_err(|_| CodecError::Unrepresentable("an sbinpack chunk holds < 4 GiB".into()))?;
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(chains);
    Ok(())
}

/// Reads a ULEB128 u32 at `*at`; `None` if the bytes end first or it overflows 32 bits.
fn varint(bytes: &[u8], at: &mut usize) -> Option<u32> {
    let mut value = 0u32;
    for shift in (0..35).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        value |= ((b & 0x7f) as u32).checked_shl(shift)?;
        if b < 0x80 {
            return Some(value);
        }
    }
    None
}

fn put_varint(mut v: u32, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Frames the next chain or chunk header (see [`super::Framer`]); returns the frame and the
/// bytes left in the current chunk after it.
pub(crate) fn frame(buf: &[u8], eof: bool, chunk_left: u64) -> (Frame, u64) {
    if chunk_left == 0 {
        if buf.len() < CHUNK_HEADER {
            let why = "the file ends inside an sbinpack chunk header".to_string();
            return (
                if eof {
                    Frame::Corrupt(why)
                } else {
                    Frame::NeedMore
                },
                0,
            );
        }
        if buf[..4] != MAGIC {
            let why = "no SBN2 chunk header here: the chunk framing is lost".to_string();
            return (Frame::Corrupt(why), 0);
        }
        let size = u32::from_le_bytes([buf[4], buf[5], buf[6], buf[7]]);
        return (Frame::Skip(CHUNK_HEADER), size as u64);
    }
    let avail = (buf.len() as u64).min(chunk_left) as usize;
    let partial = || {
        if eof || buf.len() as u64 >= chunk_left {
            (Frame::Game(avail), chunk_left - avail as u64)
        } else {
            (Frame::NeedMore, chunk_left)
        }
    };
    let chain = &buf[..avail];
    let Some(&meta) = chain.get(STEM - 1) else {
        return partial();
    };
    let mut at = STEM + meta as usize;
    let Some(count) = chain.get(at..at + 2) else {
        return partial();
    };
    let count = u16::from_le_bytes([count[0], count[1]]);
    at += 2;
    for _ in 0..2 * count as u32 {
        loop {
            let Some(&b) = chain.get(at) else {
                return partial();
            };
            at += 1;
            if b < 0x80 {
                break;
            }
        }
    }
    (Frame::Game(at), chunk_left - at as u64)
}

/// The moves whose index and eval delta are both in `bytes`, and whether the whole chain is.
pub(crate) fn count(bytes: &[u8]) -> (u32, bool) {
    let Some(&meta) = bytes.get(STEM - 1) else {
        return (0, false);
    };
    let mut at = STEM + meta as usize;
    let Some(count) = bytes.get(at..at + 2) else {
        return (0, false);
    };
    at += 2;
    for done in 0..u16::from_le_bytes([count[0], count[1]]) as u32 {
        for _ in 0..2 {
            loop {
                let Some(&b) = bytes.get(at) else {
                    return (done, false);
                };
                at += 1;
                if b < 0x80 {
                    break;
                }
            }
        }
    }
    (u16::from_le_bytes([count[0], count[1]]) as u32, true)
}

/// Decodes one framed chain into `game`.
pub(crate) fn decode(
    bytes: &[u8],
    game: &mut Game,
    on_position: &mut dyn FnMut(usize, &Position, &GameMove),
) -> Result<(), Fault> {
    let cut = |at| {
        fault(
            at,
            GameErrorKind::Truncated("the chain runs past the end of its chunk"),
        )
    };
    let head = bytes.get(..STEM).ok_or_else(|| cut(0))?;
    let meta_len = head[STEM - 1] as usize;
    if meta_len > MAX_METADATA {
        // Before anything else: the game keeps no metadata, so it can still be written.
        if let GameMeta::Sbinpack { metadata, .. } = &mut game.meta {
            metadata.clear();
        }
        return Err(fault(STEM - 1, GameErrorKind::Metadata(meta_len)));
    }
    let metadata = bytes.get(STEM..STEM + meta_len).ok_or_else(|| cut(STEM))?;
    let count = bytes
        .get(STEM + meta_len..STEM + meta_len + 2)
        .ok_or_else(|| cut(STEM + meta_len))?;
    game.declared = u16::from_le_bytes([count[0], count[1]]) as u32;
    let le = |i: usize| u16::from_le_bytes([head[i], head[i + 1]]);
    let (score, ply_result) = (le(32) as i16, le(36));
    let mut kept = match &mut game.meta {
        GameMeta::Sbinpack { metadata, .. } => std::mem::take(metadata),
        _ => Vec::new(),
    };
    kept.clear();
    kept.extend_from_slice(metadata);
    game.meta = GameMeta::Sbinpack {
        score,
        best_move: le(34),
        ply_result,
        metadata: kept,
    };
    let psfen: &[u8; 32] = head[..32].try_into().map_err(|_| cut(0))?;
    game.start = decode_psfen(psfen).map_err(|e| fault(0, GameErrorKind::Start(e)))?;
    game.start.set_ply((ply_result & 0x3ff) as u32);
    replay_moves(bytes, STEM + meta_len + 2, score, game, on_position)
}

/// Replays the `game.declared` moves of a chain starting at byte `at`.
fn replay_moves(
    bytes: &[u8],
    mut at: usize,
    score: i16,
    game: &mut Game,
    on_position: &mut dyn FnMut(usize, &Position, &GameMove),
) -> Result<(), Fault> {
    let mut replay = Replay::new(&game.start);
    let mut order = order::Order::new();
    let mut prev = score as i32;
    for i in 0..game.declared as usize {
        let here = at;
        let cut = || {
            fault(
                here,
                GameErrorKind::Truncated("the chain runs past the end of its chunk"),
            )
        };
        let index = varint(bytes, &mut at).ok_or_else(cut)?;
        let delta = varint(bytes, &mut at).ok_or_else(cut)?;
        let (mv, legal) = order.move_at(&replay.pos, index);
        let mv = mv.ok_or_else(|| fault(here, GameErrorKind::MoveIndex { index, legal }))?;
        let delta = (delta >> 1) as i32 ^ -((delta & 1) as i32);
        let norm = prev
            .checked_add(delta)
            .ok_or_else(|| fault(here, GameErrorKind::Eval))?;
        let eval = if i % 2 == 1 {
            norm.checked_neg()
        } else {
            Some(norm)
        };
        let eval = eval
            .filter(|e| e.unsigned_abs() <= MAX_EVAL as u32)
            .ok_or_else(|| fault(here, GameErrorKind::Eval))?;
        let gm = GameMove {
            mv,
            eval,
            visit_start: 0,
            candidates: 0,
        };
        on_position(i, &replay.pos, &gm);
        game.moves.push(gm);
        replay.play(mv);
        prev = norm;
    }
    Ok(())
}

/// Appends the chain of `moves` played from `start` with `game`'s stem score, result and
/// metadata (`whole`: `moves` are all of `game`'s, so its stored best move and ply are kept).
pub(crate) fn encode(
    game: &Game,
    start: &Position,
    moves: &[GameMove],
    whole: bool,
    out: &mut Vec<u8>,
) -> Result<(), CodecError> {
    let GameMeta::Sbinpack {
        score,
        best_move,
        ply_result,
        metadata,
    } = &game.meta
    else {
        return Err(CodecError::Unrepresentable("not an sbinpack game".into()));
    };
    let unrepresentable = |what: &str| CodecError::Unrepresentable(what.to_string());
    let count =
        u16::try_from(moves.len()).map_err(|_| unrepresentable("a chain has < 65,536 moves"))?;
    if metadata.len() > MAX_METADATA {
        return Err(unrepresentable("sbinpack metadata is at most 127 bytes"));
    }
    let (best, ply_result) = if whole {
        (*best_move, *ply_result)
    } else {
        let best = moves.first().map_or(0, |m| m.mv.to_yo16());
        (best, ply_result & !0x3ff | start.ply().min(0x3ff) as u16)
    };
    out.extend_from_slice(&encode_psfen(start)?);
    out.extend_from_slice(&score.to_le_bytes());
    out.extend_from_slice(&best.to_le_bytes());
    out.extend_from_slice(&ply_result.to_le_bytes());
    out.push(metadata.len() as u8);
    out.extend_from_slice(metadata);
    out.extend_from_slice(&count.to_le_bytes());
    let mut replay = Replay::new(start);
    let mut order = order::Order::new();
    let mut prev = *score as i32;
    for (i, m) in moves.iter().enumerate() {
        let mv = replay.check(Some(m.mv), m.mv.raw()).map_err(unplayable)?;
        let index = order
            .index_of(&replay.pos, mv)
            .ok_or_else(|| unrepresentable("illegal move"))?;
        let norm = if i % 2 == 1 {
            m.eval.checked_neg()
        } else {
            Some(m.eval)
        };
        let norm = norm.ok_or_else(|| unrepresentable("eval i32::MIN cannot be negated"))?;
        let delta = norm
            .checked_sub(prev)
            .ok_or_else(|| unrepresentable("eval delta overflows i32"))?;
        put_varint(index, out);
        put_varint(((delta << 1) ^ (delta >> 31)) as u32, out);
        replay.play(mv);
        prev = norm;
    }
    Ok(())
}
