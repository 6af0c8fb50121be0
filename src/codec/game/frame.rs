//! Cutting a game file into games from its counts and markers alone ([`Framer`]), and
//! reading a whole in-memory file ([`read_games`]).
//!
//! # Contract
//! - [`Framer::next`] looks at the unread bytes of a file and says how long the next game is
//!   ([`Frame::Game`]), that some bytes belong to no game (sbinpack chunk headers,
//!   [`Frame::Skip`]), that it needs more bytes to tell ([`Frame::NeedMore`], never when
//!   `eof`), that the file is done ([`Frame::End`]), or that the framing is lost and the rest
//!   of the file cannot be cut into games ([`Frame::Corrupt`]). The caller consumes exactly
//!   the length returned before calling again.
//! - At the end of the file an incomplete game is one [`Frame::Game`] of the bytes that are
//!   left: decoding reports where it is truncated.
//! - A game longer than [`super::MAX_GAME_BYTES`] is corrupt framing (real games are far shorter:
//!   513 moves of 593 candidates in hcpe3 are 1.2 MB), so a reader's memory stays bounded.

use super::model::{Frame, Game, GameFormat, GameMove};
use super::{hcpe3, pack, sbinpack};
use crate::shogi::Position;

/// Cuts one file of a game format into games; holds the sbinpack chunk state.
#[derive(Clone, Debug)]
pub struct Framer {
    format: GameFormat,
    /// sbinpack: bytes left in the current chunk.
    chunk_left: u64,
}

impl Framer {
    /// A framer at the start of a file of `format`.
    pub fn new(format: GameFormat) -> Framer {
        Framer {
            format,
            chunk_left: 0,
        }
    }

    /// A framer of a file of `format` that goes on at a point where `chunk_left` bytes of
    /// the current sbinpack chunk are left (what [`Framer::chunk_left`] said there).
    pub fn resume(format: GameFormat, chunk_left: u64) -> Framer {
        Framer { format, chunk_left }
    }

    /// The format it cuts.
    pub fn format(&self) -> GameFormat {
        self.format
    }

    /// sbinpack: bytes left in the current chunk (0 between chunks and for other formats).
    pub fn chunk_left(&self) -> u64 {
        self.chunk_left
    }

    /// The next frame of `buf`, the file's unread bytes (`eof`: they are all that is left).
    pub fn next(&mut self, buf: &[u8], eof: bool) -> Frame {
        if buf.is_empty() {
            return if eof { Frame::End } else { Frame::NeedMore };
        }
        match self.format {
            GameFormat::Hcpe3 => hcpe3::frame(buf, eof),
            GameFormat::Pack => pack::frame(buf, eof),
            GameFormat::Sbinpack => {
                let (frame, left) = sbinpack::frame(buf, eof, self.chunk_left);
                self.chunk_left = left;
                frame
            }
        }
    }
}

/// The records of one framed game, counted from its bytes without replaying it.
///
/// `records` is the number of positions before a move whose bytes are all there (hcpe3:
/// only those with candidates, the others are history), plus one when the game's bytes end
/// before the game does (`complete` false): that record stands for the truncated rest, as a
/// short tail does in a file of fixed-size records. Decoding the game reaches at most the
/// positions counted, so a reader can number every record before any game is decoded, and
/// a fault found by decoding always leaves the truncated rest a record to reject.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counted {
    /// Records of the game (see the type's doc).
    pub records: u32,
    /// Whether the game's bytes are complete.
    pub complete: bool,
}

/// Counts the records of one framed game of `format` (see [`Counted`]).
pub fn count_records(format: GameFormat, bytes: &[u8]) -> Counted {
    let (whole, complete) = match format {
        GameFormat::Hcpe3 => hcpe3::count(bytes),
        GameFormat::Pack => pack::count(bytes),
        GameFormat::Sbinpack => sbinpack::count(bytes),
    };
    Counted {
        records: whole + !complete as u32,
        complete,
    }
}

/// The rest of a file that could not be cut into games.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unreadable {
    /// Byte offset where it starts.
    pub offset: u64,
    /// Why.
    pub reason: String,
}

/// Reads every game of an in-memory file of `format`: calls `on_position` with each
/// position before a move as the game is replayed (index of the move, position, move), then
/// `on_game` with the decoded game. Returns the unreadable rest, if any.
pub fn read_games(
    format: GameFormat,
    bytes: &[u8],
    on_position: &mut dyn FnMut(usize, &Position, &GameMove),
    on_game: &mut dyn FnMut(&Game),
) -> Option<Unreadable> {
    let mut framer = Framer::new(format);
    let mut game = Game::new(format);
    let mut at = 0usize;
    loop {
        let rest = &bytes[at..];
        match framer.next(rest, true) {
            Frame::Game(n) => {
                super::replay::decode_game(&rest[..n], at as u64, &mut game, on_position);
                on_game(&game);
                at += n;
            }
            Frame::Skip(n) => at += n,
            Frame::End | Frame::NeedMore => return None,
            Frame::Corrupt(reason) => {
                return Some(Unreadable {
                    offset: at as u64,
                    reason,
                })
            }
        }
    }
}

/// Games [`probe`] looks at.
pub const PROBE_GAMES: usize = 32;

/// Frames and decodes the first games of `sample`, the first bytes of a file (`whole`: all of
/// it): (games that decode without error and have at least one move, games tried), at most
/// [`PROBE_GAMES`]. A game cut by the end of a partial sample is not tried; lost framing
/// counts as one failed game. (A game without moves proves nothing: the first 36 bytes of
/// an hcpe file read as an hcpe3 game of the initial position with no moves.)
pub fn probe(format: GameFormat, sample: &[u8], whole: bool) -> (usize, usize) {
    let mut framer = Framer::new(format);
    let mut game = Game::new(format);
    let (mut ok, mut tried, mut at) = (0, 0, 0);
    while tried < PROBE_GAMES {
        let rest = &sample[at..];
        match framer.next(rest, whole) {
            // With `whole` false the framer answers NeedMore for a game the sample cuts.
            Frame::Game(n) => {
                super::replay::decode_game(&rest[..n], at as u64, &mut game, &mut |_, _, _| {});
                tried += 1;
                ok += (game.error.is_none() && !game.moves.is_empty()) as usize;
                at += n;
            }
            Frame::Skip(n) => at += n,
            Frame::Corrupt(_) => return (ok, tried + 1),
            _ => break,
        }
    }
    (ok, tried)
}
