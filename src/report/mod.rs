//! The run report: the parts of report.json that say what ran on what ([`provenance`]) and
//! the histograms, throughput samples and game-result cross-tab behind its plots
//! ([`record`], [`histogram`]).
//!
//! [`crate::pipeline::report`] writes report.json's counts. This module imports nothing
//! from `pipeline` (which uses its types to fill report.json).

pub mod histogram;
pub mod provenance;
pub mod record;
