//! File input and output: the input file list (paths, globs, mmap, zstd), format
//! detection, batching with global record indices, and the sharded writers.
//!
//! Flow: [`input::expand`] → [`detect::detect`] per file → [`batch::Batches`] (owned
//! batches with global indices) → … → [`output::ShardWriter`].

pub mod batch;
pub mod detect;
pub mod input;
pub mod output;
pub mod zstd_stream;
