//! Command-line definition (clap derive) and dispatch; one file per subcommand.

mod book;
mod common;
mod init;
mod inspect;
mod inspect_book;
mod inspect_games;
mod mate;
mod merge;
mod perft;
mod report;
mod run;

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
    /// Clean a dataset as described by a pipeline.toml (the main job).
    Run {
        /// The pipeline configuration.
        config: std::path::PathBuf,
        /// Worker threads (overrides workers.threads; 0 = all cores).
        #[arg(long)]
        threads: Option<usize>,
        /// Output directory (overrides output.dir).
        #[arg(long)]
        out: Option<std::path::PathBuf>,
        /// No progress bar and no summary table.
        #[arg(long)]
        quiet: bool,
        /// When stderr is not a terminal (a log file, nohup, CI), a progress line every
        /// this many seconds; 0 = none.
        #[arg(long, value_name = "SECONDS", default_value_t = posfilter::pipeline::config::DEFAULT_LOG_EVERY)]
        log_every: f64,
        /// Resolve the inputs (formats, sizes), the output directory, the kept shards' names
        /// and the memory the run needs, print them and stop: nothing is written. hcpe
        /// inputs are read in full to count the games their best moves chain into (a
        /// linear scan on every core, about 3 M records/s on 2 cores).
        #[arg(long)]
        dry_run: bool,
        /// Go on from the checkpoint a stopped run left in the output directory (same
        /// config and inputs; any thread count) instead of starting over.
        #[arg(long, conflicts_with = "dry_run")]
        resume: bool,
        /// Go on from the output directory's checkpoint when it holds one, and start when
        /// it does not (for a task a scheduler may run again after a kill).
        #[arg(long, conflicts_with_all = ["dry_run", "resume"])]
        resume_or_start: bool,
        /// Run only part I of N of the input, for `posfilter merge` to gather (a task of a
        /// job split over a Slurm array or a Kubernetes Indexed Job). `auto` takes I and N
        /// from SLURM_ARRAY_TASK_ID / SLURM_ARRAY_TASK_COUNT, or from JOB_COMPLETION_INDEX
        /// with --shards N.
        #[arg(long, value_name = "I/N|auto", conflicts_with_all = ["dry_run", "resume"])]
        shard: Option<String>,
        /// The shard count N, with `--shard auto` under Kubernetes.
        #[arg(long, requires = "shard")]
        shards: Option<usize>,
        /// Dedup key buckets M the shard writes (one reduce task each; see docs/cluster.md).
        #[arg(long, requires = "shard", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=65536))]
        buckets: u32,
    },
    /// Write a pipeline.toml with every key at its default, commented.
    Init {
        /// The directory to write pipeline.toml in.
        #[arg(default_value = ".")]
        dir: std::path::PathBuf,
        /// Replace an existing pipeline.toml.
        #[arg(long)]
        force: bool,
    },
    /// Count the leaves of the legal-move tree (every non-promotion included).
    Perft {
        /// Position: an SFEN, `startpos`, or a USI position with moves (`startpos moves
        /// 7g7f 3c3d`, `sfen <SFEN> moves ...`), replayed to its last position.
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
    /// Solve one position (or a file of them) with df-pn: mate, no_mate, mated, checkmated,
    /// no_legal_moves or unknown, with a verified PV.
    Mate(mate::MateArgs),
    /// Merge the shard directories of a job split over many tasks into one run's output
    /// (`--out`); or, with `--dedup-partition J/M`, reduce dedup key bucket J of M of
    /// every shard into its list of duplicates.
    Merge {
        /// The shard directories (each shard's `run --shard I/N --out`), in any order.
        #[arg(required = true)]
        shard_dirs: Vec<std::path::PathBuf>,
        /// Reduce this dedup key bucket of every shard (J from 0; M as the shards wrote)
        /// into its duplicate list, instead of gathering.
        #[arg(long, value_name = "J/M", value_parser = merge::parse_partition)]
        dedup_partition: Option<(u32, u32)>,
        /// The gather: the directory of the reduce's duplicate lists (needed when the
        /// shards wrote more than one bucket).
        #[arg(long, conflicts_with = "dedup_partition")]
        dedup: Option<std::path::PathBuf>,
        /// The reduce: where the duplicate list goes (`dups-J-of-M.bin`; one directory for
        /// all buckets). The gather: the output directory of the merged run.
        #[arg(long)]
        out: std::path::PathBuf,
        /// No summary.
        #[arg(long)]
        quiet: bool,
    },
    /// Show data files' formats (and why), record counts and statistics, one file at a time.
    Inspect {
        /// The files (any supported format, optionally zstd-compressed), each reported on
        /// its own.
        #[arg(required = true)]
        files: Vec<std::path::PathBuf>,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
        /// Print every record as an SFEN line on stdout (psv/hcpe: plus score, move, ply,
        /// result, tab-separated).
        #[arg(long)]
        dump: bool,
        /// The format, instead of detecting it: a record format, or a book format (`db`,
        /// `apery`, `ybb`, `sbk`; Apery books are never recognised, name them).
        #[arg(long)]
        format: Option<inspect::InspectFormat>,
        /// Books: the root positions a walk starts from (Apery books are recovered by
        /// walking from them): one SFEN or USI line each; default the start position.
        #[arg(long)]
        roots: Option<std::path::PathBuf>,
    },
    /// Opening books: `book walk` turns a book into the start positions a self-play run takes.
    #[command(subcommand)]
    Book(book::BookCommand),
    /// Write report.html of a run's output directory from its report.json, or, given two
    /// directories A and B (say, two budgets on the same input), a page comparing them.
    Report {
        /// One output directory, or two to compare (A, then B).
        #[arg(required = true, num_args = 1..=2, value_name = "OUT_DIR")]
        dirs: Vec<std::path::PathBuf>,
        /// Where to write the page (default: OUT_DIR/report.html; compare.html for two).
        #[arg(long, short = 'o')]
        output: Option<std::path::PathBuf>,
    },
}

/// Parses the command line and runs it.
pub fn run() -> Result<ExitCode> {
    let cli = Cli::parse();
    match cli.command {
        Command::Run {
            config,
            threads,
            out,
            quiet,
            log_every,
            dry_run,
            resume,
            resume_or_start,
            shard,
            shards,
            buckets,
        } => run::run(
            &config,
            threads,
            out,
            run::Mode {
                quiet,
                log_every,
                dry_run,
                resume,
                resume_or_start,
                shard: shard
                    .map(|text| run::shard_spec(&text, shards, buckets))
                    .transpose()?,
            },
        ),
        Command::Init { dir, force } => init::run(&dir, force),
        Command::Perft {
            sfen,
            depth,
            no_bulk,
            divide,
            json,
        } => perft::run(&sfen, depth, !no_bulk, divide, json),
        Command::Mate(args) => mate::run_args(args),
        Command::Merge {
            shard_dirs,
            dedup_partition: Some(partition),
            out,
            quiet,
            ..
        } => merge::dedup_partition(partition, &shard_dirs, &out, quiet),
        Command::Merge {
            shard_dirs,
            dedup,
            out,
            quiet,
            ..
        } => merge::gather(&shard_dirs, dedup.as_deref(), &out, quiet),
        Command::Inspect {
            files,
            json,
            dump,
            format,
            roots,
        } => inspect::run_all(&files, format, roots.as_deref(), json, dump),
        Command::Book(command) => book::run(command),
        Command::Report { dirs, output } => report::run(&dirs, output.as_deref()),
    }
}
