//! [`Position`]: board, hands, side to move, keys; do/undo.
//!
//! The position's other concerns are its child files, each an `impl Position` of its own:
//! `attack.rs` (attackers, pins, the attack query), `build.rs` (construction from parts and
//! in place by the decoders), `sfen.rs` (SFEN text), `validity.rs` (what a position from a
//! file must satisfy). This file depends on none of them.
//!
//! # Invariants
//! - `board`, `by_color`, `by_type` and `king_sq` always describe the same pieces; both kings
//!   are on the board (a position without one cannot be built).
//! - `board_key` and `hand_key` always equal the keys recomputed from scratch
//!   ([`Position::computed_keys`]); do/undo update them incrementally.
//! - `checkers` is the set of enemy pieces attacking the side to move's king.
//! - `do_move` expects a legal move (from [`movegen`](crate::shogi::movegen) or checked by
//!   [`Position::is_legal`]); `undo_move` restores the exact previous state.
//! - A position need not be *valid* ([`Position::validate`]): `from_sfen` and `from_parts`
//!   build impossible ones too, so that they can be reported. Whatever only reads a
//!   position works on any of them (the `movegen` fuzz target checks that), but in an
//!   impossible one a generated move may capture a king or fill a hand past the pieces
//!   that exist, and `do_move` and `keys_after` assume it does not. That is why the crate's
//!   searches, `Solver::solve` and `perft`, validate their root and refuse an impossible
//!   one.

use crate::shogi::attacks;
use crate::shogi::bitboard::Bitboard;
use crate::shogi::hand::Hand;
use crate::shogi::moves::Move;
use crate::shogi::types::{Color, Piece, PieceType, Square};
use crate::shogi::zobrist::{self, Fingerprint, PRIMARY, SIDE};

pub(crate) mod attack;
pub(crate) mod build;
pub mod sfen;
pub mod validity;

/// What `undo_move` needs to restore one ply.
#[derive(Clone, Copy, Debug)]
struct Undo {
    mv: Move,
    captured: Option<Piece>,
    board_key: u64,
    hand_key: u64,
    checkers: Bitboard,
}

/// A shogi position with its undo stack. See the module doc for the invariants.
#[derive(Clone)]
pub struct Position {
    board: [Option<Piece>; 81],
    by_color: [Bitboard; 2],
    by_type: [Bitboard; PieceType::NUM],
    hands: [Hand; 2],
    side: Color,
    king_sq: [Square; 2],
    ply: u32,
    board_key: u64,
    hand_key: u64,
    checkers: Bitboard,
    undo: Vec<Undo>,
}

impl Position {
    /// An empty board (not a valid position: no kings) with `king_sq` recorded, `side` to
    /// move, ply 1, empty hands, zero keys and no checkers; for in-place construction.
    #[inline(always)]
    fn bare(side: Color, king_sq: [Square; 2]) -> Position {
        Position {
            board: [None; 81],
            by_color: [Bitboard::EMPTY; 2],
            by_type: [Bitboard::EMPTY; PieceType::NUM],
            hands: [Hand::EMPTY; 2],
            side,
            king_sq,
            ply: 1,
            board_key: 0,
            hand_key: 0,
            checkers: Bitboard::EMPTY,
            undo: Vec::new(), // no allocation until the first do_move: decoding builds millions
        }
    }

    // ---- accessors -------------------------------------------------------------------

    /// The piece on `sq`.
    #[inline(always)]
    pub fn piece_on(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }

    /// The 81 squares, index order.
    #[inline(always)]
    pub fn board(&self) -> &[Option<Piece>; 81] {
        &self.board
    }

    /// Side to move.
    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// `color`'s hand.
    #[inline(always)]
    pub fn hand(&self, color: Color) -> Hand {
        self.hands[color.index()]
    }

    /// Both hands, Black first.
    #[inline(always)]
    pub fn hands(&self) -> [Hand; 2] {
        self.hands
    }

    /// `color`'s king square.
    #[inline(always)]
    pub fn king_square(&self, color: Color) -> Square {
        self.king_sq[color.index()]
    }

    /// Move number as in SFEN (1 for the initial position), incremented by `do_move`.
    #[inline(always)]
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// Sets the move number (codecs that store none leave it at 1).
    pub fn set_ply(&mut self, ply: u32) {
        self.ply = ply;
    }

    /// All occupied squares.
    #[inline(always)]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    /// `color`'s pieces.
    #[inline(always)]
    pub fn pieces_of(&self, color: Color) -> Bitboard {
        self.by_color[color.index()]
    }

    /// Pieces of kind `pt`, both colours.
    #[inline(always)]
    pub fn pieces_of_type(&self, pt: PieceType) -> Bitboard {
        self.by_type[pt.index()]
    }

    /// `color`'s pieces of kind `pt`.
    #[inline(always)]
    pub fn pieces(&self, color: Color, pt: PieceType) -> Bitboard {
        self.by_type[pt.index()] & self.by_color[color.index()]
    }

    /// Gold-movers: gold and the four promoted minor pieces, both colours.
    #[inline(always)]
    pub fn golds(&self) -> Bitboard {
        self.by_type[PieceType::Gold.index()]
            | self.by_type[PieceType::ProPawn.index()]
            | self.by_type[PieceType::ProLance.index()]
            | self.by_type[PieceType::ProKnight.index()]
            | self.by_type[PieceType::ProSilver.index()]
    }

    /// Board key: board and side to move (seed 000, docs/references.md).
    #[inline(always)]
    pub fn board_key(&self) -> u64 {
        self.board_key
    }

    /// Hand key: both hands.
    #[inline(always)]
    pub fn hand_key(&self) -> u64 {
        self.hand_key
    }

    /// Position key: `board_key ^ hand_key`.
    #[inline(always)]
    pub fn key(&self) -> u64 {
        self.board_key ^ self.hand_key
    }

    /// Enemy pieces giving check to the side to move.
    #[inline(always)]
    pub fn checkers(&self) -> Bitboard {
        self.checkers
    }

    /// Whether the side to move is in check.
    #[inline(always)]
    pub fn in_check(&self) -> bool {
        self.checkers.is_nonempty()
    }

    /// The moves played since construction, oldest first.
    pub fn moves_played(&self) -> impl Iterator<Item = Move> + '_ {
        self.undo.iter().map(|u| u.mv)
    }

    /// The most recent move, if any.
    #[inline(always)]
    pub fn last_move(&self) -> Option<Move> {
        self.undo.last().map(|u| u.mv)
    }

    /// Forgets the undo history (the current position becomes the root).
    pub fn clear_history(&mut self) {
        self.undo.clear();
    }

    // ---- keys ------------------------------------------------------------------------

    /// Board and hand keys recomputed from scratch.
    pub fn computed_keys(&self) -> (u64, u64) {
        keys_from(&PRIMARY, &self.board, &self.hands, self.side)
    }

    /// The 128-bit fingerprint: independent key families in the two halves.
    pub fn fingerprint(&self) -> Fingerprint {
        let hash = zobrist::content_hash(&board_bytes(&self.board), self.hand_words(), self.side);
        Fingerprint((hash as u128) << 64 | self.key() as u128)
    }

    /// The fingerprint of the left-right mirror image (for mirror-aware dedup).
    pub fn mirrored_fingerprint(&self) -> Fingerprint {
        let mut board = [None; 81];
        for sq in Square::all() {
            board[sq.mirror().index()] = self.board[sq.index()];
        }
        let (b1, h1) = keys_from(&PRIMARY, &board, &self.hands, self.side);
        let hash = zobrist::content_hash(&board_bytes(&board), self.hand_words(), self.side);
        Fingerprint((hash as u128) << 64 | (b1 ^ h1) as u128)
    }

    /// Both hands' raw words (Black, White), for [`zobrist::content_hash`].
    fn hand_words(&self) -> [u32; 2] {
        [self.hands[0].raw(), self.hands[1].raw()]
    }

    // ---- do / undo -------------------------------------------------------------------

    #[inline(always)]
    fn put(&mut self, sq: Square, p: Piece) {
        let b = Bitboard::from_square(sq);
        self.board[sq.index()] = Some(p);
        self.by_color[p.color().index()] |= b;
        self.by_type[p.piece_type().index()] |= b;
    }

    #[inline(always)]
    fn remove(&mut self, sq: Square, p: Piece) {
        let b = Bitboard::from_square(sq);
        self.board[sq.index()] = None;
        self.by_color[p.color().index()] ^= b;
        self.by_type[p.piece_type().index()] ^= b;
    }

    /// Plays `m`, which must be legal here. Updates keys and checkers incrementally.
    pub fn do_move(&mut self, m: Move) {
        let us = self.side;
        let mut undo = Undo {
            mv: m,
            captured: None,
            board_key: self.board_key,
            hand_key: self.hand_key,
            checkers: self.checkers,
        };
        let to = m.to();
        // Occupancy after the move, from values loaded before the stores below: reading
        // `by_color` back as 128-bit right after 64-bit stores would stall on store
        // forwarding (measured: the hottest instruction of make/unmake perft).
        let occ_before = self.occupied();
        let occ_after = if m.is_drop() {
            occ_before.with(to)
        } else {
            occ_before.without(m.from()).with(to)
        };
        let mut bk = self.board_key;
        if m.is_drop() {
            let pt = m.drop_piece();
            let n = self.hands[us.index()].count(pt);
            self.hand_key ^=
                zobrist::hand_count_key(us, pt, n) ^ zobrist::hand_count_key(us, pt, n - 1);
            self.hands[us.index()].remove(pt);
            let p = Piece::new(us, pt);
            self.put(to, p);
            bk ^= PRIMARY.piece_square[p.index()][to.index()];
        } else {
            let from = m.from();
            let Some(moving) = self.board[from.index()] else {
                debug_assert!(false, "do_move {m} from an empty square");
                return;
            };
            if let Some(cap) = self.board[to.index()] {
                self.remove(to, cap);
                bk ^= PRIMARY.piece_square[cap.index()][to.index()];
                let pt = cap.piece_type().unpromote();
                let n = self.hands[us.index()].count(pt);
                self.hand_key ^=
                    zobrist::hand_count_key(us, pt, n) ^ zobrist::hand_count_key(us, pt, n + 1);
                self.hands[us.index()].add(pt);
                undo.captured = Some(cap);
            }
            self.remove(from, moving);
            bk ^= PRIMARY.piece_square[moving.index()][from.index()];
            let placed = if m.is_promotion() {
                Piece::new(us, moving.piece_type().promote())
            } else {
                moving
            };
            self.put(to, placed);
            bk ^= PRIMARY.piece_square[placed.index()][to.index()];
            if placed.piece_type() == PieceType::King {
                self.king_sq[us.index()] = to;
            }
        }
        self.board_key = bk ^ SIDE;
        self.side = us.flip();
        self.ply += 1;
        self.undo.push(undo);
        self.checkers = self.checkers_after(m, us, occ_after);
    }

    /// Checkers against the side now to move after `us` played `m`: the moved piece itself
    /// (direct check) plus our sliders uncovered on the line through the vacated square
    /// (discovered check). Cheaper than a full `attackers_to` on the king.
    #[inline(always)]
    fn checkers_after(&self, m: Move, us: Color, occ: Bitboard) -> Bitboard {
        let eksq = self.king_sq[us.flip().index()];
        let to = m.to();
        let mut checkers = Bitboard::EMPTY;
        if let Some(p) = self.board[to.index()] {
            if attacks::piece(us, p.piece_type(), to, occ).has(eksq) {
                checkers = Bitboard::from_square(to);
            }
        }
        if m.is_drop() {
            return checkers;
        }
        let from = m.from();
        let line = attacks::line(eksq, from);
        if line.is_empty() {
            return checkers;
        }
        let bt = &self.by_type;
        let ours = self.by_color[us.index()];
        let seen = if eksq.file() == from.file() || eksq.rank() == from.rank() {
            let rooks = bt[PieceType::Rook.index()] | bt[PieceType::Dragon.index()];
            (attacks::rook(eksq, occ) & rooks)
                | (attacks::lance(us.flip(), eksq, occ) & bt[PieceType::Lance.index()])
        } else {
            let bishops = bt[PieceType::Bishop.index()] | bt[PieceType::Horse.index()];
            attacks::bishop(eksq, occ) & bishops
        };
        checkers | (seen & line & ours)
    }

    /// Takes back the last move played by [`Position::do_move`]. Does nothing if none.
    pub fn undo_move(&mut self) {
        let Some(undo) = self.undo.pop() else {
            return;
        };
        let us = self.side.flip();
        let m = undo.mv;
        let to = m.to();
        let Some(placed) = self.board[to.index()] else {
            debug_assert!(false, "undo_move {m}: destination empty");
            return;
        };
        self.remove(to, placed);
        if m.is_drop() {
            self.hands[us.index()].add(m.drop_piece());
        } else {
            let moving = if m.is_promotion() {
                Piece::new(us, placed.piece_type().unpromote())
            } else {
                placed
            };
            self.put(m.from(), moving);
            if moving.piece_type() == PieceType::King {
                self.king_sq[us.index()] = m.from();
            }
            if let Some(cap) = undo.captured {
                self.put(to, cap);
                self.hands[us.index()].remove(cap.piece_type().unpromote());
            }
        }
        self.side = us;
        self.ply -= 1;
        self.board_key = undo.board_key;
        self.hand_key = undo.hand_key;
        self.checkers = undo.checkers;
    }

    /// Whether the side to move's move `m` would give check (direct or discovered). `m` must
    /// be pseudo-legal here.
    pub fn gives_check(&self, m: Move) -> bool {
        let us = self.side;
        let them_king = self.king_sq[us.flip().index()];
        let to = m.to();
        let (pt, occ) = if m.is_drop() {
            (m.drop_piece(), self.occupied().with(to))
        } else {
            let Some(p) = self.board[m.from().index()] else {
                return false;
            };
            let pt = if m.is_promotion() {
                p.piece_type().promote()
            } else {
                p.piece_type()
            };
            (pt, self.occupied().without(m.from()).with(to))
        };
        if attacks::piece(us, pt, to, occ).has(them_king) {
            return true;
        }
        if m.is_drop() {
            return false;
        }
        // Discovered: a slider of ours now sees the enemy king through `from`.
        let from = m.from();
        if !attacks::line(them_king, from).is_nonempty() || attacks::line(them_king, from).has(to) {
            return false;
        }
        let sliders = self.slider_candidates(us, them_king).without(from);
        sliders.into_iter().any(|s| {
            attacks::line(them_king, s).has(from)
                && (attacks::between(them_king, s) & occ).is_empty()
        })
    }
}

/// Board and hand keys of a board, hands and side, from one key family.
/// One byte per square: 0 empty, else `piece.index() + 1` (the bytes `content_hash` reads).
#[inline(always)]
fn board_bytes(board: &[Option<Piece>; 81]) -> [u8; 81] {
    board.map(|p| p.map_or(0, |p| p.index() as u8 + 1))
}

fn keys_from(
    keys: &zobrist::Keys,
    board: &[Option<Piece>; 81],
    hands: &[Hand; 2],
    side: Color,
) -> (u64, u64) {
    let mut bk = if side == Color::White { SIDE } else { 0 };
    for (i, p) in board.iter().enumerate() {
        if let Some(p) = p {
            bk ^= keys.piece_square[p.index()][i];
        }
    }
    let mut hk = 0;
    for c in Color::ALL {
        for pt in PieceType::HAND {
            hk ^= keys.hand[c.index()][pt.index()][hands[c.index()].count(pt) as usize];
        }
    }
    (bk, hk)
}

impl PartialEq for Position {
    /// Same board, hands and side to move (ply and history are ignored).
    fn eq(&self, other: &Self) -> bool {
        self.board == other.board && self.hands == other.hands && self.side == other.side
    }
}
impl Eq for Position {}

impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Position({})", self.to_sfen())
    }
}

#[cfg(test)]
mod tests;
