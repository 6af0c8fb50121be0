//! `posfilter mate`: solve one position.

use super::common::parse_position;
use anyhow::Result;
use posfilter::mate::{Limits, Solver};
use std::process::ExitCode;
use std::time::Instant;

/// Solves `sfen` and prints the verdict (one JSON object on stdout with `json`).
pub fn run(sfen: &str, nodes: u64, table_mb: usize, json: bool) -> Result<ExitCode> {
    let mut pos = parse_position(sfen)?;
    let mut solver = Solver::new(table_mb);
    let start = Instant::now();
    let v = solver.solve(
        &mut pos,
        &Limits {
            nodes,
            max_plies: None,
            time: None,
        },
    );
    let seconds = start.elapsed().as_secs_f64();
    let pv: Vec<String> = v.pv.iter().map(|m| m.to_usi()).collect();
    if json {
        println!(
            "{}",
            serde_json::json!({"result": v.result.as_str(), "plies": v.plies, "pv": pv,
                "nodes": v.nodes, "seconds": seconds})
        );
    } else {
        eprintln!("{} nodes in {seconds:.3} s", v.nodes);
        if pv.is_empty() {
            println!("{}", v.result.as_str());
        } else {
            println!("{} {} {}", v.result.as_str(), v.plies, pv.join(" "));
        }
    }
    Ok(ExitCode::SUCCESS)
}
