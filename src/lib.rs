//! posfilter cleans shogi training data: it reads start-position sets and teacher data
//! (SFEN, USI, PackedSfen, psv, HuffmanCodedPos, hcpe), drops positions that are already
//! decided (checkmated, forced mate, mated, entering-king declaration), repetition-tainted
//! or duplicated, writes the clean positions back in the same format and harvests the mates.
//!
//! # Layers
//! `shogi` (rules core, no I/O) → `codec` (record formats) → `book` (opening books:
//! positions with their moves, and their file formats) → `io` (files: mmap, zstd,
//! detection, batches, shard writers) → `mate` (df-pn solver) →
//! `filter` (per-position decisions) → `report` (report.json's run record, report.html) →
//! `pipeline` (the streaming run) → `cluster` (a run split over many tasks, and their
//! merge). No module imports from a layer above it.
//!
//! # Glossary
//! mate 詰み · check 王手 · drop 打 · hand 持ち駒 · repetition 千日手 · perpetual check
//! 連続王手の千日手 · pawn-drop mate 打ち歩詰め (illegal) · two pawns on a file 二歩 (illegal) ·
//! entering king 入玉 · declaration 入玉宣言 · dominance 優越関係 · proof / disproof pieces
//! 証明駒 / 反証駒.

pub mod book;
pub mod cluster;
pub mod codec;
pub mod filter;
pub mod hugepages;
pub mod io;
pub mod mate;
pub mod pipeline;
pub mod prefetch;
pub mod report;
pub mod shogi;
