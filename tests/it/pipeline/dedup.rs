//! Dedup by position: against earlier records, reference pools and mirror images, and
//! across formats and encodings of the same position.

use super::*;

/// The left-right mirror image of a position (built square by square).
fn mirror(pos: &Position) -> Position {
    let mut board = [None; 81];
    for sq in posfilter::shogi::Square::all() {
        board[sq.mirror().index()] = pos.piece_on(sq);
    }
    Position::from_parts(board, pos.hands(), pos.side_to_move(), pos.ply()).unwrap()
}

#[test]
fn dedup_against_earlier_records_reference_pools_and_mirrors() {
    let dir = TempDir::new("dedup");
    let sfens: Vec<String> = std::fs::read_to_string(data("pipeline/startpos.sfen"))
        .unwrap()
        .lines()
        .take(40)
        .map(String::from)
        .collect();
    // Three distinct positions without left-right symmetry.
    let picks: Vec<Position> = sfens
        .iter()
        .map(|s| Position::from_sfen(s).unwrap())
        .filter(|p| mirror(p) != *p)
        .take(3)
        .collect();
    let enc = |positions: &[&Position]| {
        let mut v = Vec::new();
        for p in positions {
            codec::encode(Format::Psfen, p, None, &mut v).unwrap();
        }
        v
    };
    let m1 = mirror(&picks[1]);
    let input = dir.join("in.psfen");
    std::fs::write(
        &input,
        enc(&[&picks[0], &picks[1], &picks[2], &picks[0], &m1]),
    )
    .unwrap();
    let pool = dir.join("pool.psfen");
    std::fs::write(&pool, enc(&[&picks[2]])).unwrap();
    for mirror_on in [false, true] {
        let extra = format!(
            "[filter.mate]\nenabled = false\n[filter.dedup]\nmirror = {mirror_on}\nreference = [{:?}]\n",
            pool.display().to_string()
        );
        let cfg = config(&dir, &[&input], &extra);
        let out = dir.join(&format!("out-{mirror_on}"));
        run_ok(&["run", &cfg, "--out", out.to_str().unwrap(), "--quiet"]);
        let audit: BTreeMap<u64, Value> = std::fs::read_to_string(out.join("audit.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .map(|v| (v["index"].as_u64().unwrap(), v))
            .collect();
        assert_eq!(audit[&2]["decision"], "duplicate");
        assert_eq!(audit[&2]["detail"]["reference"], true);
        assert_eq!(audit[&3]["decision"], "duplicate");
        assert_eq!(audit[&3]["detail"]["first_index"], 0);
        assert_eq!(
            audit.contains_key(&4),
            mirror_on,
            "the mirror image of record 1"
        );
        if mirror_on {
            assert_eq!(audit[&4]["detail"]["first_index"], 1);
        }
        assert_eq!(
            report(&out)["records"]["kept"],
            if mirror_on { 2 } else { 3 }
        );
    }
}

/// Dedup compares decoded positions, never bytes: the same positions as PackedSfen with the
/// old hand order (other bytes), as HCP and as SFEN lines are duplicates of the first
/// file's records, and the kept output is exactly that of the first file alone.
#[test]
fn dedup_sees_one_position_across_formats_and_encodings() {
    use posfilter::shogi::Color;
    use posfilter::shogi::PieceType::{self, *};
    let n = 200;
    let (dir, alone_cfg) = startpos_setup(
        "dedup-formats",
        n,
        "[filter.mate]\nenabled = false\n[filter.repetition]\nenabled = false\n",
    );
    let psfen = dir.join("in.psfen");
    let sfen_text = first_lines(
        &std::fs::read_to_string(data("pipeline/startpos.sfen")).unwrap(),
        n,
    );
    let positions: Vec<Position> = sfen_text
        .lines()
        .map(|l| Position::from_sfen(l).unwrap())
        .collect();
    let current = std::fs::read(&psfen).unwrap();
    // Handicap positions (pieces in the box) keep their bytes; the others get the old hand
    // order P L N S B R G.
    let pieces = |p: &Position| {
        let hands: u32 = Color::ALL
            .iter()
            .flat_map(|&c| PieceType::HAND.map(|pt| p.hand(c).count(pt) as u32))
            .sum();
        p.occupied().count() + hands
    };
    let old_order: Vec<u8> = positions
        .iter()
        .enumerate()
        .flat_map(|(i, p)| {
            if pieces(p) == 40 {
                crate::codec::readme_psfen(p, &[Pawn, Lance, Knight, Silver, Bishop, Rook, Gold])
            } else {
                current[32 * i..32 * i + 32].try_into().unwrap()
            }
        })
        .collect();
    let differ = (0..n)
        .filter(|i| old_order[32 * i..32 * i + 32] != current[32 * i..32 * i + 32])
        .count();
    assert!(differ > 10, "only {differ} records differ in bytes");
    let files = [
        ("old.psfen", old_order),
        (
            "c.hcp",
            std::fs::read(data("pipeline/startpos.hcp")).unwrap()[..32 * n].to_vec(),
        ),
        ("d.sfen", sfen_text.into_bytes()),
    ];
    let mut inputs = vec![psfen.clone()];
    for (name, bytes) in &files {
        std::fs::write(dir.join(name), bytes).unwrap();
        inputs.push(dir.join(name));
    }
    let alone = dir.join("alone");
    run_one_thread(&alone_cfg, &alone);
    let all_cfg = config(
        &dir,
        &inputs.iter().map(|p| p.as_path()).collect::<Vec<_>>(),
        "[filter.mate]\nenabled = false\n[filter.repetition]\nenabled = false\n",
    );
    let all = dir.join("all");
    run_one_thread(&all_cfg, &all);

    assert_eq!(report(&all)["records"]["input"], 4 * n as u64);
    assert_eq!(
        report(&all)["records"]["kept"],
        report(&alone)["records"]["kept"]
    );
    same_outputs(&all.join("kept"), &alone.join("kept"), &[]);
    let later: Vec<Value> = jsonl_lines(&all.join("audit.jsonl"))
        .into_iter()
        .filter(|v| v["index"].as_u64().unwrap() >= n as u64)
        .collect();
    assert_eq!(later.len(), 3 * n);
    for v in &later {
        assert_eq!(v["decision"], "duplicate", "{v}");
        assert!(
            v["detail"]["first_index"].as_u64().unwrap() < n as u64,
            "{v}"
        );
    }
}
