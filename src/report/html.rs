//! The HTML rendering of a report: one self-contained, printable page (inline CSS and SVG, no
//! scripts, no external resources) with the sections of [`super::doc`] and the plots of
//! [`super::svg`], ending with the sign-off block.

use std::fmt::Write;

use super::doc::{sections, subtitle, Block, Figure, Section, Table};
use super::escape::escape;
use super::model::Report;
use super::svg;
use super::text::outcome_word;
use crate::audit::run::Outcome;

const STYLE: &str = "
body { font-family: Helvetica, Arial, sans-serif; font-size: 14px; line-height: 1.45;
  color: #111; max-width: 980px; margin: 24px auto; padding: 0 16px; }
h1 { font-size: 26px; margin-bottom: 4px; }
h2 { font-size: 20px; border-bottom: 2px solid #333; padding-bottom: 3px; margin-top: 32px; }
h3 { font-size: 16px; margin-top: 24px; }
.subtitle { color: #444; margin-top: 0; }
table { border-collapse: collapse; margin: 8px 0 14px; width: 100%; }
th, td { border: 1px solid #999; padding: 4px 7px; text-align: left; vertical-align: top; }
th { background: #eeeeee; }
table.kv td:first-child { width: 38%; }
table.hashes td:last-child { font-family: Menlo, Consolas, monospace; font-size: 12px;
  word-break: break-all; }
table.signoff td { height: 46px; }
table.signoff td:first-child { width: 22%; }
pre { background: #f5f5f5; border: 1px solid #ccc; padding: 8px; white-space: pre-wrap;
  overflow-wrap: anywhere; font-size: 12px; }
.outcome-PASS { border-left: 6px solid #1a7f37; padding-left: 10px; }
.outcome-FAIL { border-left: 6px solid #c00000; padding-left: 10px; }
.outcome-INVALID { border-left: 6px solid #b07d00; padding-left: 10px; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 3px; color: #fff;
  font-weight: bold; }
.badge-PASS { background: #1a7f37; } .badge-FAIL { background: #c00000; }
.badge-INVALID { background: #b07d00; }
p.strong { font-weight: bold; font-size: 15px; }
figure { margin: 10px 0 18px; page-break-inside: avoid; break-inside: avoid; }
figure svg { max-width: 100%; height: auto; border: 1px solid #ddd; }
figcaption { font-size: 12px; color: #444; }
section.signoff { page-break-before: always; break-before: page; }
@media print {
  body { margin: 0; max-width: none; font-size: 12px; }
  h2, h3 { page-break-after: avoid; break-after: avoid; }
  table, tr { page-break-inside: avoid; break-inside: avoid; }
  .badge, th { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
}
";

/// The whole report as one self-contained HTML page.
pub fn to_html(r: &Report) -> String {
    let mut out = String::new();
    let title = escape(&r.title);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
    );
    let _ = writeln!(out, "<h1>{title}</h1>");
    let _ = writeln!(out, "<p class=\"subtitle\">{}</p>", escape(&subtitle(r)));
    for s in sections(r) {
        section(&mut out, &s, r);
    }
    out.push_str("</body>\n</html>\n");
    out
}

fn section(out: &mut String, s: &Section, r: &Report) {
    let mut classes = Vec::new();
    if let Some(o) = s.outcome {
        classes.push(format!("outcome-{}", outcome_word(o)));
    }
    if s.title == "Sign-off" {
        classes.push("signoff".into());
    }
    let _ = writeln!(out, "<section class=\"{}\">", classes.join(" "));
    let mut title = s.title.as_str();
    let badge = s.outcome.map_or(String::new(), |o: Outcome| {
        let w = outcome_word(o);
        // "Decision: FAIL" reads "Decision" and the badge.
        if let Some(t) = title.strip_suffix(&format!(": {w}")) {
            title = t;
        }
        format!(" <span class=\"badge badge-{w}\">{w}</span>")
    });
    let _ = writeln!(out, "<h{l}>{}{badge}</h{l}>", escape(title), l = s.level);
    for b in &s.blocks {
        block(out, b, r);
    }
    out.push_str("</section>\n");
}

fn block(out: &mut String, b: &Block, r: &Report) {
    match b {
        Block::Para(t) => {
            let _ = writeln!(out, "<p>{}</p>", escape(t));
        }
        Block::Strong(t) => {
            let _ = writeln!(out, "<p class=\"strong\">{}</p>", escape(t));
        }
        Block::Bullets(items) => {
            out.push_str("<ul>\n");
            for i in items {
                let _ = writeln!(out, "<li>{}</li>", escape(i));
            }
            out.push_str("</ul>\n");
        }
        Block::Table(t) => table(out, t),
        Block::Code(t) => {
            let _ = writeln!(out, "<pre>{}</pre>", escape(t));
        }
        Block::Figure(f) => figure(out, *f, r),
    }
}

fn table(out: &mut String, t: &Table) {
    match t.class {
        Some(c) => {
            let _ = writeln!(out, "<table class=\"{c}\">");
        }
        None => out.push_str("<table>\n"),
    }
    out.push_str("<thead><tr>");
    for h in &t.head {
        let _ = write!(out, "<th>{}</th>", escape(h));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for row in &t.rows {
        out.push_str("<tr>");
        for c in row {
            let _ = write!(out, "<td>{}</td>", escape(c));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
}

/// The SVG of a figure slot, when the report has what it plots.
pub fn figure_svg(f: Figure, r: &Report) -> Option<(String, String)> {
    match f {
        Figure::Roc => (!r.attacks.is_empty()).then(|| {
            (
                svg::roc(&r.attacks),
                "ROC curves on log-log axes: the further above the dashed diagonal, the \
                 stronger the attack. Zero rates are drawn on the axis minimum."
                    .to_string(),
            )
        }),
        Figure::Histogram(i) => r.attacks.get(i).map(|a| {
            (
                svg::histogram(a),
                format!(
                    "Scores of {} on members and non-members: overlapping distributions mean \
                     the attack cannot tell them apart.",
                    a.name
                ),
            )
        }),
        Figure::NameLike => r.probe.as_ref().map(|p| {
            (
                svg::name_like(p, r.thresholds.max_name_like_share),
                "Name-like share of predictions per probe set with exact 95% intervals; the \
                 dashed line is the threshold."
                    .to_string(),
            )
        }),
        Figure::Canary => r.canaries.as_ref().map(|c| {
            (
                svg::canary(
                    c,
                    r.thresholds.max_mean_canary_exposure,
                    r.thresholds.canary_gate_max_repeats,
                ),
                format!(
                    "Exposure of each canary by repeat group; a model that memorized nothing \
                     stays below the dashed chance line for 95% of canaries.{}",
                    match r.thresholds.canary_gate_max_repeats {
                        Some(m) => format!(
                            " The dotted threshold covers the groups inserted at most {m} \
                             time(s); the shaded groups are reported, not gated."
                        ),
                        None => String::new(),
                    }
                ),
            )
        }),
    }
}

fn figure(out: &mut String, f: Figure, r: &Report) {
    if let Some((svg, caption)) = figure_svg(f, r) {
        let _ = writeln!(
            out,
            "<figure>\n{svg}\n<figcaption>{}</figcaption>\n</figure>",
            escape(&caption)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture::example;

    #[test]
    fn html_is_self_contained_with_one_svg_per_plot() {
        let r = example();
        let html = to_html(&r);
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(!html.to_lowercase().contains("<script"));
        assert!(!html.contains("http://") && !html.contains("https://"));
        assert!(!html.contains("<link") && !html.contains("<img") && !html.contains("url("));
        // ROC + one histogram per attack + name-like + canary.
        let expected = 1 + r.attacks.len() + 1 + 1;
        assert_eq!(html.matches("<svg").count(), expected);
        // Each plot opens with its viewBox and a <title>.
        for part in html.split("<svg").skip(1) {
            let open_end = part.find('>').expect("end of the svg tag");
            assert!(
                part[..open_end].contains("viewBox=\"0 0 "),
                "{}",
                &part[..open_end]
            );
            assert!(part[open_end + 1..].starts_with("<title>"));
        }
        for a in &r.attacks {
            assert!(html.contains(&format!("Attack: {}", a.name)));
        }
        assert!(html.contains("<h2>Decision <span class=\"badge badge-FAIL\">FAIL</span></h2>"));
        // The sign-off block is the last section.
        let signoff = html.find("<h2>Sign-off</h2>").expect("sign-off");
        assert!(html[signoff..].matches("<section").count() == 0);
        assert!(html[signoff..].contains("Data protection officer"));
    }

    #[test]
    fn absent_evidence_has_no_plot_and_says_not_measured() {
        let mut r = example();
        r.canaries = None;
        r.probe = None;
        let html = to_html(&r);
        assert_eq!(html.matches("<svg").count(), 1 + r.attacks.len());
        assert!(html.contains("Canary exposure: not measured."));
        assert!(html.contains("Name probes: not measured."));
    }

    #[test]
    fn every_string_is_escaped() {
        let mut r = example();
        let evil = "<script>alert('x')</script> & \"quoted\"";
        r.title = evil.into();
        r.attacks[0].name = evil.into();
        r.decision.reasons.push(evil.into());
        if let Some(p) = r.probe.as_mut() {
            p.sets[0].set = evil.into();
        }
        r.reproducibility.command = evil.into();
        let html = to_html(&r);
        assert!(!html.contains("<script"), "raw script tag in the page");
        assert!(!html.contains("'x'") && !html.contains("\"quoted\""));
        assert!(html
            .contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;quoted&quot;"));
    }
}
