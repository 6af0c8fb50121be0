//! Integration tests, one binary (ripgrep style). Each module tests one area against
//! independent truth; `support` holds shared helpers. Data lives in tests/data (see its
//! README).

mod codec;
mod differential;
mod filter;
mod mate;
mod io;
mod perft;
mod pipeline;
mod support;
