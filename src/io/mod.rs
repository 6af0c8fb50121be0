//! File input and output: the input file list (paths, globs, mmap, zstd), format
//! detection, batching with global record indices, and the sharded writers.
//!
//! Flow: [`input::expand`] → [`detect::detect`] per file → [`batch::Batches`] (owned
//! batches with global indices) → … → [`output::ShardWriter`]. A run split over several
//! tasks cuts the input with [`shard_plan::ShardPlan`].

pub mod batch;
pub mod detect;
pub mod input;
pub mod output;
pub mod shard_plan;
pub mod zstd_stream;
