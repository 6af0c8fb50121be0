//! Opening books (`posfilter::book`) against independent readers and writers: the rsshogi
//! crate's DB2016, `.ybb` and `.sbk` (feature `book`) both ways, cshogi's Apery keys,
//! moves and `BookEntry` records via python3, and the fault fixtures of tests/data/book
//! (made from real games by tests/data/book/make_fixtures.py).

use crate::games::python_oracles;
use crate::support::{data, TempDir};
use posfilter::book::{self, apery, apery_key, db, sbk, ybb, Book, BookMove, BookPosition};
use posfilter::shogi::{Move, Position};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The book of the first `games` teacher games up to `plies` plies: each position with the
/// move played from it (the next one as ponder), fields varied per position, including
/// the unknown value and the cycle depths. Several games share openings, so before
/// [`Book::merge_plies`] positions repeat.
/// With `startpos_only`, only the games from the start position (so that a walk from it
/// reaches every position).
fn teacher_book(games: usize, plies: usize, startpos_only: bool) -> Book {
    let text = std::fs::read_to_string(data("codec/teacher.usi")).unwrap();
    let mut book = Book::default();
    let lines = text
        .lines()
        .filter(|l| !startpos_only || l.starts_with("startpos"));
    for (g, line) in lines.take(games).enumerate() {
        let (_, history) = posfilter::codec::text::parse_usi_line(line).unwrap();
        let moves = history.moves;
        let mut pos = history.start;
        pos.clear_history();
        for (i, &mv) in moves.iter().take(plies).enumerate() {
            let n = (g * 31 + i * 7) as i32;
            let value = match n % 11 {
                0 => -32768,
                _ => n % 600 - 300,
            };
            let depth = [9999, 9998, 9997, 20, 18, 0][n as usize % 6];
            let mut entry = pos.clone();
            entry.clear_history();
            book.positions.push(BookPosition {
                position: entry,
                ply: Some(pos.ply()),
                moves: vec![BookMove {
                    mv,
                    ponder: moves.get(i + 1).copied(),
                    value: Some(value),
                    depth: Some(depth),
                    count: Some(1 + n as u64 % 5),
                }],
                line: 0,
            });
            pos.do_move(mv);
        }
    }
    book
}

/// A merged teacher book: distinct positions, several moves at shared openings.
pub(crate) fn merged_book() -> Book {
    let mut book = teacher_book(60, 30, true);
    let merged = book.merge_plies();
    assert!(
        merged.positions > 5 && merged.moves_added > 10,
        "{merged:?}"
    );
    book
}

/// Our book as a map: canonical SFEN → (ply, moves by USI → fields).
type Fields = (Option<String>, Option<i32>, Option<i32>, Option<u64>);
fn as_map(book: &Book) -> BTreeMap<String, (Option<u32>, BTreeMap<String, Fields>)> {
    book.positions
        .iter()
        .map(|p| {
            let moves = p
                .moves
                .iter()
                .map(|m| {
                    let f = (m.ponder.map(|x| x.to_usi()), m.value, m.depth, m.count);
                    (m.mv.to_usi(), f)
                })
                .collect();
            (book::canonical_sfen(&p.position), (p.ply, moves))
        })
        .collect()
}

fn strip_ply(sfen: &str) -> String {
    sfen.split(' ').take(3).collect::<Vec<_>>().join(" ")
}

fn rs_move(m: Move) -> rsshogi::types::Move {
    rsshogi::types::Move::from_usi(&m.to_usi()).unwrap()
}

#[test]
fn db_we_write_reads_back_in_rsshogi_sorted_and_ordered() {
    let book = merged_book();
    let dir = TempDir::new("book-db-ours");
    let path = dir.join("ours.db");
    let mut bytes = Vec::new();
    db::write(&book, &mut bytes).unwrap();
    std::fs::write(&path, &bytes).unwrap();
    assert!(bytes.starts_with(b"#YANEURAOU-DB2016 1.00\r\n# NOE:"));
    assert!(
        !bytes.windows(2).any(|w| w[1] == b'\n' && w[0] != b'\r'),
        "CRLF only"
    );
    let theirs = rsshogi::book::YaneuraOuBook::open(&path).unwrap();
    let ours = as_map(&book);
    let mut seen = Vec::new();
    for entry in theirs.iter_entries().unwrap() {
        let entry = entry.unwrap();
        let sfen = strip_ply(entry.sfen());
        let (ply, moves) = &ours[&sfen];
        assert_eq!(entry.original_ply(), *ply, "{sfen}");
        let their_moves: BTreeMap<String, Fields> = entry
            .moves()
            .iter()
            .map(|m| {
                let ponder =
                    (m.ponder() != rsshogi::types::Move::MOVE_NONE).then(|| m.ponder().to_usi());
                let f = (ponder, m.score(), m.depth().map(|d| d as i32), m.count());
                (m.mv().to_usi(), f)
            })
            .collect();
        assert_eq!(&their_moves, moves, "{sfen}");
        // Moves in YaneuraOu's order: count, then value, descending.
        let keys: Vec<(Option<u64>, Option<i32>)> = entry
            .moves()
            .iter()
            .map(|m| (m.count(), m.score()))
            .collect();
        assert!(keys.windows(2).all(|w| w[0] >= w[1]), "{sfen}: {keys:?}");
        seen.push(sfen);
    }
    assert_eq!(seen.len(), ours.len());
    assert!(
        seen.windows(2).all(|w| w[0].as_bytes() < w[1].as_bytes()),
        "sorted by SFEN bytes"
    );
    let again = db::read(&path, &bytes).unwrap();
    assert!(again.sorted && again.rejected.is_empty() && again.header);
    assert_eq!(again.noe, Some(ours.len() as u64));
    assert_eq!(as_map(&again.book), ours);
}

/// rsshogi's owned book database holding `book`.
fn rs_database(book: &Book, weights: bool) -> rsshogi::book::BookDatabase {
    use rsshogi::book::{BookCandidate, BookDatabaseEntry, BookEntryMetadata, BookMoveMetadata};
    let entries = book
        .positions
        .iter()
        .map(|p| {
            let sfen = book::canonical_sfen(&p.position) + " 1";
            let position = rsshogi::book::BookPosition::from_sfen(&sfen, p.ply).unwrap();
            let candidates = p
                .moves
                .iter()
                .map(|m| {
                    BookCandidate::new(
                        rs_move(m.mv),
                        m.ponder.map(rs_move),
                        m.value,
                        m.depth.map(|d| d as u32),
                        weights.then(|| m.count.unwrap() as i32),
                        (!weights).then_some(m.count).flatten(),
                        BookMoveMetadata::default(),
                    )
                })
                .collect();
            BookDatabaseEntry::new(position, candidates, BookEntryMetadata::default())
        })
        .collect();
    rsshogi::book::BookDatabase::try_from_entries(entries).unwrap()
}

#[test]
fn db_rsshogi_writes_reads_back_in_ours() {
    let book = merged_book();
    let mut bytes = Vec::new();
    rs_database(&book, false)
        .write_yaneuraou_db2016(
            &mut bytes,
            &rsshogi::book::YaneuraOuDb2016WriteOptions::new(),
        )
        .unwrap();
    let read = db::read(Path::new("theirs.db"), &bytes).unwrap();
    assert!(
        read.header && read.rejected.is_empty(),
        "{:?}",
        read.rejected
    );
    assert!(read.sorted);
    assert_eq!(as_map(&read.book), as_map(&book));
    assert!(db::looks_like_db(&bytes));
}

#[test]
fn ybb_round_trips_with_rsshogi_both_ways() {
    let book = merged_book();
    let dir = TempDir::new("book-ybb");
    let path = dir.join("ours.ybb");
    let mut bytes = Vec::new();
    ybb::write(&book, &mut bytes).unwrap();
    std::fs::write(&path, &bytes).unwrap();
    let theirs = rsshogi::book::YbbBook::open(&path).unwrap();
    assert!(theirs.has_depth());
    let ours: BTreeMap<[u8; 32], &BookPosition> = book
        .positions
        .iter()
        .map(|p| {
            (
                posfilter::codec::psfen::encode_psfen(&p.position).unwrap(),
                p,
            )
        })
        .collect();
    let mut rows = 0;
    for entry in theirs.iter_entries() {
        let entry = entry.unwrap();
        let p = ours[entry.packed_sfen().as_bytes()];
        assert_eq!(Some(u32::from(entry.ply())), p.ply);
        let got: BTreeSet<(u16, i16, Option<u16>)> = entry
            .moves()
            .iter()
            .map(|m| (m.raw_move(), m.eval(), m.depth()))
            .collect();
        let want: BTreeSet<(u16, i16, Option<u16>)> = p
            .moves
            .iter()
            .map(|m| {
                (
                    m.mv.to_yo16(),
                    m.value.unwrap() as i16,
                    Some(m.depth.unwrap() as u16),
                )
            })
            .collect();
        assert_eq!(got, want);
        // YaneuraOu's Move16 names the same move as ours.
        for m in entry.moves() {
            assert_eq!(
                Move::from_yo16(m.raw_move()).unwrap().to_usi(),
                m.mv().to_usi()
            );
        }
        rows += 1;
    }
    assert_eq!(rows, book.positions.len());

    // Theirs → ours.
    let mut cursor = std::io::Cursor::new(Vec::new());
    rs_database(&book, false)
        .write_ybb(
            &mut cursor,
            &rsshogi::book::YbbWriteOptions::new()
                .with_depth(true)
                .with_allow_lossy(true),
        )
        .unwrap();
    let read = ybb::read(Path::new("theirs.ybb"), cursor.get_ref()).unwrap();
    assert!(read.rejected.is_empty() && read.has_depth);
    let strip = |b: &Book| {
        let mut b = b.clone();
        for m in b.positions.iter_mut().flat_map(|p| &mut p.moves) {
            m.ponder = None;
            m.count = None;
        }
        as_map(&b)
    };
    assert_eq!(as_map(&read.book), strip(&book));
}

#[test]
fn ybb_refuses_unknown_flags_and_keys_out_of_order() {
    let book = merged_book();
    let mut bytes = Vec::new();
    ybb::write(&book, &mut bytes).unwrap();
    let mut flags = bytes.clone();
    flags[24] |= 2;
    let err = ybb::read(Path::new("flags.ybb"), &flags)
        .unwrap_err()
        .to_string();
    assert!(err.contains("flags.ybb") && err.contains("flags"), "{err}");
    let mut swapped = bytes.clone();
    let (a, b) = (32, 32 + 44);
    let row0: Vec<u8> = swapped[a..a + 44].to_vec();
    let row1: Vec<u8> = swapped[b..b + 44].to_vec();
    swapped[a..a + 44].copy_from_slice(&row1);
    swapped[b..b + 44].copy_from_slice(&row0);
    let err = ybb::read(Path::new("order.ybb"), &swapped)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("order.ybb") && err.contains("out of key order"),
        "{err}"
    );
}

#[test]
fn sbk_rsshogi_writes_reads_back_in_ours_by_next_state_links() {
    let book = merged_book();
    let bytes = rs_database(&book, true)
        .to_sbk_bytes(&rsshogi::book::SbkWriteOptions::new())
        .unwrap();
    let read = sbk::read(Path::new("theirs.sbk"), &bytes).unwrap();
    assert!(read.rejected.is_empty(), "{:?}", read.rejected);
    assert_eq!(read.unreachable, 0);
    let by_count = |m: &BookMove| (m.mv.to_usi(), m.count);
    assert_eq!(summary(&read.book, by_count), summary(&book, by_count));
}

/// Runs tests/data/book/oracle_apery.py with `args`, returning its stdout lines.
fn apery_oracle(args: &[&str]) -> Vec<String> {
    let script = data("book/oracle_apery.py").into_os_string();
    let args = std::iter::once(script).chain(args.iter().map(|a| a.into()));
    let text = crate::support::python(args);
    text.lines().map(String::from).collect()
}

#[test]
fn apery_keys_and_moves_match_cshogi_over_every_teacher_position() {
    if !python_oracles() {
        return;
    }
    let book = teacher_book(655, 400, false);
    let dir = TempDir::new("book-apery-keys");
    let input = dir.join("in.tsv");
    let lines: String = book
        .positions
        .iter()
        .map(|p| format!("{}\t{}\n", p.position.to_sfen(), p.moves[0].mv))
        .collect();
    std::fs::write(&input, lines).unwrap();
    let theirs = apery_oracle(&["keys", input.to_str().unwrap()]);
    assert_eq!(theirs.len(), book.positions.len());
    assert!(theirs.len() > 90_000, "{}", theirs.len());
    for (p, line) in book.positions.iter().zip(&theirs) {
        let f: Vec<u64> = line.split(' ').map(|x| x.parse().unwrap()).collect();
        let mv = p.moves[0].mv;
        assert_eq!(
            apery_key::key(&p.position),
            f[0],
            "{}",
            p.position.to_sfen()
        );
        assert_eq!(u64::from(mv.raw()), f[1], "{mv}");
        let mut child = p.position.clone();
        child.do_move(mv);
        assert_eq!(
            apery_key::key(&child),
            f[2],
            "{} {mv}",
            p.position.to_sfen()
        );
    }
}

#[test]
fn apery_book_we_write_is_what_cshogi_finds_and_theirs_walks_back() {
    if !python_oracles() {
        return;
    }
    let book = merged_book();
    let dir = TempDir::new("book-apery");
    let ours_path = dir.join("ours.bin");
    let mut bytes = Vec::new();
    apery::write(&book, &mut bytes).unwrap();
    std::fs::write(&ours_path, &bytes).unwrap();
    let sfens = dir.join("sfens");
    let text: String = book
        .positions
        .iter()
        .map(|p| p.position.to_sfen() + "\n")
        .collect();
    std::fs::write(&sfens, text).unwrap();
    let found = apery_oracle(&[
        "lookup",
        ours_path.to_str().unwrap(),
        sfens.to_str().unwrap(),
    ]);
    for (p, line) in book.positions.iter().zip(&found) {
        let got: BTreeSet<(u16, u16, i32)> = serde_json::from_str::<Vec<(u16, u16, i32)>>(line)
            .unwrap()
            .into_iter()
            .collect();
        let want: BTreeSet<(u16, u16, i32)> = p
            .moves
            .iter()
            .map(|m| (m.mv.raw(), m.count.unwrap() as u16, m.value.unwrap()))
            .collect();
        assert_eq!(got, want, "{}", p.position.to_sfen());
    }
    // cshogi writes; we walk from the start position and recover every position.
    let rows = dir.join("rows.tsv");
    let mut text = String::new();
    for p in &book.positions {
        for m in &p.moves {
            let (c, v) = (m.count.unwrap(), m.value.unwrap());
            text += &format!("{}\t{}\t{c}\t{v}\n", p.position.to_sfen(), m.mv);
        }
    }
    // One record no walk reaches, one whose move is illegal where its key is reached.
    text += "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSN1 b L 1\t1i1h\t1\t0\n";
    let their_path = dir.join("theirs.bin");
    std::fs::write(&rows, text).unwrap();
    apery_oracle(&[
        "write",
        their_path.to_str().unwrap(),
        rows.to_str().unwrap(),
    ]);
    let mut theirs = std::fs::read(&their_path).unwrap();
    let mut bad = apery_key::key(&Position::startpos()).to_le_bytes().to_vec();
    bad.extend_from_slice(&Move::from_usi("5a5b").unwrap().raw().to_le_bytes());
    bad.extend_from_slice(&[1, 0, 0, 0, 0, 0]);
    theirs.splice(0..0, bad);
    let read = apery::read(&their_path, &theirs, &[Position::startpos()]).unwrap();
    assert!(!read.sorted, "the bad record goes first");
    assert_eq!(read.unreachable, 1);
    assert_eq!(read.collisions.len(), 1, "{:?}", read.collisions);
    assert_eq!(read.records as usize, book.move_count() + 2);
    assert_eq!(counts_and_values(&read.book), counts_and_values(&book));
    for p in &read.book.positions {
        assert_eq!(p.ply, Some(p.position.ply()));
    }
    let err = apery::read(
        Path::new("short.bin"),
        &theirs[..20],
        &[Position::startpos()],
    );
    let err = err.unwrap_err().to_string();
    assert!(
        err.contains("short.bin") && err.contains("16-byte"),
        "{err}"
    );
}

/// Canonical SFEN → the set of `field(move)` over its moves.
fn summary<T: Ord>(book: &Book, field: impl Fn(&BookMove) -> T) -> BTreeMap<String, BTreeSet<T>> {
    book.positions
        .iter()
        .map(|p| {
            (
                book::canonical_sfen(&p.position),
                p.moves.iter().map(&field).collect(),
            )
        })
        .collect()
}

/// A move's (USI, count, value).
type CountValue = (String, Option<u64>, Option<i32>);

/// Canonical SFEN → the set of (move, count, value) of its moves.
fn counts_and_values(book: &Book) -> BTreeMap<String, BTreeSet<CountValue>> {
    summary(book, |m| (m.mv.to_usi(), m.count, m.value))
}

fn fixture(name: &str) -> db::DbRead {
    let path = data(&format!("book/{name}"));
    let bytes = std::fs::read(&path).unwrap();
    db::read(&path, &bytes).unwrap()
}

#[test]
fn fixture_illegal_moves_are_found_in_their_positions() {
    let read = fixture("illegal.db");
    assert!(read.rejected.is_empty());
    let illegal: Vec<(u64, String)> = read
        .book
        .illegal_moves()
        .into_iter()
        .map(|(i, m)| (read.book.positions[i].line, m.to_usi()))
        .collect();
    assert_eq!(illegal, [(6, "5a4b".to_string()), (11, "5e5d".to_string())]);
}

#[test]
fn fixture_several_plies_merge_into_the_smallest_ply() {
    let mut read = fixture("several_plies.db");
    let before = read.book.positions.len();
    assert_eq!(read.book.positions_under_several_plies(), 1);
    let merged = read.book.merge_plies();
    assert_eq!(
        (merged.entries, merged.positions, merged.moves_added),
        (1, 1, 1)
    );
    assert_eq!(read.book.positions.len(), before - 1);
    let p = read
        .book
        .positions
        .iter()
        .find(|p| p.ply == Some(5))
        .unwrap();
    let moves: Vec<(String, Option<i32>)> =
        p.moves.iter().map(|m| (m.mv.to_usi(), m.value)).collect();
    // The ply-5 entry's own move keeps its fields (40, not -99); 1g1f joins from ply 9.
    assert_eq!(moves, [("6g6f".into(), Some(40)), ("1g1f".into(), Some(7))]);
    assert!(read.book.positions.iter().all(|p| p.ply != Some(9)));
}

#[test]
fn fixture_unsorted_is_flagged_and_written_sorted() {
    let read = fixture("unsorted.db");
    assert!(!read.sorted && read.rejected.is_empty());
    let mut book = read.book;
    book.merge_plies();
    let mut out = Vec::new();
    db::write(&book, &mut out).unwrap();
    let again = db::read(Path::new("sorted.db"), &out).unwrap();
    assert!(again.sorted);
    assert_eq!(as_map(&again.book), as_map(&book));
}

#[test]
fn fixture_messy_is_read_line_by_line() {
    let read = fixture("messy.db");
    assert!(read.header);
    assert_eq!(read.noe, Some(6));
    assert_eq!(read.no_move_lines, 1, "the resign line");
    assert_eq!(read.unknown_ply, 2, "ply 0 and a missing ply");
    let rejected: Vec<(u64, bool)> = read
        .rejected
        .iter()
        .map(|r| (r.line, r.is_position))
        .collect();
    assert_eq!(
        rejected,
        [(14, false), (15, true), (16, false), (20, false)]
    );
    assert!(read.rejected[0].to_string().contains("messy.db:14"));
    assert!(read.rejected[2].reason.contains("line 15"));
    type Row = (
        String,
        Option<String>,
        Option<i32>,
        Option<i32>,
        Option<u64>,
    );
    let moves: Vec<Row> = read
        .book
        .positions
        .iter()
        .flat_map(|p| &p.moves)
        .map(|m| {
            (
                m.mv.to_usi(),
                m.ponder.map(|p| p.to_usi()),
                m.value,
                m.depth,
                m.count,
            )
        })
        .collect();
    assert_eq!(
        moves,
        [
            ("2g2f".into(), None, Some(12), Some(3), Some(4)),
            ("8c8d".into(), None, None, None, None),
            (
                "2f2e".into(),
                Some("8d8e".into()),
                Some(-32768),
                Some(9999),
                Some(1)
            ),
            ("8d8e".into(), None, Some(5), Some(9998), None),
            (
                "6i7h".into(),
                Some("4a3b".into()),
                Some(1),
                Some(9997),
                Some(2)
            ),
        ]
    );
    assert_eq!(read.book.positions.len(), 6);
}

#[test]
fn db_header_over_another_body_stops_with_a_clear_error() {
    let text =
        "#YANEURAOU-DB2016 1.00\nlnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\n";
    let err = db::read(Path::new("x.db"), text.as_bytes())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("x.db") && err.contains("no line of the body"),
        "{err}"
    );
    assert!(db::looks_like_db(text.as_bytes()));
    let headerless =
        "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\n7g7f none 0 0 1\n";
    assert!(db::looks_like_db(headerless.as_bytes()));
    let sfen_lines = "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\nsfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\n";
    assert!(!db::looks_like_db(sfen_lines.as_bytes()));
}

#[test]
fn a_book_is_refused_by_name_by_run_and_reported_by_inspect() {
    let dir = TempDir::new("book-detect");
    let headerless = dir.join("starts.txt");
    std::fs::write(
        &headerless,
        "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\r\n7g7f none 0 0 1\r\n",
    )
    .unwrap();
    let ybb_path = dir.join("book.bin");
    let mut bytes = Vec::new();
    ybb::write(&merged_book(), &mut bytes).unwrap();
    std::fs::write(&ybb_path, bytes).unwrap();
    for (path, what) in [
        (data("book/messy.db"), "YaneuraOu book (DB2016)"),
        (headerless.clone(), "YaneuraOu book (DB2016)"),
        (ybb_path, "YaneuraOu binary book (.ybb)"),
    ] {
        let err = posfilter::io::detect::detect(&path, None)
            .unwrap_err()
            .to_string();
        assert!(err.contains(what) && err.contains("book walk"), "{err}");
    }
    // A named record format still reads the file as records.
    let named = posfilter::io::detect::detect(&headerless, Some(posfilter::codec::Format::Sfen));
    assert_eq!(named.unwrap().format, posfilter::codec::Format::Sfen);
    // `posfilter run` stops (status 2) naming the book instead of losing its moves.
    std::fs::copy(data("book/messy.db"), dir.join("user_book1.db")).unwrap();
    std::fs::write(
        dir.join("p.toml"),
        "[input]\npaths = [\"user_book1.db\"]\n[output]\ndir = \"out\"\n",
    )
    .unwrap();
    let o = std::process::Command::new(crate::support::bin())
        .args(["run", "--quiet"])
        .arg(dir.join("p.toml"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("user_book1.db") && stderr.contains("DB2016"),
        "{stderr}"
    );
    // `posfilter inspect --json`: the fixture's faults, counted.
    let o = std::process::Command::new(crate::support::bin())
        .args(["inspect", "--json"])
        .arg(data("book/several_plies.db"))
        .output()
        .unwrap();
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["format"], "db");
    assert_eq!(
        (v["entries"].as_u64(), v["positions"].as_u64()),
        (Some(9), Some(8))
    );
    assert_eq!(v["positions_under_several_plies"], 1);
    assert_eq!(v["facts"]["sorted"], false);
    let o = std::process::Command::new(crate::support::bin())
        .args(["inspect", "--json"])
        .arg(data("book/illegal.db"))
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["illegal_moves"], 2);
}
