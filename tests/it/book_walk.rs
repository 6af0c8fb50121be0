//! `posfilter book walk` against cshogi: every emitted line replays legally with no
//! repeated position, each position is emitted once, breadth-first; moves into decided
//! positions are pruned (cshogi's df-pn agrees they are mates); the output is the same on
//! every run.

use crate::games::python_oracles;
use crate::support::{bin, data, TempDir};
use posfilter::book::{db, Book};
use std::collections::HashSet;
use std::path::Path;
use std::process::Command;

/// The teacher games' opening book plus the repetition fixture (a real opening, then rook
/// shuffles back to it), written as our DB2016.
fn walk_book(dir: &TempDir) -> std::path::PathBuf {
    let mut book: Book = crate::book::merged_book();
    let rep = data("book/repetition.db");
    let read = db::read(&rep, &std::fs::read(&rep).unwrap()).unwrap();
    book.positions.extend(read.book.positions);
    book.merge_plies();
    let path = dir.join("book.db");
    let mut bytes = Vec::new();
    db::write(&book, &mut bytes).unwrap();
    std::fs::write(&path, bytes).unwrap();
    path
}

fn walk(book: &Path, out: &Path, args: &[&str]) -> serde_json::Value {
    let o = Command::new(bin())
        .args(["book", "walk"])
        .arg(book)
        .arg("--out")
        .arg(out)
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stem = out.file_stem().unwrap().to_string_lossy().to_string();
    let report = std::fs::read_to_string(out.with_file_name(format!("{stem}.report.json")));
    serde_json::from_str(&report.unwrap()).unwrap()
}

fn replay(path: &Path) -> Vec<serde_json::Value> {
    let script = data("book/oracle_replay.py").into_os_string();
    crate::support::python_json_lines([script, path.as_os_str().to_owned()])
}

#[test]
fn walk_replays_legally_once_per_position_breadth_first_and_cuts_the_cycle() {
    if !python_oracles() {
        return;
    }
    let dir = TempDir::new("book-walk");
    let book = walk_book(&dir);
    let all = dir.join("all.usi");
    let report = walk(&book, &all, &["--max-plies", "24", "--emit", "all"]);
    let text = std::fs::read_to_string(&all).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len() as u64, report["visited"].as_u64().unwrap());
    assert!(lines.len() > 500, "{}", lines.len());
    assert!(report["cycles_cut"].as_u64().unwrap() >= 1, "{report}");
    let replayed = replay(&all);
    assert_eq!(replayed.len(), lines.len());
    let mut finals = HashSet::new();
    for (r, line) in replayed.iter().zip(&lines) {
        assert_eq!(r["legal"], true, "{line}");
        assert_eq!(r["repeat"], false, "{line}");
        assert!(
            finals.insert(r["sfen"].as_str().unwrap().to_string()),
            "twice: {line}"
        );
    }
    // Breadth-first: line lengths never decrease, none past --max-plies.
    let lens: Vec<usize> = lines
        .iter()
        .map(|l| l.split(' ').count().saturating_sub(2))
        .collect();
    assert!(lens.windows(2).all(|w| w[0] <= w[1]) && lens.iter().all(|&n| n <= 24));
    // The same output on every run, and the SFEN output names the same positions.
    let again = dir.join("again.usi");
    walk(&book, &again, &["--max-plies", "24", "--emit", "all"]);
    assert_eq!(std::fs::read(&again).unwrap(), text.as_bytes());
    let sfen = dir.join("all.sfen");
    walk(&book, &sfen, &["--max-plies", "24", "--emit", "all"]);
    let sfens: HashSet<String> = std::fs::read_to_string(&sfen)
        .unwrap()
        .lines()
        .map(|l| l.split(' ').take(3).collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(sfens, finals);
    // Leaves are visited positions; at ply:3, exactly the lines of 3 moves.
    let leaves = dir.join("leaves.usi");
    let lr = walk(&book, &leaves, &["--max-plies", "24"]);
    let leaf_text = std::fs::read_to_string(&leaves).unwrap();
    assert!(leaf_text.lines().all(|l| lines.contains(&l)));
    assert_eq!(
        leaf_text.lines().count() as u64,
        lr["emitted"].as_u64().unwrap()
    );
    // Exits: visited positions the book has no entry for, never a root.
    let exits = dir.join("exits.usi");
    walk(&book, &exits, &["--max-plies", "24", "--emit", "exits"]);
    let entries: HashSet<String> = db::read(&book, &std::fs::read(&book).unwrap())
        .unwrap()
        .book
        .positions
        .iter()
        .map(|p| posfilter::book::canonical_sfen(&p.position))
        .collect();
    let exit_rows = replay(&exits);
    assert!(!exit_rows.is_empty());
    for r in &exit_rows {
        assert!(!entries.contains(r["sfen"].as_str().unwrap()), "{r}");
        assert!(finals.contains(r["sfen"].as_str().unwrap()), "{r}");
    }
    let book_finals = finals.iter().filter(|f| !entries.contains(*f)).count();
    assert_eq!(
        exit_rows.len(),
        book_finals,
        "every visited position off the book"
    );
    let ply3 = dir.join("ply3.usi");
    walk(&book, &ply3, &["--max-plies", "24", "--emit", "ply:3"]);
    let want: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.split(' ').count() == 5)
        .collect();
    assert_eq!(
        std::fs::read_to_string(&ply3)
            .unwrap()
            .lines()
            .collect::<Vec<_>>(),
        want
    );
}

#[test]
fn walk_prunes_a_move_into_a_mate_that_cshogi_proves() {
    if !python_oracles() {
        return;
    }
    let dir = TempDir::new("book-walk-mate");
    let book = data("book/into_mate.db");
    let text = std::fs::read_to_string(&book).unwrap();
    let roots = dir.join("roots.txt");
    std::fs::write(&roots, text.lines().nth(1).unwrap()).unwrap();
    let out = dir.join("starts.usi");
    let report = walk(
        &book,
        &out,
        &[
            "--max-plies",
            "8",
            "--emit",
            "all",
            "--roots",
            roots.to_str().unwrap(),
        ],
    );
    assert_eq!(report["pruned"]["decided"]["mate"], 1, "{report}");
    assert_eq!(report["visited"], 1);
    let mates = std::fs::read_to_string(dir.join("starts.mates.jsonl")).unwrap();
    let mate: serde_json::Value = serde_json::from_str(mates.lines().next().unwrap()).unwrap();
    let check = format!(
        "import cshogi; b = cshogi.Board({:?}); print(cshogi.DfPn().search(b))",
        mate["sfen"].as_str().unwrap()
    );
    let o = Command::new("python3")
        .args(["-c", &check])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "True");
}
