//! Two runs side by side (`posfilter report A B`): whether they read the same inputs, the
//! settings that differ, every count with its difference, mate lengths and nodes of both,
//! and the mates one proved that the other did not (from their mates.jsonl).
//!
//! # Invariants
//! A number of run A or B carries `data-run="a"` / `"b"` beside its `data-key`; a difference
//! carries `data-delta` (the key) and its signed `data-value` = B − A.

use super::histogram::Histogram;
use super::html::{delta, esc, int, note, table, Page};
use super::load::{ReportError, RunData};
use super::page::{flatten, DECISIONS};
use super::plots::{rate_points, settled_curve};
use super::svg::{self, Axis, Bar, Point, Series};
use serde_json::Value;
use std::io::BufRead;
use std::path::Path;

/// Mates proved by one run and not the other, from the two mates.jsonl.
#[derive(Debug, Clone, Default)]
pub struct MateDiff {
    /// Positions B proved (mate, mated, checkmated) that A did not.
    pub only_b: u64,
    /// Positions A proved that B did not.
    pub only_a: u64,
    /// The first [`MAX_LISTED`] lines of each, as written (B's, then A's).
    pub first_only_b: Vec<Value>,
    /// A's.
    pub first_only_a: Vec<Value>,
}

/// Mates listed per direction.
pub const MAX_LISTED: usize = 10;

/// A number of run `tag` (`a` or `b`) at report.json `key`.
fn num_of(tag: &str, key: &str, value: u64) -> String {
    format!(
        "<span class=\"n\" data-run=\"{tag}\" data-key=\"{}\" data-value=\"{value}\">{}</span>",
        esc(key),
        int(value)
    )
}

/// B − A at `key`.
fn delta_of(key: &str, b: u64, a: u64) -> String {
    format!(
        "<span class=\"n\" data-delta=\"{}\" data-value=\"{}\">{}</span>",
        esc(key),
        b as i128 - a as i128,
        delta(b, a)
    )
}

/// The comparison page of runs `a` and `b`; `diff` from [`mate_diff`].
pub fn render(a: &RunData, b: &RunData, diff: Option<&MateDiff>) -> String {
    let mut page = Page::new(&format!("posfilter: {} against {}", b.name(), a.name()));
    page.push(&format!(
        "<h1>Two runs side by side</h1><p>A = <code>{}</code>, B = <code>{}</code>; differences \
         are B \u{2212} A.</p>",
        esc(&a.name()),
        esc(&b.name())
    ));
    page.section("same-input", "Inputs", &inputs(a, b));
    page.section("settings-diff", "Settings that differ", &settings(a, b));
    page.section("counts", "Counts", &counts(a, b));
    page.section(
        "added",
        "Mates one run proved and the other did not",
        &added(diff),
    );
    page.section("mate-length", "Mate lengths", &mate_lengths(a, b));
    page.section("budget", "Mates found against nodes", &budgets(a, b));
    page.section("throughput", "Throughput", &throughput(a, b));
    page.finish()
}

/// Whether the two read the same files (names, record counts, sizes, CRC-32 where known).
fn inputs(a: &RunData, b: &RunData) -> String {
    let identity = |r: &RunData| -> Vec<String> {
        (0..r.inputs())
            .map(|i| {
                let k = |f: &str| r.get(&format!("inputs.{i}.{f}")).map(Value::to_string);
                let parts = ["file", "records", "bytes", "fingerprint.crc32"].map(k);
                parts.into_iter().flatten().collect::<Vec<_>>().join(" ")
            })
            .collect()
    };
    let (ia, ib) = (identity(a), identity(b));
    if ia == ib {
        format!(
            "<p id=\"same-input-verdict\" class=\"ok\">Both runs read the same {} input file(s): \
             same names, record counts{}.</p>",
            ia.len(),
            if a.get("inputs.0.fingerprint").is_some() {
                ", sizes and CRC-32"
            } else {
                ""
            }
        )
    } else {
        "<p id=\"same-input-verdict\" class=\"warn\">The runs read different inputs (names, \
         record counts, sizes or CRC-32 differ): the differences below are not the settings' \
         alone.</p>"
            .into()
    }
}

/// The configuration keys whose values differ.
fn settings(a: &RunData, b: &RunData) -> String {
    let leaves = |r: &RunData| {
        let mut v = Vec::new();
        if let Some(c) = r.get("config") {
            flatten("", c, &mut v);
        }
        v.into_iter().collect::<std::collections::BTreeMap<_, _>>()
    };
    let (la, lb) = (leaves(a), leaves(b));
    let keys: std::collections::BTreeSet<&String> = la.keys().chain(lb.keys()).collect();
    let dash = "\u{2013}".to_string();
    let rows: Vec<Vec<String>> = keys
        .into_iter()
        .filter(|k| la.get(*k) != lb.get(*k))
        .map(|k| {
            let cell = |m: &std::collections::BTreeMap<String, String>| {
                format!("<code>{}</code>", esc(m.get(k).unwrap_or(&dash)))
            };
            vec![format!("<code>{}</code>", esc(k)), cell(&la), cell(&lb)]
        })
        .collect();
    if rows.is_empty() {
        return note("The two runs have the same settings.");
    }
    super::html::text_table("settings-diff-table", &["key", "A", "B"], &rows)
}

/// Every count of both runs with its difference, and the decisions as paired bars.
fn counts(a: &RunData, b: &RunData) -> String {
    let mut keys: Vec<(String, String)> = vec![("records.input".into(), "input".into())];
    keys.extend(
        DECISIONS
            .iter()
            .map(|(k, l, _)| (format!("records.{k}"), l.to_string())),
    );
    for k in [
        "unknown",
        "unknown_kept",
        "unknown_timed_out",
        "nodes",
        "mates_written",
    ] {
        keys.push((k.to_string(), k.replace('_', " ")));
    }
    let rows: Vec<Vec<String>> = keys
        .iter()
        .map(|(k, label)| {
            let (va, vb) = (a.u(k), b.u(k));
            vec![
                esc(label),
                num_of("a", k, va),
                num_of("b", k, vb),
                delta_of(k, vb, va),
            ]
        })
        .collect();
    let mut s = table("counts-table", &["", "A", "B", "B \u{2212} A"], &rows);
    let bars: Vec<Vec<Bar>> = DECISIONS
        .iter()
        .map(|(k, label, colour)| {
            let key = format!("records.{k}");
            [("A", a, 6), ("B", b, *colour)]
                .iter()
                .map(|(tag, r, c)| Bar {
                    label: label.to_string(),
                    value: r.u(&key),
                    colour: *c,
                    key: format!("{}:{key}", tag.to_lowercase()),
                    title: format!("{label}, {tag}: {}", int(r.u(&key))),
                })
                .collect()
        })
        .collect();
    let chart = svg::hbars("decisions of A and B", &bars);
    s.push_str(&svg::figure(
        "decisions",
        &chart,
        "Decisions: A's bar (grey) above B's in each row.",
    ));
    s
}

/// The mates each run proved alone.
fn added(diff: Option<&MateDiff>) -> String {
    let Some(d) = diff else {
        return note("One of the runs has no mates.jsonl (mates.enabled = false).");
    };
    let mut s = format!(
        "<p id=\"added-counts\">B proved <span class=\"n\" id=\"only-b\" data-value=\"{}\">{}</span> \
         positions that A did not; A proved <span class=\"n\" id=\"only-a\" data-value=\"{}\">{}</span> \
         that B did not.</p>",
        d.only_b,
        int(d.only_b),
        d.only_a,
        int(d.only_a)
    );
    for (title, lines, id) in [
        (
            "The first that only B proved",
            &d.first_only_b,
            "only-b-list",
        ),
        (
            "The first that only A proved",
            &d.first_only_a,
            "only-a-list",
        ),
    ] {
        if lines.is_empty() {
            continue;
        }
        let rows: Vec<Vec<String>> = lines
            .iter()
            .map(|m| {
                let field = |k: &str| m.get(k).map(|v| v.to_string()).unwrap_or_default();
                vec![
                    esc(&field("index")),
                    esc(m.get("kind").and_then(Value::as_str).unwrap_or("?")),
                    esc(&field("plies")),
                    esc(&field("nodes")),
                    format!(
                        "<span class=\"sfen\">{}</span>",
                        esc(m.get("sfen").and_then(Value::as_str).unwrap_or("?"))
                    ),
                ]
            })
            .collect();
        s.push_str(&format!("<h3>{}</h3>", esc(title)));
        s.push_str(&table(
            id,
            &["index", "verdict", "plies", "nodes", "SFEN"],
            &rows,
        ));
    }
    s
}

/// Mate + mated lengths of `r` in one histogram.
fn all_mates(r: &RunData) -> Histogram {
    let mut h = Histogram::default();
    for k in ["mate", "mated"] {
        if let Some(x) = r.histograms.mate_plies.get(k) {
            h.merge(x);
        }
    }
    h
}

/// Mate lengths of both runs (mate and mated together).
fn mate_lengths(a: &RunData, b: &RunData) -> String {
    let (ha, hb) = (all_mates(a), all_mates(b));
    if ha.is_empty() && hb.is_empty() {
        return note("Neither run records mate lengths.");
    }
    let series = [
        (two("A", 6, "a:histograms.mate_plies"), &ha),
        (two("B", 1, "b:histograms.mate_plies"), &hb),
    ];
    let chart = svg::histogram(
        "mate lengths of A and B",
        &series,
        false,
        ("mate length (plies)", "plies"),
    );
    let mut s = svg::figure("mate-length", &chart, "Mate and mated positions by length.");
    s.push_str(&svg::legend(&[series[0].0.clone(), series[1].0.clone()]));
    s
}

/// A series of the comparison.
fn two(label: &str, colour: usize, key: &str) -> Series {
    Series {
        label: label.into(),
        colour,
        key: key.into(),
    }
}

/// Mates found with fewer than x nodes, as counts, for both runs, with both budgets.
fn budgets(a: &RunData, b: &RunData) -> String {
    let mates = |r: &RunData| -> Vec<Point> {
        let hs: Vec<&Histogram> = ["mate", "mated"]
            .iter()
            .filter_map(|k| r.histograms.nodes.get(*k))
            .collect();
        let total: u64 = hs.iter().map(|h| h.count).sum();
        settled_curve(&hs, total, "mates")
            .into_iter()
            .map(|p| Point {
                y: p.y * total as f64,
                ..p
            })
            .collect()
    };
    let (pa, pb) = (mates(a), mates(b));
    if pa.is_empty() && pb.is_empty() {
        return note("Neither run records nodes per mate.");
    }
    let top = pa.iter().chain(&pb).map(|p| p.y).fold(1.0, f64::max);
    let max_x = pa.iter().chain(&pb).map(|p| p.x).fold(1.0, f64::max);
    let mut marks = Vec::new();
    for (tag, r) in [("A", a), ("B", b)] {
        if let Some(n) = r.budget() {
            marks.push((
                n as f64,
                format!("{tag} budget {}", super::html::short(n as f64)),
            ));
        }
    }
    let x_max = marks.iter().map(|m| m.0).fold(max_x, f64::max) * 1.2;
    let series = [
        (two("A", 6, "a:histograms.nodes"), pa),
        (two("B", 1, "b:histograms.nodes"), pb),
    ];
    let chart = svg::curves(
        "mates found against nodes, A and B",
        &series,
        (Axis::Log(1.0, x_max), Axis::Linear(0.0, top * 1.05)),
        ("nodes (fewer than x)", "mates found", false),
        &marks,
    );
    let mut s = svg::figure(
        "budget",
        &chart,
        "Mates (mate + mated) found with fewer than x nodes: where the curves part, the larger \
         budget found what the smaller could not.",
    );
    s.push_str(&svg::legend(&[series[0].0.clone(), series[1].0.clone()]));
    s
}

/// Records per second of both runs.
fn throughput(a: &RunData, b: &RunData) -> String {
    let (pa, pb) = (rate_points(&a.throughput), rate_points(&b.throughput));
    if pa.is_empty() && pb.is_empty() {
        return note("Neither run records throughput samples.");
    }
    let end = pa.iter().chain(&pb).map(|p| p.x).fold(1e-3, f64::max);
    let top = pa.iter().chain(&pb).map(|p| p.y).fold(1.0, f64::max);
    let series = [
        (two("A", 6, "a:throughput"), pa),
        (two("B", 1, "b:throughput"), pb),
    ];
    let chart = svg::curves(
        "throughput of A and B",
        &series,
        (Axis::Linear(0.0, end), Axis::Linear(0.0, top * 1.1)),
        ("seconds since the start", "records/s", false),
        &[],
    );
    let mut s = svg::figure("throughput", &chart, "Input records committed per second.");
    s.push_str(&svg::legend(&[series[0].0.clone(), series[1].0.clone()]));
    s
}

/// The index of a mates.jsonl line: read from its `{"index":N,` start as posfilter writes
/// it, else by parsing the line.
fn line_index(line: &str) -> Option<u64> {
    let fast = line
        .strip_prefix("{\"index\":")
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|digits| digits.parse().ok());
    fast.or_else(|| {
        serde_json::from_str::<Value>(line)
            .ok()?
            .get("index")?
            .as_u64()
    })
}

/// A mates.jsonl read line by line: (index, line).
struct Mates {
    lines: std::io::Lines<std::io::BufReader<std::fs::File>>,
    path: String,
    at: usize,
}

impl Mates {
    fn open(path: &Path) -> Result<Option<Mates>, ReportError> {
        match std::fs::File::open(path) {
            Ok(f) => Ok(Some(Mates {
                lines: std::io::BufReader::new(f).lines(),
                path: path.display().to_string(),
                at: 0,
            })),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(ReportError::Io {
                path: path.display().to_string(),
                source,
            }),
        }
    }

    fn next(&mut self) -> Result<Option<(u64, String)>, ReportError> {
        for line in self.lines.by_ref() {
            self.at += 1;
            let line = line.map_err(|source| ReportError::Io {
                path: self.path.clone(),
                source,
            })?;
            if line.trim().is_empty() {
                continue;
            }
            let index = line_index(&line).ok_or_else(|| ReportError::Format {
                path: format!("{}:{}", self.path, self.at),
                why: "not a mates.jsonl line (no index)".into(),
            })?;
            return Ok(Some((index, line)));
        }
        Ok(None)
    }
}

/// The mates only `b` or only `a` proved: a merge walk of the two mates.jsonl, which are in
/// input order (`None` if either directory has none).
pub fn mate_diff(a: &Path, b: &Path) -> Result<Option<MateDiff>, ReportError> {
    let (Some(mut ma), Some(mut mb)) = (
        Mates::open(&a.join("mates.jsonl"))?,
        Mates::open(&b.join("mates.jsonl"))?,
    ) else {
        return Ok(None);
    };
    let mut d = MateDiff::default();
    let keep = |list: &mut Vec<Value>, line: &str| {
        if list.len() < MAX_LISTED {
            list.extend(serde_json::from_str::<Value>(line).ok());
        }
    };
    let (mut x, mut y) = (ma.next()?, mb.next()?);
    loop {
        let a_first = match (&x, &y) {
            (None, None) => return Ok(Some(d)),
            (Some((i, _)), Some((j, _))) if i == j => {
                (x, y) = (ma.next()?, mb.next()?);
                continue;
            }
            (Some((i, _)), Some((j, _))) => i < j,
            (Some(_), None) => true,
            (None, Some(_)) => false,
        };
        if a_first {
            if let Some((_, line)) = &x {
                d.only_a += 1;
                keep(&mut d.first_only_a, line);
            }
            x = ma.next()?;
        } else {
            if let Some((_, line)) = &y {
                d.only_b += 1;
                keep(&mut d.first_only_b, line);
            }
            y = mb.next()?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_is_read_fast_or_by_parsing() {
        assert_eq!(line_index("{\"index\":120,\"kind\":\"mate\"}"), Some(120));
        assert_eq!(line_index("{\"kind\":\"mate\",\"index\":7}"), Some(7));
        assert_eq!(line_index("{\"kind\":\"mate\"}"), None);
    }
}
