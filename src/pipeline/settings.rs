//! [`Settings`]: what a worker needs from the [`Config`], resolved
//! once into the filter, solver and codec types.

use super::config::{Config, FilterConfig, MoveFieldPolicy, TableScope, UnknownPolicy};
use crate::codec::Format;
use crate::filter::{DeclarationStage, RepetitionSelect};
use crate::mate::cache::VerdictCache;
use crate::mate::Limits;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// Mate-stage settings.
#[derive(Debug, Clone)]
pub(crate) struct MateSettings {
    /// Node budget, length limit, time guard.
    pub(crate) limits: Limits,
    /// Search positions in check from the AND node.
    pub(crate) and_root: bool,
    /// Table per worker, MiB.
    pub(crate) table_mb: usize,
    /// Verdicts shared by all workers of the run (`None`: every position is searched).
    pub(crate) cache: Option<Arc<VerdictCache>>,
    /// Keep the table across the positions of a batch (`table_scope = "batch"`; then
    /// `cache` is `None`).
    pub(crate) table_per_batch: bool,
    /// Drop positions left `unknown` (`filter.mate.unknown = "drop"`) instead of keeping them.
    pub(crate) drop_unknown: bool,
    /// Give kept `unknown` positions an audit detail with their SFEN
    /// (`filter.mate.unknown = "tag"`).
    pub(crate) tag_unknown: bool,
}

/// Per-position settings shared by all workers (read-only during the run).
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    /// The terminal / mate stage, if enabled.
    pub(crate) mate: Option<MateSettings>,
    /// Which repetitions drop, if the stage is enabled.
    pub(crate) repetition: Option<RepetitionSelect>,
    /// Declaration and open-path stage, if active.
    pub(crate) declaration: Option<DeclarationStage>,
    /// Compute dedup keys.
    pub(crate) dedup: bool,
    /// Mirror-aware dedup keys.
    pub(crate) dedup_mirror: bool,
    /// Reject records whose move field is illegal.
    pub(crate) move_field_reject: bool,
    /// Zero illegal move fields in kept records.
    pub(crate) move_field_clear: bool,
    /// Output format, `None` = same as the input.
    pub(crate) output_format: Option<Format>,
    /// Format of the binary mates file (`None`: mates are not written).
    pub(crate) mates_format: Option<Format>,
    /// Drop a record that would be written as hcpe without a move (`no_move`; a run's
    /// `output.keep_moveless_hcpe = false`). False from [`Settings::new`] (the stages
    /// alone); a run and the `Decider` set it from the configuration.
    pub(crate) drop_moveless_hcpe: bool,
    /// Set when the run is to stop ([`super::control`]): workers leave their batch, solvers
    /// their search. `None` from [`Settings::new`].
    pub(crate) abort: Option<Arc<AtomicBool>>,
}

impl Settings {
    /// Resolves the worker settings from a config.
    pub(crate) fn from_config(c: &Config) -> Settings {
        let settings = Settings::new(&c.filter, c.table_mb, c.out_format, c.mates_format);
        Settings {
            abort: c.control.as_ref().map(|c| c.abort_flag()),
            drop_moveless_hcpe: !c.keep_moveless_hcpe,
            ..settings
        }
    }

    /// The worker settings of the stages `f` with a `table_mb` MiB table per solver, kept
    /// records written as `output_format` (`None`: as read) and mates as `mates_format`.
    pub(crate) fn new(
        f: &FilterConfig,
        table_mb: usize,
        output_format: Option<Format>,
        mates_format: Option<Format>,
    ) -> Settings {
        let mate = f.mate.enabled.then(|| MateSettings {
            limits: Limits {
                nodes: f.mate.nodes,
                max_plies: (f.mate.max_plies > 0).then_some(f.mate.max_plies),
                time: (f.mate.time_ms > 0).then(|| Duration::from_millis(f.mate.time_ms)),
                shorten: f.mate.shorten,
            },
            and_root: f.mate.and_root,
            table_mb,
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
            output_format,
            mates_format,
            drop_moveless_hcpe: false,
            abort: None,
        }
    }
}
