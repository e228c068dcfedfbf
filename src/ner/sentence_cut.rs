//! Sentence ends inside a tagger's span: a name or a place does not run across one, so a span
//! such as "CCU NPN. Pt" or "UTI. Diabetic" (a note's header or one finding, then the next
//! sentence's first word) is cut there, and each part is judged on its own.
//!
//! The taggers read the sentences of [`crate::text::sentences`], whose splitter goes on after
//! any short word starting upper case (`Sta.`, `Dr.`, `J.`) so that it never cuts a name; in a
//! nursing note that joins "NPN. Pt" and "UTI. Diabetic", and the tagger's span follows the
//! capitals across the full stop. Inside a name span the cut is the other way round: a word in
//! capitals before the stop is an abbreviation that ends its sentence, not part of a name.

/// Words before a full stop that shorten part of a name or place, not end a sentence (lower
/// case, without the dot): "St. Louis", "Mt. Auburn", "Wm. Smith", "Acme Inc. Boston". Titles
/// ("Dr.", "Mrs.") come from the language's title list, and single letters are initials.
const NAME_ABBREVIATIONS: &[&str] = &[
    "st", "ste", "mt", "ft", "jr", "sr", "wm", "geo", "chas", "jas", "thos", "inc", "ltd", "co",
    "corp", "bros", "no",
];

/// Whether the word `before` (ending right before a full stop) ends a sentence rather than
/// shortens a name: a word of two capitals or more ("NPN", "UTI", "AM"), one that starts in
/// lower case, or one of five letters or more, unless it is a title, a name abbreviation or a
/// Roman numeral.
fn ends_sentence(before: &str, titles: &std::collections::HashSet<String>) -> bool {
    let lower = before.to_lowercase();
    if titles.contains(&lower) || NAME_ABBREVIATIONS.contains(&lower.as_str()) {
        return false;
    }
    // A Roman numeral with a dot is a regnal or ordinal number ("II. Lipót", "XVI. Benedek").
    if before.chars().all(|c| "IVXLCDM".contains(c)) {
        return false;
    }
    let letters = before.chars().filter(|c| c.is_alphabetic()).count();
    let all_caps = letters >= 2 && !before.chars().any(char::is_lowercase);
    let lower_initial = before.chars().next().is_some_and(char::is_lowercase);
    all_caps || lower_initial || letters >= 5
}

/// The byte ranges of `text[start..end]` once it is cut at every sentence end inside it: a `!`
/// or `?`, or a `.` after a word that [`ends_sentence`], followed by white space and a capital
/// letter. The end marks themselves belong to no part.
pub fn sentence_parts(
    text: &str,
    start: usize,
    end: usize,
    titles: &std::collections::HashSet<String>,
) -> Vec<(usize, usize)> {
    let span = &text[start..end];
    // In a span without capitals the next sentence opens in lower case too ("probate court.
    // guardian consents"); an initial there ("j. moriarty") ends none.
    let caseless = !span.chars().any(char::is_uppercase);
    let mut parts = Vec::new();
    let mut from = 0;
    for (i, c) in span.char_indices() {
        if !matches!(c, '.' | '!' | '?') {
            continue;
        }
        let rest = &span[i + 1..];
        let next = rest.trim_start();
        let opens = next
            .chars()
            .next()
            .is_some_and(|ch| ch.is_uppercase() || caseless && ch.is_lowercase());
        if next.len() == rest.len() || !opens {
            continue;
        }
        let word_start = span[..i]
            .rfind(|ch: char| !ch.is_alphanumeric())
            .map_or(0, |k| k + 1);
        let before = &span[word_start..i];
        let initial = caseless && before.chars().count() < 2;
        if c == '.' && (before.is_empty() || initial || !ends_sentence(before, titles)) {
            continue;
        }
        if i > from {
            parts.push((start + from, start + i));
        }
        from = end - start - next.len();
    }
    parts.push((start + from, end));
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(text: &str) -> Vec<&str> {
        let titles = ["dr", "mrs", "mr"].iter().map(|t| t.to_string()).collect();
        sentence_parts(text, 0, text.len(), &titles)
            .into_iter()
            .map(|(s, e)| &text[s..e])
            .collect()
    }

    #[test]
    fn spans_are_cut_at_sentence_ends() {
        assert_eq!(parts("CCU NPN. Pt"), ["CCU NPN", "Pt"]);
        assert_eq!(parts("UTI. Diabetic"), ["UTI", "Diabetic"]);
        assert_eq!(parts("AM. Pt"), ["AM", "Pt"]);
        assert_eq!(parts("stable. Mary"), ["stable", "Mary"]);
        assert_eq!(parts("Boston! Karen"), ["Boston", "Karen"]);
        // Without capitals the next sentence opens in lower case.
        assert_eq!(
            parts("middlesex probate court. guardian"),
            ["middlesex probate court", "guardian"]
        );
    }

    #[test]
    fn without_capitals_initials_and_titles_end_no_sentence() {
        for kept in ["j. moriarty", "dr. ng", "st. louis", "sr. dr. macallister"] {
            assert_eq!(parts(kept), [kept], "{kept}");
        }
    }

    #[test]
    fn initials_titles_and_name_abbreviations_do_not_end_a_sentence() {
        for kept in [
            "Thomas D. Green",
            "J. R. R. Tolkien",
            "Dr. Patel",
            "Mrs. Jones",
            "St. Louis",
            "Mt. Auburn Hospital",
            "Wm. Smith",
            "U.S. Army",
            "JOHN D. SMITH",
            "Smith.",
            "Smith. and",
            "Jones.Smith",
            "II. Lipót",
            "XVI. Benedek",
        ] {
            assert_eq!(parts(kept), [kept], "{kept}");
        }
    }
}
