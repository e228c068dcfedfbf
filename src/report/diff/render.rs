//! The plain-text rendering of a [`ReportDiff`]: value and delta columns, wrapped notes.

use super::*;

pub(super) fn value(kind: Kind, v: Option<f64>) -> String {
    let Some(v) = v else {
        return "-".into();
    };
    match kind {
        Kind::Count => format!("{v:.0}"),
        Kind::Rate | Kind::Loss => format!("{v:.3}"),
        Kind::Share => format!("{:.2}%", 100.0 * v),
        Kind::Plain => format!("{v:.2}"),
    }
}

/// A value and, when it has one, its interval in brackets, each written by `write`.
fn bracketed(v: Option<f64>, i: Option<[f64; 2]>, write: impl Fn(Option<f64>) -> String) -> String {
    match (v, i) {
        (Some(_), Some([lo, hi])) => {
            format!("{} [{}, {}]", write(v), write(Some(lo)), write(Some(hi)))
        }
        _ => write(v),
    }
}

pub(super) fn with_interval(kind: Kind, v: Option<f64>, i: Option<[f64; 2]>) -> String {
    bracketed(v, i, |x| value(kind, x))
}

/// The signed change, with its 95% interval when it has one: `+0.020 [-0.037, +0.077]`.
pub(super) fn delta(kind: Kind, d: Option<f64>, interval: Option<[f64; 2]>) -> String {
    bracketed(d, interval, |x| signed(kind, x))
}

fn signed(kind: Kind, d: Option<f64>) -> String {
    let Some(d) = d else {
        return "-".into();
    };
    match kind {
        Kind::Count => format!("{d:+.0}"),
        Kind::Rate | Kind::Loss => format!("{d:+.3}"),
        Kind::Share => format!("{:+.2} pp", 100.0 * d),
        Kind::Plain => format!("{d:+.2}"),
    }
}

/// Rows as aligned columns.
pub(super) fn columns(out: &mut String, head: &[&str], rows: &[Vec<String>]) {
    let n = head.len();
    let mut widths: Vec<usize> = head.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (c, w))| {
                if i + 1 == n {
                    c.to_string()
                } else {
                    format!("{c:<w$}")
                }
            })
            .collect();
        format!("  {}", padded.join("  ").trim_end())
    };
    let _ = writeln!(out, "{}", line(head.to_vec()));
    for r in rows {
        let _ = writeln!(out, "{}", line(r.iter().map(String::as_str).collect()));
    }
}

/// Words on lines of at most `width` characters (a longer word gets its own line).
pub(super) fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// A short hash for the text table.
pub(super) fn short(h: &Option<String>) -> String {
    match h {
        Some(h) if h.len() > 16 => format!("{}…", &h[..12]),
        Some(h) => h.clone(),
        None => "-".into(),
    }
}

/// The diff as a text table.
pub fn to_text(d: &ReportDiff) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "report diff ({})", d.schema);
    for (label, s) in [("old", &d.old), ("new", &d.new)] {
        let _ = writeln!(
            out,
            "  {label}: {}  \"{}\"  {}  decision {}",
            s.file, s.title, s.tool, s.outcome
        );
    }
    let _ = writeln!(out, "{} change(s).", d.changes);
    let judged = |c: Change| d.metrics.iter().filter(|m| m.change == c).count();
    let (outside, inside) = (judged(Change::Outside), judged(Change::Inside));
    if outside + inside > 0 {
        let _ = writeln!(
            out,
            "{outside} of {} changed metrics with intervals are outside; were nothing different \
             but the samples, about one in twenty would be.",
            outside + inside
        );
    }
    for l in wrap(&format!("Rule: {}", d.rule), 96) {
        let _ = writeln!(out, "  {l}");
    }
    out.push_str("\nOutcomes\n");
    let rows: Vec<Vec<String>> = d
        .outcomes
        .iter()
        .map(|t| {
            vec![
                t.item.clone(),
                t.old.clone().unwrap_or_else(|| "-".into()),
                t.new.clone().unwrap_or_else(|| "-".into()),
                t.change.word().into(),
            ]
        })
        .collect();
    columns(&mut out, &["item", "old", "new", "change"], &rows);
    out.push_str("\nIdentity\n");
    let rows: Vec<Vec<String>> = d
        .identity
        .iter()
        .map(|t| {
            vec![
                t.item.clone(),
                short(&t.old),
                short(&t.new),
                t.change.word().into(),
            ]
        })
        .collect();
    columns(&mut out, &["item", "old", "new", "change"], &rows);
    out.push_str("\nMetrics (95% intervals in brackets)\n");
    let rows: Vec<Vec<String>> = d
        .metrics
        .iter()
        .map(|m| {
            vec![
                m.item.clone(),
                m.metric.clone(),
                with_interval(m.kind, m.old, m.old_interval),
                with_interval(m.kind, m.new, m.new_interval),
                delta(m.kind, m.delta, m.delta_interval),
                m.change.word().into(),
            ]
        })
        .collect();
    columns(
        &mut out,
        &["item", "metric", "old", "new", "delta", "change"],
        &rows,
    );
    out
}
