//! `posfilter inspect FILE`: format (and why), record count, games, side-to-move split,
//! piece and hand statistics, malformed records with offsets, move-field legality; `--dump`
//! prints every record as a line. Game formats add their game statistics
//! (`inspect_games.rs`); hcpe counts the games inferred from its chain of best moves.
//!
//! A file that cannot be read to its end (a broken `.zst` stream, lost game framing) or
//! ends in part of a record still gets its report; the command then fails (status 2, the
//! bad-input status of every command) with the file and the offset.

use super::inspect_games::{each_game, GameStats};
use anyhow::{Context, Result};
use posfilter::book::BookFormat;
use posfilter::codec::game::{infer::HcpeGames, Game, GameFormat};
use posfilter::codec::{self, Format, GameResult, TeacherFields};
use posfilter::filter::declaration::{open_path_info, OpenPathStats};
use posfilter::io::batch::{batches_of, BatchOptions};
use posfilter::io::detect::detect;
use posfilter::shogi::{Color, PieceType, Position};
use serde_json::json;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Malformed records listed individually (the rest are only counted).
const MAX_LISTED: usize = 20;

#[derive(Default)]
struct Stats {
    records: u64,
    decoded: u64,
    games: u64,
    side: [u64; 2],
    in_check: u64,
    pieces_on_board: BTreeMap<u32, u64>,
    with_hand: u64,
    hand_pieces: [[u64; 7]; 2],
    malformed: Vec<serde_json::Value>,
    malformed_by_reason: BTreeMap<&'static str, u64>,
    move_none: u64,
    move_legal: u64,
    move_illegal: u64,
    move_other_encoding: u64,
    tail: Option<serde_json::Value>,
    /// Why the rest of the file could not be read (a broken .zst stream).
    unreadable: Option<String>,
    /// Entering-king open paths (seed 004, docs/references.md) of both kings.
    open_path: OpenPathStats,
    /// Game formats: the games.
    games_of: Option<GameStats>,
}

/// A format named on the command line: a record format or a book format.
#[derive(Clone, Copy, Debug)]
pub enum InspectFormat {
    /// A record format.
    Records(Format),
    /// A book format.
    Book(BookFormat),
}

impl std::str::FromStr for InspectFormat {
    type Err = String;

    fn from_str(s: &str) -> Result<InspectFormat, String> {
        if let Ok(b) = s.parse::<BookFormat>() {
            return Ok(InspectFormat::Book(b));
        }
        s.parse::<Format>()
            .map(InspectFormat::Records)
            .map_err(|e| format!("{e}; or a book format: db, apery, ybb, sbk"))
    }
}

/// Runs `inspect` on every file of `files`: every file is reported; a damaged one then
/// makes the command fail, naming each damaged file. A book (named, or recognised by
/// `book::sniff`) gets the book report (`inspect_book.rs`).
pub fn run_all(
    files: &[PathBuf],
    format: Option<InspectFormat>,
    roots: Option<&Path>,
    json_out: bool,
    dump: bool,
) -> Result<ExitCode> {
    let mut damaged = Vec::new();
    for file in files {
        let book = match format {
            Some(InspectFormat::Book(b)) => Some((b, true)),
            Some(InspectFormat::Records(_)) => None,
            None => {
                posfilter::book::sniff(file, &super::inspect_book::head(file)).map(|b| (b, false))
            }
        };
        if let Some((b, given)) = book {
            super::inspect_book::run(file, b, given, roots, json_out)?;
            continue;
        }
        let format = match format {
            Some(InspectFormat::Records(f)) => Some(f),
            _ => None,
        };
        damaged.extend(run(file, format, json_out, dump)?);
    }
    match damaged.is_empty() {
        true => Ok(ExitCode::SUCCESS),
        false => anyhow::bail!("{}", damaged.join("; ")),
    }
}

/// Runs `inspect` on `path`; after the report, `Some` says why the file is damaged (it
/// cannot be read to its end, or ends in part of a record), naming the file and offset.
fn run(path: &Path, format: Option<Format>, json_out: bool, dump: bool) -> Result<Option<String>> {
    let det = detect(path, format)?;
    let mut st = Stats::default();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let opts = BatchOptions {
        records: 1 << 16,
        align_games: false,
    };
    let mut hcpe_games = HcpeGames::new();
    let mut game = GameFormat::of(det.format).map(Game::new);
    let mut game_stats = GameStats::default();
    for batch in batches_of(path, det.format, opts) {
        let batch = batch?;
        if let Some(e) = batch.unreadable() {
            st.unreadable = Some(e.to_string());
            continue;
        }
        if let Some(t) = batch.tail() {
            st.tail = Some(json!({"offset": t.offset, "bytes": t.len}));
        }
        if let Some(game) = game.as_mut() {
            st.records += batch.len() as u64;
            let mut failed = None;
            each_game(&batch, game, &mut game_stats, &mut |pos, t| {
                st.decoded += 1;
                add_position(&mut st, pos);
                count_move(&mut st, t, det.format);
                if dump && failed.is_none() {
                    failed = write_dump(&mut out, pos.to_sfen(), Some(t)).err();
                }
            });
            if let Some(e) = failed {
                return Err(e);
            }
            continue;
        }
        for rec in batch.iter() {
            st.records += 1;
            st.games += match det.format {
                Format::Hcpe => hcpe_games.push(rec.bytes),
                _ => rec.new_game,
            } as u64;
            match codec::decode(det.format, rec.bytes) {
                Err(e) => {
                    *st.malformed_by_reason.entry(e.code()).or_default() += 1;
                    if st.malformed.len() < MAX_LISTED {
                        st.malformed.push(json!({
                            "index": rec.index, "offset": rec.offset, "reason": e.to_string()
                        }));
                    }
                    if dump {
                        eprintln!("record {} at offset {}: {e}", rec.index, rec.offset);
                    }
                }
                Ok(d) => {
                    let pos = &d.position;
                    st.decoded += 1;
                    add_position(&mut st, pos);
                    if let Some(t) = &d.teacher {
                        count_move(&mut st, t, det.format);
                    }
                    if dump {
                        write_dump(&mut out, pos.to_sfen(), d.teacher.as_ref())?;
                    }
                }
            }
        }
    }
    out.flush()?;
    st.games_of = game.is_some().then_some(game_stats);
    report(path, &det, &st, json_out)?;
    Ok(damage(path, det.format, &st))
}

/// Why `path` is damaged, if it is: its unreadable rest, else a partial last record.
fn damage(path: &Path, format: Format, st: &Stats) -> Option<String> {
    if let Some(why) = &st.unreadable {
        return Some(why.clone());
    }
    let tail = st.tail.as_ref()?;
    Some(format!(
        "{}: ends in {} byte(s) at offset {} that are not a whole {format} record (the file \
         is truncated)",
        path.display(),
        tail["bytes"],
        tail["offset"]
    ))
}

/// Counts a decoded position's side to move, check, pieces, hands and open paths.
fn add_position(st: &mut Stats, pos: &Position) {
    st.side[pos.side_to_move().index()] += 1;
    st.in_check += pos.in_check() as u64;
    st.open_path.add(&open_path_info(pos));
    *st.pieces_on_board
        .entry(pos.occupied().count())
        .or_default() += 1;
    if !pos.hand(Color::Black).is_empty() || !pos.hand(Color::White).is_empty() {
        st.with_hand += 1;
    }
    for c in Color::ALL {
        for pt in PieceType::HAND {
            st.hand_pieces[c.index()][pt.index()] += pos.hand(c).count(pt) as u64;
        }
    }
}

fn count_move(st: &mut Stats, t: &TeacherFields, format: Format) {
    if t.raw_move == 0 {
        st.move_none += 1;
    } else if t.move_legal {
        st.move_legal += 1;
        let native = match format {
            Format::Psv => codec::MoveEncoding::YaneuraOu,
            _ => codec::MoveEncoding::Apery,
        };
        st.move_other_encoding += (t.move_encoding != Some(native)) as u64;
    } else {
        st.move_illegal += 1;
    }
}

fn write_dump(out: &mut impl Write, sfen: String, t: Option<&TeacherFields>) -> Result<()> {
    match t {
        None => writeln!(out, "{sfen}")?,
        Some(t) => {
            let mv = t.mv.map_or("none".to_string(), |m| m.to_usi());
            let ply = t.game_ply.map_or("-".to_string(), |p| p.to_string());
            let result = match t.game_result {
                GameResult::Psv(v) => v.to_string(),
                GameResult::Hcpe(v) => v.to_string(),
            };
            writeln!(out, "{sfen}\t{}\t{mv}\t{ply}\t{result}", t.score)?;
        }
    }
    Ok(())
}

/// The hand kinds in the order reports list them.
const HAND_KINDS: [&str; 7] = ["P", "L", "N", "S", "B", "R", "G"];

/// Prints the report of `path`: one JSON object on stdout (`json_out`), else text on stderr.
fn report(
    path: &Path,
    det: &posfilter::io::detect::Detection,
    st: &Stats,
    json_out: bool,
) -> Result<()> {
    if json_out {
        let v = report_json(path, det, st);
        println!("{}", serde_json::to_string(&v).context("JSON output")?);
        return Ok(());
    }
    let mut e = std::io::stderr().lock();
    write_file_text(&mut e, path, det, st)?;
    write_positions_text(&mut e, det.format, st)
}

/// The fewest, mean and most pieces on the board over the decoded records (0 / 0.0 / 0
/// when none was decoded).
fn board_counts(st: &Stats) -> (u32, f64, u32) {
    let (mut sum, mut min, mut max) = (0u64, u32::MAX, 0u32);
    for (&n, &count) in &st.pieces_on_board {
        sum += n as u64 * count;
        min = min.min(n);
        max = max.max(n);
    }
    let mean = if st.decoded > 0 {
        sum as f64 / st.decoded as f64
    } else {
        0.0
    };
    (min, mean, max)
}

/// The report as one JSON object.
fn report_json(
    path: &Path,
    det: &posfilter::io::detect::Detection,
    st: &Stats,
) -> serde_json::Value {
    let hand = |c: usize| -> serde_json::Map<String, serde_json::Value> {
        HAND_KINDS
            .iter()
            .enumerate()
            .map(|(i, k)| (k.to_string(), json!(st.hand_pieces[c][i])))
            .collect()
    };
    let (min, mean, max) = board_counts(st);
    let teacher = det.format.has_teacher_fields();
    json!({
        "file": path.display().to_string(),
        "format": det.format.name(),
        "compressed": det.compressed,
        "file_bytes": det.file_bytes,
        "detection": det.reasons,
        "records": st.records,
        "decoded": st.decoded,
        "malformed": st.records - st.decoded,
        "malformed_by_reason": st.malformed_by_reason,
        "malformed_first": st.malformed,
        "tail": st.tail,
        "unreadable": st.unreadable,
        "games": match &st.games_of {
            Some(g) => g.to_json(),
            None => json!(matches!(det.format, Format::Psv | Format::Hcpe).then_some(st.games)),
        },
        "side_to_move": {"black": st.side[0], "white": st.side[1]},
        "in_check": st.in_check,
        "pieces_on_board": {"min": (st.decoded > 0).then_some(min), "max": (st.decoded > 0).then_some(max), "mean": mean,
            "histogram": st.pieces_on_board.iter().map(|(k, v)| (k.to_string(), json!(v))).collect::<serde_json::Map<_, _>>()},
        "hands": {"records_with_pieces_in_hand": st.with_hand, "black": hand(0), "white": hand(1)},
        "entering_king": st.open_path,
        "moves": teacher.then(|| json!({
            "legal": st.move_legal, "illegal": st.move_illegal, "none": st.move_none,
            "legal_in_other_encoding": st.move_other_encoding})),
    })
}

/// The text report's part about the file: name, format and why, records, games.
fn write_file_text(
    e: &mut impl Write,
    path: &Path,
    det: &posfilter::io::detect::Detection,
    st: &Stats,
) -> Result<()> {
    writeln!(e, "file      {}", path.display())?;
    writeln!(
        e,
        "format    {}{}",
        det.format,
        if det.compressed { " (zstd)" } else { "" }
    )?;
    for r in &det.reasons {
        writeln!(e, "          - {r}")?;
    }
    writeln!(
        e,
        "records   {} ({} decoded, {} malformed)",
        st.records,
        st.decoded,
        st.records - st.decoded
    )?;
    if let Some(why) = &st.unreadable {
        writeln!(e, "unreadable  {why}")?;
    }
    match &st.games_of {
        Some(g) => g.write(e)?,
        None if det.format == Format::Hcpe => {
            writeln!(e, "games     {} (inferred from the best moves)", st.games)?;
        }
        None if det.format == Format::Psv => writeln!(e, "games     {}", st.games)?,
        None => {}
    }
    Ok(())
}

/// The text report's part about the positions: side to move, pieces, hands, kings, move
/// fields, malformed records.
fn write_positions_text(e: &mut impl Write, format: Format, st: &Stats) -> Result<()> {
    writeln!(
        e,
        "to move   black {} / white {}; in check {}",
        st.side[0], st.side[1], st.in_check
    )?;
    if st.decoded > 0 {
        let (min, mean, max) = board_counts(st);
        writeln!(e, "pieces on board  min {min} / mean {mean:.1} / max {max}")?;
    }
    for (c, name) in [(0, "black"), (1, "white")] {
        let parts: Vec<String> = HAND_KINDS
            .iter()
            .enumerate()
            .map(|(i, k)| format!("{k} {}", st.hand_pieces[c][i]))
            .collect();
        writeln!(e, "hand {name:5}  {}", parts.join(", "))?;
    }
    writeln!(e, "records with pieces in hand  {}", st.with_hand)?;
    let op = &st.open_path;
    for (c, name) in [(0, "black"), (1, "white")] {
        writeln!(
            e,
            "king {name:5}  open path into the enemy camp {}, already in it {}, closed {}",
            op.open[c], op.in_camp[c], op.closed[c]
        )?;
    }
    if format.has_teacher_fields() {
        writeln!(
            e,
            "move field  legal {} ({} in the other 16-bit encoding), not legal {}, none {}",
            st.move_legal, st.move_other_encoding, st.move_illegal, st.move_none
        )?;
    }
    for m in &st.malformed {
        writeln!(
            e,
            "malformed record {} at offset {}: {}",
            m["index"], m["offset"], m["reason"]
        )?;
    }
    if st.malformed.len() as u64 != st.records - st.decoded {
        writeln!(e, "(first {} malformed records listed)", st.malformed.len())?;
    }
    Ok(())
}
