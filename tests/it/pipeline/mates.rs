//! The mate corpus end to end on problems whose shortest mate is known (YaneuraOu's
//! real-game mate problems, tests/data/mate/yaneuraou.py): a side in check that mates is
//! dropped as `mate` and written to mates.jsonl and mates.psv; every line carries
//! `plies_exact`, and report.json counts the exact and inexact lengths.

use super::*;
use crate::mate::yaneuraou::{problems, Problem};
use posfilter::mate::pv;

/// Every in-check problem (about 200) and the first 100 mates in 11 without check, as one
/// SFEN file; returns the problems in file order and the config path.
fn setup(dir: &TempDir, extra: &str) -> (Vec<Problem>, String) {
    let all = problems();
    let in_check = all.iter().filter(|p| p.check).count();
    let mut chosen: Vec<Problem> = Vec::new();
    let mut mate11 = 0;
    for p in all {
        let take11 = !p.check && p.set == "mate11" && mate11 < 100;
        mate11 += take11 as usize;
        if p.check || take11 {
            chosen.push(p);
        }
    }
    assert_eq!(chosen.len(), in_check + 100);
    let text: String = chosen.iter().map(|p| format!("{}\n", p.sfen)).collect();
    let input = dir.join("problems.sfen");
    std::fs::write(&input, text).unwrap();
    (chosen, config(dir, &[&input], extra))
}

/// mates.jsonl keyed by record index.
fn mates(out: &Path) -> BTreeMap<u64, Value> {
    jsonl_lines(&out.join("mates.jsonl"))
        .into_iter()
        .map(|v| (v["index"].as_u64().unwrap(), v))
        .collect()
}

/// At the default settings: every problem is dropped as `mate` (the in-check ones too:
/// before issue 35 they were kept as clean), each mates.jsonl line has a PV that verifies
/// from its SFEN, is never shorter than the published length, and has exactly that
/// length when marked `plies_exact`; report.json's `mate_lengths` counts the lines by
/// exactness and the mates psv file scores each at 32000 − plies.
#[test]
fn a_side_in_check_that_mates_is_dropped_as_mate_with_its_length_and_exactness() {
    let dir = TempDir::new("mates-in-check");
    let (chosen, cfg) = setup(&dir, "");
    let out = dir.join("out");
    run_ok(&["run", &cfg, "--out", out.to_str().unwrap(), "--quiet"]);
    let r = report(&out);
    reconciles(&r);
    assert_eq!(r["records"]["dropped"]["mate"], chosen.len() as u64, "{r}");
    let mates = mates(&out);
    assert_eq!(mates.len(), chosen.len());
    let (mut exact, mut in_check_shortest) = (0, 0);
    for (i, p) in chosen.iter().enumerate() {
        let m = &mates[&(i as u64)];
        assert_eq!(
            (m["kind"].as_str(), m["sfen"].as_str()),
            (Some("mate"), Some(&*p.sfen))
        );
        let line: Vec<Move> = m["pv"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| Move::from_usi(s.as_str().unwrap()).unwrap())
            .collect();
        let mut pos = Position::from_sfen(&p.sfen).unwrap();
        assert!(pv::verify(&mut pos, &line, true), "{m}");
        let plies = m["plies"].as_u64().unwrap() as u32;
        assert_eq!(plies as usize, line.len());
        assert!(plies >= p.plies, "{m}: published {}", p.plies);
        let is_exact = m["plies_exact"].as_bool().expect("plies_exact");
        assert!(!is_exact || plies == p.plies, "{m}: published {}", p.plies);
        exact += is_exact as u64;
        in_check_shortest += (p.check && plies == p.plies) as usize;
    }
    let lengths = &r["mate_lengths"];
    assert_eq!(lengths["exact"], exact, "{r}");
    assert_eq!(lengths["inexact"], chosen.len() as u64 - exact, "{r}");
    // Measured: every line exact, and 205 of the 206 in-check problems at the published length.
    assert!(exact * 100 >= chosen.len() as u64 * 95, "{r}");
    assert!(in_check_shortest * 100 >= (chosen.len() - 100) * 98);
    // The mates psv file: one record per line, scored from the length.
    let psv = std::fs::read(out.join("mates.psv")).unwrap();
    assert_eq!(psv.len(), 40 * chosen.len());
    for (i, rec) in psv.chunks(40).enumerate() {
        let score = i16::from_le_bytes([rec[32], rec[33]]);
        let plies = mates[&(i as u64)]["plies"].as_u64().unwrap() as i16;
        assert_eq!(score, 32000 - plies, "record {i}");
    }
}

/// With the shortening off (`shorten = 0`) the first line found is reported: lines longer
/// than the published length appear, none of them is marked exact, and the report counts
/// them as inexact.
#[test]
fn mate_lengths_count_the_lines_not_proven_shortest() {
    let dir = TempDir::new("mates-inexact");
    let (chosen, cfg) = setup(&dir, "[filter.mate]\nshorten = 0\n");
    let out = dir.join("out");
    run_ok(&["run", &cfg, "--out", out.to_str().unwrap(), "--quiet"]);
    let r = report(&out);
    let mates = mates(&out);
    let mut longer = 0;
    for (i, p) in chosen.iter().enumerate() {
        let m = &mates[&(i as u64)];
        let plies = m["plies"].as_u64().unwrap() as u32;
        longer += (plies > p.plies) as u64;
        assert!(plies == p.plies || m["plies_exact"] == false, "{m}");
    }
    let lengths = &r["mate_lengths"];
    let inexact = lengths["inexact"].as_u64().unwrap();
    assert!(
        longer > 0 && inexact >= longer,
        "{longer} longer lines; {r}"
    );
    assert_eq!(
        inexact + lengths["exact"].as_u64().unwrap(),
        chosen.len() as u64
    );
}
