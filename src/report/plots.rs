//! The plotted sections of a run's page: mate lengths, nodes against the budget, time per
//! position, throughput, and mate verdicts against the games' results.

use super::histogram::{Histogram, Scale};
use super::html::{derived, esc, int, note, num, pct, short, table};
use super::load::{HistogramSource, RunData};
use super::record::{MatesVsGameResult, Sample};
use super::svg::{self, Axis, Point, Series};
use std::collections::BTreeMap;

/// Solver results in the order the pages list them, with their colour.
pub const RESULTS: [(&str, usize); 6] = [
    ("mate", 1),
    ("mated", 5),
    ("checkmated", 7),
    ("no_legal_moves", 8),
    ("no_mate", 2),
    ("unknown", 3),
];

/// The note for data a run did not record.
fn not_recorded(what: &str) -> String {
    note(&format!(
        "This report.json does not record {what} (written by posfilter since the run report)."
    ))
}

/// The series of `map` (a `histograms.<name>` table) in [`RESULTS`] order.
fn result_series<'a>(
    map: &'a BTreeMap<String, Histogram>,
    name: &str,
) -> Vec<(Series, &'a Histogram)> {
    RESULTS
        .iter()
        .filter_map(|(r, colour)| {
            map.get(*r).filter(|h| !h.is_empty()).map(|h| {
                let s = Series {
                    label: r.replace('_', " "),
                    colour: *colour,
                    key: format!("histograms.{name}.{r}"),
                };
                (s, h)
            })
        })
        .collect()
}

/// Mate lengths, mate and mated as two series.
pub fn mate_lengths(run: &RunData) -> String {
    let series: Vec<(Series, &Histogram)> = result_series(&run.histograms.mate_plies, "mate_plies")
        .into_iter()
        .filter(|(s, _)| s.label == "mate" || s.label == "mated")
        .collect();
    if series.is_empty() {
        return match run.histograms_from {
            HistogramSource::None => not_recorded("mate lengths, and there is no mates.jsonl"),
            _ => note("No mate or mated position."),
        };
    }
    let chart = svg::histogram(
        "mate lengths",
        &series,
        false,
        ("mate length (plies)", "plies"),
    );
    // Numbers of report.json carry its key; rebuilt from mates.jsonl, they say so.
    let recorded = run.histograms_from == HistogramSource::Report;
    let tag = |key: String, v: u64| {
        if recorded {
            num(&key, v)
        } else {
            derived("mates.jsonl", v)
        }
    };
    let rows: Vec<Vec<String>> = series
        .iter()
        .map(|(s, h)| {
            vec![
                esc(&s.label),
                tag(format!("{}.count", s.key), h.count),
                format!("{:.1}", h.sum as f64 / h.count.max(1) as f64),
                tag(format!("{}.max", s.key), h.max),
            ]
        })
        .collect();
    let mut out = svg::figure(
        "mate-length",
        &chart,
        &format!(
            "Positions by mate length: the side to move mates (odd plies) or is mated (even \
             plies). {}",
            source_note(run)
        ),
    );
    out.push_str(&svg::legend(
        &series.iter().map(|(s, _)| s.clone()).collect::<Vec<_>>(),
    ));
    out.push_str(&table(
        "mate-length-summary",
        &["kind", "positions", "mean plies", "longest"],
        &rows,
    ));
    out
}

/// Where the histograms came from, for captions.
fn source_note(run: &RunData) -> &'static str {
    match run.histograms_from {
        HistogramSource::MatesJsonl => {
            "(Rebuilt from mates.jsonl: this report.json predates the histograms.)"
        }
        _ => "",
    }
}

/// Share of `hs` settled with fewer than x nodes, at every bucket bound, over `total`.
pub fn settled_curve(hs: &[&Histogram], total: u64, what: &str) -> Vec<Point> {
    let mut bounds: Vec<u64> = hs
        .iter()
        .flat_map(|h| h.buckets.iter().map(|b| b.hi))
        .collect();
    bounds.sort_unstable();
    bounds.dedup();
    let first = hs
        .iter()
        .flat_map(|h| h.buckets.first())
        .map(|b| b.lo)
        .min()
        .unwrap_or(0);
    std::iter::once(first)
        .chain(bounds)
        .map(|x| {
            let n: u64 = hs.iter().map(|h| h.count_below(x)).sum();
            let share = if total == 0 {
                0.0
            } else {
                n as f64 / total as f64
            };
            Point {
                x: (x as f64).max(0.5),
                y: share,
                title: format!(
                    "fewer than {} nodes: {} of {} {what} ({})",
                    int(x),
                    int(n),
                    int(total),
                    pct(n, total)
                ),
            }
        })
        .collect()
}

/// The curves and table of nodes per decided position against the budget.
pub fn budget(run: &RunData) -> String {
    let Some(budget) = run.budget() else {
        return note("The mate filter was off: nothing was searched.");
    };
    let nodes = &run.histograms.nodes;
    if nodes.is_empty() {
        return not_recorded("nodes per position");
    }
    let get = |r: &str| nodes.get(r);
    let mates: Vec<&Histogram> = ["mate", "mated"].iter().filter_map(|r| get(r)).collect();
    let mate_total: u64 = mates.iter().map(|h| h.count).sum();
    let settled: Vec<&Histogram> = RESULTS
        .iter()
        .filter(|(r, _)| *r != "unknown")
        .filter_map(|(r, _)| get(r))
        .collect();
    let searched: u64 = nodes.values().map(|h| h.count).sum();
    let all_recorded = run.histograms_from == HistogramSource::Report;
    let mut series = Vec::new();
    if all_recorded {
        let s = Series {
            label: "every verdict (share of positions searched)".into(),
            colour: 0,
            key: "histograms.nodes".into(),
        };
        series.push((s, settled_curve(&settled, searched, "positions searched")));
    }
    let s = Series {
        label: "mates found (share of mate + mated)".into(),
        colour: 1,
        key: "histograms.nodes.mate+mated".into(),
    };
    series.push((s, settled_curve(&mates, mate_total, "mates")));
    let hi = nodes.values().map(|h| h.max).max().unwrap_or(1).max(budget) as f64;
    let chart = svg::curves(
        "nodes against the budget",
        &series,
        (Axis::Log(1.0, hi * 1.2), Axis::Linear(0.0, 1.0)),
        ("nodes (fewer than x)", "share settled", true),
        &[(budget as f64, format!("budget {}", short(budget as f64)))],
    );
    let mut out = svg::figure(
        "budget",
        &chart,
        &format!(
            "What share a budget of x nodes would have settled (verdicts from the cache count \
             the nodes they cost when found). {}",
            source_note(run)
        ),
    );
    out.push_str(&svg::legend(
        &series.iter().map(|(s, _)| s.clone()).collect::<Vec<_>>(),
    ));
    out.push_str(&budget_table(
        budget,
        (&settled, searched),
        (&mates, mate_total),
        all_recorded,
    ));
    out
}

/// Shares settled at fractions of the budget, and how many mates came near it.
fn budget_table(
    budget: u64,
    (settled, searched): (&[&Histogram], u64),
    (mates, mate_total): (&[&Histogram], u64),
    all_recorded: bool,
) -> String {
    let below = |hs: &[&Histogram], x: u64| hs.iter().map(|h| h.count_below(x)).sum::<u64>();
    let rows: Vec<Vec<String>> = [100, 10, 2, 1]
        .iter()
        .map(|d| {
            // A bucket bound at or below budget / d, so that the share is exact.
            let x = Scale::LeadingDigit.bucket((budget / d).max(1)).0;
            let all = if all_recorded {
                pct(below(settled, x), searched)
            } else {
                "\u{2013}".into()
            };
            vec![
                format!("fewer than {}", int(x)),
                all,
                pct(below(mates, x), mate_total),
            ]
        })
        .collect();
    let half = Scale::LeadingDigit.bucket((budget / 2).max(1)).0;
    let near = mate_total - below(mates, half);
    let mut s = table(
        "budget-shares",
        &["nodes", "every verdict", "mates found"],
        &rows,
    );
    s.push_str(&format!(
        "<p id=\"budget-near\">{} of the {} mates found ({}) took {} nodes or more, about half \
         the budget or more{}</p>",
        int(near),
        int(mate_total),
        pct(near, mate_total),
        int(half),
        if near * 20 > mate_total {
            ": a larger budget would likely find more."
        } else {
            "."
        }
    ));
    s
}

/// Time per searched position, by result.
pub fn timing(run: &RunData) -> String {
    if run.budget().is_none() {
        return note("The mate filter was off: nothing was searched.");
    }
    let series = result_series(&run.histograms.micros, "micros");
    if series.is_empty() {
        return not_recorded("the time per position");
    }
    let chart = svg::histogram("time per position", &series, true, ("microseconds", "µs"));
    let mut out = svg::figure(
        "timing",
        &chart,
        "Wall time per searched position, by verdict (log scale; verdicts from the cache are \
         not timed).",
    );
    out.push_str(&svg::legend(
        &series.iter().map(|(s, _)| s.clone()).collect::<Vec<_>>(),
    ));
    out
}

/// Records per second between consecutive samples, at the later sample's time.
pub fn rate_points(samples: &[Sample]) -> Vec<Point> {
    samples
        .windows(2)
        .filter(|w| w[1].seconds > w[0].seconds)
        .map(|w| {
            let rate = (w[1].records - w[0].records) as f64 / (w[1].seconds - w[0].seconds);
            Point {
                x: w[1].seconds,
                y: rate,
                title: format!(
                    "{:.1} s: {} records/s ({} records by then)",
                    w[1].seconds,
                    int(rate as u64),
                    int(w[1].records)
                ),
            }
        })
        .collect()
}

/// Records per second against elapsed time.
pub fn throughput(run: &RunData) -> String {
    let points = rate_points(&run.throughput);
    if points.is_empty() {
        return not_recorded("throughput samples");
    }
    let end = run.throughput.last().map_or(1.0, |s| s.seconds).max(1e-3);
    let top = points.iter().map(|p| p.y).fold(0.0, f64::max).max(1.0);
    let series = Series {
        label: "records/s".into(),
        colour: 0,
        key: "throughput".into(),
    };
    let chart = svg::curves(
        "throughput",
        &[(series, points)],
        (Axis::Linear(0.0, end), Axis::Linear(0.0, top * 1.1)),
        ("seconds since the start", "records/s", false),
        &[],
    );
    svg::figure(
        "throughput",
        &chart,
        &format!(
            "Input records committed per second over the run ({} samples).",
            run.throughput.len()
        ),
    )
}

/// The cross-tab of mate verdicts against the games' results, and the first surprises.
pub fn game_results(run: &RunData) -> String {
    let Some(t) = &run.vs_results else {
        let formats: Vec<&str> = (0..run.inputs())
            .filter_map(|i| run.s(&format!("inputs.{i}.format")))
            .collect();
        let with_results = formats
            .iter()
            .any(|f| matches!(*f, "psv" | "hcpe" | "hcpe3"));
        return if with_results {
            not_recorded("mate verdicts against the games' results")
        } else {
            note(&format!(
                "The inputs ({}) carry no game results.",
                formats.join(", ")
            ))
        };
    };
    let base = "mates_vs_game_result";
    let rows: Vec<Vec<String>> = [
        ("mate", &t.mate),
        ("mated", &t.mated),
        ("checkmated", &t.checkmated),
    ]
    .iter()
    .map(|(kind, row)| {
        let key = |k: &str| format!("{base}.{kind}.{k}");
        vec![
            kind.to_string(),
            num(&key("mated_side_lost"), row.mated_side_lost),
            num(&key("mated_side_won"), row.mated_side_won),
            num(&key("draw"), row.draw),
        ]
    })
    .collect();
    let mut s = String::from(
        "<p>For each mate verdict on a record that carries its game's result: did the side the \
         verdict says is mated lose that game (expected), or win it (worth a look: a weak \
         generator, or a wrong verdict)?</p>",
    );
    s.push_str(&table(
        "game-results-table",
        &[
            "verdict",
            "mated side lost (expected)",
            "mated side won (worth a look)",
            "draw",
        ],
        &rows,
    ));
    s.push_str(&surprises(t));
    s
}

/// The first mate verdicts whose mated side won its game, with their SFENs.
fn surprises(t: &MatesVsGameResult) -> String {
    if t.mated_side_won_examples.is_empty() {
        return String::new();
    }
    let base = "mates_vs_game_result.mated_side_won_examples";
    let rows: Vec<Vec<String>> = t
        .mated_side_won_examples
        .iter()
        .enumerate()
        .map(|(i, e)| {
            vec![
                num(&format!("{base}.{i}.index"), e.index),
                format!("<code>{}</code>", esc(&e.file)),
                esc(&e.kind),
                num(&format!("{base}.{i}.plies"), u64::from(e.plies)),
                format!("<span class=\"sfen\">{}</span>", esc(&e.sfen)),
            ]
        })
        .collect();
    let mut s = String::from("<h3>The first whose mated side won</h3>");
    s.push_str(&table(
        "game-results-examples",
        &["index", "file", "verdict", "plies", "SFEN"],
        &rows,
    ));
    s
}
