//! One door to every book format: [`BookFormat`], recognising a book file ([`sniff`]),
//! reading any format into a [`Loaded`] book ([`load`]), writing one ([`save`]) and the
//! roots a walk or an Apery reader starts from ([`roots_from_text`]).

use super::walk::Root;
use super::{apery, db, sbk, ybb, Book, BookFatal, Rejected};
use crate::codec::text::{parse_sfen_line, parse_usi_line};
use crate::shogi::Position;
use std::fmt;
use std::io::{self, Write};
use std::path::Path;
use std::str::FromStr;

/// A book format. Its name (`db`, `apery`, `ybb`, `sbk`) is its text form everywhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BookFormat {
    /// YaneuraOu DB2016 text.
    Db,
    /// Apery / dlshogi / cshogi `book.bin` (never detected: `.bin` is also psv).
    Apery,
    /// YaneuraOu binary book.
    Ybb,
    /// ShogiGUI book (read only).
    Sbk,
}

impl BookFormat {
    /// Every book format.
    pub const ALL: [BookFormat; 4] = [
        BookFormat::Db,
        BookFormat::Apery,
        BookFormat::Ybb,
        BookFormat::Sbk,
    ];

    /// The format's name.
    pub const fn name(self) -> &'static str {
        match self {
            BookFormat::Db => "db",
            BookFormat::Apery => "apery",
            BookFormat::Ybb => "ybb",
            BookFormat::Sbk => "sbk",
        }
    }

    /// Whether [`save`] can write it.
    pub const fn writable(self) -> bool {
        !matches!(self, BookFormat::Sbk)
    }
}

impl fmt::Display for BookFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for BookFormat {
    type Err = String;

    fn from_str(s: &str) -> Result<BookFormat, String> {
        BookFormat::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| format!("unknown book format {s:?} (db, apery, ybb, sbk)"))
    }
}

/// The book format `path` holds, judged from its first bytes `head` (a BOM may lead)
/// and its extension: a DB2016 header or `sfen` + move lines → `db`; the `.ybb` magic →
/// `ybb`; the extension `.sbk` → `sbk`. Apery books are never recognised (name them).
pub fn sniff(path: &Path, head: &[u8]) -> Option<BookFormat> {
    if head.starts_with(ybb::MAGIC) {
        return Some(BookFormat::Ybb);
    }
    if db::looks_like_db(head) {
        return Some(BookFormat::Db);
    }
    let ext = path.extension()?.to_string_lossy().to_ascii_lowercase();
    (ext == "sbk").then_some(BookFormat::Sbk)
}

/// A book as read, with what its reader found out about the file.
#[derive(Debug, Default)]
pub struct Loaded {
    /// The entries, in file (or walk) order; not merged.
    pub book: Book,
    /// Lines or records the reader could not take.
    pub rejected: Vec<Rejected>,
    /// What the file says of itself and what reading it showed.
    pub facts: Facts,
}

/// Format-specific findings of a reader (absent where the format has no such thing).
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct Facts {
    /// DB2016: the header line is present.
    pub header: Option<bool>,
    /// DB2016: the `# NOE:n` count.
    pub noe: Option<u64>,
    /// Whether entries (Apery: records) come in the format's sorted order.
    pub sorted: Option<bool>,
    /// DB2016: move lines playing nothing (`none`, `resign`).
    pub no_move_lines: u64,
    /// Entries whose ply was missing or 0.
    pub unknown_ply: u64,
    /// Apery: records in the file.
    pub records: Option<u64>,
    /// Apery: records (`.sbk`: states) no walk from the roots reaches.
    pub unreachable: Option<u64>,
    /// Apery: records whose move is legal in no walked position of their key.
    pub collisions: Option<u64>,
    /// `.ybb`: moves carry a depth.
    pub has_depth: Option<bool>,
}

/// Reads `bytes` (the contents of `path`) as a book of `format`; Apery walks from
/// `roots` (the start position when empty).
pub fn load(
    path: &Path,
    bytes: &[u8],
    format: BookFormat,
    roots: &[Position],
) -> Result<Loaded, BookFatal> {
    let mut facts = Facts::default();
    let (book, rejected) = match format {
        BookFormat::Db => {
            let r = db::read(path, bytes)?;
            facts.header = Some(r.header);
            facts.noe = r.noe;
            facts.sorted = Some(r.sorted);
            facts.no_move_lines = r.no_move_lines;
            facts.unknown_ply = r.unknown_ply;
            (r.book, r.rejected)
        }
        BookFormat::Apery => {
            let start = [Position::startpos()];
            let roots = if roots.is_empty() { &start[..] } else { roots };
            let r = apery::read(path, bytes, roots)?;
            facts.sorted = Some(r.sorted);
            facts.records = Some(r.records);
            facts.unreachable = Some(r.unreachable);
            facts.collisions = Some(r.collisions.len() as u64);
            (r.book, Vec::new())
        }
        BookFormat::Ybb => {
            let r = ybb::read(path, bytes)?;
            facts.sorted = Some(true);
            facts.has_depth = Some(r.has_depth);
            facts.unknown_ply = r.book.positions.iter().filter(|p| p.ply.is_none()).count() as u64;
            (r.book, r.rejected)
        }
        BookFormat::Sbk => {
            let r = sbk::read(path, bytes)?;
            facts.unreachable = Some(r.unreachable);
            (r.book, r.rejected)
        }
    };
    Ok(Loaded {
        book,
        rejected,
        facts,
    })
}

/// Writes `book` (merged: distinct positions) as `format`; `.sbk` is refused.
pub fn save(book: &Book, format: BookFormat, out: &mut impl Write) -> io::Result<()> {
    match format {
        BookFormat::Db => db::write(book, out),
        BookFormat::Apery => apery::write(book, out),
        BookFormat::Ybb => ybb::write(book, out),
        BookFormat::Sbk => Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "writing ShogiGUI .sbk books is not supported",
        )),
    }
}

/// Roots from a text file `path`: one per line, an SFEN (`sfen ` optional) or a USI
/// position line (`startpos moves …`, `sfen … moves …`, every move checked); blank and
/// `#` lines skipped. Bad lines are [`Rejected`] with their line numbers.
pub fn roots_from_text(path: &Path, text: &str) -> (Vec<Root>, Vec<Rejected>) {
    let mut roots = Vec::new();
    let mut rejected = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        match root_of(line) {
            Ok(root) => roots.push(root),
            Err(reason) => rejected.push(Rejected {
                file: path.to_path_buf(),
                line: i as u64 + 1,
                is_position: true,
                reason,
            }),
        }
    }
    (roots, rejected)
}

fn root_of(line: &str) -> Result<Root, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let usi =
        matches!(words.first(), Some(&"startpos") | Some(&"position")) || words.contains(&"moves");
    if !usi {
        let position = parse_sfen_line(line).map_err(|e| e.to_string())?;
        let sfen = position.to_sfen();
        return Ok(Root {
            position,
            history: Vec::new(),
            line: format!("sfen {sfen}"),
        });
    }
    let (position, history) = parse_usi_line(line).map_err(|e| e.to_string())?;
    let mut pos = history.start.clone();
    let mut before = Vec::with_capacity(history.moves.len());
    for &m in &history.moves {
        before.push(pos.fingerprint());
        pos.do_move(m);
    }
    let line = line.strip_prefix("position ").unwrap_or(line).to_string();
    Ok(Root {
        position,
        history: before,
        line,
    })
}

/// The start position as the one root.
pub fn startpos_root() -> Root {
    Root {
        position: Position::startpos(),
        history: Vec::new(),
        line: "startpos".into(),
    }
}
