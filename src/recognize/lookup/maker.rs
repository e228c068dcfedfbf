//! Manufacturers named in parentheses after a drug, device or reagent, before the place they
//! are in: "(Gevramycin 40 mg, Schering-Plough, Madrid)", "(Carl Zeiss Meditec, Dublin, CA)".
//!
//! The evidence is the shape of the parenthesis, not a list of companies: comma-separated parts
//! whose last ones are listed places (a state code may follow them); the part just before the
//! places ends in the maker's capitalized words.

use super::tokens::{Shape, Token};
use super::Hit;

/// Longest parenthesis read, in bytes (a citation or a sentence in brackets is not this shape).
const MAX_PAREN: usize = 240;

/// Lower-case words that join a maker's words ("Lilly y Dista", "Bausch and Lomb").
const JOINERS: &[&str] = &["y", "e", "and", "&", "und", "en", "és", "ed"];

/// The maker runs (first and last token) in the parentheses of `text`; `place_hits` are the
/// lookup hits that are listed places.
pub(super) fn makers(text: &str, toks: &[Token], place_hits: &[&Hit]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(open) = text[from..].find('(').map(|k| from + k) {
        from = open + 1;
        let Some(close) = text[from..]
            .find([')', '\n', '('])
            .map(|k| from + k)
            .filter(|&c| bytes[c] == b')' && c - open <= MAX_PAREN)
        else {
            continue;
        };
        if let Some(run) = maker_in(text, toks, place_hits, open + 1, close) {
            out.push(run);
        }
    }
    out
}

/// The maker run inside the parenthesis `start..end`, if its parts end in places.
fn maker_in(
    text: &str,
    toks: &[Token],
    place_hits: &[&Hit],
    start: usize,
    end: usize,
) -> Option<(usize, usize)> {
    // Token ranges of the comma-separated parts.
    let mut parts: Vec<(usize, usize)> = Vec::new();
    let first_tok = toks.partition_point(|t| t.start < start);
    let last_tok = toks.partition_point(|t| t.start < end);
    let mut part_start = first_tok;
    for k in first_tok..last_tok {
        let next_gap_end = if k + 1 < last_tok {
            toks[k + 1].start
        } else {
            end
        };
        if text[toks[k].end..next_gap_end].contains([',', ';']) {
            parts.push((part_start, k + 1));
            part_start = k + 1;
        }
    }
    if part_start < last_tok {
        parts.push((part_start, last_tok));
    }
    // The trailing parts that are places: listed ones, and after one of them state or
    // country codes ("CA", "USA", "EE UU").
    let is_place =
        |&(a, b): &(usize, usize)| place_hits.iter().any(|h| h.first == a && h.last + 1 == b);
    let is_code = |&(a, b): &(usize, usize)| {
        b - a <= 2
            && toks[a..b]
                .iter()
                .all(|t| matches!(t.shape, Shape::Upper | Shape::Initial) && t.end - t.start <= 4)
    };
    let mut p = parts.len();
    while p > 0 && (is_place(&parts[p - 1]) || is_code(&parts[p - 1])) {
        p -= 1;
    }
    // Codes count only after a listed place.
    while p < parts.len() && !is_place(&parts[p]) {
        p += 1;
    }
    if p == 0 || p == parts.len() {
        return None;
    }
    // The maker: the capitalized words that end the part before the places.
    let (a, b) = parts[p - 1];
    let mut first = None;
    let mut k = b;
    while k > a {
        let t = toks[k - 1];
        let word = &text[t.start..t.end];
        match t.shape {
            Shape::Cap | Shape::Upper | Shape::Initial => first = Some(k - 1),
            Shape::Lower if first.is_some() && JOINERS.contains(&word) => {}
            _ => break,
        }
        k -= 1;
    }
    let first = first?;
    // A part that is one place or name of the list already ("Hospital X, Madrid") is not a maker.
    if place_hits
        .iter()
        .any(|h| h.first == first && h.last + 1 == b)
    {
        return None;
    }
    Some((first, b - 1))
}

#[cfg(test)]
mod tests {
    use crate::lang::Lang;
    use crate::recognize::lookup::LookupRecognizer;
    use crate::recognize::surfaces_from;
    use crate::wordlists::ListSources;

    fn orgs(lang: Lang, text: &str) -> Vec<String> {
        let r = LookupRecognizer::new(lang, &ListSources::default()).unwrap();
        surfaces_from(&r, text, "lookup:maker")
    }

    #[test]
    fn makers_before_places_in_parentheses() {
        let es = "Se pautó colirio (Zentrolax 40 mg inyectable, Qorvent-Balden, Madrid) y \
                  una lente (Ortovix, Brenner y Tahl, Barcelona, España).";
        assert_eq!(orgs(Lang::Es, es), ["Qorvent-Balden", "Brenner y Tahl"]);
        let en = "Visual fields were tested (Quorix Perimetry Systems, Dublin, CA).";
        assert_eq!(orgs(Lang::En, en), ["Quorix Perimetry Systems"]);
    }

    #[test]
    fn other_parentheses_are_left_alone() {
        // No place at the end, places only, lower-case parts, a line break inside.
        for text in [
            "Tratado con amoxicilina (Zentrolax 500 mg, cada 8 horas).",
            "Natural de Perú (Lima, Perú).",
            "Se derivó (por indicación médica, Madrid) al servicio.",
            "Lente (Ortovix, Brenner\ny Tahl, Barcelona).",
        ] {
            assert!(orgs(Lang::Es, text).is_empty(), "{text}");
        }
    }
}
