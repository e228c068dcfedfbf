//! The review file of name-like tokens (`vocab harvest` writes it, a person edits the decisions,
//! `vocab rewrite` reads it): TSV with the header `token\tid\tscore\tevidence\tdecision`, `#`
//! comment lines (a line starting with `#` that has five tab-separated fields and a numeric id
//! is a row: WordPiece pieces such as `##sen` start with `#`), tokens and evidence escaped
//! (`\t`, `\n`, `\r`, `\\`).

use crate::error::ValueError;

use super::AnonymizeError;
use std::fmt;
use std::path::Path;
use std::str::FromStr;

/// The header line every review file starts with (after comments).
pub const HEADER: &str = "token\tid\tscore\tevidence\tdecision";

/// What to do with a reviewed token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Decision {
    /// Rename the token (`vocab rewrite`).
    Remove,
    /// Leave it.
    Keep,
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Decision::Remove => "remove",
            Decision::Keep => "keep",
        })
    }
}

impl FromStr for Decision {
    type Err = crate::error::ValueError;
    fn from_str(s: &str) -> Result<Self, ValueError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "remove" => Ok(Decision::Remove),
            "keep" => Ok(Decision::Keep),
            _ => Err("decision must be 'remove' or 'keep'".into()),
        }
    }
}

/// One reviewed token.
#[derive(Clone, Debug, PartialEq)]
pub struct ReviewRow {
    /// The vocabulary string, boundary marker included (`##sen`, `ĠJansen`, `▁Jansen`).
    pub token: String,
    /// Its id in the model's vocabulary.
    pub id: u32,
    /// How name-like the harvest found it (higher: more).
    pub score: f64,
    /// Why, in words (free text; escaped like the token).
    pub evidence: String,
    pub decision: Decision,
}

/// Escapes `\`, tab, newline and carriage return so a field stays on its line and column.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out
}

/// Inverse of [`escape`]; any other backslash sequence is an error.
pub fn unescape(s: &str) -> Result<String, ValueError> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('\\') => out.push('\\'),
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some(_) => return Err("unknown escape (use \\t, \\n, \\r or \\\\)".into()),
            None => return Err("a lone backslash ends the field (write \\\\)".into()),
        }
    }
    Ok(out)
}

/// Whether a line starting with `#` is a row (a token such as `##sen` or `#`) rather than a
/// comment: it has five tab-separated fields and a number as the id.
fn is_row(line: &str) -> bool {
    let fields: Vec<&str> = line.split('\t').collect();
    fields.len() == 5 && fields[1].trim().parse::<u32>().is_ok()
}

/// Writes `rows` atomically (staged beside `path`, then renamed; mode 0600), header first.
pub fn write_review(path: &Path, rows: &[ReviewRow]) -> Result<(), AnonymizeError> {
    let text = render_review(path, rows)?;
    crate::fsio::replace_file(path, text.as_bytes()).map_err(AnonymizeError::from)
}

/// The text of a review file for `rows` (`path` only names it in errors).
pub fn render_review(path: &Path, rows: &[ReviewRow]) -> Result<String, AnonymizeError> {
    let mut text = String::new();
    text.push_str("# anonlm review file: set decision to remove or keep for each token.\n");
    text.push_str(HEADER);
    text.push('\n');
    for r in rows {
        if !r.score.is_finite() {
            return Err(AnonymizeError::file(
                path,
                format!("score of id {} is not a finite number", r.id),
            ));
        }
        text.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\n",
            escape(&r.token),
            r.id,
            r.score,
            escape(&r.evidence),
            r.decision
        ));
    }
    Ok(text)
}

/// Reads a review file. Errors name the file and line, never the token.
pub fn read_review(path: &Path) -> Result<Vec<ReviewRow>, AnonymizeError> {
    Ok(read_review_lines(path)?
        .into_iter()
        .map(|(_, r)| r)
        .collect())
}

/// Like [`read_review`], each row with its 1-based line number (for later errors).
pub fn read_review_lines(path: &Path) -> Result<Vec<(usize, ReviewRow)>, AnonymizeError> {
    let bytes = std::fs::read(path).map_err(|e| AnonymizeError::io(path, e))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        AnonymizeError::line(
            path,
            crate::wordlists::invalid_utf8_line(&e),
            "invalid UTF-8",
        )
    })?;
    parse_review(path, &text)
}

fn parse_review(path: &Path, text: &str) -> Result<Vec<(usize, ReviewRow)>, AnonymizeError> {
    let mut rows = Vec::new();
    let mut header_seen = false;
    let mut ids = std::collections::HashMap::new();
    for (i, raw) in text.split('\n').enumerate() {
        let line = i + 1;
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        if raw.trim().is_empty() || (raw.starts_with('#') && !is_row(raw)) {
            continue;
        }
        if !header_seen {
            if raw.trim_end() != HEADER {
                return Err(AnonymizeError::line(
                    path,
                    line,
                    "expected the header token<TAB>id<TAB>score<TAB>evidence<TAB>decision",
                ));
            }
            header_seen = true;
            continue;
        }
        let fields: Vec<&str> = raw.split('\t').collect();
        let [token, id, score, evidence, decision] = fields[..] else {
            return Err(AnonymizeError::line(
                path,
                line,
                format!("expected 5 tab-separated fields, found {}", fields.len()),
            ));
        };
        let bad = |msg: String| AnonymizeError::line(path, line, msg);
        let token = unescape(token).map_err(|m| bad(format!("token: {m}")))?;
        if token.is_empty() {
            return Err(bad("empty token".into()));
        }
        let id: u32 = id
            .trim()
            .parse()
            .map_err(|_| bad("id must be a whole number".into()))?;
        let score: f64 = score
            .trim()
            .parse()
            .ok()
            .filter(|s: &f64| s.is_finite())
            .ok_or_else(|| bad("score must be a finite number".into()))?;
        let evidence = unescape(evidence).map_err(|m| bad(format!("evidence: {m}")))?;
        let decision: Decision = decision.parse().map_err(|e: ValueError| bad(e.0))?;
        if let Some(first) = ids.insert(id, line) {
            return Err(bad(format!("id {id} repeats line {first}")));
        }
        rows.push((
            line,
            ReviewRow {
                token,
                id,
                score,
                evidence,
                decision,
            },
        ));
    }
    if !header_seen {
        return Err(AnonymizeError::file(
            path,
            "no header line (empty review file)",
        ));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(token: &str, id: u32, decision: Decision) -> ReviewRow {
        ReviewRow {
            token: token.into(),
            id,
            score: 0.75,
            evidence: "list:surnames\tcapitalized".into(),
            decision,
        }
    }

    #[test]
    fn escapes_round_trip() {
        for s in [
            "plain",
            "a\tb",
            "line\nbreak",
            "back\\slash",
            "\\t literal",
            "cr\r",
            "ĠJansen",
        ] {
            assert_eq!(unescape(&escape(s)).unwrap(), s);
            assert!(!escape(s).contains('\t') && !escape(s).contains('\n'));
        }
        assert!(unescape("bad\\x").is_err());
        assert!(unescape("end\\").is_err());
    }

    #[test]
    fn write_then_read_gives_the_rows_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("review.tsv");
        let rows = vec![
            row("ĠJansen", 301, Decision::Remove),
            row("##sen", 12, Decision::Keep),
            row("#", 13, Decision::Keep),
            row("odd\ttoken\\", 7, Decision::Remove),
        ];
        write_review(&path, &rows).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().filter(|l| !l.starts_with("# ")).count(), 5);
        assert_eq!(read_review(&path).unwrap(), rows);
    }

    #[test]
    fn decisions_are_case_insensitive_and_comments_skipped() {
        let text =
            format!("# c\n{HEADER}\n# a comment\nJansen\t5\t1\tx\tREMOVE\nde\t6\t0\t\tKeep\n\n");
        let rows = parse_review(Path::new("r.tsv"), &text).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].0, 4);
        assert_eq!(rows[0].1.decision, Decision::Remove);
        assert_eq!(rows[1].1.decision, Decision::Keep);
    }

    #[test]
    fn errors_name_file_and_line_but_not_the_token() {
        let cases = [
            ("Jansen\t5\t1\tx\tremove\n", 1, "header"),
            (
                &format!("{HEADER}\nJansen\t5\t1\tx\n") as &str,
                2,
                "5 tab-separated",
            ),
            (&format!("{HEADER}\nJansen\tfive\t1\tx\tremove\n"), 2, "id"),
            (
                &format!("{HEADER}\nJansen\t5\tNaN\tx\tremove\n"),
                2,
                "score",
            ),
            (
                &format!("{HEADER}\nJansen\t5\t1\tx\tdelete\n"),
                2,
                "decision",
            ),
            (
                &format!("{HEADER}\nJansen\\q\t5\t1\tx\tremove\n"),
                2,
                "escape",
            ),
            (
                &format!("{HEADER}\nJansen\t5\t1\tx\tremove\nBakker\t5\t1\tx\tkeep\n"),
                3,
                "repeats line 2",
            ),
            ("# only a comment\n", 0, "no header"),
        ];
        for (text, line, what) in cases {
            let err = parse_review(Path::new("r.tsv"), text)
                .unwrap_err()
                .to_string();
            let at = if line == 0 {
                "r.tsv".to_string()
            } else {
                format!("r.tsv:{line}:")
            };
            assert!(err.contains(&at), "{err}");
            assert!(err.contains(what), "{err}");
            assert!(!err.contains("Jansen") && !err.contains("Bakker"), "{err}");
        }
    }
}
