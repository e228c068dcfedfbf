//! What a found name goes on with that no recognizer reads as a name of its own: a
//! generational suffix ("Robert Fallon Jr.", "Walsh III") and, closing a signature or a
//! clause, the initial of a surname ("-- Colleen M., RN"). Both narrow the person down, so
//! a surrogate or a tag must cover them too.

use crate::labels::Category;
use crate::span::Entity;

/// Suffixes written after a surname, with or without their full stop.
const GENERATIONAL: &[&str] = &["Jr", "Sr", "Jnr", "Snr", "II", "III"];

/// Whether `word` is a suffix abbreviated with a full stop ("Jr", "Snr"; not "III").
fn written_with_a_stop(word: &str) -> bool {
    GENERATIONAL.contains(&word) && word.ends_with(|c: char| c.is_lowercase())
}

/// How far the name `text[start..end]` goes on, if it does.
fn tail_end(text: &str, start: usize, end: usize) -> Option<usize> {
    let rest = &text[end..];
    // A span that holds the suffix or the initial already but not its full stop (a tagger's
    // "Robert Fallon Jr", "Colleen M"): the stop is the abbreviation's.
    let last_word = text[start..end].rsplit(' ').next().unwrap_or("");
    let abbreviated = written_with_a_stop(last_word)
        || last_word.len() == 1
            && last_word.bytes().all(|b| b.is_ascii_uppercase())
            && end > start + 1;
    if abbreviated && rest.starts_with('.') && !rest[1..].starts_with(char::is_alphanumeric) {
        return Some(end + 1);
    }
    // "Fallon Jr.", "Fallon, Jr.", "Walsh III".
    let after_gap = rest.strip_prefix(", ").or_else(|| rest.strip_prefix(' '))?;
    let gap = rest.len() - after_gap.len();
    let word_len = after_gap
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(after_gap.len());
    let word = &after_gap[..word_len];
    let next = after_gap[word_len..].chars().next();
    if GENERATIONAL.contains(&word) && !next.is_some_and(char::is_alphanumeric) {
        let dot = usize::from(next == Some('.') && written_with_a_stop(word));
        return Some(end + gap + word_len + dot);
    }
    // "Colleen M., RN", "Colleen M." at a line's end: one capital and its full stop, then a
    // comma or the end of the line (not "M.D.", nor a sentence going on).
    let initial = gap == 1
        && word_len == 1
        && word.chars().all(|c| c.is_ascii_uppercase())
        && next == Some('.');
    let closes = |after: &str| after.is_empty() || after.starts_with([',', '\n', '\r']);
    (initial && closes(after_gap[2..].trim_start_matches([' ', '\t']))).then_some(end + 3)
}

/// Extends each NAME of `found` (in text order, not overlapping) over its tail, where the tail
/// runs into no other entity.
pub fn extend(text: &str, found: &mut [Entity]) {
    for i in 0..found.len() {
        if found[i].label.category != Category::Name {
            continue;
        }
        let Some(end) = tail_end(text, found[i].start, found[i].end) else {
            continue;
        };
        if found.get(i + 1).is_some_and(|next| next.start < end) {
            continue;
        }
        found[i].end = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tail<'t>(text: &'t str, name: &str) -> &'t str {
        let start = text.find(name).unwrap();
        let end = start + name.len();
        tail_end(text, start, end).map_or("", |e| &text[end..e])
    }

    #[test]
    fn a_suffix_or_a_closing_initial_goes_with_the_name() {
        let text = "pt's son Robert Fallon Jr. and his wife";
        assert_eq!(tail(text, "Robert Fallon"), " Jr.");
        assert_eq!(tail("Seen by John Walsh III today", "John Walsh"), " III");
        assert_eq!(tail("Smith, Jr, called", "Smith"), ", Jr");
        assert_eq!(tail("-- Colleen M., RN", "Colleen"), " M.");
        assert_eq!(tail("Signed: Colleen M.\nnext", "Colleen"), " M.");
        assert_eq!(tail("son Robert Fallon Jr. and", "Robert Fallon Jr"), ".");
        assert_eq!(tail("-- Colleen M., RN", "Colleen M"), ".");
        // Credentials, a sentence going on, a word that only starts like a suffix, or IV
        // (intravenous more often than a fourth).
        for (text, name) in [
            ("Pt seen by John Smith M.D. today", "John Smith"),
            ("Spoke with Colleen M. Smith about it", "Colleen"),
            ("Dr. Sreenivasan Srinivas called", "Dr. Sreenivasan"),
            ("given to Smith IV push", "Smith"),
            ("pt's son Jim. Son Rob came", "Jim"),
        ] {
            assert_eq!(tail(text, name), "", "{text}");
        }
    }

    #[test]
    fn a_tail_running_into_another_entity_is_left() {
        use crate::labels::{Label, Subtype};
        let text = "Colleen M., RN";
        let name = Label::category_only(Category::Name);
        let other = Label::new(Category::Location, Subtype::City);
        let mut found = vec![
            Entity::new(0, 7, name, "t", 0.5),
            Entity::new(8, 9, other, "t", 0.5),
        ];
        extend(text, &mut found);
        assert_eq!(found[0].end, 7);
        found.truncate(1);
        extend(text, &mut found);
        assert_eq!(&text[found[0].start..found[0].end], "Colleen M.");
    }
}
