//! The page of a report.json that holds every key of the run report (histograms, samples,
//! per-file counts, fingerprints, the game-result cross-tab), made here from seeded random
//! verdicts: every plot is drawn, every tagged number equals the JSON, every series sums to
//! its count, and the budget table equals shares counted from the raw verdicts.

use super::histogram::Scale;
use super::provenance::{FileIdentity, Fingerprint, RunInfo};
use super::record::{Histograms, MateExample, MatesVsGameResult, RunRecord, ThroughputSampler};
use super::{page, RunData};
use scraper::{Html, Selector};
use serde_json::{json, Value};

/// A verdict of the synthetic run: result, nodes.
type Verdict = (&'static str, u64);

/// Seeded xorshift.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

const BUDGET: u64 = 100_000;

/// A report.json with every key, and the verdicts behind its histograms.
fn synthetic() -> (Value, Vec<Verdict>) {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut record = RunRecord {
        run: RunInfo::now("2026-11-26T10:41:00Z"),
        ..Default::default()
    };
    let mut verdicts = Vec::new();
    let mut sampler = ThroughputSampler::new(0.5, 0);
    let mut vs = MatesVsGameResult::default();
    let h: &mut Histograms = &mut record.histograms;
    for i in 0..3000u64 {
        let result = ["mate", "mated", "no_mate", "no_mate", "unknown"][(rng.next() % 5) as usize];
        let nodes = if result == "unknown" {
            BUDGET + rng.next() % 50
        } else {
            // Log-uniform below the budget.
            (10f64.powf((rng.next() % 5000) as f64 / 1000.0)) as u64
        };
        h.record_search(result, nodes, Some(nodes / 3 + 1));
        if result.starts_with("mate") {
            let plies = 1 + 2 * (rng.next() % 12) as u32 + u32::from(result == "mated");
            h.record_mate(result, plies);
            let game = [1i8, -1, 0][(rng.next() % 3) as usize];
            vs.record(result, game, || MateExample {
                index: i,
                file: "a.psv".into(),
                kind: result.into(),
                plies,
                sfen: format!("sfen-{i}"),
            });
        }
        sampler.observe(i as f64 * 0.01, i);
        verdicts.push((result, nodes));
    }
    record.throughput = sampler.finish(30.0, 3000);
    record.mates_vs_game_result = Some(vs);
    (report_json(&record, &verdicts), verdicts)
}

/// The whole report.json around `record`, its counts those of `verdicts` split over two
/// files.
fn report_json(record: &RunRecord, verdicts: &[Verdict]) -> Value {
    let count = |r: &str| verdicts.iter().filter(|v| v.0 == r).count() as u64;
    let counts = |share: u64| {
        let part = |n: u64| n * share / 4;
        let (mate, mated) = (part(count("mate")), part(count("mated")));
        let input = part(verdicts.len() as u64);
        json!({"input": input, "kept": input - mate - mated, "rejected": 0,
               "dropped": {"checkmated": 0, "no_legal_moves": 0, "mate": mate, "mated": mated,
                           "repetition": 0, "declaration": 0, "duplicate": 0, "unknown": 0,
                           "no_move": 0}})
    };
    let identity = FileIdentity {
        bytes: 120_480,
        modified: Some("2026-11-26T10:41:00Z".into()),
        fingerprint: Fingerprint {
            crc32: "0123abcd".into(),
            hashed_bytes: 120_480,
        },
    };
    let input = |file: &str, share: u64| {
        let mut v = json!({"file": file, "format": "psv", "detected_by": "extension .psv",
                           "records": verdicts.len() as u64 * share / 4,
                           "counts": counts(share), "unknown": 0});
        let id = serde_json::to_value(&identity).unwrap();
        v.as_object_mut()
            .unwrap()
            .extend(id.as_object().unwrap().clone());
        v
    };
    let mut report = json!({
        "records": counts(4),
        "unknown": count("unknown"), "unknown_kept": count("unknown"), "unknown_timed_out": 0,
        "nodes": verdicts.iter().map(|v| v.1).sum::<u64>(),
        "verdict_cache": {"hits": 0, "nodes_saved": 0},
        "seconds": 30.0, "positions_per_second": 100.0, "threads": 2,
        "inputs": [input("a.psv", 1), input("b.psv", 3)],
        "config": {"filter": {"mate": {"enabled": true, "nodes": BUDGET, "time_ms": 10000}}},
        "version": "0.1.0",
    });
    let added = serde_json::to_value(record).unwrap();
    report
        .as_object_mut()
        .unwrap()
        .extend(added.as_object().unwrap().clone());
    report
}

fn select<'a>(doc: &'a Html, css: &str) -> Vec<scraper::ElementRef<'a>> {
    doc.select(&Selector::parse(css).unwrap()).collect()
}

#[test]
fn every_key_of_the_run_report_is_drawn_and_shown_as_report_json_holds_it() {
    let (json, verdicts) = synthetic();
    let dir = std::env::temp_dir().join(format!("posfilter-page-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("report.json"), json.to_string()).unwrap();
    let run = RunData::load(&dir).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let html = page::render(&run);
    assert_eq!(
        html,
        page::render(&run),
        "the page is a function of report.json"
    );
    let doc = Html::parse_document(&html);
    let plots: Vec<&str> = select(&doc, "figure.plot")
        .iter()
        .map(|f| f.value().attr("data-plot").unwrap())
        .collect();
    let expected = [
        "decisions",
        "decisions-0",
        "decisions-1",
        "mate-length",
        "budget",
        "timing",
        "throughput",
    ];
    assert_eq!(plots, expected);
    // Every tagged number is report.json's, as shown.
    let tagged = select(&doc, "span.n[data-key]");
    for e in &tagged {
        let key = e.value().attr("data-key").unwrap();
        let value = e.value().attr("data-value").unwrap();
        let text: String = e.text().collect::<String>().replace(',', "");
        assert_eq!(
            json.pointer(&super::load::pointer(key)),
            Some(&json!(value.parse::<u64>().unwrap())),
            "{key}"
        );
        assert_eq!(text, value, "{key}");
    }
    assert!(tagged.len() > 60, "{}", tagged.len());
    // Each histogram series sums to its count.
    for (plot, base) in [
        ("mate-length", "/histograms/mate_plies"),
        ("timing", "/histograms/micros"),
    ] {
        for (name, h) in json.pointer(base).unwrap().as_object().unwrap() {
            let css = format!("figure[data-plot=\"{plot}\"] rect[data-series$=\".{name}\"]");
            let sum: u64 = select(&doc, &css)
                .iter()
                .map(|r| r.value().attr("data-n").unwrap().parse::<u64>().unwrap())
                .sum();
            assert_eq!(json!(sum), h["count"], "{plot} {name}");
        }
    }
    // The budget table: shares counted from the verdicts themselves.
    let settled = |x: u64| {
        verdicts
            .iter()
            .filter(|v| v.0 != "unknown" && v.1 < x)
            .count()
    };
    let rows = select(&doc, "table#budget-shares tbody tr");
    assert_eq!(rows.len(), 4);
    for (row, x) in rows.iter().zip([1000u64, 10_000, 50_000, 100_000]) {
        let cells: Vec<String> = row.text().map(str::to_string).collect();
        let share = 100.0 * settled(x) as f64 / verdicts.len() as f64;
        assert_eq!(cells[1], format!("{share:.2} %"), "fewer than {x}");
    }
    // Throughput: one point per pair of samples.
    let points = select(&doc, "figure[data-plot=\"throughput\"] circle");
    assert_eq!(
        points.len(),
        json["throughput"].as_array().unwrap().len() - 1
    );
    assert_eq!(Scale::LeadingDigit.bucket(BUDGET / 2).0, 50_000);
}
