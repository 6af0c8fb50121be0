//! Perft against tests/data/perft.jsonl (counts agreed by cshogi, rsshogi, python-shogi and
//! published tables). The default run covers every entry up to 2,000,000 nodes; larger
//! counts (start position depth 5, the 593-move position depth 3, …) are `#[ignore]`d and
//! run by `just test-slow`.

use crate::support::jsonl;
use posfilter::shogi::{perft::perft, Position};

const DEFAULT_LIMIT: u64 = 2_000_000;

fn check(limit_low: u64, limit_high: u64) -> usize {
    let mut checked = 0;
    for entry in jsonl("perft.jsonl") {
        let sfen = entry["sfen"].as_str().unwrap();
        let name = entry["name"].as_str().unwrap();
        for d in entry["perft"].as_array().unwrap() {
            let depth = d["depth"].as_u64().unwrap() as u32;
            let expected = d["nodes"].as_u64().unwrap();
            if expected <= limit_low || expected > limit_high {
                continue;
            }
            let mut pos = Position::from_sfen(sfen).unwrap();
            pos.validate().unwrap();
            let bulk = perft(&mut pos, depth, true).expect("valid");
            assert_eq!(bulk, expected, "{name} depth {depth} (bulk)");
            // Make/unmake every leaf as well where it is cheap enough.
            if expected <= 1_000_000 {
                assert_eq!(
                    perft(&mut pos, depth, false).expect("valid"),
                    expected,
                    "{name} depth {depth}"
                );
            }
            assert_eq!(pos.to_sfen(), Position::from_sfen(sfen).unwrap().to_sfen());
            checked += 1;
        }
    }
    checked
}

#[test]
fn perft_corpus_default_depths() {
    assert!(check(0, DEFAULT_LIMIT) >= 25);
}

#[test]
#[ignore = "slow: start position depth 5 and counts up to 54 M; run with just test-slow"]
fn perft_corpus_deep() {
    // startpos d5, the 593-move position d3, matsuri d3, entering kings d3.
    assert_eq!(check(DEFAULT_LIMIT, u64::MAX), 4);
}

#[test]
fn perft_cli_json() {
    let out = std::process::Command::new(crate::support::bin())
        .args([
            "perft",
            "--sfen",
            "startpos",
            "--depth",
            "3",
            "--json",
            "--no-bulk",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["nodes"], 25470);
    assert!(v["seconds"].is_number() && v["nps"].is_number());
}
