//! The game model every game-format file shares: [`Game`] and its parts, the errors, the
//! [`Frame`] a framer answers, and the replay that checks every move. It depends on no other
//! file of `codec::game`.

use crate::codec::{CodecError, Format, GameResult, MoveEncoding, TeacherFields};
use crate::shogi::{Color, Move, Position};
use std::fmt;
use thiserror::Error;

/// A game format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameFormat {
    /// dlshogi hcpe3.
    Hcpe3,
    /// YaneuraOu / rshogi .pack.
    Pack,
    /// rshogi / rsshogi sbinpack (version 2, `SBN2` chunks).
    Sbinpack,
}

impl GameFormat {
    /// Every game format.
    pub const ALL: [GameFormat; 3] = [GameFormat::Hcpe3, GameFormat::Pack, GameFormat::Sbinpack];

    /// The format's name, also its usual file extension.
    pub const fn name(self) -> &'static str {
        match self {
            GameFormat::Hcpe3 => "hcpe3",
            GameFormat::Pack => "pack",
            GameFormat::Sbinpack => "sbinpack",
        }
    }

    /// The game format a record [`Format`] names, if it is one.
    pub const fn of(format: Format) -> Option<GameFormat> {
        match format {
            Format::Hcpe3 => Some(GameFormat::Hcpe3),
            Format::Pack => Some(GameFormat::Pack),
            Format::Sbinpack => Some(GameFormat::Sbinpack),
            _ => None,
        }
    }

    /// The [`Format`] of this game format.
    pub const fn format(self) -> Format {
        match self {
            GameFormat::Hcpe3 => Format::Hcpe3,
            GameFormat::Pack => Format::Pack,
            GameFormat::Sbinpack => Format::Sbinpack,
        }
    }
}

impl fmt::Display for GameFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One move of a game and what the format stores with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameMove {
    /// The move played (legal in the position before it).
    pub mv: Move,
    /// Eval of the position before the move, from its side to move's view (hcpe3 and .pack
    /// store an i16, sbinpack an i32).
    pub eval: i32,
    /// hcpe3: the index in [`Game::visits`] of this move's first candidate.
    pub visit_start: u32,
    /// hcpe3: the number of candidates (0 = the position is invisible to dlshogi's loader).
    pub candidates: u16,
}

/// One hcpe3 candidate: a move (Apery move16 bits, as stored) and its visit count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Visit {
    /// The candidate move's 16 bits.
    pub move16: u16,
    /// Its visit count.
    pub visits: u16,
}

/// The fields a format stores for a game besides its positions and moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameMeta {
    /// hcpe3 header bytes.
    Hcpe3 {
        /// `result`: bits 0-1 the winner (0 draw, 1 Black, 2 White), 0x4 repetition,
        /// 0x8 declaration, 0x10 maximum moves.
        result: u8,
        /// `opponent`: 0 self-play, 1 Black was a USI engine, 2 White was.
        opponent: u8,
    },
    /// .pack terminal.
    Pack {
        /// 0 draw, 1 Black won, 2 White won.
        result: u8,
        /// End reason byte (0 resign, 1 repetition draw, 2 max moves, 3 interrupt, …).
        end_reason: u8,
        /// Whether the game started with tag 1 (the initial position, no HuffmanCodedPos).
        startpos_tag: bool,
    },
    /// sbinpack chain stem.
    Sbinpack {
        /// The stem's score (the base of the first eval delta).
        score: i16,
        /// The stem's best move (YaneuraOu Move16 bits, as stored).
        best_move: u16,
        /// `result << 10 | ply` (6 + 10 bits) as stored.
        ply_result: u16,
        /// The chain's opaque metadata (at most 127 bytes).
        metadata: Vec<u8>,
    },
}

/// A decoded game (see the `codec::game` module doc).
#[derive(Clone, Debug)]
pub struct Game {
    /// Byte offset of the game's first byte in its file.
    pub offset: u64,
    /// Its length in bytes.
    pub len: usize,
    /// The start position, validated, with its ply (unspecified if `error` is at ply 0 with
    /// a [`GameErrorKind::Start`]).
    pub start: Position,
    /// The moves decoded, each legal where it was played.
    pub moves: Vec<GameMove>,
    /// hcpe3: every candidate of every move, in order.
    pub visits: Vec<Visit>,
    /// The format's own fields.
    pub meta: GameMeta,
    /// How many moves the game declares (hcpe3 and sbinpack counts; .pack: plies framed).
    pub declared: u32,
    /// Why the game stops before `declared` moves, if it does.
    pub error: Option<GameError>,
}

impl Game {
    /// An empty game of `format`, a slot for `decode_game`.
    pub fn new(format: GameFormat) -> Game {
        let meta = match format {
            GameFormat::Hcpe3 => GameMeta::Hcpe3 {
                result: 0,
                opponent: 0,
            },
            GameFormat::Pack => GameMeta::Pack {
                result: 0,
                end_reason: 0,
                startpos_tag: false,
            },
            GameFormat::Sbinpack => GameMeta::Sbinpack {
                score: 0,
                best_move: 0,
                ply_result: 0,
                metadata: Vec::new(),
            },
        };
        Game {
            offset: 0,
            len: 0,
            start: Position::startpos(),
            moves: Vec::new(),
            visits: Vec::new(),
            meta,
            declared: 0,
            error: None,
        }
    }

    /// The game's format.
    pub fn format(&self) -> GameFormat {
        match self.meta {
            GameMeta::Hcpe3 { .. } => GameFormat::Hcpe3,
            GameMeta::Pack { .. } => GameFormat::Pack,
            GameMeta::Sbinpack { .. } => GameFormat::Sbinpack,
        }
    }

    /// Whether the position before move `i` is a training record (not an hcpe3 position
    /// with candidate count 0).
    pub fn is_record(&self, i: usize) -> bool {
        match self.meta {
            GameMeta::Hcpe3 { .. } => self.moves.get(i).is_some_and(|m| m.candidates > 0),
            _ => i < self.moves.len(),
        }
    }

    /// Number of records among the decoded moves.
    pub fn records(&self) -> usize {
        (0..self.moves.len()).filter(|&i| self.is_record(i)).count()
    }

    /// The candidates of move `i` (empty outside hcpe3).
    pub fn candidates(&self, i: usize) -> &[Visit] {
        let Some(m) = self.moves.get(i) else {
            return &[];
        };
        let s = m.visit_start as usize;
        self.visits.get(s..s + m.candidates as usize).unwrap_or(&[])
    }

    /// The result from Black's view as hcpe stores it: 0 draw or unknown, 1 Black won, 2
    /// White won.
    pub fn winner_code(&self) -> u8 {
        match &self.meta {
            GameMeta::Hcpe3 { result, .. } => match result & 3 {
                3 => 0,
                w => w,
            },
            GameMeta::Pack { result, .. } => *result,
            GameMeta::Sbinpack { ply_result, .. } => sbinpack_winner_code(*ply_result),
        }
    }

    /// The teacher fields of the position before move `i` (of ply `ply`), as psv / hcpe
    /// conversion writes them: the eval clamped to i16, the move (Apery encoding), the
    /// result from Black's view, gamePly = `ply`. `None` past the decoded moves.
    pub fn teacher(&self, i: usize, ply: u32) -> Option<TeacherFields> {
        let m = self.moves.get(i)?;
        Some(TeacherFields {
            score: m.eval.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
            raw_move: m.mv.raw(),
            mv: Some(m.mv),
            move_encoding: Some(MoveEncoding::Apery),
            move_legal: true,
            game_ply: Some(ply.min(u16::MAX as u32) as u16),
            game_result: GameResult::Hcpe(self.winner_code()),
            padding: 0,
        })
    }

    /// The side that won, if the result names one.
    pub fn winner(&self) -> Option<Color> {
        match self.winner_code() {
            1 => Some(Color::Black),
            2 => Some(Color::White),
            _ => None,
        }
    }
}

/// Why the rest of a game was rejected: where and what.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("game at offset {game_offset}, move {}: {kind} (at byte {offset})", .ply + 1)]
pub struct GameError {
    /// Byte offset of the game in its file.
    pub game_offset: u64,
    /// Byte offset of the fault in the file.
    pub offset: u64,
    /// Index of the first move not read (0 = the start position or the first move).
    pub ply: u32,
    /// What is wrong.
    pub kind: GameErrorKind,
}

/// What is wrong with a game (see [`GameError`]).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum GameErrorKind {
    /// The start position does not decode (a bad Huffman code, an impossible position).
    #[error("start position: {0}")]
    Start(CodecError),
    /// .pack start tag other than 0 (HuffmanCodedPos follows) or 1 (the initial position).
    #[error("start tag {0} (expected 0 or 1)")]
    StartTag(u8),
    /// The 16 bits are no move of the format.
    #[error("move field {0:#06x} is not a move")]
    NotAMove(u16),
    /// A move that is not legal where it is played.
    #[error("move {usi} is illegal in {sfen}")]
    Illegal {
        /// The move in USI.
        usi: String,
        /// The position.
        sfen: String,
    },
    /// sbinpack: a move index past the legal moves.
    #[error("move index {index}, but the position has {legal} legal moves")]
    MoveIndex {
        /// The index read.
        index: u32,
        /// The number of legal moves.
        legal: usize,
    },
    /// The game's bytes end before the game does.
    #[error("truncated: {0}")]
    Truncated(&'static str),
    /// sbinpack: an eval beyond ±[`sbinpack::MAX_EVAL`](super::sbinpack::MAX_EVAL), which a
    /// chain cut from this one could not store (or beyond i32).
    #[error("eval beyond ±1,073,741,823 (2^30 - 1, the most a chain cut from this one can store)")]
    Eval,
    /// sbinpack: metadata longer than 127 bytes.
    #[error("metadata of {0} bytes (at most 127)")]
    Metadata(usize),
}

impl GameErrorKind {
    /// A short stable name of the error kind (for statistics and JSON).
    pub fn code(&self) -> &'static str {
        match self {
            GameErrorKind::Start(e) => e.code(),
            GameErrorKind::StartTag(_) => "start_tag",
            GameErrorKind::NotAMove(_) => "not_a_move",
            GameErrorKind::Illegal { .. } => "illegal_move",
            GameErrorKind::MoveIndex { .. } => "move_index",
            GameErrorKind::Truncated(_) => "truncated",
            GameErrorKind::Eval => "eval_overflow",
            GameErrorKind::Metadata(_) => "metadata",
        }
    }
}

/// The longest game a framer accepts, in bytes.
pub const MAX_GAME_BYTES: usize = 16 << 20;

/// What the next bytes of a file are (see the module contract).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Frame {
    /// A game of this many bytes.
    Game(usize),
    /// This many bytes that are part of no game (an sbinpack chunk header).
    Skip(usize),
    /// More bytes are needed to tell.
    NeedMore,
    /// No bytes are left.
    End,
    /// The rest of the file cannot be cut into games, for this reason.
    Corrupt(String),
}

/// A decoder's failure: byte offset within the game, and what is wrong.
pub(crate) type Fault = (usize, GameErrorKind);

/// A [`Fault`] at byte `at` of the game.
pub(crate) fn fault(at: usize, kind: GameErrorKind) -> Fault {
    (at, kind)
}

/// A game being replayed: the position before the next move. It keeps no undo history (a
/// replay never takes a move back), so its position is the same size at every ply and a
/// copy of it costs the same at move 1 and move 65,535.
pub(crate) struct Replay {
    /// The position before the next move (its undo stack always empty).
    pub pos: Position,
}

impl Replay {
    /// Starts at `start` (its undo history is not needed and not kept).
    pub fn new(start: &Position) -> Replay {
        let mut pos = start.clone();
        pos.clear_history();
        Replay { pos }
    }

    /// The move `mv` (read from the 16 bits `raw`) if it is legal here.
    #[inline]
    pub fn check(&self, mv: Option<Move>, raw: u16) -> Result<Move, GameErrorKind> {
        let Some(m) = mv else {
            return Err(GameErrorKind::NotAMove(raw));
        };
        if !self.pos.is_legal(m) {
            return Err(GameErrorKind::Illegal {
                usi: m.to_usi(),
                sfen: self.pos.to_sfen(),
            });
        }
        Ok(m)
    }

    /// Plays a move [`Replay::check`] accepted, forgetting how to take it back.
    #[inline]
    pub fn play(&mut self, m: Move) {
        self.pos.do_move(m);
        self.pos.clear_history();
    }
}

/// An illegal move in a game given to an encoder.
pub(crate) fn unplayable(kind: GameErrorKind) -> CodecError {
    CodecError::Unrepresentable(format!("the game cannot be replayed: {kind}"))
}

/// 0 draw or unknown, 1 Black won, 2 White won, from a stored sbinpack `ply_result`.
pub(crate) fn sbinpack_winner_code(ply_result: u16) -> u8 {
    match ply_result >> 10 {
        r @ (0..=1 | 4 | 5 | 8 | 9 | 12 | 13 | 16 | 17 | 20 | 21) => 1 + (r & 1) as u8,
        _ => 0,
    }
}
