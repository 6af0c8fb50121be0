//! Game formats: files of whole games (a start position and the moves played), where every
//! position before a move is one training record.
//!
//! # Formats
//! | [`GameFormat`] | writer | module |
//! |---|---|---|
//! | `hcpe3`    | dlshogi self-play (`HuffmanCodedPosAndEval3` + `MoveInfo` + `MoveVisits`) | [`hcpe3`] |
//! | `pack`     | YaneuraOu / rshogi game records (start tag, Apery move16 + eval, terminal) | [`pack`] |
//! | `sbinpack` | rshogi / rsshogi (`SBN2` chunks of chains, moves as legal-move indices) | [`sbinpack`] |
//!
//! # Model
//! A game is a [`Game`]: its start position, its moves ([`GameMove`]: the move, the eval of
//! the position it is played from, hcpe3's candidate visits), its result and the fields
//! only its format has ([`GameMeta`]). Its records are the positions before each move, in
//! order; the position after the last move has no move and no eval in any of these formats
//! and is not a record. In hcpe3 a position whose candidate count is 0 is invisible to
//! dlshogi's loader; it is history, not a record ([`Game::is_record`]).
//!
//! # Reading
//! A file is cut into games by a [`Framer`] (from the counts and markers alone, without
//! replaying), then each game is decoded by [`decode_game`], which replays every move and
//! checks it is legal. A bad start position, an illegal move, a truncated tail, or a count
//! running past the end stops the game there: [`Game::error`] holds the offset and the
//! reason, the moves before it stay, and the next game is read as usual. Only when the
//! framing itself is lost (a bad sbinpack chunk header, a bad .pack start tag, an hcpe3
//! candidate count above any legal-move count) is the rest of the file unreadable
//! ([`Frame::Corrupt`]). Nothing here panics on any input.
//!
//! # Writing
//! [`encode_game`] writes a decoded game back byte for byte (the inverse of decoding), or with
//! some records dropped: hcpe3 marks them invisible (candidate count 0, visits removed, the
//! game stays one record); .pack and sbinpack cannot skip a position inside a game, so the
//! game is cut into segments of kept positions, each written as a game of its own from its
//! first position ([`Written::segments`] says how many).

mod frame;
pub mod hcpe3;
pub mod infer;
mod model;
mod order;
pub mod pack;
mod replay;
pub mod sbinpack;

pub use frame::{count_records, probe, read_games, Counted, Framer, Unreadable, PROBE_GAMES};
pub use model::{
    Frame, Game, GameError, GameErrorKind, GameFormat, GameMeta, GameMove, Visit, MAX_GAME_BYTES,
};
pub use replay::{decode_game, encode_game, replay_game, Written};
