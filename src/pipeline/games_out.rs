//! Writing the kept positions of a game format in its own format, game by game (the
//! commit's part for hcpe3, .pack and sbinpack out of the same format in).
//!
//! # Invariants
//! - hcpe3: a game keeps every move; a dropped position gets candidate count 0, which
//!   dlshogi's loader skips (`codec::game::hcpe3`). .pack / sbinpack: a game is cut into
//!   segments of kept positions (neither format can skip a position inside a game).
//! - A game none of whose positions is kept is not written: no shard ever holds a game
//!   without a training position (dlshogi's loader refuses a file without one).
//! - sbinpack: each game's chains go into an `SBN2` chunk of their own, so a shard is
//!   valid wherever it is cut.
//!
//! The commit's side of it ([`Commit::apply_games`], the kept-shard writers) is here too,
//! so that commit.rs stays one screenful per concern.

use super::commit::Commit;
use super::report::Tallies;
use super::worker::BatchOutcome;
use crate::codec::game::{encode_game, sbinpack, Game};
use crate::codec::Format;
use crate::io::output::ShardWriter;
use std::io;

/// The game writer's scratch.
#[derive(Debug, Default)]
pub(crate) struct GameWriter {
    /// Whether the position before each move is kept.
    by_move: Vec<bool>,
    chains: Vec<u8>,
    bytes: Vec<u8>,
}

impl GameWriter {
    /// Writes `game` into `shards` with the records `kept` says (one flag per record of
    /// the game, in order); counts the games written and cut in `tallies`.
    pub(crate) fn write(
        &mut self,
        game: &Game,
        kept: &[bool],
        shards: &mut ShardWriter,
        tallies: &mut Tallies,
    ) -> io::Result<()> {
        let mut records = kept.iter();
        self.by_move.clear();
        for i in 0..game.moves.len() {
            let kept = game.is_record(i) && records.next().copied().unwrap_or(false);
            self.by_move.push(kept);
        }
        if !self.by_move.contains(&true) {
            return Ok(()); // nothing to write (and a faulted game is not re-encoded)
        }
        self.chains.clear();
        let by_move = &self.by_move;
        let keep = |i: usize| by_move.get(i).copied().unwrap_or(false);
        let written = encode_game(game, &keep, &mut self.chains).map_err(io::Error::other)?;
        if written.records == 0 {
            return Ok(());
        }
        let out = if matches!(game.meta, crate::codec::game::GameMeta::Sbinpack { .. }) {
            self.bytes.clear();
            sbinpack::write_chunk(&self.chains, &mut self.bytes).map_err(io::Error::other)?;
            &self.bytes
        } else {
            &self.chains
        };
        tallies.games_written += written.games as u64;
        tallies.games_cut += written.segments as u64;
        shards
            .write_game(out, written.records as u64)
            .map_err(io::Error::other)
    }
}

impl Commit {
    /// Applies a batch of a game format written as itself: each game's records, then the
    /// game with the positions kept.
    pub(super) fn apply_games(&mut self, format: Format, outcome: &BatchOutcome) -> io::Result<()> {
        let mut writer = GameWriter::default();
        let mut records = outcome.records.iter();
        for g in &outcome.games {
            let records = records.by_ref().take(g.records as usize);
            let kept = records.map(|r| self.apply_record(format, r, &outcome.out));
            let kept = kept.collect::<io::Result<Vec<bool>>>()?;
            let at = self.kept_writer(format);
            writer.write(&g.game, &kept, &mut self.kept[at].1, &mut self.tallies)?;
        }
        Ok(())
    }

    /// The place in `kept` of the writer of `target`, opened on first use.
    pub(super) fn kept_writer(&mut self, target: Format) -> usize {
        if let Some(at) = self.kept.iter().position(|(f, _)| *f == target) {
            return at;
        }
        let opts = self.kept_shards.options(target);
        let dir = self.out_dir.join("kept");
        self.kept
            .push((target, ShardWriter::new(&dir, target, opts)));
        self.kept.len() - 1
    }
}
