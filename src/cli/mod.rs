//! Command-line definition (clap derive) and dispatch; one file per subcommand.

mod common;
mod inspect;
mod perft;

use anyhow::Result;
use clap::{Parser, Subcommand};
use std::process::ExitCode;

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
    /// Show a data file's format (and why), record count and statistics.
    Inspect {
        /// The file (any supported format, optionally zstd-compressed).
        file: std::path::PathBuf,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
        /// Print every record as an SFEN line on stdout (psv/hcpe: plus score, move, ply,
        /// result, tab-separated).
        #[arg(long)]
        dump: bool,
        /// The format, instead of detecting it.
        #[arg(long)]
        format: Option<posfilter::codec::Format>,
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
        } => perft::run(&sfen, depth, !no_bulk, divide, json),
        Command::Inspect {
            file,
            json,
            dump,
            format,
        } => inspect::run(&file, format, json, dump),
    }
}
