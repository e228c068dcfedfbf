//! Token runs that make up a name or an organization: capitalized words joined by particles,
//! read forward from a trigger or backward from a trailing title / tail word.

use super::config::{BREAKS, FIRSTN, G_DOC, G_PAT, G_REL, PARTICLE, SURN, TITLE};
use crate::recognize::lookup::lexicon::Matcher;
use crate::recognize::lookup::tokens::{Shape, Token};

/// Function words that may sit inside institution names ("Hospital Clínico de San Carlos",
/// "Ospedale di Circolo", "Hospital of St John").
const ORG_CONNECTORS: &[&str] = &[
    "de", "del", "la", "las", "los", "el", "y", "i", "e", "of", "the", "for", "and", "di", "della",
    "delle", "dei", "degli", "dello", "da", "van", "der", "den", "het", "voor", "en", "d", "des",
    "du", "l", "s",
];

/// A run of tokens `first..=last`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    pub first: usize,
    pub last: usize,
}

impl Run {
    pub fn bytes(&self, toks: &[Token]) -> (usize, usize) {
        (toks[self.first].start, toks[self.last].end)
    }
}

fn gap<'t>(text: &'t str, toks: &[Token], a: usize, b: usize) -> &'t str {
    &text[toks[a].end..toks[b].start]
}

/// A gap between two words of one name: a few spaces, a hyphen or an apostrophe; after an
/// initial also its dot ("J. García", "A.B. de Vries").
fn name_gap(g: &str, after_initial: bool) -> bool {
    let g = if after_initial {
        match g.strip_prefix('.') {
            Some(rest) => rest,
            None => return false,
        }
    } else {
        g
    };
    g.is_empty() && after_initial
        || (!g.is_empty() && g.len() <= 3 && g.bytes().all(|b| b == b' ' || b == b'\t'))
        || matches!(g, "-" | "'" | "\u{2019}" | " - ")
}

/// The text right after token `j` starts a label (`Word:`) or an e-mail address (`word@`).
pub fn ends_value(text: &str, toks: &[Token], j: usize) -> bool {
    before_colon(text, toks, j) || text[toks[j].end..].starts_with(['@', '_'])
}

/// The run of a name read forward, through a nickname in quotes and the surname after it
/// (`Fitzgerald "Fitz" Moran`): the nickname is one of the name's parts.
pub fn through_nickname(m: &mut Matcher, text: &str, toks: &[Token], run: Run) -> Run {
    let nick = run.last + 1;
    if nick + 1 >= toks.len()
        || !matches!(gap(text, toks, run.last, nick), " \"" | " \u{201c}")
        || !matches!(gap(text, toks, nick, nick + 1), "\" " | "\u{201d} ")
        || toks[nick].shape != Shape::Cap
        || toks[nick + 1].shape != Shape::Cap
    {
        return run;
    }
    name_forward(m, text, toks, nick + 1, 2, text.len()).map_or(run, |rest| Run {
        last: rest.last,
        ..run
    })
}

/// Whether token `j` is a single initial: one uppercase letter followed by a dot.
pub fn is_initial(text: &str, toks: &[Token], j: usize) -> bool {
    toks[j].shape == Shape::Initial && text[toks[j].end..].starts_with('.')
}

/// Whether token `j` is the capital and apostrophe that open a surname ("O'Neill",
/// "D'Angelo"): one capital letter, an apostrophe, and a capitalized word right after.
pub fn opens_surname(text: &str, toks: &[Token], j: usize) -> bool {
    toks[j].shape == Shape::Initial
        && toks.get(j + 1).is_some_and(|next| {
            next.shape.is_proper() && matches!(gap(text, toks, j, j + 1), "'" | "\u{2019}")
        })
}

/// Whether lower-case particles open a surname at token `j` ("Dr. de la Cruz", "Dr. van der
/// Berg"): up to three particles one space apart, then a capitalized word.
pub fn particles_open_surname(m: &mut Matcher, text: &str, toks: &[Token], j: usize) -> bool {
    let mut k = j;
    while k < toks.len()
        && k - j < 3
        && toks[k].shape == Shape::Lower
        && m.single(k) & PARTICLE != 0
    {
        if k + 1 >= toks.len() || gap(text, toks, k, k + 1) != " " {
            return false;
        }
        k += 1;
    }
    k > j && toks.get(k).is_some_and(|t| t.shape == Shape::Cap)
}

/// Whether token `j` is the lower-case syllable of a hyphenated given name ("Soo-jin",
/// "Ji-hoon", "Mei-ling"): two to five letters after a hyphen that ends a capitalized word of
/// two to five letters.
pub fn lower_syllable(text: &str, toks: &[Token], j: usize) -> bool {
    let letters = |t: Token| {
        let w = &text[t.start..t.end];
        let n = w.chars().count();
        (2..=5).contains(&n) && w.chars().all(char::is_alphabetic)
    };
    j > 0
        && toks[j].shape == Shape::Lower
        && toks[j - 1].shape == Shape::Cap
        && gap(text, toks, j - 1, j) == "-"
        && letters(toks[j])
        && letters(toks[j - 1])
}

/// Reads a name forward from token `i`: capitalized or all-caps words, initials and particles
/// between them, at most `max_caps` capitalized words, never past byte `limit`.
pub fn name_forward(
    m: &mut Matcher,
    text: &str,
    toks: &[Token],
    i: usize,
    max_caps: usize,
    limit: usize,
) -> Option<Run> {
    let mut caps = 0;
    let mut last: Option<usize> = None;
    let mut j = i;
    while j < toks.len() && toks[j].end <= limit {
        if j > i {
            let after_initial = is_initial(text, toks, j - 1);
            if !name_gap(gap(text, toks, j - 1, j), after_initial) {
                break;
            }
        }
        let t = toks[j];
        if j > i && t.short_caps_after(toks[j - 1], text) {
            break;
        }
        match t.shape {
            Shape::Cap | Shape::Upper => {
                let bits = m.longest(j).map_or(0, |(_, b)| b) | m.single(j);
                if bits & BREAKS != 0 || ends_value(text, toks, j) {
                    break;
                }
                caps += 1;
                last = Some(j);
                if caps == max_caps {
                    break;
                }
            }
            Shape::Initial if is_initial(text, toks, j) => last = Some(j),
            // "O'Neill", "D'Angelo": a capital and an apostrophe open a surname.
            Shape::Initial if opens_surname(text, toks, j) => {}
            Shape::Lower if lower_syllable(text, toks, j) => last = Some(j),
            Shape::Lower if m.single(j) & PARTICLE != 0 => {}
            _ => break,
        }
        j += 1;
    }
    let last = last?;
    (caps > 0).then_some(Run { first: i, last })
}

/// A run read in an all-caps note, where capitals say nothing about names ("DR. PEMBERTON
/// AWARE OF CHANGE"): its first word, then the words joined to it by a hyphen or an apostrophe
/// ("OKAFOR-BELL"), after an initial or a particle ("DR. VAN DER BERG"), or listed as names
/// ("DR. JOHN HENDERSON").
pub fn caps_name(m: &mut Matcher, text: &str, toks: &[Token], run: Run) -> Run {
    let mut last = run.first;
    for j in run.first + 1..=run.last {
        let joined = matches!(gap(text, toks, j - 1, j), "-" | "'" | "\u{2019}")
            || is_initial(text, toks, j - 1)
            || is_initial(text, toks, j)
            || m.single(j - 1) & PARTICLE != 0;
        let bits = m.single(j);
        if bits & PARTICLE != 0 {
            continue;
        }
        if !joined && (bits & (SURN | FIRSTN) == 0 || bits & BREAKS != 0) {
            break;
        }
        last = j;
    }
    Run {
        first: run.first,
        last,
    }
}

/// Whether token `j` is followed, across blanks, by a colon ("Plan per Dr. Lindqvist: wean").
pub fn before_colon(text: &str, toks: &[Token], j: usize) -> bool {
    text[toks[j].end..]
        .trim_start_matches([' ', '\t'])
        .starts_with(':')
}

/// Reads a name backward ending at token `end` (inclusive): capitalized words and particles.
pub fn name_backward(
    m: &mut Matcher,
    text: &str,
    toks: &[Token],
    end: usize,
    max_caps: usize,
) -> Option<Run> {
    let mut caps = 0;
    let mut first: Option<usize> = None;
    let mut j = end as isize;
    while j >= 0 {
        let ju = j as usize;
        if ju < end && !name_gap(gap(text, toks, ju, ju + 1), false) {
            break;
        }
        match toks[ju].shape {
            Shape::Cap | Shape::Upper => {
                if m.single(ju) & BREAKS != 0 || ends_value(text, toks, ju) {
                    break;
                }
                caps += 1;
                first = Some(ju);
                if caps == max_caps {
                    break;
                }
            }
            Shape::Lower if first.is_some() && m.single(ju) & PARTICLE != 0 => {}
            _ => break,
        }
        j -= 1;
    }
    first.map(|f| Run {
        first: f,
        last: end,
    })
}

/// Whether the gap between tokens `a` and `b` may lie inside an institution's name: blanks,
/// hyphens, quotes, an ampersand ("Foot & Ankle Associates") and a full stop after an initial
/// or a short abbreviation.
fn org_gap(text: &str, toks: &[Token], a: usize, b: usize) -> bool {
    let g = gap(text, toks, a, b);
    if g.contains(['\n', ',', ';', ':', '(', ')']) || g.len() > 4 {
        return false;
    }
    // A full stop after an initial or a short abbreviation in capitals ("ST. VINCENT'S", "MT.
    // AUBURN"); after a longer word in capitals it ends a sentence ("HOSPITAL WHEN STABLE. HCP").
    let t = toks[a];
    let dot_ok = t.shape == Shape::Initial
        || (t.shape == Shape::Upper && t.end - t.start <= 3)
        || one_of(text, t, &["st", "ste", "mt", "ft"]);
    g.chars().all(|c| {
        matches!(
            c,
            ' ' | '\t' | '-' | '"' | '\'' | '\u{2019}' | '\u{201c}' | '\u{201d}' | '«' | '»' | '&'
        ) || (c == '.' && dot_ok)
    })
}

/// Whether token `t` is one of `words`, in any case.
pub fn one_of(text: &str, t: Token, words: &[&str]) -> bool {
    let w = &text[t.start..t.end];
    words.iter().any(|c| c.eq_ignore_ascii_case(w))
}

fn is_connector(text: &str, t: Token) -> bool {
    one_of(text, t, ORG_CONNECTORS)
}

/// Prepositions that never sit inside an institution's name; capitalized or in capitals
/// they end it ("SEEN IN 2 WKS AT THE CHELSEA CLINIC", "ST. VINCENT'S HOSPITAL IN WORCESTER").
pub const ORG_ENDS: &[&str] = &["at", "in", "on", "to", "from", "with", "by", "into", "near"];

fn is_org_end(text: &str, t: Token) -> bool {
    one_of(text, t, ORG_ENDS)
}

/// Verbs that open a sentence with an institution or a person as their object ("Attends Little
/// Sprouts Daycare", "Called Lowell General Hospital", "BIBA Cataldo Ambulance" for brought in
/// by, "Advised ED eval"): capitalized there, they are no part of it.
pub const VERBS_BEFORE_ORG: &[&str] = &[
    "biba",
    "bibems",
    "attends",
    "attended",
    "called",
    "contacted",
    "notified",
    "faxed",
    "paged",
    "visited",
    "left",
    "joined",
    "advised",
    "instructed",
    "told",
    "reminded",
    "encouraged",
];

/// Reads the words of an institution name after its head word(s) ending at token `head_last`:
/// capitalized words, numbers ("12 de Octubre") and connectors, up to 8 words.
pub fn org_forward(m: &mut Matcher, text: &str, toks: &[Token], head_last: usize) -> Option<Run> {
    let mut last: Option<usize> = None;
    let mut words = 0;
    let mut j = head_last + 1;
    while j < toks.len() && words < 8 && org_gap(text, toks, j - 1, j) {
        let t = toks[j];
        match t.shape {
            Shape::Cap | Shape::Upper | Shape::Initial => {
                if m.single(j) & super::config::STOP != 0 || ends_value(text, toks, j) {
                    break;
                }
                // "VNA of Boston for PICC care": an abbreviation in capitals after a connector
                // and a word that is not in capitals is the sentence's.
                let connected = last.is_some_and(|l| l + 1 < j && toks[l].shape == Shape::Cap);
                if connected && t.shape == Shape::Upper {
                    break;
                }
                if is_org_end(text, t) {
                    break;
                }
                last = Some(j);
                words += 1;
            }
            // "Carney Hospital for 40 years": a number after a connector is the sentence's
            // ("12 de Octubre" opens with its number).
            Shape::Num if j == head_last + 1 || last == Some(j - 1) => {
                last = Some(j);
                words += 1;
            }
            Shape::Lower if is_connector(text, t) => {}
            _ => break,
        }
        j += 1;
    }
    last.map(|l| Run {
        first: head_last + 1,
        last: l,
    })
}

/// Reads capitalized words before a tail word at token `tail` ("Antonius" Ziekenhuis,
/// "St Mary's" Hospital), up to 5 words.
pub fn org_backward(m: &mut Matcher, text: &str, toks: &[Token], tail: usize) -> Option<Run> {
    let mut first = None;
    let mut words = 0;
    // The "of" read through last, and whether the words before it are a person's.
    let mut connector = None;
    let mut person = false;
    let mut j = tail;
    while j > 0 && words < 5 && org_gap(text, toks, j - 1, j) {
        let k = j - 1;
        let t = toks[k];
        // "St Mary's", and "ST. VINCENT'S" in capitals.
        let possessive = matches!(&text[t.start..t.end], "s" | "S")
            && k > 0
            && matches!(gap(text, toks, k - 1, k), "'" | "\u{2019}");
        match t.shape {
            Shape::Cap | Shape::Upper => {
                let bits = m.single(k);
                // "Dr. Ifeoma Chukwu of Codman Square Health Center": a titled or listed name
                // before the connector is a person of the institution.
                if connector.is_some() && bits & (TITLE | FIRSTN | SURN) != 0 {
                    person = true;
                }
                // "St" is a street word but also opens "St Mary's Hospital"; the patient's
                // word opens a sentence ("Pt BIBA Cataldo Ambulance"), and so does a staff or
                // relative's word ("Sponsor Novagen Therapeutics"; not "Children's Hospital").
                let role_opens = bits & (G_DOC | G_REL) != 0
                    && crate::recognize::lookup::sentence_start(text, toks, k)
                    && !matches!(gap(text, toks, k, k + 1), "'" | "\u{2019}");
                if bits & BREAKS & !super::config::STOP != 0 || bits & G_PAT != 0 || role_opens {
                    break;
                }
                // "Medicare and Tufts Health Plan": an allow-listed word joined by a connector
                // is another name, a program or a term.
                if bits & super::config::ALLOWW != 0
                    && k + 1 < tail
                    && is_connector(text, toks[k + 1])
                {
                    break;
                }
                // The article before a name is the sentence's ("AT THE PINE STREET INN"); so
                // are "via", "until" and "about" ("ARRIVED VIA AMBULANCE", "CPR BY WIFE UNTIL
                // EMS", "ASKS ABOUT HOSPICE"). Not "for", which may follow the name ("GO TO
                // YOUVILLE FOR REHAB") or sit in it ("Hospital for Special Surgery"), nor "vs"
                // between two ("RADIUS VS YOUVILLE REHAB").
                if is_org_end(text, t)
                    || one_of(text, t, &["the", "via", "until", "about"])
                    || one_of(text, t, VERBS_BEFORE_ORG)
                {
                    break;
                }
                // "OSH RECORDS AND CD OF IMAGING": a connector right before the tail word
                // opens no name in capitals either; in mixed case it is read only inside one.
                // Not "for", after the name the sentence names ("YOUVILLE FOR REHAB" above).
                if k + 1 == tail && is_connector(text, t) && !one_of(text, t, &["for"]) {
                    break;
                }
                first = Some(k);
                words += 1;
            }
            _ if possessive => {}
            Shape::Lower if first.is_some() && is_connector(text, t) => {
                // Not "and": "Brigham and Women's Hospital" opens with a surname.
                if one_of(text, t, &["of"]) {
                    connector = Some(k);
                }
            }
            _ => break,
        }
        j -= 1;
    }
    // "Dr. Ifeoma Chukwu of ...": the title before the run, past its full stop.
    let titled = |f: usize| f > 0 && m.single(f - 1) & TITLE != 0;
    if connector.is_some() && (person || first.is_some_and(titled)) {
        first = connector.map(|c| c + 1);
    }
    first.map(|f| Run {
        first: f,
        last: tail,
    })
}
