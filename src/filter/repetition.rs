//! Repetition (千日手) against the full history of a game: exact and inferior repetitions
//! (seeds 000, 001: docs/references.md) and perpetual check.
//!
//! A [`GameHistory`] holds every position of one game so far, oldest first, as
//! [`HistoryEntry`]s (board key = board + side to move, both hands, in-check flag). Pushing a
//! position compares it with **every** earlier position of the game with the same board key
//! (not a 16-ply window) and returns a [`RepetitionScan`]:
//! - `exact`: same hands;
//! - `inferior`: the side to move now holds strictly less (every count ≤, one <): it lost
//!   material by going round a cycle (seed 000);
//! - `superior`, `incomparable`: the other two hand relations ("not superior" is not
//!   "inferior");
//! - the ply distances to the nearest exact / inferior / same-board position;
//! - whether the cycle back to the nearest exact repetition was a perpetual check.
//!
//! Within one game the pieces are conserved, so equal board + equal side-to-move hand means
//! equal hands for both sides; the side to move's hand alone decides the relation.
//!
//! # Cost
//! Linear in the game's length whatever it repeats. The earlier positions with the position's
//! board key are held in groups by the side to move's hand (a group: how many, the newest).
//! The exact repetition is one lookup of the position's own group; the other relations walk
//! the board's groups, not its positions, so a king shuffled back and forth 50,000 times is
//! one group. A push is O(1) amortised plus at most [`MAX_HANDS_SCANNED`] hand comparisons:
//! a board holds the first [`MAX_HANDS_SCANNED`] different hands it is seen with in the walk,
//! later new hands only in the lookup (a real game shows a board with a handful of hands; a
//! psv "game" of arbitrary records sharing one board can show it with 65,535). Past that
//! many, exact repetitions are still all found, and the counts and the nearest distances of
//! the other relations cover the board's first [`MAX_HANDS_SCANNED`] hands only: a position
//! whose only larger earlier hand is a later one is not an inferior repetition.
//! [`GameHistory::load_usi`] scans only the line's final position. Perpetual check is O(1):
//! `check_run[k]` is the number of consecutive positions `k, k-2, k-4, …` whose side to move
//! is in check.
//!
//! # Invariants
//! - Board keys carry the side to move in bit 0 ([`zobrist::SIDE`]), so equal board keys
//!   imply the same side to move and an even ply distance.
//! - A 64-bit board-key collision inside one game (probability about `n² / 2^65` for `n`
//!   positions) could report a false repetition; it is not guarded against.

use super::keyhash::BuildKeyHasher;
use crate::codec::{History, PlyState};
use crate::shogi::zobrist;
use crate::shogi::{Color, Hand, HandRelation, Position};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// One position of a game as the repetition filter sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HistoryEntry {
    /// Board and side to move ([`Position::board_key`]).
    pub board_key: u64,
    /// Both hands, Black first.
    pub hands: [Hand; 2],
    /// The side to move is in check.
    pub in_check: bool,
}

impl HistoryEntry {
    /// The entry for `pos`.
    #[inline]
    pub fn of(pos: &Position) -> HistoryEntry {
        HistoryEntry {
            board_key: pos.board_key(),
            hands: pos.hands(),
            in_check: pos.in_check(),
        }
    }

    /// The side to move (bit 0 of the board key).
    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        if self.board_key & zobrist::SIDE != 0 {
            Color::White
        } else {
            Color::Black
        }
    }
}

impl From<&PlyState> for HistoryEntry {
    fn from(s: &PlyState) -> HistoryEntry {
        HistoryEntry {
            board_key: s.board_key,
            hands: s.hands,
            in_check: s.in_check,
        }
    }
}

/// Who gave check with every move of a repetition cycle (連続王手の千日手).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Perpetual {
    /// Neither side checked throughout, or there is no exact repetition.
    #[default]
    None,
    /// The history has gaps inside the cycle (psv data that skips plies), so who checked
    /// cannot be told.
    Unknown,
    /// The side to move gave check with each of its moves in the cycle (it loses; cshogi
    /// `REPETITION_LOSE`). Takes precedence if both sides did.
    BySideToMove,
    /// The opponent gave check with each of its moves (the side to move wins; cshogi
    /// `REPETITION_WIN`).
    ByOpponent,
}

/// What a position's history says about it. Counters cover every earlier position of the
/// game with the same board and side to move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RepetitionScan {
    /// Earlier positions with the same hands.
    pub exact: u32,
    /// Earlier positions where the side to move held more (it is now inferior).
    pub inferior: u32,
    /// Earlier positions where the side to move held less.
    pub superior: u32,
    /// Earlier positions whose hands are incomparable.
    pub incomparable: u32,
    /// Plies back to the nearest exact repetition.
    pub nearest_exact_back: Option<u32>,
    /// Plies back to the nearest inferior match.
    pub nearest_inferior_back: Option<u32>,
    /// Plies back to the nearest same-board position, whatever its hands.
    pub nearest_same_board_back: Option<u32>,
    /// Hand relation (side to move, now vs then) to that nearest same-board position.
    #[serde(skip)]
    pub nearest_relation: Option<HandRelation>,
    /// Perpetual check in the cycle back to the nearest exact repetition.
    pub perpetual: Perpetual,
}

impl RepetitionScan {
    /// How many times this exact position has occurred in the game, this one included.
    #[inline]
    pub fn occurrences(&self) -> u32 {
        self.exact + 1
    }

    /// The repetition kind to drop for, given which kinds are selected: `exact` first,
    /// then `inferior`.
    #[inline]
    pub fn verdict(&self, select: RepetitionSelect) -> Option<RepetitionKind> {
        if select.exact && self.exact > 0 {
            Some(RepetitionKind::Exact)
        } else if select.inferior && self.inferior > 0 {
            Some(RepetitionKind::Inferior)
        } else {
            None
        }
    }
}

/// A kind of repetition the filter can drop for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RepetitionKind {
    /// Same board, side and hands as an earlier position.
    Exact,
    /// Same board and side, the side to move holding strictly less (seed 000,
    /// docs/references.md).
    Inferior,
}

/// Which repetition kinds are selected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct RepetitionSelect {
    /// Drop exact repetitions.
    pub exact: bool,
    /// Drop inferior repetitions.
    pub inferior: bool,
}

impl RepetitionSelect {
    /// Both kinds.
    pub const ALL: RepetitionSelect = RepetitionSelect {
        exact: true,
        inferior: true,
    };

    /// From a list of kinds (as in `drop = ["exact", "inferior"]`).
    pub fn from_kinds(kinds: &[RepetitionKind]) -> RepetitionSelect {
        RepetitionSelect {
            exact: kinds.contains(&RepetitionKind::Exact),
            inferior: kinds.contains(&RepetitionKind::Inferior),
        }
    }
}

/// `[filter.repetition]`; a key left out takes its value from `Default`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct RepetitionConfig {
    /// Whether the stage runs.
    pub enabled: bool,
    /// Which kinds drop a position.
    pub drop: Vec<RepetitionKind>,
}

impl Default for RepetitionConfig {
    fn default() -> Self {
        RepetitionConfig {
            enabled: true,
            drop: vec![RepetitionKind::Exact, RepetitionKind::Inferior],
        }
    }
}

impl RepetitionConfig {
    /// The selection this config drops for (nothing when disabled).
    pub fn select(&self) -> RepetitionSelect {
        if self.enabled {
            RepetitionSelect::from_kinds(&self.drop)
        } else {
            RepetitionSelect::default()
        }
    }
}

const NONE: u32 = u32::MAX;

/// The most hand groups of one board a scan walks (see the module doc's "Cost").
pub const MAX_HANDS_SCANNED: u32 = 256;

#[derive(Clone, Copy, Debug)]
struct Slot {
    entry: HistoryEntry,
    /// Index of the previous entry with the same board key, or `NONE`.
    prev_same: u32,
    /// Consecutive positions `k, k-2, …` (this one included) whose side to move is in check.
    check_run: u32,
    /// The position's ply number in its game.
    ply: u32,
}

/// The positions of one game so far, with a board-key index. Reuse one per worker and
/// [`GameHistory::clear`] it between games: the allocations are kept.
///
/// Feeding it: USI lines through [`GameHistory::load_usi`] (or [`GameHistory::push_position`]
/// per replayed move); psv records in game order through [`GameHistory::push_at`] with their
/// `gamePly`, which also detects the start of the next game.
#[derive(Clone, Debug, Default)]
pub struct GameHistory {
    slots: Vec<Slot>,
    /// Per board key: the newest slot and the first of its hand groups.
    boards: HashMap<u64, Board, BuildKeyHasher>,
    /// Per (board key, side to move's hand): its group.
    group_of: HashMap<(u64, Hand), u32, BuildKeyHasher>,
    groups: Vec<HandGroup>,
    /// The scan of the newest position.
    last_scan: Option<RepetitionScan>,
    /// Hand groups compared by scans since the history was made (for the tests of the
    /// bound; `clear` keeps it).
    compared: u64,
}

/// The positions of a game with one board key.
#[derive(Clone, Copy, Debug)]
struct Board {
    /// The newest slot with this board key.
    newest: u32,
    /// The newest hand group of the board's walk (linked through `HandGroup::next`).
    first_group: u32,
    /// Hand groups in the walk (at most [`MAX_HANDS_SCANNED`]).
    walked: u32,
}

/// The positions of a game with one board key and one side-to-move hand.
#[derive(Clone, Copy, Debug)]
struct HandGroup {
    /// The side to move's hand they share.
    hand: Hand,
    /// How many.
    count: u32,
    /// The newest one's slot.
    newest: u32,
    /// The board's next (older) group in its walk, or `NONE` (also for a group past the
    /// board's first [`MAX_HANDS_SCANNED`], which is in no walk).
    next: u32,
}

impl GameHistory {
    /// An empty history.
    pub fn new() -> GameHistory {
        GameHistory::default()
    }

    /// Forgets every position (a new game starts), keeping the allocations.
    pub fn clear(&mut self) {
        self.slots.clear();
        self.boards.clear();
        self.group_of.clear();
        self.groups.clear();
        self.last_scan = None;
    }

    /// Number of positions held.
    #[inline]
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether no position is held.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The `i`-th position of the game (0 = oldest).
    #[inline]
    pub fn entry(&self, i: usize) -> Option<&HistoryEntry> {
        self.slots.get(i).map(|s| &s.entry)
    }

    /// Appends `pos` and scans it against every earlier position of the game.
    #[inline]
    pub fn push_position(&mut self, pos: &Position) -> RepetitionScan {
        self.push(HistoryEntry::of(pos))
    }

    /// Appends `entry` as the next ply and scans it against every earlier position of the
    /// game.
    pub fn push(&mut self, entry: HistoryEntry) -> RepetitionScan {
        let ply = self.slots.last().map_or(0, |s| s.ply.saturating_add(1));
        self.push_at(entry, ply)
    }

    /// Appends `entry` at ply `ply` of its game (psv `gamePly`, which may skip plies) and
    /// scans it. A ply not greater than the previous one starts a new game: the history is
    /// cleared first (psv: a game is a run of records with increasing `gamePly`). Distances
    /// are in plies; perpetual check across a gap is [`Perpetual::Unknown`].
    pub fn push_at(&mut self, entry: HistoryEntry, ply: u32) -> RepetitionScan {
        let scan = self.append(entry, ply, true).unwrap_or_default();
        self.last_scan = Some(scan);
        scan
    }

    /// Appends `entry` at `ply` (clearing the history first when the ply does not follow
    /// on), scans it if `scan` (against the groups as they were before it), then files it
    /// under its board and hand group.
    fn append(&mut self, entry: HistoryEntry, ply: u32, scan: bool) -> Option<RepetitionScan> {
        if self.slots.last().is_some_and(|s| s.ply >= ply) {
            self.clear();
        }
        let idx = self.slots.len() as u32;
        let key = entry.board_key;
        let (prev_same, first_group, walked) = self
            .boards
            .get(&key)
            .map_or((NONE, NONE, 0), |b| (b.newest, b.first_group, b.walked));
        let check_run = if entry.in_check {
            1 + idx
                .checked_sub(2)
                .map_or(0, |k| self.slots[k as usize].check_run)
        } else {
            0
        };
        self.slots.push(Slot {
            entry,
            prev_same,
            check_run,
            ply,
        });
        let hand = entry.hands[entry.side_to_move().index()];
        let own = self.group_of.get(&(key, hand)).copied();
        let result = scan.then(|| self.scan_groups(idx as usize, own, first_group));
        let (mut first, mut walked) = (first_group, walked);
        match own {
            Some(g) => {
                let group = &mut self.groups[g as usize];
                group.count += 1;
                group.newest = idx;
            }
            None => {
                let g = self.groups.len() as u32;
                let in_walk = walked < MAX_HANDS_SCANNED;
                self.groups.push(HandGroup {
                    hand,
                    count: 1,
                    newest: idx,
                    next: if in_walk { first_group } else { NONE },
                });
                self.group_of.insert((key, hand), g);
                if in_walk {
                    (first, walked) = (g, walked + 1);
                }
            }
        }
        self.boards.insert(
            key,
            Board {
                newest: idx,
                first_group: first,
                walked,
            },
        );
        self.last_scan = None;
        result
    }

    /// Starts over with the history of a USI line (its start position and every position
    /// before each move, from [`crate::codec::text::parse_usi_line`]) and pushes the line's
    /// final position `last`, returning its scan. Only `last` is scanned.
    pub fn load_usi(&mut self, history: &History, last: &Position) -> RepetitionScan {
        self.clear();
        for s in &history.plies {
            let ply = self.slots.last().map_or(0, |s| s.ply.saturating_add(1));
            self.append(s.into(), ply, false);
        }
        self.push_position(last)
    }

    /// The scan of the newest position as `push` returned it; `None` when empty or when
    /// it was not scanned (the history of [`GameHistory::load_usi`] before its last).
    pub fn scan_last(&self) -> Option<RepetitionScan> {
        self.last_scan
    }

    /// Earlier entries with board key `board_key`, newest first, with their indices.
    pub fn lookup(&self, board_key: u64) -> impl Iterator<Item = (usize, &HistoryEntry)> + '_ {
        let mut next = self.boards.get(&board_key).map_or(NONE, |b| b.newest);
        std::iter::from_fn(move || {
            if next == NONE {
                return None;
            }
            let i = next as usize;
            let slot = &self.slots[i];
            next = slot.prev_same;
            Some((i, &slot.entry))
        })
    }

    /// Hand groups compared by scans since the history was made (at most
    /// [`MAX_HANDS_SCANNED`] per position pushed).
    pub fn compared(&self) -> u64 {
        self.compared
    }

    /// The scan of slot `idx` against its own hand group `own` and the hand groups of its
    /// board's walk from `group` on (the groups as they were before `idx` was filed).
    fn scan_groups(&mut self, idx: usize, own: Option<u32>, mut group: u32) -> RepetitionScan {
        let mut scan = RepetitionScan::default();
        let cur = &self.slots[idx];
        let side = cur.entry.side_to_move().index();
        let mine = cur.entry.hands[side];
        if cur.prev_same != NONE {
            let nearest = &self.slots[cur.prev_same as usize];
            scan.nearest_same_board_back = Some(cur.ply - nearest.ply);
            scan.nearest_relation = Some(mine.relation(nearest.entry.hands[side]));
        }
        if let Some(g) = own.map(|g| &self.groups[g as usize]) {
            let back = cur.ply - self.slots[g.newest as usize].ply;
            scan.exact = g.count;
            scan.nearest_exact_back = Some(back);
            scan.perpetual = self.perpetual(idx, g.newest as usize, back);
        }
        let nearer = |old: Option<u32>, back: u32| Some(old.map_or(back, |o| o.min(back)));
        let mut compared = 0;
        while group != NONE {
            let g = &self.groups[group as usize];
            let back = cur.ply - self.slots[g.newest as usize].ply;
            compared += 1;
            match mine.relation(g.hand) {
                HandRelation::Equal => {} // the position's own group, done above
                HandRelation::Inferior => {
                    scan.inferior += g.count;
                    scan.nearest_inferior_back = nearer(scan.nearest_inferior_back, back);
                }
                HandRelation::Superior => scan.superior += g.count,
                HandRelation::Incomparable => scan.incomparable += g.count,
            }
            group = g.next;
        }
        self.compared += compared;
        scan
    }

    /// Who checked throughout the cycle of `back` plies from slot `j` to slot `idx`. The side
    /// to move's moves in the cycle left positions `idx-1, idx-3, …, idx-back+1` with the
    /// opponent in check; the opponent's moves left `idx, idx-2, …, idx-back+2` with the
    /// side to move in check. Each side made `back / 2` moves.
    fn perpetual(&self, idx: usize, j: usize, back: u32) -> Perpetual {
        if (idx - j) as u32 != back {
            return Perpetual::Unknown;
        }
        let moves = back / 2;
        let by_us = idx >= 1 && self.slots[idx - 1].check_run >= moves;
        let by_them = self.slots[idx].check_run >= moves;
        if by_us {
            Perpetual::BySideToMove
        } else if by_them {
            Perpetual::ByOpponent
        } else {
            Perpetual::None
        }
    }
}
