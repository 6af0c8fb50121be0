//! YaneuraOu's DB2016 text book (`.db`).
//!
//! ```text
//! #YANEURAOU-DB2016 1.00
//! # NOE:2                                     (optional: number of entries)
//! sfen <board> <side> <hands> [<ply>]
//! <move> [<ponder> [<value> [<depth> [<count>]]]] [# or // comment]
//! ```
//! Reading is tolerant: a BOM, CRLF or LF, blank lines, `#` / `//` comment lines, trailing
//! comments, missing fields (`none` / `None` for a value too), `none` / `None` / `resign` as
//! the move (a line that plays nothing, counted, not an entry's move) or the ponder, a
//! missing or zero ply, unsorted entries and one position under several plies. Every line
//! that cannot be taken is a [`Rejected`] with its line number; a move line after a rejected
//! position line is rejected with it. Only a file whose header says DB2016 while no line
//! of its body is an `sfen` line stops the reader.
//!
//! Writing is YaneuraOu's canonical form: the header, `# NOE:n`, entries sorted by the bytes
//! of their SFEN without the ply, each `sfen <SFEN> <ply>` (the ply left out when unknown),
//! moves ordered by count then value, both descending and stable ([`super::sort_moves`]),
//! CRLF line ends. A missing field before a present one is written `none`; missing trailing
//! fields are left out.

use super::{
    canonical_sfen, entry_position, sort_moves, Book, BookFatal, BookMove, BookPosition, Rejected,
};
use crate::codec::text::parse_sfen_line;
use crate::shogi::{Move, Position};
use std::io::{self, Write};
use std::path::Path;

/// The header line of a DB2016 book.
pub const HEADER: &str = "#YANEURAOU-DB2016 1.00";

/// A DB2016 book as read: the entries, the lines rejected and what the file said of itself.
#[derive(Debug, Default)]
pub struct DbRead {
    /// The entries, in file order.
    pub book: Book,
    /// Lines that could not be taken.
    pub rejected: Vec<Rejected>,
    /// Whether the first line is the DB2016 header.
    pub header: bool,
    /// The `# NOE:n` count, if the file gives one.
    pub noe: Option<u64>,
    /// Move lines whose move is `none` / `None` / `resign` (not moves; not rejected).
    pub no_move_lines: u64,
    /// Whether the entries come in canonical order (SFEN bytes strictly increasing).
    pub sorted: bool,
    /// Entries whose ply was missing or 0.
    pub unknown_ply: u64,
}

/// Whether `bytes` look like a DB2016 book: its header (after an optional BOM), or, for a
/// headerless file, a first content line `sfen …` followed by a move line.
pub fn looks_like_db(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if bytes.starts_with(b"#YANEURAOU-DB2016") {
        return true;
    }
    let mut content = bytes
        .split(|&b| b == b'\n')
        .take(64)
        .map(|l| l.trim_ascii())
        .filter(|l| !l.is_empty() && !l.starts_with(b"#") && !l.starts_with(b"//"));
    let first = content.next();
    let second = content.next();
    match (first, second) {
        (Some(a), Some(b)) => a.starts_with(b"sfen ") && !b.starts_with(b"sfen ") && is_move(b),
        _ => false,
    }
}

fn is_move(line: &[u8]) -> bool {
    let token = line
        .split(|b| b.is_ascii_whitespace())
        .next()
        .unwrap_or(b"");
    let token = std::str::from_utf8(token).unwrap_or("");
    Move::from_usi(token).is_some() || matches!(token, "none" | "None" | "resign")
}

/// What the reader is inside of.
enum Current {
    /// No position line yet.
    Nothing,
    /// The position line at this line number was rejected.
    RejectedAt(u64),
    /// Moves go to the last entry.
    Entry,
}

/// Reads a DB2016 book from `bytes` (the contents of `file`, named in every error).
pub fn read(file: &Path, bytes: &[u8]) -> Result<DbRead, BookFatal> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut out = DbRead {
        sorted: true,
        ..DbRead::default()
    };
    let mut state = Current::Nothing;
    let mut previous_key: Option<String> = None;
    let mut content_lines = 0u64;
    for (index, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let line_no = index as u64 + 1;
        let reject = |is_position: bool, reason: String| Rejected {
            file: file.to_path_buf(),
            line: line_no,
            is_position,
            reason,
        };
        let Ok(line) = std::str::from_utf8(raw) else {
            out.rejected.push(reject(false, "not UTF-8".into()));
            continue;
        };
        let line = line.trim();
        if !content(file, line, line_no, &mut out)? {
            continue;
        }
        content_lines += 1;
        if let Some(sfen) = line.strip_prefix("sfen ") {
            match parse_position(sfen) {
                Ok((position, ply)) => {
                    let key = canonical_sfen(&position);
                    if previous_key.as_ref().is_some_and(|p| *p >= key) {
                        out.sorted = false;
                    }
                    previous_key = Some(key);
                    out.unknown_ply += u64::from(ply.is_none());
                    out.book.positions.push(BookPosition {
                        position,
                        ply,
                        moves: Vec::new(),
                        line: line_no,
                    });
                    state = Current::Entry;
                }
                Err(reason) => {
                    out.rejected.push(reject(true, reason));
                    state = Current::RejectedAt(line_no);
                }
            }
            continue;
        }
        let result = match state {
            Current::Nothing => Err("move line before any sfen line".to_string()),
            Current::RejectedAt(at) => Err(format!("under the rejected position of line {at}")),
            Current::Entry => parse_move_line(line),
        };
        match result {
            Ok(None) => out.no_move_lines += 1,
            Ok(Some(m)) => add_move(&mut out, m, line_no, file),
            Err(reason) => out.rejected.push(reject(false, reason)),
        }
    }
    if out.header && content_lines > 0 && out.book.positions.is_empty() && !has_sfen_line(&out) {
        return Err(BookFatal::new(
            file,
            "the header says YaneuraOu DB2016 but no line of the body is an `sfen` line",
        ));
    }
    Ok(out)
}

/// Whether `line` is content (a position or move line); takes the header, the NOE count
/// and comments into `out`. A DB2016 header of another version refuses the file.
fn content(file: &Path, line: &str, line_no: u64, out: &mut DbRead) -> Result<bool, BookFatal> {
    if line_no == 1 && line.starts_with("#YANEURAOU-DB2016") {
        if line != HEADER {
            return Err(BookFatal::new(
                file,
                format!("unsupported DB2016 header {line:?} (expected {HEADER:?})"),
            ));
        }
        out.header = true;
        return Ok(false);
    }
    if line.is_empty() || line.starts_with("//") {
        return Ok(false);
    }
    if let Some(comment) = line.strip_prefix('#') {
        if let Some(n) = comment.trim().strip_prefix("NOE:") {
            out.noe = n.trim().parse().ok();
        }
        return Ok(false);
    }
    Ok(true)
}

fn has_sfen_line(out: &DbRead) -> bool {
    out.rejected.iter().any(|r| r.is_position)
}

/// Appends `m` to the last entry, or rejects it as a repeat of a move the entry has.
fn add_move(out: &mut DbRead, m: BookMove, line_no: u64, file: &Path) {
    let Some(entry) = out.book.positions.last_mut() else {
        return;
    };
    if entry.moves.iter().any(|x| x.mv == m.mv) {
        out.rejected.push(Rejected {
            file: file.to_path_buf(),
            line: line_no,
            is_position: false,
            reason: format!(
                "move {} repeats a move of the entry at line {}",
                m.mv, entry.line
            ),
        });
        return;
    }
    entry.moves.push(m);
}

/// Parses the text after `sfen `: a validated position and its ply (`None` if missing
/// or 0). A trailing comment is ignored.
fn parse_position(text: &str) -> Result<(Position, Option<u32>), String> {
    let fields: Vec<&str> = tokens(text).collect();
    if !(3..=4).contains(&fields.len()) {
        return Err(format!(
            "expected `sfen <board> <side> <hands> [<ply>]`, found {} fields",
            fields.len()
        ));
    }
    let ply = match fields.get(3) {
        None => None,
        Some(s) => match s.parse::<u32>() {
            Ok(0) => None,
            Ok(n) => Some(n),
            Err(_) => return Err(format!("ply {s:?} is not a number")),
        },
    };
    let sfen = format!("{} {} {}", fields[0], fields[1], fields[2]);
    let position = parse_sfen_line(&sfen).map_err(|e| e.to_string())?;
    Ok((entry_position(position, ply), ply))
}

/// The whitespace-separated fields of `line` before a `#` or `//` comment.
fn tokens(line: &str) -> impl Iterator<Item = &str> {
    line.split_ascii_whitespace()
        .take_while(|t| !t.starts_with('#') && !t.starts_with("//"))
}

/// Parses a move line: `Ok(None)` when it plays nothing (`none` / `resign`).
fn parse_move_line(line: &str) -> Result<Option<BookMove>, String> {
    let fields: Vec<&str> = tokens(line).collect();
    if fields.len() > 5 {
        return Err(format!(
            "expected at most 5 fields (move ponder value depth count), found {}",
            fields.len()
        ));
    }
    let Some(mv) = parse_move(fields.first().copied().unwrap_or(""))? else {
        return Ok(None);
    };
    let ponder = match fields.get(1) {
        None => None,
        Some(t) => parse_move(t).map_err(|e| format!("ponder: {e}"))?,
    };
    Ok(Some(BookMove {
        mv,
        ponder,
        value: number(fields.get(2).copied(), "value")?,
        depth: number(fields.get(3).copied(), "depth")?,
        count: number(fields.get(4).copied(), "count")?,
    }))
}

fn parse_move(token: &str) -> Result<Option<Move>, String> {
    match token {
        "none" | "None" | "resign" => Ok(None),
        _ => Move::from_usi(token)
            .map(Some)
            .ok_or_else(|| format!("{token:?} is not a USI move")),
    }
}

fn number<T: std::str::FromStr>(token: Option<&str>, what: &str) -> Result<Option<T>, String> {
    match token {
        None | Some("none" | "None") => Ok(None),
        Some(t) => t
            .parse()
            .map(Some)
            .map_err(|_| format!("{what} {t:?} is not a number")),
    }
}

/// Writes `book` in canonical DB2016 form (see the module doc). The entries must hold
/// distinct positions ([`Book::merge_plies`] first); a repeated position is an error and
/// nothing is written.
pub fn write(book: &Book, out: &mut impl Write) -> io::Result<()> {
    let mut entries: Vec<(String, &BookPosition)> = book
        .positions
        .iter()
        .map(|p| (canonical_sfen(&p.position), p))
        .collect();
    entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    if let Some(w) = entries.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("position {} appears twice: merge plies first", w[0].0),
        ));
    }
    let mut text = String::with_capacity(64 + entries.len() * 120);
    text.push_str(HEADER);
    text.push_str("\r\n");
    text.push_str(&format!("# NOE:{}\r\n", entries.len()));
    for (sfen, entry) in entries {
        write_entry(&mut text, &sfen, entry);
        if text.len() > 1 << 20 {
            out.write_all(text.as_bytes())?;
            text.clear();
        }
    }
    out.write_all(text.as_bytes())
}

fn write_entry(text: &mut String, sfen: &str, entry: &BookPosition) {
    use std::fmt::Write as _;
    text.push_str("sfen ");
    text.push_str(sfen);
    if let Some(ply) = entry.ply {
        let _ = write!(text, " {ply}");
    }
    text.push_str("\r\n");
    let mut moves = entry.moves.clone();
    sort_moves(&mut moves);
    for m in &moves {
        let _ = write!(text, "{}", m.mv);
        let fields = [
            m.value.map(i64::from),
            m.depth.map(i64::from),
            m.count.map(|c| c as i64),
        ];
        let present = fields
            .iter()
            .rposition(Option::is_some)
            .map_or(0, |i| i + 1);
        if present > 0 || m.ponder.is_some() {
            let ponder = m.ponder.unwrap_or(Move::NONE);
            let _ = write!(text, " {ponder}");
        }
        for (i, f) in fields.iter().take(present).enumerate() {
            match (i, f) {
                (2, Some(_)) => {
                    let _ = write!(text, " {}", m.count.unwrap_or(0));
                }
                (_, Some(v)) => {
                    let _ = write!(text, " {v}");
                }
                (_, None) => text.push_str(" none"),
            }
        }
        text.push_str("\r\n");
    }
}
