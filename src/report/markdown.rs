//! The Markdown rendering of a report: the sections of [`super::doc`] as headings, lists and
//! pipe tables, plots named with a pointer to the HTML page; for reading and signing.

use std::fmt::Write;

use super::doc::{sections, subtitle, Block, Figure, Table};
use super::model::Report;

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
            let _ = writeln!(out, "*Plot: {} (see report.html).*\n", inline(&what));
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
