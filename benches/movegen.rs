#![allow(missing_docs)] // criterion_group! generates undocumented items
//! Perft throughput (leaves per second) for posfilter's core and two peers in the same run:
//! `rsshogi` (make/unmake with its own undo stack; bulk via its `perft`) and `haitaka`
//! (copy-make, as its own perft example does; bulk counts the last ply's move lists).
//!
//! Positions: the start position to depth 5 (19,861,490 leaves) and "matsuri"
//! (207 legal moves, many drops) to depth 4 in bulk mode. Make/unmake on matsuri runs depth 3
//! by default (4.8 M leaves) and depth 4 (517 M leaves, minutes per engine) with
//! `PERFT_DEEP=1`. Every engine's count is asserted against the corpus count first, so the
//! peers walk the same tree.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use posfilter::shogi::{perft::perft, Position};
use std::time::Duration;

const MATSURI: &str = "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1";
const STARTPOS: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";

fn rs_make_unmake(pos: &mut rsshogi::board::Position, depth: u8) -> u64 {
    use rsshogi::board::Move32List;
    let mut list = Move32List::new();
    rsshogi::movegen::generate_legal_all_move32(pos, &mut list);
    if depth == 1 {
        // Make and unmake every leaf, like ours with --no-bulk.
        for &m in list.iter() {
            pos.apply_move32(m);
            let _ = pos.undo_move32(m);
        }
        return list.len() as u64;
    }
    let mut n = 0;
    for &m in list.iter() {
        pos.apply_move32(m);
        n += rs_make_unmake(pos, depth - 1);
        let _ = pos.undo_move32(m);
    }
    n
}

fn rs_bulk(pos: &rsshogi::board::Position, depth: u8) -> u64 {
    match rsshogi::board::perft::perft(pos, depth) {
        Ok(r) => r.nodes,
        Err(e) => panic!("rsshogi perft: {e:?}"),
    }
}

fn haitaka_perft(board: &haitaka::Board, depth: u8, bulk: bool) -> u64 {
    let mut nodes = 0;
    if depth == 1 && bulk {
        board.generate_moves(|moves| {
            nodes += moves.into_iter().len() as u64;
            false
        });
        return nodes;
    }
    board.generate_moves(|moves| {
        for mv in moves {
            let mut child = board.clone();
            child.play_unchecked(mv);
            nodes += if depth == 1 {
                1
            } else {
                haitaka_perft(&child, depth - 1, bulk)
            };
        }
        false
    });
    nodes
}

fn group(c: &mut Criterion, name: &str, sfen: &str, depth: u32, expected: u64, bulk: bool) {
    let ours = Position::from_sfen(sfen).unwrap();
    let rs = rsshogi::board::position_from_sfen(sfen).unwrap();
    let hai = haitaka::Board::from_sfen(sfen).unwrap();
    assert_eq!(
        perft(&mut ours.clone(), depth, bulk).expect("valid bench position"),
        expected,
        "posfilter count"
    );
    let rs_count = if bulk {
        rs_bulk(&rs, depth as u8)
    } else {
        rs_make_unmake(&mut rs.clone(), depth as u8)
    };
    assert_eq!(rs_count, expected, "rsshogi count");
    let hai_count = haitaka_perft(&hai, depth as u8, bulk);
    let mode = if bulk { "bulk" } else { "make_unmake" };
    let mut g = c.benchmark_group(format!("perft_{name}_d{depth}_{mode}"));
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .throughput(Throughput::Elements(expected));
    g.bench_function(BenchmarkId::from_parameter("posfilter"), |b| {
        b.iter(|| perft(&mut ours.clone(), depth, bulk))
    });
    g.bench_function(BenchmarkId::from_parameter("rsshogi"), |b| {
        b.iter(|| {
            if bulk {
                rs_bulk(&rs, depth as u8)
            } else {
                rs_make_unmake(&mut rs.clone(), depth as u8)
            }
        })
    });
    if hai_count == expected {
        g.bench_function(BenchmarkId::from_parameter("haitaka"), |b| {
            b.iter(|| haitaka_perft(&hai, depth as u8, bulk))
        });
    } else {
        eprintln!("haitaka counts {hai_count} here, not {expected}: a different tree, not timed");
    }
    g.finish();
}

fn benches(c: &mut Criterion) {
    let deep = std::env::var_os("PERFT_DEEP").is_some();
    group(c, "startpos", STARTPOS, 5, 19_861_490, true);
    group(c, "startpos", STARTPOS, 5, 19_861_490, false);
    group(c, "matsuri", MATSURI, 4, 516_925_165, true);
    if deep {
        group(c, "matsuri", MATSURI, 4, 516_925_165, false);
    } else {
        group(c, "matsuri", MATSURI, 3, 4_809_015, false);
    }
}

criterion_group!(movegen, benches);
criterion_main!(movegen);
