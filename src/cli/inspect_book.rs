//! `posfilter inspect BOOK`: an opening book's format (and why), entries, distinct
//! positions, moves, sorted or not, positions under several plies, illegal moves, header /
//! NOE agreement, rejected lines, and for Apery books the records no walk reaches and the
//! key collisions. A book with rejected lines or illegal moves is reported, not failed: the
//! cleaning's business is to remove them.

use anyhow::{Context, Result};
use posfilter::book::{self, BookFormat, Loaded};
use posfilter::shogi::Position;
use serde_json::json;
use std::io::Write;
use std::path::Path;

/// Lines and moves listed individually (the rest are only counted).
const MAX_LISTED: usize = 20;

/// The first bytes of `path`, enough to recognise a book ([`book::sniff`]); none unless it
/// is a regular file (opening a FIFO would wait for a writer).
pub fn head(path: &Path) -> Vec<u8> {
    use std::io::Read;
    let mut buf = Vec::new();
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return buf;
    }
    if let Ok(f) = std::fs::File::open(path) {
        let _ = f.take(64 << 10).read_to_end(&mut buf);
    }
    buf
}

/// The root positions of `roots` (a roots file), or none (the start position).
pub fn root_positions(roots: Option<&Path>) -> Result<Vec<book::walk::Root>> {
    let Some(path) = roots else {
        return Ok(vec![book::startpos_root()]);
    };
    let text = std::fs::read_to_string(path).with_context(|| format!("{}", path.display()))?;
    let (roots, rejected) = book::roots_from_text(path, &text);
    if let Some(r) = rejected.first() {
        anyhow::bail!("{r} ({} bad root line(s))", rejected.len());
    }
    if roots.is_empty() {
        anyhow::bail!("{}: no root position", path.display());
    }
    Ok(roots)
}

/// Reads the book `path` as `format`, naming how the format was known.
pub fn read(path: &Path, format: BookFormat, roots: &[Position]) -> Result<Loaded> {
    let bytes = std::fs::read(path).with_context(|| format!("{}", path.display()))?;
    Ok(book::load(path, &bytes, format, roots)?)
}

/// Inspects the book `path` (see the module doc); `given` says whether the format was
/// named rather than recognised.
pub fn run(
    path: &Path,
    format: BookFormat,
    given: bool,
    roots: Option<&Path>,
    json_out: bool,
) -> Result<()> {
    let roots: Vec<Position> = root_positions(roots)?
        .into_iter()
        .map(|r| r.position)
        .collect();
    let loaded = read(path, format, &roots)?;
    let v = summary(path, format, given, &loaded);
    if json_out {
        println!("{}", serde_json::to_string(&v).context("JSON output")?);
        return Ok(());
    }
    write_text(&mut std::io::stderr().lock(), &v)
}

fn summary(path: &Path, format: BookFormat, given: bool, loaded: &Loaded) -> serde_json::Value {
    let b = &loaded.book;
    let illegal = b.illegal_moves();
    let entries = b.positions.len() as u64;
    let mut merged = b.clone();
    let folded = merged.merge_plies();
    let noe_agrees = loaded.facts.noe.map(|n| n == entries);
    json!({
        "file": path.display().to_string(),
        "format": format.name(),
        "format_reason": if given { "given explicitly" } else { "recognised from the content or name" },
        "entries": entries,
        "positions": merged.positions.len(),
        "moves": b.move_count(),
        "positions_under_several_plies": folded.positions,
        "illegal_moves": illegal.len(),
        "illegal_listed": illegal.iter().take(MAX_LISTED).map(|&(i, m)| json!({
            "line": b.positions[i].line, "sfen": b.positions[i].position.to_sfen(), "move": m.to_usi()
        })).collect::<Vec<_>>(),
        "rejected": loaded.rejected.len(),
        "rejected_listed": loaded.rejected.iter().take(MAX_LISTED).map(|r| r.to_string()).collect::<Vec<_>>(),
        "noe_agrees": noe_agrees,
        "facts": loaded.facts,
    })
}

fn write_text(e: &mut impl Write, v: &serde_json::Value) -> Result<()> {
    writeln!(e, "file      {}", v["file"].as_str().unwrap_or(""))?;
    let text = |k: &str| v[k].as_str().unwrap_or("").to_string();
    writeln!(
        e,
        "format    {} ({})",
        text("format"),
        text("format_reason")
    )?;
    writeln!(
        e,
        "entries   {} ({} distinct positions)",
        v["entries"], v["positions"]
    )?;
    writeln!(e, "moves     {}", v["moves"])?;
    let f = &v["facts"];
    if !f["sorted"].is_null() {
        writeln!(e, "sorted    {}", f["sorted"])?;
    }
    writeln!(
        e,
        "positions under several plies  {}",
        v["positions_under_several_plies"]
    )?;
    writeln!(e, "unknown ply (missing or 0)      {}", f["unknown_ply"])?;
    writeln!(e, "illegal moves                  {}", v["illegal_moves"])?;
    for m in v["illegal_listed"].as_array().into_iter().flatten() {
        writeln!(e, "  line {}: {} in {}", m["line"], m["move"], m["sfen"])?;
    }
    if !f["header"].is_null() {
        writeln!(e, "header    {}", f["header"])?;
        let noe = match &f["noe"] {
            n if n.is_null() => "none".to_string(),
            n if v["noe_agrees"] == true => format!("{n} (agrees with the entries)"),
            n => format!("{n} (DISAGREES with the entries)"),
        };
        writeln!(e, "NOE       {noe}")?;
    }
    for (key, label) in [
        ("records", "records"),
        ("unreachable", "unreachable"),
        ("collisions", "key collisions"),
        ("no_move_lines", "move lines playing nothing"),
    ] {
        if !f[key].is_null() && f[key] != 0 {
            writeln!(e, "{label}  {}", f[key])?;
        }
    }
    writeln!(e, "rejected  {}", v["rejected"])?;
    for r in v["rejected_listed"].as_array().into_iter().flatten() {
        writeln!(e, "  {}", r.as_str().unwrap_or(""))?;
    }
    Ok(())
}
