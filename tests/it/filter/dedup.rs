//! Dedup: positions, not bytes. Truth: distinct SFEN strings (first three fields), positions
//! reached by different move orders, mirror images built square by square. Tested on what a
//! run uses: the workers' [`dedup_key`] in the commit's [`FirstSeen`] index.

use super::{positions, sfen};
use posfilter::filter::{dedup_key, DedupConfig, FirstSeen};
use posfilter::shogi::{Move, Position, Square};
use std::collections::HashSet;

/// A run's dedup: keys as the workers compute them, first seen as the commit records them
/// (global record index; reference pools at `u64::MAX`).
struct Dedup {
    index: FirstSeen,
    mirror: bool,
    next: u64,
}

impl Dedup {
    fn new(mirror: bool) -> Dedup {
        Dedup {
            index: FirstSeen::with_capacity(0),
            mirror,
            next: 0,
        }
    }

    /// Commits the next record, `pos`: whether it is new (kept).
    fn insert(&mut self, pos: &Position) -> bool {
        self.next += 1;
        let key = dedup_key(pos, self.mirror);
        self.index.first_or_insert(key, self.next - 1).is_none()
    }

    /// The index of the first record with `pos`, if any.
    fn first(&self, pos: &Position) -> Option<u64> {
        self.index.get(dedup_key(pos, self.mirror))
    }

    /// Puts a reference pool's positions in, as the run does before the first batch; how
    /// many distinct ones it added.
    fn prefill(&mut self, pool: &[Position]) -> usize {
        let before = self.index.len();
        for p in pool {
            self.index
                .first_or_insert(dedup_key(p, self.mirror), u64::MAX);
        }
        self.index.len() - before
    }

    fn len(&self) -> usize {
        self.index.len()
    }
}

/// The left-right mirror image, built square by square.
fn mirror(pos: &Position) -> Position {
    let mut board = [None; 81];
    for sq in Square::all() {
        board[sq.mirror().index()] = pos.piece_on(sq);
    }
    Position::from_parts(board, pos.hands(), pos.side_to_move(), pos.ply())
        .unwrap_or_else(|e| panic!("{e}"))
}

fn after(moves: &str) -> Position {
    let mut pos = Position::startpos();
    for text in moves.split_whitespace() {
        let m = Move::from_usi(text).unwrap_or_else(|| panic!("{text}"));
        assert!(pos.is_legal(m));
        pos.do_move(m);
    }
    pos
}

/// The position part of a SFEN (board, side, hands), without the move number.
fn sfen_key(pos: &Position) -> String {
    let s = pos.to_sfen();
    s.rsplit_once(' ').map(|(a, _)| a.to_owned()).unwrap_or(s)
}

#[test]
fn corpus_distinct_positions_match_distinct_sfens() {
    let mut plain = Dedup::new(false);
    let mut mirrored = Dedup::new(true);
    let mut by_text = HashSet::new();
    let mut by_text_mirror = HashSet::new();
    for pos in positions() {
        let text = sfen_key(pos);
        let mtext = sfen_key(&mirror(pos));
        assert_eq!(plain.insert(pos), by_text.insert(text.clone()), "{text}");
        assert_eq!(
            mirrored.insert(pos),
            by_text_mirror.insert(text.clone().min(mtext)),
            "{text}"
        );
        // The core's mirrored fingerprint is the fingerprint of the mirror image.
        assert_eq!(
            pos.mirrored_fingerprint(),
            mirror(pos).fingerprint(),
            "{text}"
        );
    }
    assert_eq!(plain.len(), by_text.len());
    assert_eq!(mirrored.len(), by_text_mirror.len());
    // The corpus has repeated positions (start position, common openings), so both counts
    // are below 20,000 and mirroring merges some more.
    assert!(plain.len() < 20_000 && mirrored.len() <= plain.len());
}

#[test]
fn different_move_orders_and_plies_are_one_position() {
    // The same position reached by two move orders: different histories and, in PackedSfen,
    // possibly different bytes; one position.
    let a = after("7g7f 3c3d 2g2f");
    let b = after("2g2f 3c3d 7g7f");
    assert_eq!(a.fingerprint(), b.fingerprint());
    let mut d = Dedup::new(false);
    assert!(d.insert(&a));
    assert!(!d.insert(&b));
    assert_eq!(d.first(&b), Some(0), "the duplicate names its first record");
    // The move number is not part of the position.
    let mut c = b.clone();
    c.set_ply(99);
    assert!(!d.insert(&c));
    // A different side to move or hand is a different position.
    let other = after("7g7f 3c3d");
    assert!(d.insert(&other));
    let black_holds = sfen("lnsgkgsnl/1r5b1/pppppppp1/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b P 1");
    let white_holds = sfen("lnsgkgsnl/1r5b1/pppppppp1/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b p 1");
    assert!(d.insert(&black_holds) && d.insert(&white_holds));
}

#[test]
fn mirror_pairs_are_one_only_with_mirror_on() {
    let p = after("7g7f 3c3d 8h2b+");
    let m = mirror(&p);
    assert_ne!(p.fingerprint(), m.fingerprint());
    assert_eq!(dedup_key(&p, true), dedup_key(&m, true));
    let mut off = Dedup::new(false);
    assert!(off.insert(&p) && off.insert(&m));
    let mut on = Dedup::new(true);
    assert!(on.insert(&p));
    assert!(!on.insert(&m));
    assert_eq!((on.first(&p), on.first(&m)), (Some(0), Some(0)));
    // A symmetric position is its own mirror (the start position is not: rook and bishop
    // swap sides).
    let s = sfen("lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/9/LNSGKGSNL b - 1");
    assert_eq!(s.mirrored_fingerprint(), s.fingerprint());
    assert_eq!(dedup_key(&s, true), s.fingerprint());
    let start = Position::startpos();
    assert_ne!(start.mirrored_fingerprint(), start.fingerprint());
    assert_eq!(mirror(&start).fingerprint(), start.mirrored_fingerprint());
}

#[test]
fn reference_pool_prefills() {
    let all = positions();
    let (pool, rest) = all.split_at(5_000);
    let mut d = Dedup::new(false);
    let added = d.prefill(pool);
    let distinct: HashSet<String> = pool.iter().map(sfen_key).collect();
    assert_eq!(added, distinct.len());
    // Records of the pool are duplicates now; the rest are new exactly when their SFEN is.
    let mut seen = distinct;
    for p in pool {
        assert_eq!(
            d.first(p),
            Some(u64::MAX),
            "a pool position is first seen in the pool"
        );
        assert!(!d.insert(p));
    }
    for p in rest {
        assert_eq!(d.insert(p), seen.insert(sfen_key(p)));
    }
    let cfg: DedupConfig = serde_json::from_str(r#"{"mirror":true,"reference":["pool.psv"]}"#)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(cfg.enabled && cfg.mirror && cfg.reference.len() == 1);
}
