//! The risk analysis as a self-contained SVG heat-map table, written by hand: rows are gold
//! labels, columns the label each removed entity was replaced as, then partial and missed;
//! a cell's shade is its share of the row. No script; every string is escaped.

use super::risk::{RiskPass, RiskReport, RiskRow};
use crate::report::escape::escape;
use std::fmt::Write;

const FONT: &str = "font-family=\"Helvetica, Arial, sans-serif\"";
/// Approximate width of one character at font size 12 (user units; labels are capitals).
const CHAR_W: f64 = 8.0;
const CELL_W: f64 = 58.0;
const CELL_H: f64 = 24.0;
const MARGIN: f64 = 16.0;
/// Title, subtitle and the space above the column headers.
const TITLE_H: f64 = 62.0;
/// Okabe-Ito colours: removed (blue), partial (orange), missed (vermillion).
const REMOVED: &str = "#0072B2";
const PARTIAL: &str = "#E69F00";
const MISSED: &str = "#D55E00";

fn text(svg: &mut String, x: f64, y: f64, anchor: &str, extra: &str, content: &str) {
    let _ = write!(
        svg,
        "<text x=\"{x:.1}\" y=\"{y:.1}\" text-anchor=\"{anchor}\"{extra}>{}</text>",
        escape(content)
    );
}

/// What a column counts for a row.
enum Column<'a> {
    RemovedAs(&'a str),
    Partial,
    Missed,
}

impl Column<'_> {
    fn header(&self) -> &str {
        match self {
            Column::RemovedAs(l) => l,
            Column::Partial => "partial",
            Column::Missed => "missed",
        }
    }

    fn count(&self, r: &RiskRow) -> usize {
        match self {
            Column::RemovedAs(l) => r.removed_as.get(*l).copied().unwrap_or(0),
            Column::Partial => r.partial,
            Column::Missed => r.missed,
        }
    }

    fn colour(&self) -> &'static str {
        match self {
            Column::RemovedAs(_) => REMOVED,
            Column::Partial => PARTIAL,
            Column::Missed => MISSED,
        }
    }

    fn describe(&self) -> String {
        match self {
            Column::RemovedAs(l) => format!("removed as {l}"),
            Column::Partial => "partly left".into(),
            Column::Missed => "wholly left".into(),
        }
    }
}

/// The heat-map table of the report's last pass, with every pass's total left in the
/// subtitle. An empty report gives a picture that says so.
pub fn risk_svg(report: &RiskReport) -> String {
    let empty = RiskPass::default();
    let last = report.passes.last().unwrap_or(&empty);
    let removed_as = last.removed_as_columns();
    let mut cols: Vec<Column> = removed_as.iter().map(|l| Column::RemovedAs(l)).collect();
    cols.push(Column::Partial);
    cols.push(Column::Missed);
    let rows: Vec<&RiskRow> = std::iter::once(&last.overall)
        .chain(&last.per_label)
        .collect();
    let longest = |it: &mut dyn Iterator<Item = usize>| it.max().unwrap_or(0) as f64;
    let left =
        MARGIN + CHAR_W * longest(&mut rows.iter().map(|r| r.label.chars().count())).max(8.0);
    let header_h = 14.0 + CHAR_W * longest(&mut cols.iter().map(|c| c.header().chars().count()));
    let top = TITLE_H + header_h;
    // The entities column, then one per column.
    let width = left + CELL_W * (cols.len() + 1) as f64 + MARGIN;
    let title = format!(
        "Gold entities after de-identification pass {}, by gold label",
        last.pass
    );
    let subtitle: Vec<String> = report
        .passes
        .iter()
        .map(|p| {
            format!(
                "left after pass {}: {} of {} ({:.2}%)",
                p.pass,
                p.overall.left,
                p.overall.entities,
                100.0 * p.overall.left_share
            )
        })
        .collect();
    let subtitle = if subtitle.is_empty() {
        "no passes".to_string()
    } else {
        subtitle.join("; ")
    };
    let legend_y = top + CELL_H * rows.len() as f64 + 22.0;
    let height = legend_y + 16.0;
    let mut svg = String::new();
    let _ = write!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width:.0} {height:.0}\" \
         width=\"{width:.0}\" height=\"{height:.0}\" role=\"img\" {FONT} font-size=\"12\">\
         <title>{}</title><desc>{}</desc>",
        escape(&title),
        escape(&format!(
            "Rows: gold labels ({} documents, policy {}). Columns: the number of entities of \
             the row removed as each label, partly left, and wholly left; the shade is the share \
             of the row's entities. {subtitle}.",
            report.documents, report.policy
        ))
    );
    let _ = write!(
        svg,
        "<rect x=\"0\" y=\"0\" width=\"{width:.0}\" height=\"{height:.0}\" fill=\"#ffffff\"/>"
    );
    text(&mut svg, MARGIN, 24.0, "start", " font-size=\"15\"", &title);
    text(&mut svg, MARGIN, 44.0, "start", "", &subtitle);
    // Column headers, rotated to read upwards.
    let header = |svg: &mut String, i: usize, label: &str| {
        let x = left + CELL_W * (i as f64 + 0.5) + 4.0;
        let y = top - 8.0;
        let _ = write!(
            svg,
            "<text transform=\"translate({x:.1} {y:.1}) rotate(-90)\" text-anchor=\"start\">{}</text>",
            escape(label)
        );
    };
    header(&mut svg, 0, "entities");
    for (i, c) in cols.iter().enumerate() {
        header(&mut svg, i + 1, c.header());
    }
    for (j, r) in rows.iter().enumerate() {
        let y = top + CELL_H * j as f64;
        let bold = if j == 0 { " font-weight=\"bold\"" } else { "" };
        text(&mut svg, left - 8.0, y + 16.0, "end", bold, &r.label);
        text(
            &mut svg,
            left + CELL_W / 2.0,
            y + 16.0,
            "middle",
            bold,
            &r.entities.to_string(),
        );
        for (i, c) in cols.iter().enumerate() {
            let x = left + CELL_W * (i + 1) as f64;
            let n = c.count(r);
            let share = if r.entities == 0 {
                0.0
            } else {
                n as f64 / r.entities as f64
            };
            let opacity = if n == 0 { 0.0 } else { 0.08 + 0.92 * share };
            let diagonal = matches!(c, Column::RemovedAs(l) if *l == r.label);
            let stroke = if diagonal {
                "stroke=\"#222222\" stroke-width=\"1.5\""
            } else {
                "stroke=\"#dddddd\" stroke-width=\"1\""
            };
            let tip = format!(
                "{}: {} {n} of {} ({:.2}%)",
                r.label,
                c.describe(),
                r.entities,
                100.0 * share
            );
            // Empty cells get no tooltip: it keeps a large table small.
            let tip = if n == 0 {
                String::new()
            } else {
                format!("<title>{}</title>", escape(&tip))
            };
            let _ = write!(
                svg,
                "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{CELL_W:.1}\" height=\"{CELL_H:.1}\" \
                 fill=\"{}\" fill-opacity=\"{opacity:.3}\" {stroke}>{tip}</rect>",
                c.colour()
            );
            let colour = if n == 0 {
                " fill=\"#bbbbbb\""
            } else if opacity > 0.55 {
                " fill=\"#ffffff\""
            } else {
                ""
            };
            let style = format!("{colour}{bold}");
            text(
                &mut svg,
                x + CELL_W / 2.0,
                y + 16.0,
                "middle",
                &style,
                &n.to_string(),
            );
        }
    }
    // Legend.
    let mut x = MARGIN;
    for (colour, label) in [
        (REMOVED, "removed as the column's label"),
        (PARTIAL, "partly left"),
        (MISSED, "wholly left"),
    ] {
        let _ = write!(
            svg,
            "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"14\" height=\"10\" fill=\"{colour}\" \
             fill-opacity=\"0.7\"/>",
            legend_y - 9.0
        );
        text(&mut svg, x + 20.0, legend_y, "start", "", label);
        x += 20.0 + CHAR_W * label.len() as f64 + 18.0;
    }
    text(
        &mut svg,
        x,
        legend_y,
        "start",
        " fill=\"#555555\"",
        "shade: share of the row; framed: removed as its own label",
    );
    svg.push_str("</svg>\n");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::risk::RiskRow;

    fn report() -> RiskReport {
        let row = |label: &str, entities, removed_as: &[(&str, usize)], partial, missed| {
            let removed: usize = removed_as.iter().map(|(_, n)| n).sum();
            RiskRow {
                label: label.into(),
                entities,
                removed,
                removed_other_category: 0,
                partial,
                missed,
                left: partial + missed,
                left_share: (partial + missed) as f64 / entities as f64,
                removed_as: removed_as
                    .iter()
                    .map(|(k, n)| (k.to_string(), *n))
                    .collect(),
            }
        };
        let pass = |pass, missed| RiskPass {
            pass,
            replacements: 5,
            documents_changed: 1,
            overall: row("ALL", 10, &[("NAME/PATIENT", 6), ("<CITY&>", 2)], 1, missed),
            per_label: vec![
                row("NAME/PATIENT", 7, &[("NAME/PATIENT", 6)], 0, 1),
                row("<CITY&>", 3, &[("<CITY&>", 2)], 1, 0),
            ],
        };
        RiskReport {
            documents: 2,
            excluded: vec![],
            policy: "default".into(),
            passes: vec![pass(1, 2), pass(2, 1)],
        }
    }

    #[test]
    fn is_self_contained_escaped_and_counts_every_cell() {
        let svg = risk_svg(&report());
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(svg.trim_end().ends_with("</svg>"));
        assert!(!svg.contains("<script") && !svg.contains("<CITY&>"));
        assert!(svg.contains("&lt;CITY&amp;&gt;"));
        assert!(svg.contains("left after pass 1: 3 of 10 (30.00%); left after pass 2: 2 of 10"));
        // 3 rows x (2 removed-as columns + partial + missed) cells, each with a tooltip.
        assert_eq!(svg.matches("<rect x=").count(), 1 + 12 + 3);
        // Tooltips on the 8 non-empty cells.
        assert_eq!(svg.matches("<title>").count(), 1 + 8);
        assert!(
            svg.contains("<title>NAME/PATIENT: removed as NAME/PATIENT 6 of 7 (85.71%)</title>")
        );
        // Two diagonal cells are framed.
        assert_eq!(svg.matches("stroke=\"#222222\"").count(), 2);
        let opens = svg.matches("<text").count();
        assert_eq!(opens, svg.matches("</text>").count());
    }

    #[test]
    fn an_empty_report_still_renders() {
        let svg = risk_svg(&RiskReport::default());
        assert!(svg.contains("no passes") && svg.ends_with("</svg>\n"));
    }
}
