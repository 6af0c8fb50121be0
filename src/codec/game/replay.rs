//! The replay shared by the game decoders (legality of every move), and the entry points
//! [`decode_game`] and [`encode_game`] that dispatch on the format.

use super::model::{unplayable, Game, GameError, GameFormat, GameMove, Replay};
use super::{hcpe3, pack, sbinpack};
use crate::codec::CodecError;
use crate::shogi::Position;

/// Decodes one framed game (`bytes`, starting at byte `offset` of its file) into `game`,
/// whose format says how to read it. Calls `on_position` with the index, the position and
/// the move of every position before a move, in order, as the game is replayed. Moves
/// before a fault stay in `game`; the fault goes to [`Game::error`]. Never panics.
pub fn decode_game(
    bytes: &[u8],
    offset: u64,
    game: &mut Game,
    on_position: &mut dyn FnMut(usize, &Position, &GameMove),
) {
    game.offset = offset;
    game.len = bytes.len();
    game.moves.clear();
    game.visits.clear();
    game.declared = 0;
    game.error = None;
    let done = match game.format() {
        GameFormat::Hcpe3 => hcpe3::decode(bytes, game, on_position),
        GameFormat::Pack => pack::decode(bytes, game, on_position),
        GameFormat::Sbinpack => sbinpack::decode(bytes, game, on_position),
    };
    if let Err((at, kind)) = done {
        game.error = Some(GameError {
            game_offset: offset,
            offset: offset + at as u64,
            ply: game.moves.len() as u32,
            kind,
        });
    }
}

/// Replays the decoded moves of `game` from its start and calls `on_position` with the index
/// and the position before each, in order: the positions [`decode_game`] showed, again,
/// without keeping them (one position in memory whatever the game's length). Stops before a
/// move that is not legal where it is played (never in a game `decode_game` filled).
pub fn replay_game(game: &Game, on_position: &mut dyn FnMut(usize, &Position)) {
    let mut replay = Replay::new(&game.start);
    for (i, m) in game.moves.iter().enumerate() {
        let Ok(mv) = replay.check(Some(m.mv), m.mv.raw()) else {
            return;
        };
        on_position(i, &replay.pos);
        replay.play(mv);
    }
}

/// What [`encode_game`] wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// Games written (more than one when a .pack / sbinpack game was cut into segments).
    pub games: usize,
    /// Positions written as records.
    pub records: usize,
    /// Whether the game had to be cut (a dropped position inside a .pack / sbinpack game).
    pub segments: bool,
}

/// Appends `game` in its own format, keeping the position before move `i` as a record when
/// `keep(i)`: hcpe3 makes the others invisible; .pack and sbinpack write each run of kept
/// positions as a game of its own (nothing at all when none is kept). With every position
/// kept, the bytes are those the game was decoded from. A game with an [`Game::error`] is
/// written with the moves it has.
pub fn encode_game(
    game: &Game,
    keep: &dyn Fn(usize) -> bool,
    out: &mut Vec<u8>,
) -> Result<Written, CodecError> {
    if game.format() == GameFormat::Hcpe3 {
        let records = hcpe3::encode(game, keep, out)?;
        return Ok(Written {
            games: 1,
            records,
            segments: false,
        });
    }
    if game.moves.is_empty() {
        encode_segment(game, &game.start, &[], true, out)?;
        return Ok(Written {
            games: 1,
            records: 0,
            segments: false,
        });
    }
    let mut written = Written::default();
    let mut replay = Replay::new(&game.start);
    let mut segment: Option<(usize, Position)> = None;
    for i in 0..=game.moves.len() {
        let kept = i < game.moves.len() && keep(i);
        match (&segment, kept) {
            (None, true) => segment = Some((i, replay.pos.clone())),
            (Some((first, start)), false) => {
                let whole = *first == 0 && i == game.moves.len();
                let moves = &game.moves[*first..i];
                encode_segment(game, start, moves, whole, out)?;
                written.games += 1;
                written.records += moves.len();
                written.segments |= !whole;
                segment = None;
            }
            _ => {}
        }
        if let Some(m) = game.moves.get(i) {
            let mv = replay.check(Some(m.mv), m.mv.raw()).map_err(unplayable)?;
            replay.play(mv);
        }
    }
    Ok(written)
}

/// Appends one .pack / sbinpack game: `moves` played from `start` (`whole`: they are all of
/// `game`'s, so its stored stem / start fields apply unchanged).
fn encode_segment(
    game: &Game,
    start: &Position,
    moves: &[GameMove],
    whole: bool,
    out: &mut Vec<u8>,
) -> Result<(), CodecError> {
    match game.format() {
        GameFormat::Pack => pack::encode(game, start, moves, whole, out),
        _ => sbinpack::encode(game, start, moves, whole, out),
    }
}
