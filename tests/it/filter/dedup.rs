//! Dedup.
