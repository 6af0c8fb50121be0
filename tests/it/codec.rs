//! Codecs against independent truth: the 5,000 cshogi/rsshogi SFEN / PackedSfen / HCP
//! vectors (byte-exact both ways), the teacher psv/hcpe files against a replay of the games'
//! USI move lists, an old-hand-order encoder written from the corpus README, and random
//! bytes (never a panic, never an invalid position).

use crate::support::{data, jsonl};
use posfilter::codec::bits::BitWriter;
use posfilter::codec::hcp::{decode_hcp, encode_hcp};
use posfilter::codec::psfen::{decode_psfen, encode_psfen};
use posfilter::codec::{self, CodecError, Format, GameResult, MoveEncoding};
use posfilter::shogi::{Color, PieceType, Position, Square};
use proptest::prelude::*;

fn unhex(s: &str) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
    }
    out
}

fn sfen3(s: &str) -> String {
    s.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
}

#[test]
fn vectors_decode_and_encode_byte_exact() {
    let vectors = jsonl("codec/codec_vectors.jsonl");
    assert_eq!(vectors.len(), 5000);
    let (mut handicap, mut with_hands, mut adjacent_kings) = (0, 0, 0);
    for v in &vectors {
        let sfen = v["sfen"].as_str().unwrap();
        let ps = unhex(v["psfen"].as_str().unwrap());
        let hc = unhex(v["hcp"].as_str().unwrap());
        let from_text = Position::from_sfen(sfen).unwrap();
        assert_eq!(encode_psfen(&from_text).unwrap(), ps, "{sfen}");
        assert_eq!(encode_hcp(&from_text).unwrap(), hc, "{sfen}");
        if let Err(why) = from_text.validate() {
            // 104 composed vectors put the kings side by side: each king attacks the other,
            // which no game can reach (cshogi accepts them). Decoding must refuse them.
            let (fb, rb) = (
                from_text.king_square(Color::Black).file(),
                from_text.king_square(Color::Black).rank(),
            );
            let (fw, rw) = (
                from_text.king_square(Color::White).file(),
                from_text.king_square(Color::White).rank(),
            );
            assert!(
                fb.abs_diff(fw) <= 1 && rb.abs_diff(rw) <= 1,
                "{sfen}: {why}"
            );
            assert_eq!(decode_psfen(&ps).unwrap_err(), CodecError::Invalid(why));
            assert_eq!(decode_hcp(&hc).unwrap_err(), CodecError::Invalid(why));
            adjacent_kings += 1;
            continue;
        }
        let a = decode_psfen(&ps).unwrap_or_else(|e| panic!("psfen {sfen}: {e}"));
        let b = decode_hcp(&hc).unwrap_or_else(|e| panic!("hcp {sfen}: {e}"));
        assert_eq!(sfen3(&a.to_sfen()), sfen3(sfen));
        assert_eq!(sfen3(&b.to_sfen()), sfen3(sfen));
        // Position::from_piece_list (the decoders' constructor) agrees with from_parts.
        for p in [&a, &b] {
            assert_eq!(
                (p.board_key(), p.hand_key()),
                (from_text.board_key(), from_text.hand_key())
            );
            assert_eq!(
                (p.checkers(), p.pinned(Color::Black)),
                (from_text.checkers(), from_text.pinned(Color::Black))
            );
            assert_eq!(p.fingerprint(), from_text.fingerprint());
        }
        handicap += (v["pieces_total"].as_u64().unwrap() < 40) as u32;
        with_hands += (!a.hand(Color::Black).is_empty() || !a.hand(Color::White).is_empty()) as u32;
    }
    assert_eq!(
        handicap, 11,
        "the handicap (piece box) vectors are all covered"
    );
    assert!(with_hands > 1000);
    assert_eq!(adjacent_kings, 104);
}

/// PackedSfen written from the corpus README's tables with a chosen hand order.
pub(crate) fn readme_psfen(pos: &Position, order: &[PieceType; 7]) -> [u8; 32] {
    fn put(w: &mut BitWriter, bits: &str) {
        for c in bits.chars() {
            w.write((c == '1') as u32, 1).unwrap();
        }
    }
    let board_code = |pt: PieceType| match pt.unpromote() {
        PieceType::Pawn => "10",
        PieceType::Lance => "1100",
        PieceType::Knight => "1101",
        PieceType::Silver => "1110",
        PieceType::Gold => "11110",
        PieceType::Bishop => "111110",
        _ => "111111",
    };
    let hand_code = |pt: PieceType| match pt {
        PieceType::Pawn => "0",
        PieceType::Lance => "100",
        PieceType::Knight => "101",
        PieceType::Silver => "110",
        PieceType::Gold => "1110",
        PieceType::Bishop => "11110",
        _ => "11111",
    };
    let mut w = BitWriter::new();
    w.write(pos.side_to_move() as u32, 1).unwrap();
    w.write(pos.king_square(Color::Black).index() as u32, 7)
        .unwrap();
    w.write(pos.king_square(Color::White).index() as u32, 7)
        .unwrap();
    for sq in Square::all() {
        match pos.piece_on(sq) {
            None => put(&mut w, "0"),
            Some(p) if p.piece_type() == PieceType::King => {}
            Some(p) => {
                put(&mut w, board_code(p.piece_type()));
                if p.piece_type() != PieceType::Gold {
                    put(
                        &mut w,
                        if p.piece_type().is_promoted() {
                            "1"
                        } else {
                            "0"
                        },
                    );
                }
                put(&mut w, if p.color() == Color::White { "1" } else { "0" });
            }
        }
    }
    for c in Color::ALL {
        for &pt in order {
            for _ in 0..pos.hand(c).count(pt) {
                put(&mut w, hand_code(pt));
                if pt != PieceType::Gold {
                    put(&mut w, "0");
                }
                put(&mut w, if c == Color::White { "1" } else { "0" });
            }
        }
    }
    assert_eq!(w.pos(), 256, "full-set positions only");
    w.bytes()
}

#[test]
fn both_packed_sfen_hand_orders_decode() {
    use PieceType::*;
    let new_order = [Pawn, Lance, Knight, Silver, Gold, Bishop, Rook];
    let old_order = [Pawn, Lance, Knight, Silver, Bishop, Rook, Gold];
    let mut differing = 0;
    for v in jsonl("codec/codec_vectors.jsonl") {
        if v["pieces_total"].as_u64().unwrap() < 40 {
            continue;
        }
        let pos = Position::from_sfen(v["sfen"].as_str().unwrap()).unwrap();
        if pos.validate().is_err() {
            continue;
        }
        let new = readme_psfen(&pos, &new_order);
        assert_eq!(
            new,
            unhex(v["psfen"].as_str().unwrap()),
            "README encoder agrees with cshogi"
        );
        let old = readme_psfen(&pos, &old_order);
        differing += (old != new) as u32;
        assert_eq!(decode_psfen(&old).unwrap(), pos);
    }
    assert!(
        differing > 100,
        "old and new orders differ on {differing} vectors"
    );
}

struct Game {
    moves: Vec<String>,
    start: Position,
}

fn teacher_games() -> Vec<Game> {
    let text = std::fs::read_to_string(data("codec/teacher.usi")).unwrap();
    text.lines()
        .map(|line| {
            let (head, moves) = match line.split_once(" moves ") {
                Some((h, m)) => (h, m.split_whitespace().map(String::from).collect()),
                None => (line.trim(), Vec::new()),
            };
            let start = match head.strip_prefix("sfen ") {
                Some(s) => Position::from_sfen(s).unwrap(),
                None => Position::startpos(),
            };
            Game { moves, start }
        })
        .collect()
}

fn unzstd(name: &str) -> Vec<u8> {
    zstd::decode_all(std::fs::File::open(data(name)).unwrap()).unwrap()
}

/// Every teacher record decodes to the position reached by replaying its game's moves, its
/// move field is the move played next (legal), and re-encoding gives the same bytes.
#[test]
fn teacher_files_match_the_replayed_games() {
    let psv = unzstd("codec/teacher.psv.zst");
    let hcpe = unzstd("codec/teacher.hcpe.zst");
    assert_eq!(psv.len(), 97_609 * 40);
    assert_eq!(hcpe.len(), 97_609 * 38);
    let games = teacher_games();
    assert_eq!(games.len(), 655);
    let mut i = 0;
    let mut out = Vec::new();
    for g in &games {
        let mut pos = g.start.clone();
        for k in 0..=g.moves.len() {
            let p = codec::decode(Format::Psv, &psv[i * 40..i * 40 + 40]).unwrap();
            let h = codec::decode(Format::Hcpe, &hcpe[i * 38..i * 38 + 38]).unwrap();
            assert_eq!(p.position, pos, "psv record {i}");
            assert_eq!(h.position, pos, "hcpe record {i}");
            let (pt, ht) = (p.teacher.unwrap(), h.teacher.unwrap());
            assert_eq!(pt.game_ply, Some((g.start.ply() + k as u32) as u16));
            assert_eq!(
                pt.game_result.to_hcpe(pos.side_to_move()),
                match ht.game_result {
                    GameResult::Hcpe(v) => v,
                    GameResult::Psv(_) => unreachable!(),
                }
            );
            if k < g.moves.len() {
                let m = g.moves[k].as_str();
                assert!(pt.move_legal && ht.move_legal, "record {i}");
                assert_eq!(pt.mv.unwrap().to_usi(), m);
                assert_eq!(ht.mv.unwrap().to_usi(), m);
                assert_eq!(pt.move_encoding, Some(MoveEncoding::YaneuraOu));
                assert_eq!(ht.move_encoding, Some(MoveEncoding::Apery));
            } else {
                assert_eq!((pt.raw_move, pt.mv, pt.move_legal), (0, None, false));
                assert_eq!((ht.raw_move, ht.mv), (0, None));
            }
            // Byte-exact re-encoding, and psv -> hcpe conversion equal to the hcpe file.
            out.clear();
            codec::encode(Format::Psv, &p.position, Some(&pt), &mut out).unwrap();
            assert_eq!(out, &psv[i * 40..i * 40 + 40], "psv record {i}");
            out.clear();
            codec::encode(Format::Hcpe, &h.position, Some(&ht), &mut out).unwrap();
            assert_eq!(out, &hcpe[i * 38..i * 38 + 38], "hcpe record {i}");
            out.clear();
            codec::encode(Format::Hcpe, &p.position, Some(&pt), &mut out).unwrap();
            assert_eq!(out, &hcpe[i * 38..i * 38 + 38], "psv->hcpe record {i}");
            if k < g.moves.len() {
                let m = posfilter::shogi::Move::from_usi(&g.moves[k]).unwrap();
                assert!(pos.is_legal(m));
                pos.do_move(m);
            }
            i += 1;
        }
    }
    assert_eq!(i, 97_609);
}

/// USI lines replay to the last teacher record of their game, with the history's keys.
#[test]
fn usi_lines_replay_with_history() {
    let psv = unzstd("codec/teacher.psv.zst");
    let text = std::fs::read_to_string(data("codec/teacher.usi")).unwrap();
    let mut first = 0;
    for line in text.lines() {
        let d = codec::decode(Format::Usi, line.as_bytes()).unwrap();
        let h = d.history.unwrap();
        let n = h.moves.len();
        let last =
            codec::decode(Format::Psv, &psv[(first + n) * 40..(first + n) * 40 + 40]).unwrap();
        assert_eq!(d.position, last.position);
        assert_eq!(h.plies.len(), n);
        for (k, ply) in h.plies.iter().enumerate() {
            let r = &psv[(first + k) * 40..(first + k) * 40 + 40];
            let p = codec::decode(Format::Psv, r).unwrap().position;
            assert_eq!(ply.board_key, p.board_key());
            assert_eq!(ply.hands, p.hands());
            assert_eq!(ply.in_check, p.in_check());
        }
        first += n + 1;
    }
    assert_eq!(first, 97_609);
}

#[test]
fn text_lines_and_errors() {
    let a = codec::decode(
        Format::Sfen,
        b"sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\r",
    )
    .unwrap();
    assert_eq!(a.position, Position::startpos());
    let u = codec::decode(Format::Usi, b"position startpos moves 7g7f 3c3d").unwrap();
    assert_eq!(u.history.as_ref().unwrap().moves.len(), 2);
    assert_eq!(u.position.ply(), 3);
    assert!(matches!(
        codec::decode(Format::Usi, b"startpos moves 7g7f 7g7f"),
        Err(CodecError::Usi { .. })
    ));
    assert!(matches!(
        codec::decode(Format::Sfen, b"4k4/9/9/9/4b4/9/9/9/4K4 b 2B 1"),
        Err(CodecError::Invalid(_))
    ));
    assert!(matches!(
        codec::decode(Format::Sfen, b"  "),
        Err(CodecError::Text(_))
    ));
    assert!(matches!(
        codec::decode(Format::Psv, &[0u8; 39]),
        Err(CodecError::Length {
            got: 39,
            need: 40,
            ..
        })
    ));
    // Kings on one square; all-zero bytes.
    assert!(matches!(
        codec::decode(Format::Psfen, &[0u8; 32]),
        Err(CodecError::KingsCollide(0))
    ));
}

#[test]
fn format_names() {
    for f in Format::ALL {
        assert_eq!(f.name().parse::<Format>().unwrap(), f);
        assert_eq!(f.to_string(), f.extension());
    }
    assert_eq!("PSV".parse::<Format>().unwrap(), Format::Psv);
    assert!("kif".parse::<Format>().is_err());
    assert_eq!(Format::Hcpe.record_size(), Some(38));
    assert_eq!(Format::Usi.record_size(), None);
}

fn check_decoded(format: Format, bytes: &[u8]) {
    if let Ok(d) = codec::decode(format, bytes) {
        assert_eq!(d.position.validate(), Ok(()));
        let mut out = Vec::new();
        codec::encode(format, &d.position, d.teacher.as_ref(), &mut out).unwrap();
        let again = codec::decode(format, &out).unwrap();
        assert_eq!(again.position, d.position);
    }
}

proptest! {
    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..48)) {
        for f in Format::ALL {
            check_decoded(f, &bytes);
        }
    }

    #[test]
    fn mutated_vectors_decode_valid_or_fail(idx in 0usize..5000, flips in proptest::collection::vec(0usize..256, 1..4)) {
        let v = &VECTORS.with(|v| v[idx]);
        for (f, mut b) in [(Format::Psfen, v.0), (Format::Hcp, v.1)] {
            for &bit in &flips {
                b[bit / 8] ^= 1 << (bit % 8);
            }
            check_decoded(f, &b);
        }
    }
}

thread_local! {
    static VECTORS: Vec<([u8; 32], [u8; 32])> = jsonl("codec/codec_vectors.jsonl")
        .iter()
        .map(|v| (unhex(v["psfen"].as_str().unwrap()), unhex(v["hcp"].as_str().unwrap())))
        .collect();
}

#[test]
fn clearing_a_move_field_keeps_the_rest() {
    let psv = unzstd("codec/teacher.psv.zst");
    let mut rec = psv[..40].to_vec();
    assert!(codec::clear_move_field(Format::Psv, &mut rec));
    let d = codec::decode(Format::Psv, &rec).unwrap();
    let t = d.teacher.unwrap();
    assert_eq!((t.raw_move, t.mv, t.game_ply), (0, None, Some(1)));
    assert_eq!(&rec[..34], &psv[..34]);
    assert_eq!(&rec[36..], &psv[36..40]);
    assert!(!codec::clear_move_field(Format::Psfen, &mut rec[..32]));
    assert_eq!(
        serde_json::to_string(&Format::Hcpe).unwrap(),
        "\"hcpe\"",
        "formats serialise by name"
    );
}
