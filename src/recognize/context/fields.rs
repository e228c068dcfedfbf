//! Semi-structured header fields ("Nombre: Ernesto.", "Localidad/ Provincia: Madrid.") found at
//! colons, and the extent of each field's value.

use super::config::ContextConfig;
use super::runs::{name_forward, Run};
use crate::labels::Label;
use crate::recognize::lookup::lexicon::Matcher;
use crate::recognize::lookup::tokens::{Shape, Token, Words};

/// One field label: its first token, the byte just after its colon, and its value's label.
#[derive(Clone, Copy, Debug)]
pub struct FieldHit {
    pub label_start: usize,
    pub value_start: usize,
    pub label: Option<Label>,
}

/// Characters allowed between the words of a label ("Localidad/ Provincia", "E-mail", "Nº Col").
fn label_gap(g: &str) -> bool {
    !g.is_empty()
        && g.len() <= 3
        && g.chars()
            .all(|c| matches!(c, ' ' | '/' | '-' | '.' | 'º' | '°'))
}

/// Every `Label:` of `text` whose words are a known field label starting with a capital letter.
pub fn field_hits(cfg: &ContextConfig, text: &str, words: &Words) -> Vec<FieldHit> {
    let toks = &words.toks;
    let mut hits = Vec::new();
    let mut key = String::new();
    let mut label_words: Vec<usize> = Vec::with_capacity(cfg.field_max_words);
    for colon in memchr::memchr_iter(b':', text.as_bytes()) {
        // The last token ending before the colon, separated from it by blanks only.
        let k = toks.partition_point(|t| t.end <= colon);
        if k == 0
            || !text[toks[k - 1].end..colon]
                .bytes()
                .all(|b| b == b' ' || b == b'\t')
        {
            continue;
        }
        label_words.clear();
        let mut best: Option<(usize, Option<Label>)> = None;
        let mut j = k - 1;
        loop {
            label_words.push(j);
            key.clear();
            for &w in label_words.iter().rev() {
                if !key.is_empty() {
                    key.push(' ');
                }
                key.push_str(words.folded(w));
            }
            if let Some(&label) = cfg.fields.get(key.as_str()) {
                if matches!(toks[j].shape, Shape::Cap | Shape::Upper | Shape::Initial) {
                    best = Some((j, label));
                }
            }
            if label_words.len() == cfg.field_max_words || j == 0 {
                break;
            }
            if !label_gap(&text[toks[j - 1].end..toks[j].start]) {
                break;
            }
            j -= 1;
        }
        if let Some((first, label)) = best {
            // "DXA at Concord Hospital: T-score -2.7": one label word right after a capitalized
            // word ends a name in running text; it opens no field.
            let ends_name = first + 1 == k
                && first > 0
                && toks[first - 1].shape == Shape::Cap
                && &text[toks[first - 1].end..toks[first].start] == " ";
            if ends_name {
                continue;
            }
            hits.push(FieldHit {
                label_start: toks[first].start,
                value_start: colon + 1,
                label,
            });
        }
    }
    hits
}

/// Where the value of a field starting at `start` ends: the line end, the next field label on
/// the line (`next_label`), or a sentence end (". " before a capital letter, or a final dot).
pub fn value_end(text: &str, start: usize, next_label: usize) -> usize {
    // The line end is looked for only up to the next label: on a long single line a search to
    // the line end per field would make the whole document quadratic.
    let limit = next_label.clamp(start, text.len());
    let end = memchr::memchr(b'\n', &text.as_bytes()[start..limit]).map_or(limit, |p| start + p);
    let bytes = text.as_bytes();
    let mut i = start;
    while i < end {
        if bytes[i] == b'.' {
            let rest = text[i + 1..end].trim_start_matches([' ', '\t', '\r']);
            let spaced = i + 1 < end && matches!(bytes[i + 1], b' ' | b'\t');
            if rest.is_empty() || (spaced && rest.starts_with(|c: char| c.is_uppercase())) {
                return i;
            }
        }
        i += 1;
    }
    end
}

/// Trims blanks and trailing punctuation off a value; `None` when nothing wordy is left.
pub fn trim_value(text: &str, start: usize, end: usize) -> Option<(usize, usize)> {
    let v = &text[start..end];
    let lead = v.len() - v.trim_start_matches([' ', '\t', ',', ';']).len();
    let t = v.trim_end_matches([' ', '\t', '\r', '.', ',', ';']);
    let (s, e) = (start + lead, start + t.len());
    (s < e && text[s..e].chars().any(char::is_alphanumeric)).then_some((s, e))
}

/// A name field's value written surname first ("Name: NGUYEN, MINH"): the run extended over
/// the given names after its comma, written in the surname's case, up to byte `limit`.
pub fn given_after_comma(
    m: &mut Matcher,
    text: &str,
    toks: &[Token],
    run: Run,
    limit: usize,
) -> Run {
    let k = run.last + 1;
    let Some(next) = toks.get(k) else { return run };
    let comma = text[toks[run.last].end..next.start]
        .strip_prefix(',')
        .is_some_and(|rest| !rest.is_empty() && rest.chars().all(|ch| ch == ' '));
    if !comma || next.shape != toks[run.last].shape {
        return run;
    }
    name_forward(m, text, toks, k, 2, limit).map_or(run, |given| Run {
        last: given.last,
        ..run
    })
}
