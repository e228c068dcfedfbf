//! The Markdown rendering of a report: the sections of [`super::doc`] as headings, lists and
//! pipe tables, plots as image links to the SVG files written beside it; for reading and signing.

use std::fmt::Write;

use super::doc::{sections, subtitle, Block, Figure, Table};
use super::html::figure_svg;
use super::model::Report;
use super::write::figure_file;

/// The whole report as Markdown.
pub fn to_markdown(r: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {}\n", inline(&r.title));
    let _ = writeln!(out, "{}\n", inline(&subtitle(r)));
    for s in sections(r) {
        let hashes = "#".repeat(usize::from(s.level));
        let _ = writeln!(out, "{hashes} {}\n", inline(&s.title));
        for b in &s.blocks {
            block(&mut out, b, r);
        }
    }
    out
}

fn block(out: &mut String, b: &Block, r: &Report) {
    match b {
        Block::Para(t) => {
            let _ = writeln!(out, "{}\n", inline(t));
        }
        Block::Strong(t) => {
            let _ = writeln!(out, "**{}**\n", inline(t));
        }
        Block::Bullets(items) => {
            for i in items {
                let _ = writeln!(out, "- {}", inline(i));
            }
            out.push('\n');
        }
        Block::Table(t) => table(out, t),
        Block::Code(t) => {
            // A fence longer than any backtick run inside.
            let longest = t.split(|c| c != '`').map(str::len).max().unwrap_or(0);
            let fence = "`".repeat(longest.max(2) + 1);
            let _ = writeln!(out, "{fence}\n{t}\n{fence}\n");
        }
        Block::Figure(f) => {
            let what = match f {
                Figure::Roc => "ROC curves of the attacks (log-log)".to_string(),
                Figure::Histogram(i) => format!(
                    "score histograms of {}",
                    r.attacks.get(*i).map_or("?", |a| a.name.as_str())
                ),
                Figure::NameLike => "name-like share per probe set".into(),
                Figure::Canary => "exposure per canary".into(),
            };
            match figure_svg(*f, r) {
                // The SVG file is written beside report.md (and drawn inline in report.html).
                Some((_, caption)) => {
                    let _ = writeln!(
                        out,
                        "![Plot: {}]({})\n\n*{}*\n",
                        alt(&what),
                        figure_file(*f),
                        inline(&caption)
                    );
                }
                None => {
                    let _ = writeln!(out, "*Plot: {}: nothing to plot.*\n", inline(&what));
                }
            }
        }
    }
}

fn table(out: &mut String, t: &Table) {
    let line = |cells: Vec<String>| format!("| {} |", cells.join(" | "));
    let _ = writeln!(out, "{}", line(t.head.iter().map(|c| cell(c)).collect()));
    let _ = writeln!(
        out,
        "{}",
        line(t.head.iter().map(|_| "---".into()).collect())
    );
    // Room to write by hand in the sign-off table.
    let blank = "\\_".repeat(12);
    for r in &t.rows {
        let cells = r
            .iter()
            .map(|c| {
                if c.is_empty() && t.class == Some("signoff") {
                    blank.clone()
                } else {
                    cell(c)
                }
            })
            .collect();
        let _ = writeln!(out, "{}", line(cells));
    }
    out.push('\n');
}

/// Text on one line; a `<` is backslash-escaped so a Markdown viewer shows it instead of
/// reading a tag (`>` and `&` read as themselves in running text).
fn inline(s: &str) -> String {
    s.replace(['\r', '\n'], " ").replace('<', "\\<")
}

/// An image's alternative text: inline text with brackets escaped.
fn alt(s: &str) -> String {
    inline(s).replace('[', "\\[").replace(']', "\\]")
}

/// A table cell: inline text with pipes escaped.
fn cell(s: &str) -> String {
    inline(s).replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture::example;

    #[test]
    fn markdown_has_the_decision_first_and_every_attack() {
        let r = example();
        let md = to_markdown(&r);
        let decision = md.find("## Decision: FAIL").expect("decision heading");
        let identity = md.find("## Identity").expect("identity heading");
        assert!(decision < identity);
        for a in &r.attacks {
            assert!(
                md.contains(&format!("### Attack: {}", a.name)),
                "{}",
                a.name
            );
        }
        for reason in &r.decision.reasons {
            assert!(md.contains(reason.as_str()), "{reason}");
        }
        assert!(md.contains("not resolvable with 400 non-members"));
        assert!(md.contains("## Sign-off"));
        assert!(md.contains("| Data protection officer |"));
        // The residual share beside the decision, per category with its threshold.
        assert!(md.contains("| residual PII (1.08% of gold entities left) | FAIL | 1 |"));
        assert!(md.contains("| NAME | 500 | 1 | 0.20% | 0.00% |"), "{md}");
        assert!(md.contains("| LOCATION | 150 | 6 | 4.00% | - |"));
        assert!(md.contains("| all | 1200 | 13 | 1.08% | 5.00% |"));
    }

    #[test]
    fn plots_are_image_links_to_the_svg_files_beside_the_report() {
        let r = example();
        let md = to_markdown(&r);
        for (what, file) in [
            ("ROC curves of the attacks (log-log)", "roc.svg"),
            ("score histograms of blind_baseline", "histogram-1.svg"),
            ("score histograms of masked_token_loss", "histogram-2.svg"),
            ("name-like share per probe set", "name-like.svg"),
            ("exposure per canary", "canary.svg"),
        ] {
            assert!(md.contains(&format!("![Plot: {what}]({file})")), "{file}");
        }
        assert!(!md.contains("see report.html"));
        // A name with brackets cannot break the link.
        let mut r = example();
        r.attacks[1].name = "a](x.svg) [b".into();
        let md = to_markdown(&r);
        assert!(md.contains("![Plot: score histograms of a\\](x.svg) \\[b](histogram-2.svg)"));
    }

    #[test]
    fn absent_sections_say_not_measured() {
        let mut r = example();
        r.canaries = None;
        r.utility = None;
        r.deid = None;
        let md = to_markdown(&r);
        assert!(md.contains("Canary exposure: not measured."));
        assert!(md.contains("Utility: not measured."));
        assert!(md.contains("De-identification: not measured."));
    }

    #[test]
    fn markdown_neutralizes_html_and_pipes() {
        let mut r = example();
        r.title = "<script>x</script> | a".into();
        r.attacks[0].name = "a|b".into();
        let md = to_markdown(&r);
        assert!(md.contains("\\<script>"));
        assert!(!md.replace("\\<", "").contains('<'), "an unescaped tag");
        assert!(md.contains("a\\|b"));
    }
}
