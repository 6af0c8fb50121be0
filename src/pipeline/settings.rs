//! [`Settings`]: what a worker needs from the [`Config`], resolved
//! once into the filter, solver and codec types.

use super::config::{Config, MoveFieldPolicy, TableScope, UnknownPolicy};
use crate::codec::Format;
use crate::filter::{DeclarationStage, RepetitionSelect};
use crate::mate::cache::VerdictCache;
use crate::mate::Limits;
use std::sync::Arc;
use std::time::Duration;

/// Mate-stage settings.
#[derive(Debug, Clone)]
pub struct MateSettings {
    /// Node budget, length limit, time guard.
    pub limits: Limits,
    /// Search positions in check from the AND node.
    pub and_root: bool,
    /// Table per worker, MiB.
    pub table_mb: usize,
    /// Verdicts shared by all workers of the run (`None`: every position is searched).
    pub cache: Option<Arc<VerdictCache>>,
    /// Keep the table across the positions of a batch (`table_scope = "batch"`; then
    /// `cache` is `None`).
    pub table_per_batch: bool,
    /// Drop positions left `unknown` (`filter.mate.unknown = "drop"`) instead of keeping them.
    pub drop_unknown: bool,
    /// Give kept `unknown` positions an audit detail with their SFEN
    /// (`filter.mate.unknown = "tag"`).
    pub tag_unknown: bool,
}

/// Per-position settings shared by all workers (read-only during the run).
#[derive(Debug, Clone)]
pub struct Settings {
    /// The terminal / mate stage, if enabled.
    pub mate: Option<MateSettings>,
    /// Which repetitions drop, if the stage is enabled.
    pub repetition: Option<RepetitionSelect>,
    /// Declaration and open-path stage, if active.
    pub declaration: Option<DeclarationStage>,
    /// Compute dedup keys.
    pub dedup: bool,
    /// Mirror-aware dedup keys.
    pub dedup_mirror: bool,
    /// Reject records whose move field is illegal.
    pub move_field_reject: bool,
    /// Zero illegal move fields in kept records.
    pub move_field_clear: bool,
    /// Output format, `None` = same as the input.
    pub output_format: Option<Format>,
    /// Format of the binary mates file.
    pub mates_format: Format,
}

impl Settings {
    /// Resolves the worker settings from a config.
    pub fn from_config(c: &Config) -> Settings {
        let f = &c.raw.filter;
        let mate = f.mate.enabled.then(|| MateSettings {
            limits: Limits {
                nodes: f.mate.nodes,
                max_plies: (f.mate.max_plies > 0).then_some(f.mate.max_plies),
                time: (f.mate.time_ms > 0).then(|| Duration::from_millis(f.mate.time_ms)),
                shorten: f.mate.shorten,
            },
            and_root: f.mate.and_root,
            table_mb: c.raw.workers.table_mb,
            cache: VerdictCache::new(f.mate.cache_mb).map(Arc::new),
            table_per_batch: f.mate.table_scope == TableScope::Batch,
            drop_unknown: f.mate.unknown == UnknownPolicy::Drop,
            tag_unknown: f.mate.unknown == UnknownPolicy::Tag,
        });
        let declaration = DeclarationStage::new(&f.declaration, &f.entering_king);
        Settings {
            mate,
            repetition: (f.repetition.enabled && !f.repetition.drop.is_empty())
                .then(|| f.repetition.select()),
            declaration: declaration.is_active().then_some(declaration),
            dedup: f.dedup.enabled,
            dedup_mirror: f.dedup.mirror,
            move_field_reject: f.move_field == MoveFieldPolicy::Reject,
            move_field_clear: f.move_field == MoveFieldPolicy::Clear,
            output_format: c.raw.output.format.format(),
            mates_format: c.raw.mates.format.format().unwrap_or(Format::Psv),
        }
    }
}
