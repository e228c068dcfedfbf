//! Small byte-offset helpers shared by the pattern rules: neighbouring characters, words
//! before a position, line bounds.

/// The character ending right before byte `i`.
pub fn prev_char(text: &str, i: usize) -> Option<char> {
    text[..i].chars().next_back()
}

/// The character starting at byte `i`.
pub fn next_char(text: &str, i: usize) -> Option<char> {
    text[i..].chars().next()
}

pub fn is_word_char(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric())
}

/// Whether a match starting at `s` starts a token: not inside a word nor inside a number such
/// as "1.234" or "12/05".
pub fn starts_token(text: &str, s: usize) -> bool {
    match prev_char(text, s) {
        None => true,
        Some(c) if c.is_alphanumeric() => false,
        Some('.' | ',' | '/') => !is_digit_before(text, s - 1),
        Some(_) => true,
    }
}

fn is_digit_before(text: &str, i: usize) -> bool {
    prev_char(text, i).is_some_and(|c| c.is_ascii_digit())
}

/// Whether a match ending at `e` ends a token: no word character and no "<sep><digit>" after it.
pub fn ends_token(text: &str, e: usize) -> bool {
    let b = text.as_bytes();
    match next_char(text, e) {
        None => true,
        Some(c) if c.is_alphanumeric() => false,
        Some('.' | ',' | '/' | '-') => !b.get(e + 1).is_some_and(|x| x.is_ascii_digit()),
        Some(_) => true,
    }
}

/// End of the run of alphanumeric characters starting at `s` (at least one character).
pub fn token_end(text: &str, s: usize) -> usize {
    let b = text.as_bytes();
    let Some(first) = text[s..].chars().next() else {
        return s;
    };
    let mut end = s + first.len_utf8();
    loop {
        // ASCII first: most words are ASCII to their end.
        end += b[end..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric())
            .count();
        match text[end..].chars().next() {
            Some(c) if !c.is_ascii() && c.is_alphanumeric() => end += c.len_utf8(),
            _ => return end,
        }
    }
}

/// Up to `n` words (letters/digits) ending before byte `i`, nearest first, lowercased; stops at
/// a line break or at a sentence end ("." followed by space).
pub fn words_before(text: &str, i: usize, n: usize) -> Vec<String> {
    let window_start = floor_char_boundary(text, i.saturating_sub(80));
    let win = &text[window_start..i];
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in win.chars().rev() {
        if c.is_alphanumeric() || c == '\'' || c == 'º' {
            cur.push(c);
            continue;
        }
        if !cur.is_empty() {
            out.push(cur.chars().rev().collect::<String>().to_lowercase());
            cur.clear();
            if out.len() == n {
                return out;
            }
        }
        if c == '\n' {
            return out;
        }
    }
    if !cur.is_empty() && window_start == 0 {
        out.push(cur.chars().rev().collect::<String>().to_lowercase());
    }
    out
}

/// The start of the line holding byte `i`, looked for at most `max` bytes back; when the line
/// starts earlier, the first word start inside that window (so no word is cut).
pub fn line_start_within(text: &str, i: usize, max: usize) -> usize {
    let lo = floor_char_boundary(text, i.saturating_sub(max));
    let window = &text.as_bytes()[lo..i];
    match memchr::memrchr(b'\n', window) {
        Some(p) => lo + p + 1,
        None if lo == 0 => 0,
        None => window
            .iter()
            .position(|b| b.is_ascii_whitespace())
            .map_or(i, |p| lo + p + 1),
    }
}

/// The end of the line holding byte `i`, looked for at most `max` bytes ahead (else the first
/// character boundary at or after that bound).
pub fn line_end_within(text: &str, i: usize, max: usize) -> usize {
    let hi = ceil_char_boundary(text, i.saturating_add(max).min(text.len()));
    memchr::memchr(b'\n', &text.as_bytes()[i..hi]).map_or(hi, |p| i + p)
}

pub fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

pub fn ceil_char_boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// Start of the trailing run of characters of `s` satisfying `keep` (`s.len()` if none).
pub fn run_start(s: &str, keep: impl Fn(char) -> bool) -> usize {
    let mut start = s.len();
    for (i, c) in s.char_indices().rev() {
        if !keep(c) {
            break;
        }
        start = i;
    }
    start
}

/// Whether `w` starts with an uppercase letter followed by a lowercase one ("Madrid", not "UI").
pub fn is_title_word(w: &str) -> bool {
    let mut cs = w.chars();
    matches!((cs.next(), cs.next()), (Some(a), Some(b)) if a.is_uppercase() && b.is_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_edges_and_words() {
        let t = "Varón de 53 años, 1.234 mg";
        let n = t.find("53").unwrap();
        let one = t.find("1.234").unwrap();
        assert!(starts_token(t, n));
        assert!(!starts_token(t, one + 2)); // "234" inside "1.234"
        assert!(ends_token(t, n + 2));
        assert!(!ends_token(t, one + 1)); // "1" before ".234"
        assert_eq!(words_before(t, n, 2), vec!["de", "varón"]);
        assert_eq!(token_end(t, n), n + 2);
        assert_eq!(token_end("Ödönék5ñ, x", 0), "Ödönék5ñ".len());
        assert_eq!(token_end("+31 6", 0), 3, "a sign opens the run");
        assert_eq!(token_end("ab", 2), 2);
        assert!(is_title_word("Madrid") && !is_title_word("UI"));
    }
}
