//! Inline SVG plots for the HTML report, written by hand: ROC curves on log-log axes, member and
//! non-member score histograms, name-like share per probe set with intervals and the threshold,
//! exposure per canary. Each plot has a `<title>` and a `viewBox`; every string is escaped.

use std::fmt::Write;

use super::escape::escape;
use super::model::{CanaryEvidence, ProbeEvidence};
use super::text::{num2, num3, percent};
use crate::audit::run::AttackResult;

/// Size of every plot (user units; the page scales it).
const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 400.0;
/// The plot area inside the picture: room for tick labels left and below, a legend above.
const LEFT: f64 = 78.0;
const RIGHT: f64 = 620.0;
const TOP: f64 = 62.0;
const BOTTOM: f64 = 336.0;

/// Colour-blind-safe colours (Okabe-Ito), one per series.
const COLOURS: [&str; 6] = [
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
];
const MEMBERS: &str = "#0072B2";
const NON_MEMBERS: &str = "#D55E00";
const THRESHOLD: &str = "#C00000";
/// Background of the canary groups the gate does not cover, and its legend swatch.
const UNGATED: &str = "#ececec";
const UNGATED_SWATCH: &str = "#9a9a9a";
const FONT: &str = "font-family=\"Helvetica, Arial, sans-serif\"";

/// A base-10 logarithmic axis from `min` to `max` (both > 0) drawn from pixel `start` to `end`.
#[derive(Clone, Copy, Debug)]
pub struct LogAxis {
    pub min: f64,
    pub max: f64,
    pub start: f64,
    pub end: f64,
}

impl LogAxis {
    /// Pixel of `v`; values at or below `min` (zero included) are clipped to `min`, above
    /// `max` to `max`.
    pub fn pos(&self, v: f64) -> f64 {
        let v = if v.is_nan() {
            self.min
        } else {
            v.clamp(self.min, self.max)
        };
        let (lo, hi) = (self.min.log10(), self.max.log10());
        self.start + (v.log10() - lo) / (hi - lo) * (self.end - self.start)
    }

    /// The powers of ten from `min` to `max`.
    pub fn decades(&self) -> Vec<f64> {
        let (lo, hi) = (
            self.min.log10().ceil() as i32,
            self.max.log10().floor() as i32,
        );
        (lo..=hi).map(|k| 10f64.powi(k)).collect()
    }
}

/// A linear axis from `min` to `max` drawn from pixel `start` to `end`.
#[derive(Clone, Copy, Debug)]
pub struct LinAxis {
    pub min: f64,
    pub max: f64,
    pub start: f64,
    pub end: f64,
}

impl LinAxis {
    pub fn pos(&self, v: f64) -> f64 {
        let span = if self.max > self.min {
            self.max - self.min
        } else {
            1.0
        };
        self.start + (v - self.min) / span * (self.end - self.start)
    }
}

/// Round tick values (1, 2 or 5 × 10^k apart) inside [lo, hi], about `target` of them.
pub fn nice_ticks(lo: f64, hi: f64, target: usize) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite()) || hi <= lo {
        return vec![lo];
    }
    let step = nice_step((hi - lo) / target.max(1) as f64);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|i| i as f64 * step).collect()
}

/// Ticks from 0 up to the first round value at or above `top` (> 0), about `target` steps,
/// and the step; `min_step` keeps counts on whole numbers.
pub fn ticks_to(top: f64, target: usize, min_step: f64) -> (Vec<f64>, f64) {
    let top = if top > 0.0 && top.is_finite() {
        top
    } else {
        1.0
    };
    let step = nice_step(top / target.max(1) as f64).max(min_step);
    let n = (top / step - 1e-9).ceil().max(1.0) as i64;
    ((0..=n).map(|i| i as f64 * step).collect(), step)
}

fn nice_step(raw: f64) -> f64 {
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let m = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    m * mag
}

/// A tick label with as many decimals as the step between ticks needs.
fn tick_label(v: f64, step: f64) -> String {
    let decimals = if step > 0.0 {
        (-step.log10().floor()).max(0.0) as usize
    } else {
        0
    };
    let v = if v.abs() < step * 1e-9 { 0.0 } else { v };
    format!("{v:.decimals$}")
}

/// `0.001`, `0.01`, `0.1`, `1`, and `1e-4` below.
fn decade_label(v: f64) -> String {
    let k = v.log10().round() as i32;
    if k >= 0 {
        format!("{}", 10f64.powi(k))
    } else if k >= -3 {
        format!("{:.*}", (-k) as usize, v)
    } else {
        format!("1e{k}")
    }
}

fn open(svg: &mut String, title: &str, desc: &str) {
    let _ = write!(
        svg,
        "<svg viewBox=\"0 0 {WIDTH} {HEIGHT}\" width=\"{WIDTH}\" height=\"{HEIGHT}\" \
         role=\"img\" {FONT} font-size=\"12\"><title>{}</title><desc>{}</desc>",
        escape(title),
        escape(desc)
    );
    let _ = write!(
        svg,
        "<rect x=\"0\" y=\"0\" width=\"{WIDTH}\" height=\"{HEIGHT}\" fill=\"#ffffff\"/>"
    );
}

fn close(svg: &mut String) {
    let _ = write!(
        svg,
        "<rect x=\"{LEFT}\" y=\"{TOP}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"none\" \
         stroke=\"#333333\"/></svg>",
        RIGHT - LEFT,
        BOTTOM - TOP
    );
}

fn text(svg: &mut String, x: f64, y: f64, anchor: &str, content: &str) {
    let _ = write!(
        svg,
        "<text x=\"{x:.1}\" y=\"{y:.1}\" text-anchor=\"{anchor}\">{}</text>",
        escape(content)
    );
}

fn line(svg: &mut String, (x1, y1): (f64, f64), (x2, y2): (f64, f64), style: &str) {
    let _ = write!(
        svg,
        "<line x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\" {style}/>"
    );
}

/// Axis titles: below the plot area and rotated left of it.
fn axis_titles(svg: &mut String, x_title: &str, y_title: &str) {
    let _ = write!(
        svg,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"13\">{}</text>",
        (LEFT + RIGHT) / 2.0,
        BOTTOM + 44.0,
        escape(x_title)
    );
    let _ = write!(
        svg,
        "<text transform=\"translate(18 {:.1}) rotate(-90)\" text-anchor=\"middle\" \
         font-size=\"13\">{}</text>",
        (TOP + BOTTOM) / 2.0,
        escape(y_title)
    );
}

/// Horizontal grid line, tick and label for a y value at pixel `y`.
fn y_tick(svg: &mut String, y: f64, label: &str) {
    line(
        svg,
        (LEFT, y),
        (RIGHT, y),
        "stroke=\"#e0e0e0\" stroke-width=\"1\"",
    );
    line(svg, (LEFT - 5.0, y), (LEFT, y), "stroke=\"#333333\"");
    text(svg, LEFT - 8.0, y + 4.0, "end", label);
}

/// Tick and label below the plot for an x value at pixel `x`; `grid` adds a vertical line.
fn x_tick(svg: &mut String, x: f64, label: &str, grid: bool) {
    if grid {
        line(
            svg,
            (x, TOP),
            (x, BOTTOM),
            "stroke=\"#e0e0e0\" stroke-width=\"1\"",
        );
    }
    line(svg, (x, BOTTOM), (x, BOTTOM + 5.0), "stroke=\"#333333\"");
    text(svg, x, BOTTOM + 19.0, "middle", label);
}

/// How a legend entry is drawn.
enum Swatch {
    Line(&'static str, Option<&'static str>),
    Bar(&'static str),
    Dot(&'static str),
}

/// Legend entries left to right above the plot area, wrapping onto a second row.
fn legend(svg: &mut String, items: &[(Swatch, String)]) {
    let (mut x, mut y) = (LEFT, 18.0);
    for (swatch, label) in items {
        let width = 28.0 + 6.6 * label.chars().count() as f64 + 18.0;
        if x + width > RIGHT && x > LEFT {
            x = LEFT;
            y += 20.0;
        }
        legend_entry(svg, x, y, swatch, label);
        x += width;
    }
}

fn legend_entry(svg: &mut String, x: f64, y: f64, swatch: &Swatch, label: &str) {
    match swatch {
        Swatch::Line(colour, dash) => {
            let dash = dash.map_or(String::new(), |d| format!(" stroke-dasharray=\"{d}\""));
            line(
                svg,
                (x, y - 4.0),
                (x + 22.0, y - 4.0),
                &format!("stroke=\"{colour}\" stroke-width=\"2\"{dash}"),
            );
        }
        Swatch::Bar(colour) => {
            let _ = write!(
                svg,
                "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"22\" height=\"10\" fill=\"{colour}\" \
                 fill-opacity=\"0.45\" stroke=\"{colour}\"/>",
                y - 9.0
            );
        }
        Swatch::Dot(colour) => {
            let _ = write!(
                svg,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"4\" fill=\"{colour}\" fill-opacity=\"0.6\"/>",
                x + 11.0,
                y - 4.0
            );
        }
    }
    text(svg, x + 28.0, y, "start", label);
}

/// The axes of the ROC plot: both rates from a decade at or below min(1e-3, 1/n) to 1.
pub fn roc_axes(attacks: &[AttackResult]) -> (LogAxis, LogAxis) {
    let smallest = attacks
        .iter()
        .flat_map(|a| [a.metrics.members, a.metrics.non_members])
        .filter(|&n| n > 0)
        .map(|n| 1.0 / n as f64)
        .fold(1e-3, f64::min)
        .max(1e-6);
    let min = 10f64.powf(smallest.log10().floor());
    (
        LogAxis {
            min,
            max: 1.0,
            start: LEFT,
            end: RIGHT,
        },
        LogAxis {
            min,
            max: 1.0,
            start: BOTTOM,
            end: TOP,
        },
    )
}

/// ROC curves of every attack on log-log axes, with the chance diagonal and a legend.
pub fn roc(attacks: &[AttackResult]) -> String {
    let mut svg = String::new();
    open(
        &mut svg,
        "ROC curves of the membership attacks (log-log)",
        "True-positive rate against false-positive rate of each attack on logarithmic axes; \
         the dashed diagonal is chance; zero rates are drawn on the axis minimum.",
    );
    let (xa, ya) = roc_axes(attacks);
    for d in xa.decades() {
        x_tick(&mut svg, xa.pos(d), &decade_label(d), true);
        y_tick(&mut svg, ya.pos(d), &decade_label(d));
    }
    // Minor ticks at 2..9 times each decade.
    for d in xa.decades() {
        for k in 2..10 {
            let v = d * k as f64;
            if v < 1.0 {
                let (x, y) = (xa.pos(v), ya.pos(v));
                line(
                    &mut svg,
                    (x, BOTTOM),
                    (x, BOTTOM + 3.0),
                    "stroke=\"#333333\"",
                );
                line(&mut svg, (LEFT - 3.0, y), (LEFT, y), "stroke=\"#333333\"");
            }
        }
    }
    line(
        &mut svg,
        (xa.pos(xa.min), ya.pos(ya.min)),
        (xa.pos(1.0), ya.pos(1.0)),
        "stroke=\"#777777\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"",
    );
    let mut items = Vec::new();
    for (i, a) in attacks.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let points: Vec<String> = a
            .metrics
            .roc
            .iter()
            .map(|p| format!("{:.1},{:.1}", xa.pos(p.fpr), ya.pos(p.tpr)))
            .collect();
        let _ = write!(
            svg,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\" \
             stroke-linejoin=\"round\"><title>{}</title></polyline>",
            points.join(" "),
            escape(&a.name)
        );
        items.push((
            Swatch::Line(colour, None),
            format!("{} (AUC {})", a.name, num3(a.metrics.auc.value)),
        ));
    }
    items.push((Swatch::Line("#777777", Some("6 4")), "chance".into()));
    legend(&mut svg, &items);
    axis_titles(
        &mut svg,
        "false-positive rate (non-members called members)",
        "true-positive rate (members found)",
    );
    close(&mut svg);
    svg
}

/// Member and non-member score histograms of one attack over its equal bins.
pub fn histogram(a: &AttackResult) -> String {
    let mut svg = String::new();
    open(
        &mut svg,
        &format!("Score histograms of {}: members and non-members", a.name),
        "Number of members and of non-members per score bin; higher scores mean member.",
    );
    let h = &a.histogram;
    let bins = h.members.len().min(h.non_members.len());
    let (mut low, mut high) = (h.low, h.high);
    if !(low.is_finite() && high.is_finite()) {
        (low, high) = (0.0, 1.0);
    }
    if high <= low {
        (low, high) = (low - 0.5, high + 0.5);
    }
    let top = h
        .members
        .iter()
        .chain(&h.non_members)
        .copied()
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let xa = LinAxis {
        min: low,
        max: high,
        start: LEFT,
        end: RIGHT,
    };
    let (y_ticks, y_step) = ticks_to(top, 4, 1.0);
    let ya = LinAxis {
        min: 0.0,
        max: *y_ticks.last().expect("at least two ticks"),
        start: BOTTOM,
        end: TOP,
    };
    for &v in &y_ticks {
        y_tick(&mut svg, ya.pos(v), &tick_label(v, y_step));
    }
    let x_ticks = nice_ticks(low, high, 8);
    let x_step = if x_ticks.len() > 1 {
        x_ticks[1] - x_ticks[0]
    } else {
        high - low
    };
    for &v in &x_ticks {
        x_tick(&mut svg, xa.pos(v), &tick_label(v, x_step), false);
    }
    if bins == 0 {
        text(
            &mut svg,
            (LEFT + RIGHT) / 2.0,
            (TOP + BOTTOM) / 2.0,
            "middle",
            "no scores",
        );
    }
    let width = (high - low) / bins.max(1) as f64;
    for (counts, colour) in [(&h.non_members, NON_MEMBERS), (&h.members, MEMBERS)] {
        for (i, &c) in counts.iter().take(bins).enumerate() {
            if c == 0 {
                continue;
            }
            let x0 = xa.pos(low + i as f64 * width);
            let x1 = xa.pos(low + (i + 1) as f64 * width);
            let y = ya.pos(c as f64);
            let _ = write!(
                svg,
                "<rect x=\"{x0:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{:.1}\" \
                 fill=\"{colour}\" fill-opacity=\"0.4\" stroke=\"{colour}\" \
                 stroke-width=\"0.8\"/>",
                (x1 - x0).max(0.5),
                BOTTOM - y
            );
        }
    }
    let total = |v: &[u64]| v.iter().sum::<u64>();
    legend(
        &mut svg,
        &[
            (
                Swatch::Bar(MEMBERS),
                format!("members ({})", total(&h.members)),
            ),
            (
                Swatch::Bar(NON_MEMBERS),
                format!("non-members ({})", total(&h.non_members)),
            ),
        ],
    );
    axis_titles(
        &mut svg,
        "attack score (higher = more member-like)",
        "examples per bin",
    );
    close(&mut svg);
    svg
}

/// Name-like share per probe set: bars, 95% intervals as error bars, the threshold dashed.
pub fn name_like(p: &ProbeEvidence, threshold: f64) -> String {
    let mut svg = String::new();
    open(
        &mut svg,
        "Name-like share of predictions per probe set",
        "Share of the model's top-k predictions at name slots that are name-like, per probe \
         set, with exact 95% intervals; the dashed line is the release threshold.",
    );
    let highest = p
        .sets
        .iter()
        .filter_map(|s| s.name_like_predictions.upper)
        .fold(threshold, f64::max);
    let highest = if highest > 0.0 { highest } else { 0.01 };
    let (ticks, step) = ticks_to(highest * 1.05, 4, 0.0);
    let ya = LinAxis {
        min: 0.0,
        max: *ticks.last().expect("at least two ticks"),
        start: BOTTOM,
        end: TOP,
    };
    for &v in &ticks {
        // Percent labels with the decimals the step needs.
        y_tick(
            &mut svg,
            ya.pos(v),
            &format!("{}%", tick_label(100.0 * v, 100.0 * step)),
        );
    }
    let n = p.sets.len().max(1);
    let slot = (RIGHT - LEFT) / n as f64;
    for (i, s) in p.sets.iter().enumerate() {
        let cx = LEFT + slot * (i as f64 + 0.5);
        x_tick(&mut svg, cx, &s.set, false);
        let share = &s.name_like_predictions;
        let Some(est) = share.estimate else {
            text(&mut svg, cx, BOTTOM - 8.0, "middle", "no predictions");
            continue;
        };
        let bar = (slot * 0.45).min(90.0);
        let y = ya.pos(est);
        let _ = write!(
            svg,
            "<rect x=\"{:.1}\" y=\"{y:.1}\" width=\"{bar:.1}\" height=\"{:.1}\" \
             fill=\"{MEMBERS}\" fill-opacity=\"0.55\" stroke=\"{MEMBERS}\"><title>{}</title></rect>",
            cx - bar / 2.0,
            (BOTTOM - y).max(0.0),
            escape(&format!("{}: {}", s.set, share.describe()))
        );
        text(
            &mut svg,
            cx + bar / 2.0 + 4.0,
            y + 4.0,
            "start",
            &percent(est),
        );
        if let (Some(lo), Some(hi)) = (share.lower, share.upper) {
            let (ylo, yhi) = (ya.pos(lo), ya.pos(hi));
            let style = "stroke=\"#222222\" stroke-width=\"1.5\"";
            line(&mut svg, (cx, ylo), (cx, yhi), style);
            line(&mut svg, (cx - 8.0, ylo), (cx + 8.0, ylo), style);
            line(&mut svg, (cx - 8.0, yhi), (cx + 8.0, yhi), style);
        }
    }
    let yt = ya.pos(threshold);
    line(
        &mut svg,
        (LEFT, yt),
        (RIGHT, yt),
        &format!("stroke=\"{THRESHOLD}\" stroke-width=\"2\" stroke-dasharray=\"8 5\""),
    );
    legend(
        &mut svg,
        &[
            (
                Swatch::Bar(MEMBERS),
                "name-like share (bar: 95% interval)".into(),
            ),
            (
                Swatch::Line(THRESHOLD, Some("8 5")),
                format!("threshold {}", percent(threshold)),
            ),
        ],
    );
    axis_titles(&mut svg, "probe set", "name-like share of predictions");
    close(&mut svg);
    svg
}

/// Exposure of each canary by repeat group, the group mean, the chance line and the threshold.
/// The threshold is drawn only over the groups the gate covers (inserted at most
/// `max_repeats` times; absent: all); the others are shaded grey and marked "not gated".
pub fn canary(c: &CanaryEvidence, threshold: f64, max_repeats: Option<u64>) -> String {
    let mut svg = String::new();
    let gated = |repeats: u64| max_repeats.is_none_or(|m| repeats <= m);
    let any_ungated = c.groups.iter().any(|g| !gated(g.repeats));
    open(
        &mut svg,
        "Canary exposure per repeat group",
        &format!(
            "Exposure in bits of each inserted canary, grouped by how often it was inserted; the \
             dashed line is the chance 95th percentile, the dotted line the threshold on the \
             mean{}.",
            match max_repeats {
                Some(m) if any_ungated => format!(
                    ", drawn over the gated groups only (inserted at most {m} time(s)); the \
                     shaded groups are reported, not gated"
                ),
                _ => String::new(),
            }
        ),
    );
    let chance = c.chance_95th_percentile_bits;
    let highest = c
        .groups
        .iter()
        .flat_map(|g| g.exposures.iter().copied())
        .filter(|v| v.is_finite())
        .fold(chance.max(threshold).max(1.0), f64::max);
    let (ticks, step) = ticks_to(highest * 1.05, 5, 0.0);
    let ya = LinAxis {
        min: 0.0,
        max: *ticks.last().expect("at least two ticks"),
        start: BOTTOM,
        end: TOP,
    };
    let n = c.groups.len().max(1);
    let slot = (RIGHT - LEFT) / n as f64;
    // The ungated groups' slots shaded first, under the grid and the points.
    for (i, g) in c.groups.iter().enumerate() {
        if !gated(g.repeats) {
            let x0 = LEFT + slot * i as f64;
            let _ = write!(
                svg,
                "<rect class=\"ungated\" x=\"{x0:.1}\" y=\"{TOP:.1}\" width=\"{slot:.1}\" \
                 height=\"{:.1}\" fill=\"{UNGATED}\"/>",
                BOTTOM - TOP
            );
            text(&mut svg, x0 + slot / 2.0, TOP + 16.0, "middle", "not gated");
        }
    }
    for &v in &ticks {
        y_tick(&mut svg, ya.pos(v), &tick_label(v, step));
    }
    for (i, g) in c.groups.iter().enumerate() {
        let cx = LEFT + slot * (i as f64 + 0.5);
        x_tick(&mut svg, cx, &format!("inserted {}×", g.repeats), false);
        let spread = (slot * 0.5).min(120.0);
        for (j, &e) in g.exposures.iter().enumerate() {
            // Deterministic horizontal jitter so equal exposures stay visible.
            let jitter = ((j as f64 * 0.618_034).fract() - 0.5) * spread;
            let _ = write!(
                svg,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3.5\" fill=\"{MEMBERS}\" \
                 fill-opacity=\"0.6\"/>",
                cx + jitter,
                ya.pos(e.max(0.0))
            );
        }
        let ym = ya.pos(g.mean_exposure);
        line(
            &mut svg,
            (cx - spread / 2.0 - 6.0, ym),
            (cx + spread / 2.0 + 6.0, ym),
            "stroke=\"#111111\" stroke-width=\"2.5\"",
        );
    }
    let yc = ya.pos(chance);
    line(
        &mut svg,
        (LEFT, yc),
        (RIGHT, yc),
        "stroke=\"#555555\" stroke-width=\"1.5\" stroke-dasharray=\"8 5\"",
    );
    let yt = ya.pos(threshold);
    let style = format!(
        "class=\"gate\" stroke=\"{THRESHOLD}\" stroke-width=\"1.5\" stroke-dasharray=\"2 3\""
    );
    if c.groups.is_empty() {
        line(&mut svg, (LEFT, yt), (RIGHT, yt), &style);
    }
    // One segment per run of adjacent gated groups.
    let mut i = 0;
    while i < c.groups.len() {
        if !gated(c.groups[i].repeats) {
            i += 1;
            continue;
        }
        let start = i;
        while i < c.groups.len() && gated(c.groups[i].repeats) {
            i += 1;
        }
        let (x0, x1) = (LEFT + slot * start as f64, LEFT + slot * i as f64);
        line(&mut svg, (x0, yt), (x1, yt), &style);
    }
    let mut items = vec![
        (Swatch::Dot(MEMBERS), "canary".into()),
        (Swatch::Line("#111111", None), "group mean".into()),
        (
            Swatch::Line("#555555", Some("8 5")),
            format!("chance 95th percentile ({} bits)", num2(chance)),
        ),
        (
            Swatch::Line(THRESHOLD, Some("2 3")),
            format!("threshold on the mean ({} bits)", num2(threshold)),
        ),
    ];
    if any_ungated {
        items.push((
            Swatch::Bar(UNGATED_SWATCH),
            "not gated (reported only)".into(),
        ));
    }
    legend(&mut svg, &items);
    axis_titles(&mut svg, "repeat group", "exposure (bits)");
    close(&mut svg);
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_axis_maps_the_ends_to_the_edges_and_clips_zero() {
        let a = LogAxis {
            min: 1e-3,
            max: 1.0,
            start: 100.0,
            end: 400.0,
        };
        assert!((a.pos(1e-3) - 100.0).abs() < 1e-9);
        assert!((a.pos(1.0) - 400.0).abs() < 1e-9);
        // One decade is a third of the width.
        assert!((a.pos(1e-2) - 200.0).abs() < 1e-9);
        assert!((a.pos(0.1) - 300.0).abs() < 1e-9);
        // Zero (and anything below the minimum) sits on the axis minimum.
        assert_eq!(a.pos(0.0), 100.0);
        assert_eq!(a.pos(1e-9), 100.0);
        assert_eq!(a.decades(), vec![1e-3, 1e-2, 1e-1, 1.0]);
        // An inverted axis (y grows downwards) works the same way.
        let y = LogAxis {
            min: 1e-3,
            max: 1.0,
            start: 336.0,
            end: 62.0,
        };
        assert!((y.pos(1e-3) - 336.0).abs() < 1e-9 && (y.pos(1.0) - 62.0).abs() < 1e-9);
    }

    /// The `x1`, `x2` of every `<line class="gate" ...>`.
    fn gate_segments(svg: &str) -> Vec<(f64, f64)> {
        let attr = |l: &str, name: &str| -> f64 {
            let i = l.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
            l[i..i + l[i..].find('"').unwrap()].parse().unwrap()
        };
        svg.split("<line ")
            .map(|l| &l[..l.find("/>").unwrap_or(l.len())])
            .filter(|l| l.starts_with("x1") && l.contains("class=\"gate\""))
            .map(|l| (attr(l, "x1"), attr(l, "x2")))
            .collect()
    }

    #[test]
    fn the_canary_gate_line_spans_only_the_gated_groups() {
        let r = crate::report::fixture::example();
        let c = r.canaries.as_ref().unwrap();
        let repeats: Vec<u64> = c.groups.iter().map(|g| g.repeats).collect();
        assert_eq!(repeats, vec![1, 4, 16]);
        let slot = (RIGHT - LEFT) / 3.0;
        // Gate on the 1× group: the line over its slot only, the others shaded and marked.
        let svg = canary(c, 4.0, Some(1));
        let segments = gate_segments(&svg);
        assert_eq!(segments.len(), 1, "{segments:?}");
        assert_eq!(segments[0].0, LEFT);
        assert!((segments[0].1 - (LEFT + slot)).abs() < 0.1, "{segments:?}");
        assert_eq!(svg.matches(">not gated</text>").count(), 2);
        assert_eq!(svg.matches("class=\"ungated\"").count(), 2);
        assert!(svg.contains("not gated (reported only)"));
        // Up to 4×: the first two groups.
        let svg = canary(c, 4.0, Some(4));
        let (x0, x1) = gate_segments(&svg)[0];
        assert_eq!(x0, LEFT);
        assert!((x1 - (LEFT + 2.0 * slot)).abs() < 0.1, "{x1}");
        assert_eq!(svg.matches(">not gated</text>").count(), 1);
        // Every group gated: across the plot, nothing marked.
        let svg = canary(c, 4.0, None);
        assert_eq!(gate_segments(&svg), vec![(LEFT, RIGHT)]);
        assert!(!svg.contains("not gated"));
    }

    #[test]
    fn ticks_are_round_and_labels_readable() {
        assert_eq!(
            nice_ticks(0.0, 10.0, 5),
            vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
        );
        assert_eq!(nice_ticks(0.0, 0.0, 5), vec![0.0]);
        // Up to the first round value at or above the top: 58 counts -> 0, 20, 40, 60.
        assert_eq!(ticks_to(58.0, 4, 1.0), (vec![0.0, 20.0, 40.0, 60.0], 20.0));
        assert_eq!(ticks_to(2.0, 4, 1.0).0, vec![0.0, 1.0, 2.0]);
        assert_eq!(decade_label(1e-3), "0.001");
        assert_eq!(decade_label(1.0), "1");
        assert_eq!(decade_label(1e-5), "1e-5");
        assert_eq!(tick_label(0.30000000000000004, 0.1), "0.3");
    }
}
