//! Games inferred from hcpe files, which store no game boundaries.
//!
//! Consecutive hcpe records belong to one game when the first's `bestMove16`, a legal move
//! in its position, played there gives exactly the second's position (board, hands, side to
//! move). Self-play writers store every position of a game in order with the move played,
//! so their games chain; where the chain breaks (no move, an illegal move, another
//! position), the record starts a new game, as every hcpe record did before.
//!
//! The comparison is by Zobrist keys first and then exact (a key collision cannot join two
//! games).

use crate::codec::hcp::{decode_hcp, HcpeTail, HCPE_SIZE};
use crate::shogi::{Move, Position};

/// Whether the position `next` follows `prev` by its best move `best` (see the module doc).
pub fn continues(prev: &Position, best: Move, next: &Position) -> bool {
    continues_in_place(&mut prev.clone(), best, next)
}

/// [`continues`] without a copy: `best` is played on `prev` and taken back (`prev` is left
/// as it was).
pub fn continues_in_place(prev: &mut Position, best: Move, next: &Position) -> bool {
    if best.is_none() || !prev.is_legal(best) {
        return false;
    }
    let (board_key, hand_key, _) = prev.keys_after(best);
    if board_key != next.board_key() || hand_key != next.hand_key() {
        return false;
    }
    prev.do_move(best);
    let same = *prev == *next;
    prev.undo_move();
    same
}

/// Whether the raw hcpe record `next` continues the game of the raw hcpe record `prev`
/// (both decode, and `prev`'s best move gives `next`'s position).
pub fn chained(prev: &[u8], next: &[u8]) -> bool {
    match (decode_record(prev), decode_record(next)) {
        (Some((p, best)), Some((n, _))) => continues(&p, best, &n),
        _ => false,
    }
}

/// Infers game starts over a sequence of raw hcpe records, one record at a time.
#[derive(Clone, Debug, Default)]
pub struct HcpeGames {
    /// The previous record's position and best move, if it decoded.
    prev: Option<(Position, Move)>,
    /// Games started so far.
    games: u64,
}

impl HcpeGames {
    /// A fresh sequence (the next record starts a game).
    pub fn new() -> HcpeGames {
        HcpeGames::default()
    }

    /// Feeds the next record (38 bytes; anything else breaks the chain); returns whether it
    /// starts a new game.
    pub fn push(&mut self, record: &[u8]) -> bool {
        let current = decode_record(record);
        let new_game = match (&self.prev, &current) {
            (Some((prev, best)), Some((pos, _))) => !continues(prev, *best, pos),
            _ => true,
        };
        self.games += new_game as u64;
        self.prev = current;
        new_game
    }

    /// Games started so far (records that started one).
    pub fn games(&self) -> u64 {
        self.games
    }

    /// Forgets the previous record (a new file starts).
    pub fn reset(&mut self) {
        self.prev = None;
    }
}

/// The position and best move of an hcpe record; `None` if it does not decode.
fn decode_record(record: &[u8]) -> Option<(Position, Move)> {
    let rec: &[u8; HCPE_SIZE] = record.try_into().ok()?;
    let head: &[u8; 32] = rec[..32].try_into().ok()?;
    let pos = decode_hcp(head).ok()?;
    let best = Move::from_apery16(HcpeTail::read(rec).raw_move).unwrap_or(Move::NONE);
    Some((pos, best))
}
