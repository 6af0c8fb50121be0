//! `inspect` of a game format (hcpe3, .pack, sbinpack): games, positions (records and
//! hcpe3's hidden ones), move-count statistics, results and how games ended, faulted games
//! with their offsets. Each game is decoded (every move replayed and checked) once.

use posfilter::codec::game::{decode_game, replay_game, Game, GameMeta};
use posfilter::codec::TeacherFields;
use posfilter::io::batch::Batch;
use posfilter::shogi::Position;
use serde_json::json;
use std::collections::BTreeMap;
use std::io::Write;

/// Faulted games listed individually (the rest are only counted).
const MAX_LISTED: usize = 20;
/// Width of a bucket of the move-count histogram.
const BUCKET: u32 = 20;

/// What `inspect` counts over the games of a file.
#[derive(Default)]
pub(super) struct GameStats {
    games: u64,
    /// Positions before a move that are records.
    records: u64,
    /// hcpe3 positions with candidate count 0 (history, not records).
    hidden: u64,
    moves_min: Option<u32>,
    moves_max: u32,
    moves_sum: u64,
    /// Games by move count, in buckets of [`BUCKET`] moves.
    moves_histogram: BTreeMap<u32, u64>,
    /// Games by winner: `black`, `white`, `draw`.
    results: BTreeMap<&'static str, u64>,
    /// Games by how they ended, as the format records it.
    endings: BTreeMap<String, u64>,
    faulted: u64,
    faulted_by_reason: BTreeMap<&'static str, u64>,
    faulted_first: Vec<serde_json::Value>,
}

/// Decodes every game of `batch`: `on_position` sees each record's position and teacher
/// fields (the move played from it, its eval, the game's result) in file order.
pub(super) fn each_game(
    batch: &Batch,
    game: &mut Game,
    st: &mut GameStats,
    on_position: &mut dyn FnMut(&Position, &TeacherFields),
) {
    for g in batch.games() {
        decode_game(g.bytes, g.span.offset, game, &mut |_, _, _| {});
        st.add(game);
        // Replayed again rather than kept: memory stays linear in a game's length.
        replay_game(game, &mut |i, pos| {
            if let Some(t) = game.teacher(i, pos.ply()).filter(|_| game.is_record(i)) {
                on_position(pos, &t);
            }
        });
    }
}

impl GameStats {
    fn add(&mut self, game: &Game) {
        let moves = game.moves.len() as u32;
        let records = game.records() as u64;
        self.games += 1;
        self.records += records;
        self.hidden += moves as u64 - records;
        self.moves_min = Some(self.moves_min.map_or(moves, |m| m.min(moves)));
        self.moves_max = self.moves_max.max(moves);
        self.moves_sum += moves as u64;
        *self
            .moves_histogram
            .entry(moves / BUCKET * BUCKET)
            .or_default() += 1;
        let winner = match game.winner_code() {
            1 => "black",
            2 => "white",
            _ => "draw",
        };
        *self.results.entry(winner).or_default() += 1;
        *self.endings.entry(ending(&game.meta)).or_default() += 1;
        if let Some(e) = &game.error {
            self.faulted += 1;
            *self.faulted_by_reason.entry(e.kind.code()).or_default() += 1;
            if self.faulted_first.len() < MAX_LISTED {
                self.faulted_first.push(json!({
                    "game_offset": e.game_offset, "offset": e.offset, "move": e.ply + 1,
                    "reason": e.kind.to_string(),
                }));
            }
        }
    }

    /// The statistics as JSON (the `games` object of `inspect --json`).
    pub(super) fn to_json(&self) -> serde_json::Value {
        let mean = self.moves_sum as f64 / self.games.max(1) as f64;
        let histogram: serde_json::Map<String, serde_json::Value> = self
            .moves_histogram
            .iter()
            .map(|(k, v)| (format!("{k}-{}", k + BUCKET - 1), json!(v)))
            .collect();
        json!({
            "games": self.games,
            "positions": self.records,
            "hidden_positions": self.hidden,
            "moves": {"min": self.moves_min, "mean": mean, "max": self.moves_max,
                "histogram": histogram},
            "results": self.results,
            "endings": self.endings,
            "faulted": self.faulted,
            "faulted_by_reason": self.faulted_by_reason,
            "faulted_first": self.faulted_first,
        })
    }

    /// The human-readable lines.
    pub(super) fn write(&self, e: &mut impl Write) -> std::io::Result<()> {
        let mean = self.moves_sum as f64 / self.games.max(1) as f64;
        writeln!(
            e,
            "games     {} ({} positions as records, {} hidden)",
            self.games, self.records, self.hidden
        )?;
        if let Some(min) = self.moves_min {
            let max = self.moves_max;
            writeln!(e, "moves     min {min} / mean {mean:.1} / max {max}")?;
        }
        let list = |m: &mut dyn Iterator<Item = (String, u64)>| {
            m.map(|(k, v)| format!("{k} {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let hist = &mut self.moves_histogram.iter();
        let hist = list(&mut hist.map(|(k, v)| (format!("{k}-{}", k + BUCKET - 1), *v)));
        writeln!(e, "  by move count  {hist}")?;
        let results = list(&mut self.results.iter().map(|(k, v)| (k.to_string(), *v)));
        writeln!(e, "results   {results}")?;
        let endings = list(&mut self.endings.iter().map(|(k, v)| (k.clone(), *v)));
        writeln!(e, "endings   {endings}")?;
        writeln!(e, "faulted games  {}", self.faulted)?;
        for f in &self.faulted_first {
            writeln!(
                e,
                "faulted game at offset {}, move {} (byte {}): {}",
                f["game_offset"], f["move"], f["offset"], f["reason"]
            )?;
        }
        if self.faulted_first.len() as u64 != self.faulted {
            writeln!(
                e,
                "(first {} faulted games listed)",
                self.faulted_first.len()
            )?;
        }
        Ok(())
    }
}

/// How a game ended, as its format records it.
fn ending(meta: &GameMeta) -> String {
    match meta {
        GameMeta::Hcpe3 { result, .. } => {
            let flags = [(4, "repetition"), (8, "declaration"), (16, "max_moves")];
            let named: Vec<&str> = flags
                .iter()
                .filter(|(bit, _)| result & bit != 0)
                .map(|(_, name)| *name)
                .collect();
            if named.is_empty() {
                "no_flag".into()
            } else {
                named.join("+")
            }
        }
        GameMeta::Pack { end_reason, .. } => named(*end_reason as usize, &PACK_ENDINGS),
        GameMeta::Sbinpack { ply_result, .. } => {
            named((ply_result >> 10) as usize, &SBINPACK_RESULTS)
        }
    }
}

/// `names[code]`, or the code itself where it has no name.
fn named(code: usize, names: &[&str]) -> String {
    match names.get(code) {
        Some(name) if !name.is_empty() => name.to_string(),
        _ => format!("code_{code}"),
    }
}

/// .pack end reasons by their byte (`codec::game::pack`).
const PACK_ENDINGS: [&str; 14] = [
    "resign",
    "repetition",
    "max_moves",
    "interrupt",
    "time_up",
    "illegal_move",
    "perpetual_check",
    "",
    "",
    "",
    "win_csa24",
    "draw_csa24",
    "win_csa27",
    "try_rule",
];

/// sbinpack result codes (rsshogi `GameResult`, `codec::game::sbinpack`).
const SBINPACK_RESULTS: [&str; 22] = [
    "black_win",
    "white_win",
    "repetition",
    "error",
    "black_declaration",
    "white_declaration",
    "max_plies",
    "invalid",
    "black_forfeit",
    "white_forfeit",
    "impasse_draw",
    "paused",
    "black_illegal_move",
    "white_illegal_move",
    "adjudicated_draw",
    "",
    "black_timeout",
    "white_timeout",
    "",
    "",
    "black_try_rule",
    "white_try_rule",
];
