//! The plots, as inline SVG written by hand: horizontal bars, histograms (linear or log
//! x) and curves.
//!
//! Hand-made rather than a plotting crate: plotters' SVG backend (the one candidate, 0.3.7)
//! emits anonymous shapes with inline colours, while here every mark carries its exact
//! value as a tooltip (`<title>`) and as data attributes (`data-series`, `data-n`,
//! `data-lo` / `data-hi`, `data-x` / `data-y`), which is what the reader hovers over and
//! what the tests compare with report.json; colours come from the page's CSS classes
//! (`s0`…`s9`), so a plot follows the reader's light or dark scheme.
//!
//! # Invariants
//! Every chart is one `<svg class="chart">` with a `viewBox` (it scales to the page width);
//! a mark for a non-zero value is at least one unit wide and tall, so it is never lost.

use super::histogram::Histogram;
use super::html::{esc, int, short};
use std::fmt::Write;

/// Chart size in SVG units, and the margins around the plot area.
const W: f64 = 720.0;
const H: f64 = 250.0;
const LEFT: f64 = 66.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 14.0;
const BOTTOM: f64 = 44.0;

/// A value axis: linear or logarithmic over `[min, max]` (log: `min > 0`).
#[derive(Debug, Clone, Copy)]
pub enum Axis {
    /// Linear.
    Linear(f64, f64),
    /// Base-10 logarithmic.
    Log(f64, f64),
}

impl Axis {
    /// Where `v` falls, 0 at `min` and 1 at `max` (clamped).
    fn frac(self, v: f64) -> f64 {
        let f = match self {
            Axis::Linear(a, b) => (v - a) / (b - a),
            Axis::Log(a, b) => (v.max(a).ln() - a.ln()) / (b.ln() - a.ln()),
        };
        if f.is_finite() {
            f.clamp(0.0, 1.0)
        } else {
            0.0
        }
    }

    /// Tick values: 1-2-5 steps, five to ten of them (linear), powers of ten (log; with 2 and 5 when the axis
    /// spans less than two decades).
    fn ticks(self) -> Vec<f64> {
        match self {
            Axis::Linear(a, b) => {
                let step = nice_step((b - a) / 8.0);
                let mut t = (a / step).ceil() * step;
                let mut out = Vec::new();
                while t <= b + step * 1e-9 && out.len() < 20 {
                    out.push(t);
                    t += step;
                }
                out
            }
            Axis::Log(a, b) => {
                let few = b / a < 100.0;
                let mut out = Vec::new();
                let mut p = 10f64.powi(a.log10().floor() as i32);
                while p <= b * 1.000001 && out.len() < 40 {
                    for m in [1.0, 2.0, 5.0] {
                        let t = p * m;
                        if (m == 1.0 || few) && t >= a * 0.999999 && t <= b * 1.000001 {
                            out.push(t);
                        }
                    }
                    p *= 10.0;
                }
                out
            }
        }
    }
}

/// The 1-2-5 step at or above `raw`.
fn nice_step(raw: f64) -> f64 {
    if raw <= 0.0 || !raw.is_finite() {
        return 1.0;
    }
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * p)
}

/// A round upper bound for a count axis.
fn nice_max(max: f64) -> f64 {
    if max <= 0.0 {
        return 1.0;
    }
    let step = nice_step(max / 5.0);
    (max / step).ceil() * step
}

/// One named series of a chart: its legend label, colour class index and the report.json
/// key its values come from (`data-series`).
#[derive(Debug, Clone)]
pub struct Series {
    /// Legend label.
    pub label: String,
    /// Colour: CSS class `s{colour}`.
    pub colour: usize,
    /// The report.json key of its data.
    pub key: String,
}

/// The legend of `series`, as HTML.
pub fn legend(series: &[Series]) -> String {
    let mut s = String::from("<div class=\"legend\">");
    for x in series {
        let _ = write!(
            s,
            "<span><i class=\"s{}\"></i>{}</span>",
            x.colour % 10,
            esc(&x.label)
        );
    }
    s.push_str("</div>");
    s
}

/// A figure `id` holding `svg` with `caption` (HTML) under it.
pub fn figure(id: &str, svg: &str, caption: &str) -> String {
    format!(
        "<figure class=\"plot\" id=\"plot-{0}\" data-plot=\"{0}\">{svg}<figcaption>{caption}</figcaption></figure>",
        esc(id)
    )
}

/// Opens a chart's `<svg>` of height `h`, labelled `label` for screen readers.
fn open(label: &str, h: f64) -> String {
    format!(
        "<svg class=\"chart\" viewBox=\"0 0 {W} {h}\" role=\"img\" aria-label=\"{}\" \
         xmlns=\"http://www.w3.org/2000/svg\">",
        esc(label)
    )
}

/// One horizontal bar: a row label, its value, colour and tooltip.
#[derive(Debug, Clone)]
pub struct Bar {
    /// Row label.
    pub label: String,
    /// The value.
    pub value: u64,
    /// Colour class index.
    pub colour: usize,
    /// The report.json key of the value (`data-series`).
    pub key: String,
    /// Tooltip text.
    pub title: String,
}

/// Horizontal bars in groups, one group per row (a single run: one bar a row; two runs
/// side by side: two), scaled to the largest, the count written after each bar; a row is
/// labelled with its first bar's label.
pub fn hbars(label: &str, rows: &[Vec<Bar>]) -> String {
    const BAR: f64 = 16.0;
    const GAP: f64 = 7.0;
    const TEXT: f64 = 150.0;
    let heights: Vec<f64> = rows.iter().map(|r| BAR * r.len() as f64 + GAP).collect();
    let h = TOP + heights.iter().sum::<f64>() + 6.0;
    let max = rows
        .iter()
        .flatten()
        .map(|b| b.value)
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let span = W - TEXT - 110.0;
    let mut s = open(label, h);
    let mut y = TOP;
    for (row, height) in rows.iter().zip(&heights) {
        if let Some(first) = row.first() {
            let _ = write!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
                TEXT - 8.0,
                y + (height - GAP) / 2.0 + 4.0,
                esc(&first.label)
            );
        }
        for (j, b) in row.iter().enumerate() {
            let by = y + BAR * j as f64;
            let w = if b.value == 0 {
                0.0
            } else {
                (span * b.value as f64 / max).max(1.0)
            };
            let _ = write!(
                s,
                "<rect class=\"s{}\" x=\"{TEXT}\" y=\"{:.1}\" width=\"{w:.2}\" height=\"{:.1}\" \
                 data-series=\"{}\" data-n=\"{}\"><title>{}</title></rect>\
                 <text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
                b.colour % 10,
                by + 1.0,
                BAR - 2.0,
                esc(&b.key),
                b.value,
                esc(&b.title),
                TEXT + w + 6.0,
                by + BAR - 4.0,
                int(b.value)
            );
        }
        y += height;
    }
    let _ = write!(
        s,
        "<line class=\"axis\" x1=\"{TEXT}\" y1=\"{TOP}\" x2=\"{TEXT}\" y2=\"{:.1}\"/></svg>",
        h - 6.0
    );
    s
}

/// The frame of an x/y chart: grid, ticks, tick labels and axis titles.
fn axes(s: &mut String, x: Axis, y: Axis, x_title: &str, y_title: &str, y_pct: bool) {
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    for t in y.ticks() {
        let py = TOP + ph * (1.0 - y.frac(t));
        let text = if y_pct {
            format!("{:.0} %", t * 100.0)
        } else {
            short(t)
        };
        let _ = write!(
            s,
            "<line class=\"grid\" x1=\"{LEFT}\" y1=\"{py:.1}\" x2=\"{:.1}\" y2=\"{py:.1}\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{text}</text>",
            LEFT + pw,
            LEFT - 6.0,
            py + 4.0
        );
    }
    for t in x.ticks() {
        let px = LEFT + pw * x.frac(t);
        let _ = write!(
            s,
            "<line class=\"axis\" x1=\"{px:.1}\" y1=\"{:.1}\" x2=\"{px:.1}\" y2=\"{:.1}\"/>\
             <text x=\"{px:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            TOP + ph,
            TOP + ph + 4.0,
            TOP + ph + 17.0,
            short(t)
        );
    }
    let _ = write!(
        s,
        "<line class=\"axis\" x1=\"{LEFT}\" y1=\"{TOP}\" x2=\"{LEFT}\" y2=\"{:.1}\"/>\
         <line class=\"axis\" x1=\"{LEFT}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\"/>\
         <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>\
         <text transform=\"translate(14 {:.1}) rotate(-90)\" text-anchor=\"middle\">{}</text>",
        TOP + ph,
        TOP + ph,
        LEFT + pw,
        TOP + ph,
        LEFT + pw / 2.0,
        H - 6.0,
        esc(x_title),
        TOP + ph / 2.0,
        esc(y_title)
    );
}

/// A histogram of one or more series on a shared x axis (`log`: logarithmic, buckets at
/// 0 drawn from 0.5), bars of a bucket side by side; `unit` names the values in tooltips.
pub fn histogram(
    label: &str,
    series: &[(Series, &Histogram)],
    log: bool,
    (x_title, unit): (&str, &str),
) -> String {
    let buckets = series.iter().flat_map(|(_, h)| h.buckets.iter());
    let lo = buckets.clone().map(|b| b.lo).min().unwrap_or(0);
    let hi = buckets.clone().map(|b| b.hi).max().unwrap_or(1);
    let top = buckets.map(|b| b.n).max().unwrap_or(1) as f64;
    let (x, at) = if log {
        let at = |v: u64| (v as f64).max(0.5);
        (Axis::Log(at(lo), at(hi)), at as fn(u64) -> f64)
    } else {
        (
            Axis::Linear(lo as f64, hi as f64),
            (|v: u64| v as f64) as fn(u64) -> f64,
        )
    };
    let y = Axis::Linear(0.0, nice_max(top));
    let mut s = open(label, H);
    axes(&mut s, x, y, x_title, "positions", false);
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let k = series.len().max(1) as f64;
    for (i, (ser, h)) in series.iter().enumerate() {
        for b in &h.buckets {
            let (x0, x1) = (LEFT + pw * x.frac(at(b.lo)), LEFT + pw * x.frac(at(b.hi)));
            let slot = (x1 - x0) / k;
            let bh = (ph * y.frac(b.n as f64)).max(1.0);
            let range = if b.hi == b.lo + 1 {
                format!("{} {unit}", int(b.lo))
            } else {
                format!("{} to {} {unit}", int(b.lo), int(b.hi - 1))
            };
            let _ = write!(
                s,
                "<rect class=\"s{}\" x=\"{:.2}\" y=\"{:.2}\" width=\"{:.2}\" height=\"{bh:.2}\" \
                 data-series=\"{}\" data-lo=\"{}\" data-hi=\"{}\" data-n=\"{}\">\
                 <title>{}: {range}: {}</title></rect>",
                ser.colour % 10,
                x0 + slot * i as f64 + 0.5,
                TOP + ph - bh,
                (slot - 1.0).max(1.0),
                esc(&ser.key),
                b.lo,
                b.hi,
                b.n,
                esc(&ser.label),
                int(b.n)
            );
        }
    }
    s.push_str("</svg>");
    s
}

/// A point of a curve, with its tooltip.
#[derive(Debug, Clone)]
pub struct Point {
    /// x value.
    pub x: f64,
    /// y value.
    pub y: f64,
    /// Tooltip text.
    pub title: String,
}

/// Curves through points (`points[i]` belongs to `series[i]`), with dots carrying the
/// values, and dashed vertical marks at `marks` (x, label).
pub fn curves(
    label: &str,
    series: &[(Series, Vec<Point>)],
    (x, y): (Axis, Axis),
    (x_title, y_title, y_pct): (&str, &str, bool),
    marks: &[(f64, String)],
) -> String {
    let mut s = open(label, H);
    axes(&mut s, x, y, x_title, y_title, y_pct);
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let px = |v: f64| LEFT + pw * x.frac(v);
    let py = |v: f64| TOP + ph * (1.0 - y.frac(v));
    for (mx, text) in marks {
        let _ = write!(
            s,
            "<line class=\"mark-line\" x1=\"{0:.1}\" y1=\"{TOP}\" x2=\"{0:.1}\" y2=\"{1:.1}\"/>\
             <text x=\"{2:.1}\" y=\"{3:.1}\" text-anchor=\"end\">{4}</text>",
            px(*mx),
            TOP + ph,
            px(*mx) - 4.0,
            TOP + ph - 6.0,
            esc(text)
        );
    }
    for (ser, points) in series {
        let d: Vec<String> = points
            .iter()
            .enumerate()
            .map(|(i, p)| {
                format!(
                    "{}{:.2} {:.2}",
                    if i == 0 { "M" } else { "L" },
                    px(p.x),
                    py(p.y)
                )
            })
            .collect();
        let _ = write!(
            s,
            "<path class=\"curve s{}\" d=\"{}\"/>",
            ser.colour % 10,
            d.join(" ")
        );
        for p in points {
            let _ = write!(
                s,
                "<circle class=\"s{}\" cx=\"{:.2}\" cy=\"{:.2}\" r=\"2.6\" data-series=\"{}\" \
                 data-x=\"{}\" data-y=\"{}\"><title>{}</title></circle>",
                ser.colour % 10,
                px(p.x),
                py(p.y),
                esc(&ser.key),
                p.x,
                p.y,
                esc(&p.title)
            );
        }
    }
    s.push_str("</svg>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::histogram::Scale;

    #[test]
    fn ticks_are_round_and_inside_the_axis() {
        let t = Axis::Linear(0.0, 530.0).ticks();
        assert_eq!(t, [0.0, 100.0, 200.0, 300.0, 400.0, 500.0]);
        let t = Axis::Log(1.0, 200_000.0).ticks();
        assert_eq!(t, [1.0, 10.0, 100.0, 1e3, 1e4, 1e5]);
        let t = Axis::Log(3.0, 60.0).ticks();
        assert_eq!(t, [5.0, 10.0, 20.0, 50.0]);
        assert_eq!(nice_max(437.0), 500.0);
        assert_eq!(nice_max(0.0), 1.0);
    }

    #[test]
    fn every_bucket_is_one_mark_with_its_count() {
        let mut h = Histogram::default();
        for v in [1u64, 3, 3, 5, 9, 9, 9] {
            h.record(v, Scale::Exact);
        }
        let ser = Series {
            label: "mate".into(),
            colour: 0,
            key: "histograms.mate_plies.mate".into(),
        };
        let svg = histogram("mate lengths", &[(ser, &h)], false, ("plies", "plies"));
        assert_eq!(svg.matches("<rect").count(), h.buckets.len());
        assert!(
            svg.contains("data-lo=\"9\" data-hi=\"10\" data-n=\"3\""),
            "{svg}"
        );
        assert!(svg.contains("<title>mate: 9 plies: 3</title>"), "{svg}");
    }
}
