//! The worker's path for game formats (hcpe3, .pack, sbinpack). Each game is decoded once,
//! every move replayed and checked; each record is the position before a move, decided with
//! every earlier position of its game as repetition history (hcpe3's hidden positions
//! included); the records a fault leaves unread are rejected with its offset and reason.
//! When the kept records are written in the game's own format, the decoded game goes with
//! the outcome ([`GameOut`]) and the commit writes it with the positions it keeps.
//!
//! hcpe records are decided along the games inferred from their best moves
//! ([`Worker::follow_chain`]): the batch reader cuts hcpe batches where that chain breaks.
//!
//! # Invariants
//! A game yields exactly `span.records` outcomes (the count its framing gave the reader),
//! in order: its records as decoded, then one reject for each record the fault left unread.

use super::outcome::{BatchOutcome, GameOut, RecordOutcome};
use super::Worker;
use crate::codec::game::{decode_game, infer, replay_game, Game, GameFormat};
use crate::filter::RejectReason;
use crate::io::batch::{Batch, GameRef, RecordRef};
use crate::pipeline::settings::Settings;
use crate::shogi::Move;

impl Worker {
    /// hcpe: whether the record decoded into slot `slot` continues the game of the record
    /// before it (that one's best move leads to it); if not, its game starts here, the
    /// repetition history is cleared and `true` is returned.
    pub(super) fn follow_chain(&mut self, slot: usize, decoded: bool) -> bool {
        let d = &self.decoded[slot];
        let continues = decoded
            && self
                .chain
                .as_mut()
                .is_some_and(|(prev, best)| infer::continues_in_place(prev, *best, &d.position));
        if !continues {
            self.history.clear();
        }
        let best = d.teacher.as_ref().and_then(|t| t.mv).unwrap_or(Move::NONE);
        match (&mut self.chain, decoded) {
            (_, false) => self.chain = None,
            (Some((prev, b)), true) => {
                prev.clone_from(&d.position);
                *b = best;
            }
            (None, true) => self.chain = Some((d.position.clone(), best)),
        }
        !continues
    }

    /// Decides every record of `batch`, a batch of whole games, into `outcome`.
    pub(super) fn decide_games(
        &mut self,
        batch: &Batch,
        settings: &Settings,
        tick: &(dyn Fn(u64) + Sync),
        outcome: &mut BatchOutcome,
    ) {
        let Some(format) = GameFormat::of(batch.format) else {
            return;
        };
        let write_games = settings.output_format.unwrap_or(batch.format) == batch.format;
        self.start_sequence(settings);
        let mut game = match self.game.take() {
            Some(g) if g.format() == format => g,
            _ => Game::new(format),
        };
        for g in batch.games() {
            decode_game(g.bytes, g.span.offset, &mut game, &mut |_, _, _| {});
            let decided = self.decide_game(&game, &g, batch, settings, outcome);
            reject_rest(&game, &g, decided, batch.file, outcome);
            tick(g.span.records as u64);
            if write_games {
                outcome.games.push(GameOut {
                    game: game.clone(),
                    records: g.span.records,
                });
            }
        }
        self.game = Some(game);
    }

    /// Decides the records of one decoded game, replaying it (its positions are not kept:
    /// the repetition history is all a position needs of the ones before it, so memory is
    /// linear in the game's length); returns how many.
    fn decide_game(
        &mut self,
        game: &Game,
        g: &GameRef<'_>,
        batch: &Batch,
        settings: &Settings,
        outcome: &mut BatchOutcome,
    ) -> u32 {
        self.history.clear();
        let mut decided = 0;
        replay_game(game, &mut |i, pos| {
            if !game.is_record(i) {
                if settings.repetition.is_some() {
                    self.history.push_position(pos);
                }
                return;
            }
            if decided == g.span.records {
                return; // never: decoding reaches at most the records framed
            }
            let d = &mut self.decoded[0];
            d.position.clone_from(pos);
            d.teacher = game.teacher(i, pos.ply());
            d.history = None;
            let rec = RecordRef {
                index: g.first_index + decided as u64,
                offset: g.span.offset,
                bytes: g.bytes,
                new_game: decided == 0,
            };
            let r = self.decide(0, Ok(()), batch.format, g.bytes, settings, &mut outcome.out);
            outcome.records.push(r.at(&rec, batch.file));
            decided += 1;
        });
        decided
    }
}

/// Rejects the records of game `g` after the first `decided`: the rest its fault left
/// unread, each at the fault's offset with its reason; the first shows the game's bytes
/// from there, the others none (a copy each cost 8 KB per record: 570 MB for a 65,535-move
/// game faulted at its second move).
fn reject_rest(
    game: &Game,
    g: &GameRef<'_>,
    decided: u32,
    file: usize,
    outcome: &mut BatchOutcome,
) {
    let at = game.error.as_ref().map_or(g.span.offset, |e| e.offset);
    let rest = g.bytes.get((at - g.span.offset) as usize..).unwrap_or(&[]);
    for k in decided..g.span.records {
        let reason = match &game.error {
            Some(e) => RejectReason::Game(e.clone()),
            None => RejectReason::Malformed(format!(
                "game at offset {}: {} records framed, {decided} decoded",
                g.span.offset, g.span.records
            )),
        };
        let rec = RecordRef {
            index: g.first_index + k as u64,
            offset: at,
            bytes: rest,
            new_game: false,
        };
        let shown = if k == decided { rest } else { &[] };
        let r = RecordOutcome::new().reject(reason, shown, false);
        outcome.records.push(r.at(&rec, file));
    }
}
