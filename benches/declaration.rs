#![allow(missing_docs)] // criterion_group! generates undocumented items
//! Cost per position of the entering-king code on the 20,000 corpus positions: the seed-004
//! (docs/references.md) scan (attack map + scan, both kings; and the scan alone given the
//! map), the declaration check, and, for scale, decoding one 32-byte PackedSfen record
//! (`codec::psfen`, the records made by encoding the same positions) and parsing one SFEN;
//! also the repetition history push and the mirror-aware dedup key. Criterion reports time
//! per pass over all positions with `Throughput::Elements`, so "elem/s" is positions per
//! second; the `_hot` variants loop 40 times over 500 positions that stay in cache, as in
//! the pipeline where the position was just decoded.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use posfilter::codec::psfen::{decode_psfen, encode_psfen};
use posfilter::filter::{dedup_key, GameHistory};
use posfilter::shogi::declaration::{
    attack_map, declaration, entering_path, entering_path_with, DeclarationRule,
};
use posfilter::shogi::{Color, Position};
use std::path::PathBuf;

fn corpus() -> (Vec<String>, Vec<Position>) {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/filter/labels_filter.jsonl.zst");
    let bytes = std::fs::read(&path).expect("tests/data/filter/labels_filter.jsonl.zst");
    let text = String::from_utf8(zstd::decode_all(&bytes[..]).expect("zstd")).expect("utf8");
    let sfens: Vec<String> = text
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("json");
            v["sfen"].as_str().expect("sfen").to_owned()
        })
        .collect();
    let positions = sfens
        .iter()
        .map(|s| Position::from_sfen(s).expect("sfen"))
        .collect();
    (sfens, positions)
}

fn bench(c: &mut Criterion) {
    let (sfens, positions) = corpus();
    let n = positions.len() as u64;
    let maps: Vec<_> = positions
        .iter()
        .map(|p| {
            [Color::Black, Color::White]
                .map(|c| attack_map(p, c.flip(), p.occupied().without(p.king_square(c))))
        })
        .collect();
    let mut g = c.benchmark_group("per_position");
    g.throughput(Throughput::Elements(n));
    g.bench_function("open_path_both_kings", |b| {
        b.iter(|| {
            let mut acc = 0u32;
            for p in &positions {
                acc += entering_path(p, Color::Black).files as u32;
                acc += entering_path(p, Color::White).files as u32;
            }
            black_box(acc)
        })
    });
    // The same on 500 positions that stay in cache, as in the pipeline where the position was
    // just decoded (the full set is ~8 MB of `Position`s, so the loop above also measures
    // cache misses).
    let hot = &positions[..500];
    g.bench_function("open_path_both_kings_hot", |b| {
        b.iter(|| {
            let mut acc = 0u32;
            for _ in 0..40 {
                for p in hot {
                    acc += entering_path(p, Color::Black).files as u32;
                    acc += entering_path(p, Color::White).files as u32;
                }
            }
            black_box(acc)
        })
    });
    g.bench_function("declaration_csa27_hot", |b| {
        b.iter(|| {
            let mut acc = 0u32;
            for _ in 0..40 {
                for p in hot {
                    acc += declaration(p, DeclarationRule::Csa27) as u32;
                }
            }
            black_box(acc)
        })
    });
    let records: Vec<[u8; 32]> = positions
        .iter()
        .map(|p| encode_psfen(p).expect("corpus positions encode"))
        .collect();
    g.bench_function("peer_decode_psfen", |b| {
        b.iter(|| {
            let mut acc = 0u32;
            for r in &records {
                acc += decode_psfen(r).map_or(0, |p| p.ply());
            }
            black_box(acc)
        })
    });
    g.bench_function("peer_decode_psfen_hot", |b| {
        b.iter(|| {
            let mut acc = 0u32;
            for _ in 0..40 {
                for r in &records[..500] {
                    acc += decode_psfen(r).map_or(0, |p| p.ply());
                }
            }
            black_box(acc)
        })
    });
    g.bench_function("peer_position_from_sfen_hot", |b| {
        b.iter(|| {
            let mut acc = 0u32;
            for _ in 0..40 {
                for s in &sfens[..500] {
                    acc += Position::from_sfen(s).map_or(0, |p| p.ply());
                }
            }
            black_box(acc)
        })
    });
    g.bench_function("open_path_side_to_move", |b| {
        b.iter(|| {
            let mut acc = 0u32;
            for p in &positions {
                acc += entering_path(p, p.side_to_move()).files as u32;
            }
            black_box(acc)
        })
    });
    g.bench_function("scan_only_both_kings_given_map", |b| {
        b.iter(|| {
            let mut acc = 0u32;
            for (p, m) in positions.iter().zip(&maps) {
                acc += entering_path_with(p, Color::Black, m[0]).files as u32;
                acc += entering_path_with(p, Color::White, m[1]).files as u32;
            }
            black_box(acc)
        })
    });
    g.bench_function("attack_map_one_side", |b| {
        b.iter(|| {
            let mut acc = 0u32;
            for p in &positions {
                let us = p.side_to_move();
                acc += attack_map(p, us.flip(), p.occupied()).count();
            }
            black_box(acc)
        })
    });
    g.bench_function("declaration_csa27", |b| {
        b.iter(|| {
            let mut acc = 0u32;
            for p in &positions {
                acc += declaration(p, DeclarationRule::Csa27) as u32;
            }
            black_box(acc)
        })
    });
    g.bench_function("history_push", |b| {
        let mut h = GameHistory::new();
        b.iter(|| {
            h.clear();
            let mut acc = 0u32;
            for p in &positions {
                acc += h.push_position(p).exact;
            }
            black_box(acc)
        })
    });
    g.bench_function("dedup_key_mirror", |b| {
        b.iter(|| {
            let mut acc = 0u128;
            for p in &positions {
                acc ^= dedup_key(p, true).0;
            }
            black_box(acc)
        })
    });
    g.bench_function("peer_position_from_sfen", |b| {
        b.iter(|| {
            let mut acc = 0u32;
            for s in &sfens {
                acc += Position::from_sfen(s).map_or(0, |p| p.ply());
            }
            black_box(acc)
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
