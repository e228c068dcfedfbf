//! The one sentence splitter (our own: the rule is two lines, and the abbreviations come from
//! the built-in title lists). A sentence ends at a line break, and after `.`, `!` or `?` when
//! the next word opens a sentence (an upper-case letter, or after a space also a digit, a
//! bracketed tag like `[NAME]`, `¿` or `¡`), unless the mark is a `.` after an abbreviation: a
//! word of one or two characters with a letter in it (`Dr.`, `nº.`, an initial `J.`), of three
//! starting upper case (`Sta.`), or a dotted title of the built-in lists (`Prof.`, `Dott.`).
//! A de-identified tag (`[NAME].`), a number or a bracket before the mark ends the sentence.
//! The taggers cut their token sequences here (with a length cap), the name probes take the
//! sentence around a slot and the audit samples whole sentences.

use std::collections::HashSet;
use std::sync::OnceLock;

use super::words::Tok;
use crate::lang::Lang;

/// Dotted words after which no sentence ends (compared in lower case, with the dot).
#[derive(Clone, Debug, Default)]
pub struct Abbreviations {
    words: HashSet<String>,
}

impl Abbreviations {
    /// The dotted titles of the built-in title lists of every language (read once).
    pub fn builtin() -> &'static Self {
        static BUILTIN: OnceLock<Abbreviations> = OnceLock::new();
        BUILTIN.get_or_init(|| {
            let mut words = HashSet::new();
            for lang in Lang::ALL {
                let rel = format!("{}/titles.txt", lang.code());
                if let Some(text) = crate::wordlists::builtin(&rel) {
                    for entry in crate::wordlists::parse_list(text) {
                        let title = entry.split('\t').next().unwrap_or("").trim();
                        // Multi-word titles ("prof. dr.") contribute each dotted word.
                        for word in title.split_whitespace() {
                            if word.ends_with('.') {
                                words.insert(word.to_lowercase());
                            }
                        }
                    }
                }
            }
            Abbreviations { words }
        })
    }

    /// A set of explicit abbreviations (with their dots), for tests and callers with own lists.
    pub fn from_words<'a>(words: impl IntoIterator<Item = &'a str>) -> Self {
        Abbreviations {
            words: words.into_iter().map(str::to_lowercase).collect(),
        }
    }

    /// Whether the word token `word` before a `.` is an abbreviation, so the sentence goes on:
    /// a listed title, a word of one or two characters with a letter (`J.`, `dr.`, `mg.`,
    /// `nº.`), or of three starting upper case (`Sta.`, `Sra.`). A lower-case word of three
    /// letters is a word (`mee.`, `van.`, `hoy.`, `him.` end sentences).
    fn keeps_going(&self, word: &str) -> bool {
        let letters = word.chars().any(char::is_alphabetic);
        let short_word = match word.chars().count() {
            1 | 2 => letters,
            3 => word.chars().next().is_some_and(char::is_uppercase),
            _ => false,
        };
        short_word || self.words.contains(&format!("{}.", word.to_lowercase()))
    }
}

/// A place where one sentence ends (`end`, exclusive) and the next may start (`next`), bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Cut {
    end: usize,
    next: usize,
}

/// Every sentence cut of `text`, in order.
fn cuts(text: &str, abbreviations: &Abbreviations) -> Vec<Cut> {
    let mut out = Vec::new();
    // Start of the alphanumeric run being read, and the last word token (an alphanumeric run
    // or one other character, as `text::words` cuts them) of the sentence so far.
    let mut run_start: Option<usize> = None;
    let mut last: Option<(usize, usize)> = None;
    for (i, c) in text.char_indices() {
        if c.is_alphanumeric() {
            run_start.get_or_insert(i);
            continue;
        }
        if let Some(s) = run_start.take() {
            last = Some((s, i));
        }
        match c {
            '\n' => {
                out.push(Cut {
                    end: i,
                    next: i + 1,
                });
                last = None;
            }
            '.' | '!' | '?' => {
                let upper_next = next_word_opens_a_sentence(&text[i + 1..]);
                let word = last.map_or("", |(s, e)| &text[s..e]);
                let abbreviated = c == '.' && abbreviations.keeps_going(word);
                if upper_next && !word.is_empty() && !abbreviated {
                    out.push(Cut {
                        end: i + 1,
                        next: i + 1,
                    });
                    last = None;
                } else {
                    last = Some((i, i + 1));
                }
            }
            c if c.is_whitespace() => {}
            c => last = Some((i, i + c.len_utf8())),
        }
    }
    out
}

/// Whether the text after a mark can open a sentence: it starts with an upper-case letter, or,
/// after a space, with a digit, a bracketed tag such as `[NAME]` in de-identified text, or a
/// Spanish `¿` or `¡`. `2.5`, `mg. daarna` and `@user` in a post go on.
fn next_word_opens_a_sentence(rest: &str) -> bool {
    let mut chars = rest.chars();
    match chars.next() {
        Some(c) if c.is_uppercase() => true,
        Some(c) if c.is_whitespace() => chars.find(|n| !n.is_whitespace()).is_some_and(|n| {
            n.is_uppercase() || n.is_ascii_digit() || matches!(n, '[' | '¿' | '¡')
        }),
        _ => false,
    }
}

/// Splits the tokens of `text` into sentences at the cuts of the built-in rule, with no sentence
/// longer than `max_len` tokens. Returns index ranges into `tokens`.
pub fn token_sentences(text: &str, tokens: &[Tok], max_len: usize) -> Vec<std::ops::Range<usize>> {
    let max_len = max_len.max(1);
    let cuts = cuts(text, Abbreviations::builtin());
    let mut cut = cuts.iter().peekable();
    let mut out = Vec::new();
    let mut start = 0;
    for i in 0..tokens.len() {
        // A cut ends a sentence after token i when it lies between token i's end and the
        // next token's start.
        let limit = tokens.get(i + 1).map_or(text.len(), |n| n.0);
        while cut.peek().is_some_and(|c| c.end < tokens[i].1) {
            cut.next();
        }
        let cut_here = cut
            .peek()
            .is_some_and(|c| c.end < limit || c.end == tokens[i].1);
        if cut_here || i + 1 - start >= max_len || i + 1 == tokens.len() {
            out.push(start..i + 1);
            start = i + 1;
        }
    }
    out
}

/// The byte range of the sentence of `text` that holds the byte range `slot` (cuts inside the
/// slot itself are ignored), without surrounding whitespace. Byte offsets must lie on char
/// boundaries.
pub fn sentence_around(
    text: &str,
    slot: (usize, usize),
    abbreviations: &Abbreviations,
) -> (usize, usize) {
    let (s, e) = slot;
    let all = cuts(text, abbreviations);
    let outside = |c: &&Cut| !(c.end > s && c.end < e);
    let start = all
        .iter()
        .filter(outside)
        .filter(|c| c.next <= s && c.end <= s)
        .map(|c| c.next)
        .max()
        .unwrap_or(0);
    let end = all
        .iter()
        .filter(outside)
        .filter(|c| c.end >= e)
        .map(|c| c.end)
        .min()
        .unwrap_or(text.len());
    let lead = text[start..s].len() - text[start..s].trim_start().len();
    let trail = text[e..end].len() - text[e..end].trim_end().len();
    (start + lead, end - trail)
}

/// All sentences of `text` (the audit's sentence examples), as byte ranges without surrounding
/// whitespace (blank ones left out).
pub fn sentences(text: &str, abbreviations: &Abbreviations) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut push = |a: usize, b: usize| {
        let piece = &text[a..b];
        let lead = piece.len() - piece.trim_start().len();
        let trimmed = piece.trim();
        if !trimmed.is_empty() {
            out.push((a + lead, a + lead + trimmed.len()));
        }
    };
    for c in cuts(text, abbreviations) {
        push(start, c.end);
        start = c.next;
    }
    push(start, text.len());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::words::tokenize;

    fn pieces<'a>(text: &'a str, ab: &Abbreviations) -> Vec<&'a str> {
        sentences(text, ab)
            .into_iter()
            .map(|(a, b)| &text[a..b])
            .collect()
    }

    #[test]
    fn splits_at_line_breaks_and_sentence_ends() {
        let ab = Abbreviations::builtin();
        let text =
            "Naam: [NAME]\nBeste [NAME],\n\nHij kwam. Zij bleef! Waarom? Dosis 2.5 mg. daarna gezien. [NAME] belde. 12 mei terug";
        assert_eq!(
            pieces(text, ab),
            vec![
                "Naam: [NAME]",
                "Beste [NAME],",
                "Hij kwam.",
                "Zij bleef!",
                "Waarom?",
                "Dosis 2.5 mg. daarna gezien.",
                "[NAME] belde.",
                "12 mei terug"
            ]
        );
    }

    #[test]
    fn short_words_titles_and_initials_do_not_end_a_sentence() {
        let ab = Abbreviations::builtin();
        let text = "Gezien door dr. [NAME] en J. Jansen. Prof. Smit kwam. Dott. Rossi anche.";
        assert_eq!(
            pieces(text, ab),
            vec![
                "Gezien door dr. [NAME] en J. Jansen.",
                "Prof. Smit kwam.",
                "Dott. Rossi anche."
            ]
        );
        // Without the list, a title longer than three letters ends a sentence.
        let none = Abbreviations::from_words([]);
        assert_eq!(
            pieces("Met Prof. Smit. Klaar.", &none),
            vec!["Met Prof.", "Smit.", "Klaar."]
        );
    }

    #[test]
    fn token_sentences_break_at_lines_and_real_full_stops_only() {
        let words = |t: &str, r: std::ops::Range<usize>, toks: &[Tok]| {
            toks[r]
                .iter()
                .map(|&(s, e)| t[s..e].to_string())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let t = "Nombre: Ana.\nVisto por el Dr. Gil en la C/ Sta. Rosa. Alta hoy. fin";
        let toks = tokenize(t);
        let s: Vec<String> = token_sentences(t, &toks, 100)
            .into_iter()
            .map(|r| words(t, r, &toks))
            .collect();
        assert_eq!(
            s,
            [
                "Nombre : Ana .",
                "Visto por el Dr . Gil en la C / Sta . Rosa .",
                "Alta hoy . fin"
            ]
        );
        let t2 = "Ingresa ahora. Alta mañana";
        let toks2 = tokenize(t2);
        assert_eq!(token_sentences(t2, &toks2, 100), vec![0..3, 3..5]);
        assert_eq!(token_sentences(t2, &toks2, 2), vec![0..2, 2..3, 3..5]);
        assert!(token_sentences("", &[], 10).is_empty());
        // The word token before the mark counts even across a space; a bracket, a number or
        // a de-identified tag before it ends the sentence, a short word does not.
        let t4 = "Ingresa ahora ! Alta (ver) . Fin";
        let toks4 = tokenize(t4);
        assert_eq!(token_sentences(t4, &toks4, 100), vec![0..3, 3..8, 8..9]);
        let t5 = "Visto por [NAME]. Fiebre de 38. Dolor en pie. Sin más. Hoy sí";
        let toks5 = tokenize(t5);
        let s5: Vec<String> = token_sentences(t5, &toks5, 100)
            .into_iter()
            .map(|r| words(t5, r, &toks5))
            .collect();
        assert_eq!(
            s5,
            [
                "Visto por [ NAME ] .",
                "Fiebre de 38 .",
                "Dolor en pie .",
                "Sin más .",
                "Hoy sí"
            ]
        );
        // A title from the lists keeps the name with its sentence.
        let t3 = "Visita del Prof. Bianchi oggi";
        let toks3 = tokenize(t3);
        assert_eq!(token_sentences(t3, &toks3, 100), vec![0..toks3.len()]);
    }

    #[test]
    fn the_sentence_around_a_slot_ignores_cuts_inside_the_slot() {
        let ab = Abbreviations::from_words([]);
        let text = "Eerst deze. Toen kwam Xeno. Yő bij ons.\nKlaar.";
        let s = text.find("Xeno. Yő").unwrap();
        let e = s + "Xeno. Yő".len();
        let (a, b) = sentence_around(text, (s, e), &ab);
        assert_eq!(&text[a..b], "Toen kwam Xeno. Yő bij ons.");
        let s = text.find("Klaar").unwrap();
        let (a, b) = sentence_around(text, (s, s + 5), &ab);
        assert_eq!(&text[a..b], "Klaar.");
        let (a, b) = sentence_around(text, (0, 5), &ab);
        assert_eq!(&text[a..b], "Eerst deze.");
    }
}
