//! `posfilter perft`: legal-move-tree counts.

use super::common::parse_position;
use anyhow::{Context, Result};
use posfilter::shogi::perft;
use std::process::ExitCode;
use std::time::Instant;

/// Runs perft and prints the count (JSON on stdout with `json`).
pub fn run(sfen: &str, depth: u32, bulk: bool, divide: bool, json: bool) -> Result<ExitCode> {
    let mut pos = parse_position(sfen)?;
    let refused = || format!("impossible position {sfen:?}");
    let start = Instant::now();
    let nodes = if divide {
        let rows = perft::divide(&mut pos, depth, bulk).with_context(refused)?;
        for (m, n) in &rows {
            eprintln!("{m}: {n}");
        }
        rows.iter().map(|(_, n)| n).sum()
    } else {
        perft::perft(&mut pos, depth, bulk).with_context(refused)?
    };
    let seconds = start.elapsed().as_secs_f64();
    let nps = if seconds > 0.0 {
        nodes as f64 / seconds
    } else {
        0.0
    };
    if json {
        println!(
            "{}",
            serde_json::json!({"nodes": nodes, "seconds": seconds, "nps": nps.round() as u64})
        );
    } else {
        eprintln!(
            "perft {depth}: {nodes} nodes in {seconds:.3} s ({:.1} M nodes/s)",
            nps / 1e6
        );
        println!("{nodes}");
    }
    Ok(ExitCode::SUCCESS)
}
