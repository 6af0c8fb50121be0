//! YaneuraOu / rshogi `.pack` game records.
//!
//! # Layout (little-endian; as rsshogi 1.7 writes and reads it)
//! ```text
//! start   u8 tag: 1 = the initial position (nothing follows),
//!                 0 = HuffmanCodedPos[32] + game ply u16
//! plies   (move u16 Apery move16 | eval i16, side to move's view)*
//! end     terminal marker u16 = result | result << 7 (0x0000 draw, 0x0081 Black won,
//!         0x0102 White won) | end reason u8 (0 resign, 1 repetition draw, 2 max moves,
//!         3 interrupt, 4 time up, 5 illegal move, 6 perpetual check, 10 win CSA24,
//!         11 draw CSA24, 12 win CSA27, 13 try rule)
//! ```
//! The three markers are no move (0 is no move; the others go from a square to itself), so
//! a game ends at the first of them. A game cannot mark one of its positions as skipped.

use super::model::{
    fault, Fault, Frame, Game, GameErrorKind, GameMeta, GameMove, Replay, MAX_GAME_BYTES,
};
use crate::codec::hcp::{decode_hcp, encode_hcp};
use crate::codec::CodecError;
use crate::shogi::{Move, Position, STARTPOS};

/// Bytes of an HCP start (tag, HuffmanCodedPos, ply).
const HCP_START: usize = 1 + 32 + 2;

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

/// The result a terminal marker stands for, if `word` is one.
fn marker_result(word: u16) -> Option<u8> {
    (0..3u16).find(|&r| r | r << 7 == word).map(|r| r as u8)
}

/// Where the plies of a game start, from its tag; `None` for a tag that is neither 0 nor 1.
fn plies_start(tag: u8) -> Option<usize> {
    match tag {
        1 => Some(1),
        0 => Some(HCP_START),
        _ => None,
    }
}

/// Frames the next game of a .pack file (see [`super::Framer`]).
pub(crate) fn frame(buf: &[u8], eof: bool) -> Frame {
    let partial = || {
        if eof {
            Frame::Game(buf.len())
        } else {
            Frame::NeedMore
        }
    };
    let Some(mut at) = plies_start(buf[0]) else {
        return Frame::Corrupt(format!(
            "pack start tag {} (expected 0 or 1): the game framing is lost",
            buf[0]
        ));
    };
    loop {
        if at + 2 > buf.len() {
            return partial();
        }
        if marker_result(u16_at(buf, at)).is_some() {
            return if at + 3 <= buf.len() {
                Frame::Game(at + 3)
            } else {
                partial()
            };
        }
        at += 4;
        if at > MAX_GAME_BYTES {
            return Frame::Corrupt(format!("a pack game longer than {MAX_GAME_BYTES} bytes"));
        }
    }
}

/// The plies before the terminal marker and the marker's offset (`None`: no marker).
fn scan(bytes: &[u8], first: usize) -> (u32, Option<usize>) {
    let mut at = first;
    let mut plies = 0;
    while at + 2 <= bytes.len() {
        if marker_result(u16_at(bytes, at)).is_some() {
            return (plies, Some(at));
        }
        plies += 1;
        at += 4;
    }
    (plies, None)
}

/// The plies whose 4 bytes are all in `bytes`, and whether the game's terminal (marker and
/// end reason) is there too.
pub(crate) fn count(bytes: &[u8]) -> (u32, bool) {
    let Some(first) = bytes.first().and_then(|&tag| plies_start(tag)) else {
        return (0, false);
    };
    let (plies, marker) = scan(bytes, first);
    match marker {
        Some(m) if m + 3 <= bytes.len() => (plies, true),
        // The scan counts a ply of which only 2 or 3 bytes are left.
        _ => (((bytes.len().max(first) - first) / 4) as u32, false),
    }
}

/// The end reason "interrupt".
const END_INTERRUPT: u8 = 3;

/// Decodes one framed .pack game into `game`.
pub(crate) fn decode(
    bytes: &[u8],
    game: &mut Game,
    on_position: &mut dyn FnMut(usize, &Position, &GameMove),
) -> Result<(), Fault> {
    let tag = bytes.first().copied().unwrap_or(0xff);
    let first = plies_start(tag).ok_or_else(|| fault(0, GameErrorKind::StartTag(tag)))?;
    let (plies, marker) = scan(bytes, first);
    game.declared = plies;
    let end = marker.and_then(|m| Some((marker_result(u16_at(bytes, m))?, *bytes.get(m + 2)?)));
    game.meta = GameMeta::Pack {
        result: end.map_or(0, |e| e.0),
        // A game without its terminal ends as interrupted (a draw), so that what is
        // written of it back is a consistent game (rsshogi refuses a draw by resignation).
        end_reason: end.map_or(END_INTERRUPT, |e| e.1),
        startpos_tag: tag == 1,
    };
    game.start = start_position(bytes, tag)?;
    let mut replay = Replay::new(&game.start);
    let mut at = first;
    for i in 0..plies as usize {
        let Some(ply) = bytes.get(at..at + 4) else {
            return Err(fault(
                at,
                GameErrorKind::Truncated("the file ends inside a move"),
            ));
        };
        let raw = u16_at(ply, 0);
        let mv = replay
            .check(Move::from_apery16(raw), raw)
            .map_err(|k| fault(at, k))?;
        let gm = GameMove {
            mv,
            eval: i16::from_le_bytes([ply[2], ply[3]]) as i32,
            visit_start: 0,
            candidates: 0,
        };
        on_position(i, &replay.pos, &gm);
        game.moves.push(gm);
        replay.play(mv);
        at += 4;
    }
    match (marker, end) {
        (Some(_), Some(_)) => Ok(()),
        (Some(m), None) => Err(fault(
            m + 2,
            GameErrorKind::Truncated("no end reason after the result"),
        )),
        (None, _) => Err(fault(
            at,
            GameErrorKind::Truncated("the file ends before the game's result"),
        )),
    }
}

/// The start position of a game with tag `tag` (0 or 1).
fn start_position(bytes: &[u8], tag: u8) -> Result<Position, Fault> {
    if tag == 1 {
        return Ok(Position::startpos());
    }
    let Some(hcp) = bytes.get(1..33).and_then(|b| <&[u8; 32]>::try_from(b).ok()) else {
        return Err(fault(
            0,
            GameErrorKind::Truncated("the file ends inside the start position"),
        ));
    };
    let Some(ply) = bytes.get(33..35) else {
        return Err(fault(
            33,
            GameErrorKind::Truncated("the file ends inside the start ply"),
        ));
    };
    let mut pos = decode_hcp(hcp).map_err(|e| fault(1, GameErrorKind::Start(e)))?;
    pos.set_ply(u16_at(ply, 0) as u32);
    Ok(pos)
}

/// Appends the .pack game of `moves` played from `start`, with `game`'s result and end
/// reason (`whole`: `moves` are all of `game`'s, so its start tag is kept as read).
pub(crate) fn encode(
    game: &Game,
    start: &Position,
    moves: &[GameMove],
    whole: bool,
    out: &mut Vec<u8>,
) -> Result<(), CodecError> {
    let GameMeta::Pack {
        result,
        end_reason,
        startpos_tag,
    } = game.meta
    else {
        return Err(CodecError::Unrepresentable("not a .pack game".into()));
    };
    let tag = if whole {
        startpos_tag
    } else {
        start.to_sfen() == STARTPOS
    };
    if tag {
        out.push(1);
    } else {
        out.push(0);
        out.extend_from_slice(&encode_hcp(start)?);
        out.extend_from_slice(&(start.ply().min(u16::MAX as u32) as u16).to_le_bytes());
    }
    for m in moves {
        let eval = m.eval.clamp(i16::MIN as i32, i16::MAX as i32) as i16;
        out.extend_from_slice(&m.mv.raw().to_le_bytes());
        out.extend_from_slice(&eval.to_le_bytes());
    }
    let r = result.min(2) as u16;
    out.extend_from_slice(&(r | r << 7).to_le_bytes());
    out.push(end_reason);
    Ok(())
}
