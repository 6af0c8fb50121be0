//! Integration tests, one binary (ripgrep style). Each module tests one area against
//! independent truth; `support` holds shared helpers. Data lives in tests/data (see its
//! README).

mod book;
mod book_walk;
mod browser;
mod cluster;
mod cluster_games;
mod cluster_lock;
mod codec;
mod dedup_reduce;
mod differential;
mod edited;
mod filter;
mod games;
mod games_bad;
mod games_io;
mod games_long;
mod input_files;
mod io;
mod layout;
mod mate;
mod perft;
mod pipeline;
mod report;
mod resume;
mod run_record;
mod shard_plan;
mod support;
mod zstd_input;
