//! Word tokens, one rule for the whole crate: a maximal run of alphanumeric characters is a
//! token, every other non-whitespace character is a token alone. The taggers tag these tokens,
//! the CoNLL writer writes them (also cut at entity edges), and the scores count the alphanumeric
//! ones.

/// A token: byte range into the text.
pub type Tok = (usize, usize);

/// Tokens of `text`: maximal runs of alphanumeric characters, and every other non-whitespace
/// character alone. On MEDDOCAN train, 11,326 of 11,333 gold spans start and end on these
/// token boundaries.
pub fn tokenize(text: &str) -> Vec<Tok> {
    tokenize_cut_at(text, &[])
}

/// The tokens of [`tokenize`], with an alphanumeric run also cut at every byte offset in
/// `cuts` (sorted), so that spans starting or ending inside a word still fall on token edges.
pub fn tokenize_cut_at(text: &str, cuts: &[usize]) -> Vec<Tok> {
    let mut out = Vec::new();
    let mut run: Option<usize> = None;
    let mut cut = cuts.iter().peekable();
    for (i, c) in text.char_indices() {
        while cut.peek().is_some_and(|&&p| p < i) {
            cut.next();
        }
        if cut.peek().is_some_and(|&&p| p == i) {
            if let Some(s) = run.take() {
                out.push((s, i));
            }
        }
        if c.is_alphanumeric() {
            run.get_or_insert(i);
            continue;
        }
        if let Some(s) = run.take() {
            out.push((s, i));
        }
        if !c.is_whitespace() {
            out.push((i, i + c.len_utf8()));
        }
    }
    if let Some(s) = run {
        out.push((s, text.len()));
    }
    out
}

/// Byte ranges of the maximal runs of alphanumeric characters in `text`: the tokens of
/// [`tokenize`] that are words or numbers (what token-level scores and leak checks count).
pub fn alnum_runs(text: &str) -> Vec<Tok> {
    tokenize(text)
        .into_iter()
        .filter(|&(s, e)| text[s..e].chars().all(char::is_alphanumeric))
        .collect()
}

/// Indices of the tokens (sorted by start) that intersect the byte range `start..end`.
pub fn intersecting(tokens: &[Tok], start: usize, end: usize) -> std::ops::Range<usize> {
    let first = tokens.partition_point(|t| t.1 <= start);
    let last = first + tokens[first..].partition_point(|t| t.0 < end);
    first..last
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words<'a>(text: &'a str, toks: &[Tok]) -> Vec<&'a str> {
        toks.iter().map(|&(s, e)| &text[s..e]).collect()
    }

    #[test]
    fn tokens_split_punctuation_and_keep_unicode_words() {
        let t = "Dr. Pérez-Gómez, 12/03/2020 ñu@x.es";
        assert_eq!(
            words(t, &tokenize(t)),
            [
                "Dr", ".", "Pérez", "-", "Gómez", ",", "12", "/", "03", "/", "2020", "ñu", "@",
                "x", ".", "es"
            ]
        );
        assert!(tokenize("  \n ").is_empty());
        // Symbols stand alone like punctuation; ordinal and superscript signs are word letters.
        let t = "12€ m² nº 😀x";
        assert_eq!(words(t, &tokenize(t)), ["12", "€", "m²", "nº", "😀", "x"]);
    }

    #[test]
    fn cuts_split_a_word_at_an_entity_edge() {
        let t = "¿Dónde? KovácsXY";
        let cut = t.find('X').unwrap();
        assert_eq!(
            words(t, &tokenize_cut_at(t, &[0, cut, t.len()])),
            ["¿", "Dónde", "?", "Kovács", "XY"]
        );
    }

    #[test]
    fn runs_are_unicode_aware() {
        let cases: &[(&str, &[&str])] = &[
            ("", &[]),
            ("a", &["a"]),
            (
                "Dr. Pérez-Gómez, 12/03/2020.",
                &["Dr", "Pérez", "Gómez", "12", "03", "2020"],
            ),
            ("Kovács Ödön 😀 TAJ:123", &["Kovács", "Ödön", "TAJ", "123"]),
            ("  x  ", &["x"]),
        ];
        for (text, want) in cases {
            assert_eq!(&words(text, &alnum_runs(text)), want, "{text}");
        }
    }

    #[test]
    fn intersecting_finds_partial_and_inner_tokens() {
        let text = "ab cd ef gh";
        let toks = alnum_runs(text);
        assert_eq!(intersecting(&toks, 4, 7), 1..3, "cuts 'cd' and 'ef'");
        assert_eq!(intersecting(&toks, 2, 3), 1..1, "only the space");
        assert_eq!(intersecting(&toks, 0, 11), 0..4);
        assert_eq!(intersecting(&toks, 5, 6), 2..2, "the gap between cd and ef");
    }
}
