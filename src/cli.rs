//! Command-line definition (clap derive) and dispatch to the library.

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use posfilter::shogi::{perft, Position};
use std::process::ExitCode;
use std::time::Instant;

/// Cleans shogi training data: drops decided, repeated and duplicated positions.
#[derive(Parser, Debug)]
#[command(name = "posfilter", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Count the leaves of the legal-move tree (every non-promotion included).
    Perft {
        /// Position as SFEN, or `startpos`.
        #[arg(long)]
        sfen: String,
        /// Depth in plies.
        #[arg(long)]
        depth: u32,
        /// Make and unmake every leaf instead of counting the last ply's moves.
        #[arg(long)]
        no_bulk: bool,
        /// Print per-root-move counts.
        #[arg(long)]
        divide: bool,
        /// One JSON object on stdout: {"nodes", "seconds", "nps"}.
        #[arg(long)]
        json: bool,
    },
}

/// Parses the command line and runs it.
pub fn run() -> Result<ExitCode> {
    let cli = Cli::parse();
    match cli.command {
        Command::Perft {
            sfen,
            depth,
            no_bulk,
            divide,
            json,
        } => cmd_perft(&sfen, depth, !no_bulk, divide, json),
    }
}

fn parse_position(sfen: &str) -> Result<Position> {
    let text = sfen.trim();
    let text = text.strip_prefix("sfen ").unwrap_or(text);
    let pos = Position::from_sfen(text).with_context(|| format!("bad SFEN {text:?}"))?;
    pos.validate()
        .with_context(|| format!("impossible position {text:?}"))?;
    Ok(pos)
}

fn cmd_perft(sfen: &str, depth: u32, bulk: bool, divide: bool, json: bool) -> Result<ExitCode> {
    let mut pos = parse_position(sfen)?;
    let start = Instant::now();
    let nodes = if divide {
        let rows = perft::divide(&mut pos, depth, bulk);
        for (m, n) in &rows {
            eprintln!("{m}: {n}");
        }
        rows.iter().map(|(_, n)| n).sum()
    } else {
        perft::perft(&mut pos, depth, bulk)
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
