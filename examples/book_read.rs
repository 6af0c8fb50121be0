//! Reads a DB2016 book twice, with posfilter (validated positions, every move
//! legal-checked) and with the rsshogi crate's `iter_entries` (no legality check), and prints
//! the wall time of each. `cargo run --profile test --example book_read -- BOOK.db`
//! (docs/performance.md, "Books").

use std::time::Instant;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: book_read BOOK.db");
        std::process::exit(2);
    };
    let path = std::path::PathBuf::from(path);
    for round in 0..3 {
        let t = Instant::now();
        let bytes = std::fs::read(&path).expect("read the book");
        let read = posfilter::book::db::read(&path, &bytes).expect("a DB2016 book");
        let illegal = read.book.illegal_moves().len();
        let ours = t.elapsed();
        let t = Instant::now();
        let theirs = rsshogi::book::YaneuraOuBook::open(&path).expect("rsshogi opens it");
        let mut entries = 0usize;
        let mut moves = 0usize;
        for e in theirs.iter_entries().expect("entries") {
            let e = e.expect("an entry");
            entries += 1;
            moves += e.moves().len();
        }
        let rs = t.elapsed();
        println!(
            "round {round}: posfilter {} entries, {} moves ({illegal} illegal) in {:.3} s; \
             rsshogi {entries} entries, {moves} moves in {:.3} s",
            read.book.positions.len(),
            read.book.move_count(),
            ours.as_secs_f64(),
            rs.as_secs_f64()
        );
    }
}
