//! Integration tests, one binary (ripgrep style). Each module tests one area against
//! independent truth; `support` holds shared helpers. Data lives in tests/data (see its
//! README).

mod codec;
mod io;
mod perft;
mod support;
