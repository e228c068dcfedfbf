//! Tokens for token-level scoring and leak checks: maximal runs of alphanumeric characters.

/// Byte ranges of the maximal runs of alphanumeric characters (Unicode-aware) in `text`.
pub fn alnum_runs(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (i, c) in text.char_indices() {
        match (c.is_alphanumeric(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, text.len()));
    }
    out
}

/// Indices of the tokens (sorted by start) that intersect the byte range `start..end`.
pub fn intersecting(tokens: &[(usize, usize)], start: usize, end: usize) -> std::ops::Range<usize> {
    let first = tokens.partition_point(|t| t.1 <= start);
    let last = first + tokens[first..].partition_point(|t| t.0 < end);
    first..last
}

#[cfg(test)]
mod tests {
    use super::*;

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
            let got: Vec<&str> = alnum_runs(text).iter().map(|&(s, e)| &text[s..e]).collect();
            assert_eq!(&got, want, "{text}");
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
