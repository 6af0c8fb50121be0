//! File input and output: the input file list (paths, globs, mmap, zstd), format
//! detection, batching with global record indices, and the sharded writers.
//!
//! Flow: [`input::expand`] → [`detect::detect`] per file → [`batch::Batches`] (owned
//! batches with global indices) → … → [`output::ShardWriter`]. A run split over several
//! tasks cuts the input with [`shard_plan::ShardPlan`]; its tasks dedup across the whole input
//! through [`key_run`]s and [`dup_list`]s.

pub mod batch;
pub(crate) mod bucket_file;
pub mod detect;
pub mod dup_list;
pub mod input;
pub mod key_run;
mod key_sort;
pub mod output;
pub mod shard_plan;
pub mod zstd_stream;
