//! Per-position decisions end to end: against cshogi's labels, repetition from real move
//! sequences in usi and psv form, unknown verdicts (kept, dropped, tagged, wall-time
//! guard).

use super::*;

#[test]
fn decisions_agree_with_cshogi_labels() {
    // The first 3,000 corpus start positions at the oracle's budget (100,000 nodes).
    let dir = TempDir::new("labels");
    let n = 3000;
    let psfen = startpos_file(&dir, "in.psfen", n);
    let cfg = config(
        &dir,
        &[&psfen],
        "[filter.mate]\nnodes = 100000\n[filter.dedup]\nenabled = false\n",
    );
    let out = dir.join("out");
    run_ok(&["run", &cfg, "--out", out.to_str().unwrap(), "--quiet"]);
    let d = decisions(&out);
    let mut checked = [0usize; 4];
    for label in jsonl("pipeline/labels.jsonl").iter().take(n) {
        let i = label["i"].as_u64().unwrap();
        let ours = d.get(&i).map(String::as_str).unwrap_or("keep");
        if ours == "declaration" {
            continue; // decided before the mate stage (the label file has the 27-point verdicts)
        }
        if label["checkmated"] == true {
            assert_eq!(ours, "checkmated", "record {i}");
            checked[0] += 1;
        } else if label["in_check"] == true {
            match label["andnode"].as_str() {
                Some("mated") => assert_eq!(ours, "mated", "record {i}: cshogi proves mated"),
                Some("not_mated") => {
                    assert_eq!(ours, "keep", "record {i}: cshogi proves not mated")
                }
                _ => continue,
            }
            checked[1] += 1;
        } else {
            match label["dfpn_100k"].as_str() {
                Some("mate") => assert_eq!(ours, "mate", "record {i}: cshogi proves mate"),
                Some("no_mate") => assert_eq!(ours, "keep", "record {i}: cshogi proves no mate"),
                _ => continue,
            }
            checked[2] += 1;
        }
    }
    assert!(
        checked[0] >= 70 && checked[1] >= 150 && checked[2] >= 2500,
        "{checked:?}"
    );
    // Every reported mate carries a PV whose length is its plies.
    for line in std::fs::read_to_string(out.join("mates.jsonl"))
        .unwrap()
        .lines()
    {
        let v: Value = serde_json::from_str(line).unwrap();
        assert_eq!(
            v["pv"].as_array().unwrap().len() as u64,
            v["plies"].as_u64().unwrap()
        );
    }
}

/// The positions of a USI line, start first.
fn replay(line: &str) -> Vec<Position> {
    let (start, moves) = match line.split_once(" moves ") {
        Some((s, m)) => (s, m.split_whitespace().collect::<Vec<_>>()),
        None => (line, vec![]),
    };
    let mut pos = Position::from_sfen(start.strip_prefix("sfen ").unwrap_or(start)).unwrap();
    let mut out = vec![pos.clone()];
    for m in moves {
        let mv = Move::from_usi(m).unwrap();
        assert!(pos.is_legal(mv), "{m}");
        pos.do_move(mv);
        out.push(pos.clone());
    }
    out
}

#[test]
fn repetition_from_real_move_sequences_in_usi_and_psv() {
    // A four-move cycle back to the start position (exact), and seed 000's cycle
    // (docs/references.md) that leaves the side to move a pawn short (inferior): drop with
    // check, king takes, both kings step away and back.
    let exact = "startpos moves 2h3h 8b7b 3h2h 7b8b";
    let inferior = "sfen 4k4/9/9/9/9/9/9/9/4K4 b P 1 moves P*5b 5a5b 5i4i 5b4b 4i5i 4b5a";
    let dir = TempDir::new("repetition");
    // usi: each line is a record whose final position is judged against its own history.
    let usi = dir.join("cycles.usi");
    std::fs::write(
        &usi,
        format!("{exact}\n{inferior}\nstartpos moves 2h3h 8b7b\n"),
    )
    .unwrap();
    // psv: the same games as records in game order (gamePly increasing).
    let psv = dir.join("cycles.psv");
    let mut bytes = Vec::new();
    for line in [exact, inferior] {
        for (ply, pos) in replay(line).iter().enumerate() {
            let mut p = pos.clone();
            p.set_ply(ply as u32 + 1);
            codec::encode(Format::Psv, &p, None, &mut bytes).unwrap();
        }
    }
    std::fs::write(&psv, bytes).unwrap();
    let cfg = config(
        &dir,
        &[&usi, &psv],
        "[filter.mate]\nenabled = false\n[filter.dedup]\nenabled = false\n",
    );
    let out = dir.join("out");
    run_ok(&["run", &cfg, "--out", out.to_str().unwrap(), "--quiet"]);
    let audit: Vec<Value> = std::fs::read_to_string(out.join("audit.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let rep: BTreeMap<u64, String> = audit
        .iter()
        .filter(|v| v["decision"] == "repetition")
        .map(|v| {
            (
                v["index"].as_u64().unwrap(),
                v["detail"]["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    // usi records 0, 1 repeat; record 2 does not. psv: records 3..8 are the exact game
    // (5 positions, the last repeats the first), 8..15 the inferior game (7 positions).
    let expected: BTreeMap<u64, String> = [
        (0, "exact"),
        (1, "inferior"),
        (7, "exact"),
        (14, "inferior"),
    ]
    .into_iter()
    .map(|(i, k)| (i, k.to_string()))
    .collect();
    assert_eq!(rep, expected);
    let r = report(&out);
    assert_eq!(r["records"]["dropped"]["repetition"], 4);
    assert_eq!(reconciles(&r), 3 + 5 + 7);
}

#[test]
fn unknowns_dropped_as_duplicates_are_not_counted_as_kept() {
    let dir = TempDir::new("unknown-kept");
    let a = startpos_file(&dir, "a.psfen", 300);
    let b = startpos_file(&dir, "b.psfen", 300);
    let budget = "[filter.mate]\nnodes = 300\n";
    let alone = dir.join("alone");
    run_ok(&[
        "run",
        &config(&dir, &[&a], budget),
        "--out",
        alone.to_str().unwrap(),
        "--quiet",
    ]);
    let unknown = report(&alone)["unknown"].as_u64().unwrap();
    assert!(unknown > 10, "the budget must leave unknowns: {unknown}");
    assert_eq!(report(&alone)["unknown_kept"], unknown);
    // The same records again in a second file: each is searched again (the same verdicts)
    // and dropped as a duplicate of the first copy.
    let twice = dir.join("twice");
    let log = run_ok(&[
        "run",
        &config(&dir, &[&a, &b], budget),
        "--out",
        twice.to_str().unwrap(),
    ]);
    let r = report(&twice);
    assert_eq!(r["unknown"], 2 * unknown);
    assert_eq!(r["unknown_kept"], unknown);
    let row = log.lines().find(|l| l.contains("unknown (kept)")).unwrap();
    assert_eq!(
        row.split_whitespace().nth(2),
        Some(unknown.to_string().as_str()),
        "{row}"
    );
}

#[test]
fn wall_time_guard_hits_are_counted_and_announced() {
    let dir = TempDir::new("timed-out");
    let input = startpos_file(&dir, "in.psfen", 200);
    // A budget no position reaches within 1 ms: every unknown is the clock's.
    let cfg = config(
        &dir,
        &[&input],
        "[filter.mate]\nnodes = 100000000\ntime_ms = 1\n",
    );
    let out = dir.join("out");
    let log = run_ok(&["run", &cfg, "--out", out.to_str().unwrap()]);
    let r = report(&out);
    let timed_out = r["unknown_timed_out"].as_u64().unwrap();
    assert!(timed_out > 0, "{r}");
    assert_eq!(r["unknown"].as_u64(), Some(timed_out));
    assert!(log.contains("wall-time guard"), "{log}");
    // Node budgets alone never trip it.
    let cfg = config(&dir, &[&input], "[filter.mate]\nnodes = 1000\n");
    let log = run_ok(&["run", &cfg, "--out", out.to_str().unwrap()]);
    let r = report(&out);
    assert!(r["unknown"].as_u64().unwrap() > 0);
    assert_eq!(r["unknown_timed_out"], 0);
    assert!(!log.contains("wall-time guard"), "{log}");
}

/// `filter.mate.unknown = "drop"` drops exactly the positions the solver leaves undecided,
/// as `unknown` in the audit and the report; every other record has the fate it has with
/// the default `keep`, and the kept shard is the default's minus those records. `tag`
/// keeps what `keep` keeps, byte for byte, and lists the kept undecided records in the
/// audit with their SFEN, which `posfilter mate --file` at the same budget and table size
/// leaves undecided too.
#[test]
fn unknown_drop_removes_and_tag_lists_exactly_the_undecided_positions() {
    let n = 300;
    let (dir, _) = startpos_setup("unknown-drop", n, "");
    let input = dir.join("in.psfen");
    let bytes = std::fs::read(&input).unwrap();
    let run = |policy: &str| {
        let cfg = config(
            &dir,
            &[&input],
            &format!("[filter.mate]\nnodes = 2000\nunknown = \"{policy}\"\n"),
        );
        let out = dir.join(policy);
        let log = run_one_thread(&cfg, &out);
        (out, log)
    };
    let (keep, _) = run("keep");
    let (drop, log) = run("drop");
    let (rk, rd) = (report(&keep), report(&drop));
    let unknown = rk["unknown"].as_u64().unwrap();
    assert!(unknown > 10, "too few unknowns to test: {rk}");
    assert_eq!(rk["records"]["dropped"]["unknown"], 0);
    assert_eq!(rd["records"]["dropped"]["unknown"].as_u64(), Some(unknown));
    assert_eq!(rd["unknown_kept"], 0);
    assert!(log.contains("unknown (dropped)"), "{log}");

    let (dk, dd) = (decisions(&keep), decisions(&drop));
    let dropped_unknown: Vec<u64> = dd
        .iter()
        .filter(|(_, d)| *d == "unknown")
        .map(|(i, _)| *i)
        .collect();
    assert_eq!(dropped_unknown.len() as u64, unknown);
    for (i, d) in &dd {
        if d != "unknown" {
            assert_eq!(dk.get(i), Some(d), "record {i}");
        }
    }
    // Kept with `drop`: kept with `keep`, minus the unknowns, in input order.
    let expected: Vec<u8> = (0..n as u64)
        .filter(|i| !dk.contains_key(i) && !dropped_unknown.contains(i))
        .flat_map(|i| bytes[32 * i as usize..32 * (i as usize + 1)].to_vec())
        .collect();
    let kept = std::fs::read(drop.join("kept/part-00000.psfen")).unwrap();
    assert_eq!(kept, expected);
    assert_eq!(
        rd["records"]["kept"].as_u64(),
        Some(rk["records"]["kept"].as_u64().unwrap() - rk["unknown_kept"].as_u64().unwrap())
    );

    let (tag, _) = run("tag");
    let shard = |out: &Path| std::fs::read(out.join("kept/part-00000.psfen")).unwrap();
    assert_eq!(shard(&tag), shard(&keep));
    let tagged: Vec<(u64, String)> = jsonl_lines(&tag.join("audit.jsonl"))
        .into_iter()
        .filter(|a| a["decision"] == "keep")
        .map(|a| {
            let unknown = &a["detail"]["unknown"];
            assert!(unknown["nodes"].as_u64().unwrap() >= 2000, "{a}");
            let sfen = unknown["sfen"].as_str().unwrap().to_string();
            (a["index"].as_u64().unwrap(), sfen)
        })
        .collect();
    let kept_unknown: Vec<u64> = dropped_unknown
        .iter()
        .copied()
        .filter(|i| !dk.contains_key(i))
        .collect();
    let indices: Vec<u64> = tagged.iter().map(|(i, _)| *i).collect();
    assert_eq!(indices, kept_unknown);
    assert_eq!(rk["unknown_kept"].as_u64(), Some(indices.len() as u64));
    for (i, sfen) in &tagged {
        let record: &[u8; 32] = bytes[32 * *i as usize..][..32].try_into().unwrap();
        let pos = posfilter::codec::psfen::decode_psfen(record).unwrap();
        assert_eq!(&pos.to_sfen(), sfen, "record {i}");
    }
    let list = dir.join("unknown.sfen");
    let text: String = tagged.iter().map(|(_, s)| format!("{s}\n")).collect();
    std::fs::write(&list, text).unwrap();
    let (ok, stdout, err) = run_bin(&[
        "mate",
        "--file",
        list.to_str().unwrap(),
        "--nodes",
        "2000",
        "--table-mb",
        "64",
        "--json",
    ]);
    assert!(ok, "{err}");
    let again: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(again.len(), tagged.len());
    assert!(again.iter().all(|v| v["result"] == "unknown"), "{stdout}");
}

/// Records decided in memory by a `Decider` (in two calls) get the decisions a run over
/// the same records writes, duplicates included.
#[test]
fn a_decider_decides_records_in_memory_as_a_run_does() {
    use posfilter::pipeline::config::RawConfig;
    use posfilter::pipeline::Decider;
    let n = 600;
    let (dir, cfg) = startpos_setup("decider", n, "[filter.mate]\nnodes = 3000\n");
    let out = dir.join("out");
    run_one_thread(&cfg, &out);
    let from_run: BTreeMap<u64, String> = decisions(&out)
        .into_iter()
        .filter(|(_, d)| d != "keep")
        .collect();
    assert!(!from_run.is_empty());
    let mut decider = Decider::new(&RawConfig::load(Path::new(&cfg)).unwrap()).unwrap();
    let bytes = std::fs::read(dir.join("in.psfen")).unwrap();
    let records: Vec<&[u8]> = bytes.chunks(32).collect();
    let (a, b) = records.split_at(n / 2);
    let mut got = decider.decide(Format::Psfen, a);
    got.extend(decider.decide(Format::Psfen, b));
    assert_eq!(got.len(), n);
    let from_decider: BTreeMap<u64, String> = got
        .iter()
        .filter(|r| !r.decision().is_keep())
        .map(|r| (r.index(), r.decision().name().to_string()))
        .collect();
    assert_eq!(from_decider, from_run);
    for r in got.iter().filter(|r| r.decision().name() == "mate") {
        assert!(r.mate().is_some_and(|m| !m.pv.is_empty()), "{}", r.index());
    }
}
