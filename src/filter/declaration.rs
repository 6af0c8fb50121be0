//! The declaration stage: the configured rule (`[filter.declaration] rule = "csa27" | "24" |
//! "off"`) and the open-path scan (`[filter.entering_king] open_path = "off" | "tag" |
//! "drop"`), both from [`shogi::declaration`](crate::shogi::declaration).
//!
//! # Contract
//! - A position is dropped as `declaration` when the side to move can declare a **win** under
//!   the rule (the 24-point rule's 24–30 "draw" is reported, not dropped).
//! - With `open_path = "drop"` it is also dropped when the side to move's king has an open
//!   path into the enemy camp (or already stands in it); with `"tag"` the scan runs for both
//!   kings and is only reported ([`DeclarationVerdict::open_path`]).
//! - [`open_path_info`] is the statistics helper for `inspect`: both kings' paths.

use crate::shogi::declaration::{self as rules, DeclarationResult, DeclarationRule, EnteringPath};
use crate::shogi::{Color, Position};
use serde::{Deserialize, Serialize};

/// `rule` in `[filter.declaration]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RuleSetting {
    /// CSA 27-point rule (Black 28, White 27).
    #[default]
    #[serde(rename = "csa27")]
    Csa27,
    /// 24-point rule (31 or more wins).
    #[serde(rename = "24")]
    Jsa24,
    /// No declaration check.
    #[serde(rename = "off")]
    Off,
}

impl RuleSetting {
    /// The rule to apply, if any.
    pub fn rule(self) -> Option<DeclarationRule> {
        match self {
            RuleSetting::Csa27 => Some(DeclarationRule::Csa27),
            RuleSetting::Jsa24 => Some(DeclarationRule::Jsa24),
            RuleSetting::Off => None,
        }
    }
}

/// `open_path` in `[filter.entering_king]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpenPathMode {
    /// Do not scan.
    #[default]
    Off,
    /// Scan both kings and report (counted in report.json, written in the audit).
    Tag,
    /// Drop positions whose side to move has an open path into the enemy camp.
    Drop,
}

/// `[filter.declaration]`; a key left out takes its value from `Default`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct DeclarationConfig {
    /// Whether the stage runs (`false` is the same as `rule = "off"`).
    pub enabled: bool,
    /// The declaration rule.
    pub rule: RuleSetting,
}

impl Default for DeclarationConfig {
    fn default() -> Self {
        DeclarationConfig {
            enabled: true,
            rule: RuleSetting::default(),
        }
    }
}

/// `[filter.entering_king]`; a key left out takes its value from `Default`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct EnteringKingConfig {
    /// Whether the scan runs (`false` is the same as `open_path = "off"`).
    pub enabled: bool,
    /// What to do with the scan.
    pub open_path: OpenPathMode,
}

impl Default for EnteringKingConfig {
    fn default() -> Self {
        EnteringKingConfig {
            enabled: true,
            open_path: OpenPathMode::Off,
        }
    }
}

/// One king's open path, as reported.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct KingPath {
    /// A path into the enemy camp exists (or the king is already there).
    pub open: bool,
    /// The king already stands in the enemy camp.
    pub in_camp: bool,
    /// Files reached on the first camp rank: bit `f` = file `f + 1`.
    pub files: u16,
}

impl From<EnteringPath> for KingPath {
    fn from(p: EnteringPath) -> KingPath {
        KingPath {
            open: p.is_open(),
            in_camp: p.in_camp,
            files: p.files,
        }
    }
}

/// Both kings' open paths.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct OpenPathInfo {
    /// Black's king.
    pub black: KingPath,
    /// White's king.
    pub white: KingPath,
}

impl OpenPathInfo {
    /// The path of `color`'s king.
    pub fn of(&self, color: Color) -> KingPath {
        match color {
            Color::Black => self.black,
            Color::White => self.white,
        }
    }
}

/// Statistics helper (for `inspect`): which kings have an open path and which files they
/// reach. Two attack maps and two scans.
pub fn open_path_info(pos: &Position) -> OpenPathInfo {
    let [b, w] = rules::entering_paths(pos);
    OpenPathInfo {
        black: b.into(),
        white: w.into(),
    }
}

/// Open-path statistics over many positions (for `inspect` and report.json's tag counts).
/// Index 0 is Black's king, 1 White's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct OpenPathStats {
    /// Positions added.
    pub positions: u64,
    /// Positions where the king has an open path from outside the camp.
    pub open: [u64; 2],
    /// Positions where the king already stands in the enemy camp.
    pub in_camp: [u64; 2],
    /// Positions where the king has no open path.
    pub closed: [u64; 2],
    /// Per file (0 = file 1): positions where an open path (from outside) reaches it.
    pub files: [[u64; 9]; 2],
}

impl OpenPathStats {
    /// Adds one position's paths.
    pub fn add(&mut self, info: &OpenPathInfo) {
        self.positions += 1;
        for (i, k) in [info.black, info.white].iter().enumerate() {
            if k.in_camp {
                self.in_camp[i] += 1;
            } else if k.open {
                self.open[i] += 1;
                for (f, n) in self.files[i].iter_mut().enumerate() {
                    *n += ((k.files >> f) & 1) as u64;
                }
            } else {
                self.closed[i] += 1;
            }
        }
    }

    /// Adds `pos` (scans both kings).
    pub fn add_position(&mut self, pos: &Position) {
        self.add(&open_path_info(pos));
    }

    /// Merges counts gathered elsewhere (another thread).
    pub fn merge(&mut self, other: &OpenPathStats) {
        self.positions += other.positions;
        for i in 0..2 {
            self.open[i] += other.open[i];
            self.in_camp[i] += other.in_camp[i];
            self.closed[i] += other.closed[i];
            for f in 0..9 {
                self.files[i][f] += other.files[i][f];
            }
        }
    }
}

/// The declaration outcome, as reported.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Declared {
    /// No declaration possible (or the rule is off).
    #[default]
    None,
    /// The side to move can declare and win.
    Win,
    /// The side to move can declare for a draw (24-point rule, 24–30 points).
    Draw,
}

/// What the declaration stage found for one position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DeclarationVerdict {
    /// Drop the position as `declaration`.
    pub drop: bool,
    /// The rule's outcome for the side to move.
    pub declared: Declared,
    /// The side to move's points (when its king is in the enemy camp).
    pub points: Option<u32>,
    /// Its pieces in the enemy camp, king excluded (when its king is in the camp).
    pub pieces_in_camp: Option<u32>,
    /// Both kings' open paths, when `open_path` is `tag` or `drop`.
    pub open_path: Option<OpenPathInfo>,
}

/// The configured declaration stage; cheap to copy into every worker.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeclarationStage {
    rule: Option<DeclarationRule>,
    open_path: OpenPathMode,
}

impl DeclarationStage {
    /// The stage for these two config tables.
    pub fn new(decl: &DeclarationConfig, king: &EnteringKingConfig) -> DeclarationStage {
        DeclarationStage {
            rule: if decl.enabled { decl.rule.rule() } else { None },
            open_path: if king.enabled {
                king.open_path
            } else {
                OpenPathMode::Off
            },
        }
    }

    /// The stage with an explicit rule and mode.
    pub fn with(rule: Option<DeclarationRule>, open_path: OpenPathMode) -> DeclarationStage {
        DeclarationStage { rule, open_path }
    }

    /// Whether the stage does anything at all.
    pub fn is_active(&self) -> bool {
        self.rule.is_some() || self.open_path != OpenPathMode::Off
    }

    /// Evaluates `pos` (any position; no move is made).
    pub fn evaluate(&self, pos: &Position) -> DeclarationVerdict {
        let mut v = DeclarationVerdict::default();
        if let Some(rule) = self.rule {
            let count = rules::declaration_count(pos);
            if count.king_in_camp {
                v.points = Some(count.points);
                v.pieces_in_camp = Some(count.pieces_in_camp);
            }
            v.declared = match rules::judge(&count, pos.side_to_move(), rule) {
                DeclarationResult::None => Declared::None,
                DeclarationResult::Win => Declared::Win,
                DeclarationResult::Draw => Declared::Draw,
            };
            v.drop = v.declared == Declared::Win;
        }
        if self.open_path != OpenPathMode::Off {
            let info = open_path_info(pos);
            if self.open_path == OpenPathMode::Drop && info.of(pos.side_to_move()).open {
                v.drop = true;
            }
            v.open_path = Some(info);
        }
        v
    }
}
