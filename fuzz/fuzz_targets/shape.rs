//! Positions from fuzzer bytes: kings, a board of pieces drawn from an inventory, the
//! remaining pieces split between the hands and the box, and the side to move. Unlike
//! random records, almost every input reaches the code under test, and the fuzzer steers
//! towards odd positions (large hands, promoted pieces anywhere, lone kings) that no game
//! reaches.

use posfilter::shogi::{Color, Hand, Piece, PieceType, Position};

/// The position `data` describes, if it is a valid one ([`Position::validate`], which the
/// pipeline's decoders and parsers apply: no king in check out of turn, no dead piece, no
/// two pawns on a file).
#[allow(dead_code)] // each target includes this file and uses one of the two
pub fn position(data: &[u8]) -> Option<Position> {
    any_position(data, 1).filter(|p| p.validate().is_ok())
}

/// The position `data` describes from an inventory of `sets` sets (valid or not, as
/// `Position::from_parts` builds it: one king per side is all it checks; a hand holds at
/// most the pieces of one set).
#[allow(dead_code)]
pub fn any_position(data: &[u8], sets: u8) -> Option<Position> {
    let mut bytes = data.iter().copied();
    let mut next = || bytes.next().unwrap_or(0);
    let (bk, wk) = (next() as usize % 81, next() as usize % 81);
    if bk == wk {
        return None;
    }
    let mut pool: [u8; 7] = PieceType::HAND.map(|pt| pt.max_count() * sets);
    let mut board: [Option<Piece>; 81] = [None; 81];
    board[bk] = Some(Piece::new(Color::Black, PieceType::King));
    board[wk] = Some(Piece::new(Color::White, PieceType::King));
    for (i, cell) in board.iter_mut().enumerate() {
        let b = next();
        if i == bk || i == wk || b & 1 == 0 {
            continue;
        }
        let kind = (b >> 1) as usize % 7;
        if pool[kind] == 0 {
            continue;
        }
        pool[kind] -= 1;
        let base = PieceType::HAND[kind];
        let pt = if b & 0x40 != 0 && base.can_promote() {
            base.promote()
        } else {
            base
        };
        let color = if b & 0x80 == 0 {
            Color::Black
        } else {
            Color::White
        };
        *cell = Some(Piece::new(color, pt));
    }
    let mut hands = [Hand::EMPTY; 2];
    for hand in &mut hands {
        for (kind, &pt) in PieceType::HAND.iter().enumerate() {
            let n = (next() % (pool[kind] + 1)).min(pt.max_count());
            pool[kind] -= n;
            *hand = hand.with_count(pt, n)?;
        }
    }
    let side = if next() & 1 == 0 {
        Color::Black
    } else {
        Color::White
    };
    Position::from_parts(board, hands, side, 1).ok()
}
