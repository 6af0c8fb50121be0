//! `posfilter book walk BOOK --max-plies N --out FILE`: the start positions a self-play run
//! takes from a book (semantics in `posfilter::book::walk`). Each position a book move
//! leads to is decided once, as `posfilter run` decides an SFEN record with the config's
//! `[filter]` settings and budget (`pipeline::Decider`); checkmated, no legal move, mate,
//! mated and declaration prune the move, and the mates go to `<stem>.mates.jsonl` beside
//! FILE. FILE's extension picks the output: `.usi` (default: the line that first reached
//! each position), `.sfen`, `.psfen`, `.hcp`. Counts go to stderr and `<stem>.report.json`
//! beside FILE. Files are written whole or not at all (a temporary file renamed).

use super::inspect_book::{read, root_positions};
use anyhow::{bail, Context, Result};
use posfilter::book::walk::{walk, Emit, Root, Walked};
use posfilter::book::{self, BookFormat};
use posfilter::codec::{self, Format};
use posfilter::filter::{Decision, DropReason};
use posfilter::pipeline::config::RawConfig;
use posfilter::pipeline::Decider;
use posfilter::shogi::Position;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The `book` subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum BookCommand {
    /// Walk a book breadth-first from its roots into start positions.
    Walk {
        /// The book (db and ybb recognised; name apery and sbk with --format).
        book: PathBuf,
        /// How many plies from a root the walk goes at most.
        #[arg(long)]
        max_plies: u32,
        /// Where the positions go; the extension picks the format (.usi, .sfen, .psfen, .hcp).
        #[arg(long)]
        out: PathBuf,
        /// Which positions: leaves (no followed move, or at --max-plies), all, exits (one
        /// book move past the book's end), ply:K.
        #[arg(long, default_value = "leaves")]
        emit: Emit,
        /// Root positions, one SFEN or USI line each (default: the start position).
        #[arg(long)]
        roots: Option<PathBuf>,
        /// The book's format: db, apery, ybb, sbk.
        #[arg(long)]
        format: Option<BookFormat>,
        /// A pipeline.toml whose [filter] settings and budget decide the positions.
        #[arg(long)]
        config: Option<PathBuf>,
    },
}

/// Runs a `book` subcommand.
pub fn run(command: BookCommand) -> Result<ExitCode> {
    match command {
        BookCommand::Walk {
            book,
            max_plies,
            out,
            emit,
            roots,
            format,
            config,
        } => walk_command(
            &book,
            max_plies,
            &out,
            emit,
            roots.as_deref(),
            format,
            config.as_deref(),
        ),
    }
}

/// The reasons that make a position decided (a move into it is pruned).
fn decided(reason: DropReason) -> bool {
    matches!(
        reason,
        DropReason::Checkmated
            | DropReason::NoLegalMoves
            | DropReason::Mate
            | DropReason::Mated
            | DropReason::Declaration
    )
}

fn walk_command(
    path: &Path,
    max_plies: u32,
    out: &Path,
    emit: Emit,
    roots: Option<&Path>,
    format: Option<BookFormat>,
    config: Option<&Path>,
) -> Result<ExitCode> {
    let roots: Vec<Root> = root_positions(roots)?;
    let format = match format {
        Some(f) => f,
        None => book::sniff(path, &super::inspect_book::head(path)).with_context(|| {
            format!(
                "{}: not a recognised book; name its format with --format (db, apery, ybb, sbk)",
                path.display()
            )
        })?,
    };
    let positions: Vec<Position> = roots.iter().map(|r| r.position.clone()).collect();
    let mut loaded = read(path, format, &positions)?;
    for r in loaded.rejected.iter().take(10) {
        eprintln!("{r}");
    }
    loaded.book.merge_plies();
    let raw = match config {
        Some(c) => RawConfig::load(c)?,
        None => RawConfig::default(),
    };
    let mut decider = Decider::new(&raw)?;
    let mut mates = Vec::new();
    let mut decide = |positions: &[Position]| -> Vec<Option<String>> {
        let sfens: Vec<String> = positions.iter().map(Position::to_sfen).collect();
        let records: Vec<&[u8]> = sfens.iter().map(|s| s.as_bytes()).collect();
        let outcomes = decider.decide(Format::Sfen, &records);
        outcomes
            .iter()
            .map(|outcome| {
                if let Some(m) = outcome.mate() {
                    mates.push(
                        json!({"sfen": m.sfen, "kind": m.kind, "plies": m.plies, "pv": m.pv}),
                    );
                }
                match outcome.decision() {
                    Decision::Drop(reason) if decided(*reason) => Some(reason.name().to_string()),
                    _ => None,
                }
            })
            .collect()
    };
    let walked = walk(&loaded.book, &roots, max_plies, emit, &mut decide);
    let bytes = output(out, &walked, &roots)?;
    write_whole(out, &bytes)?;
    let mates_text: String = mates.iter().map(|m| m.to_string() + "\n").collect();
    write_whole(&beside(out, "mates.jsonl"), mates_text.as_bytes())?;
    let report = json!({
        "book": path.display().to_string(),
        "format": format.name(),
        "max_plies": max_plies,
        "emit": emit.to_string(),
        "roots": roots.len(),
        "book_entries": loaded.book.positions.len(),
        "rejected_lines": loaded.rejected.len(),
        "visited": walked.nodes.len(),
        "emitted": walked.emitted.len(),
        "followed": walked.followed,
        "pruned": {"illegal": walked.illegal, "decided": walked.decided},
        "cycles_cut": walked.cycles_cut,
        "positions_decided": walked.decisions,
        "mates": mates.len(),
    });
    let text = serde_json::to_string_pretty(&report)?;
    write_whole(&beside(out, "report.json"), text.as_bytes())?;
    eprintln!("{text}");
    Ok(ExitCode::SUCCESS)
}

/// `<dir>/<stem>.<suffix>` beside `out`.
fn beside(out: &Path, suffix: &str) -> PathBuf {
    let stem = out.file_stem().unwrap_or_default().to_string_lossy();
    out.with_file_name(format!("{stem}.{suffix}"))
}

/// The emitted positions in the format `out`'s extension names.
fn output(out: &Path, walked: &Walked, roots: &[Root]) -> Result<Vec<u8>> {
    let ext = out
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    let format = match ext.as_deref() {
        None | Some("usi") => None,
        Some("sfen") => Some(Format::Sfen),
        Some("psfen") => Some(Format::Psfen),
        Some("hcp") => Some(Format::Hcp),
        Some(other) => bail!(
            "{}: unknown output extension .{other} (usi, sfen, psfen, hcp)",
            out.display()
        ),
    };
    let mut bytes = Vec::new();
    for &i in &walked.emitted {
        let node = &walked.nodes[i];
        match format {
            None => {
                bytes.extend_from_slice(roots[node.root].usi_line(&node.moves).as_bytes());
                bytes.push(b'\n');
            }
            Some(f) => codec::encode(f, &node.position, None, &mut bytes)
                .with_context(|| format!("encoding {} as {f}", node.position.to_sfen()))?,
        }
    }
    Ok(bytes)
}

/// Writes `bytes` to `path` through a temporary file renamed into place.
fn write_whole(path: &Path, bytes: &[u8]) -> Result<()> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let tmp = path.with_file_name(format!("{name}.partial"));
    std::fs::write(&tmp, bytes).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("renaming into {}", path.display()))
}
