//! Staff named beside their role where no trigger reads them (English nursing notes): before a
//! role written after the name ("Tamsin, RN", "DEIRDRE RN", "JOCASTA (SLP)") and alone in
//! parentheses after a service or team ("cards (Rourke)", "MICU team (Fenwick)"). The roles and
//! team words are `ROLE_AFTER` and `TEAM` entries of the language's `name_triggers.txt`.
//! Relatives too, before their relation alone in parentheses ("asked for Sage (daughter)").

use super::config::{
    is_open_surname, ALLOWW, BREAKS, FIRSTN, FOREIGN, G_DOC, G_REL, ROLE_AFTER, STOP, SURN,
    SURN_OPEN, SURN_WORD, TEAM, TRIGGER, T_DOC,
};
use super::one_case_names::plain_word;
use super::runs::Run;
use super::{capitalized_on_line, name_label, Ctx, S_TITLE};
use crate::labels::Subtype;
use crate::recognize::lookup::tokens::{FxMap, Shape};

const SOURCE: &str = "context:staff";

/// Whether a word's `bits` make it a listed name that is no ordinary word, title or term.
fn listed_name(bits: u32) -> bool {
    bits & (BREAKS | TRIGGER | ALLOWW | SURN_WORD) == 0
        && (bits & (FIRSTN | SURN) != 0 || is_open_surname(bits))
}

/// Whether a word's `bits` make it a listed first name, ordinary word or not ("Maria"), and no
/// title, trigger or term.
fn is_first_name(bits: u32) -> bool {
    bits & FIRSTN != 0 && bits & (BREAKS | TRIGGER | ALLOWW) == 0
}

/// Adds the names of staff written beside their role and of relatives before their relation;
/// `ordinary`: the language's ordinary words (folded), where it ships them; `name_words`: the
/// first names that are ordinary words (`first_name_words.txt`, folded).
pub(super) fn names_beside_roles(
    c: &mut Ctx,
    ordinary: Option<&FxMap<String, ()>>,
    name_words: &FxMap<String, ()>,
) {
    let (text, toks) = (c.text, c.toks);
    for k in 1..toks.len() {
        if let Some(run) = name_before_relation(c, k - 1, name_words) {
            c.push_run(run, name_label(Subtype::Relative), SOURCE, S_TITLE);
        }
        let gap = &text[toks[k - 1].end..toks[k].start];
        let run = if role_after(c, k - 1) {
            name_before_role(c, k - 1, gap == ", ", ordinary)
        } else if role_in_parentheses_after(c, k - 1) {
            // In capitals the parentheses close the role off as a comma does ("BY JOCASTA
            // (SLP)"); in mixed case the name must be listed ("Seen by Speech (SLP)" is none).
            let caps = toks[k - 1].shape == Shape::Upper;
            name_before_role(c, k - 1, caps, ordinary)
        } else if matches!(gap, " " | ", ") && lower_case_role(c, k) {
            initial_and_surname_before(c, k - 1)
                .or_else(|| name_before_role(c, k - 1, false, ordinary))
        } else if gap.ends_with('(')
            && text[toks[k].end..].starts_with(')')
            && toks[k].shape.is_proper()
            && after_team_word(c, k - 1)
            && (listed_name(c.m.single(k)) || rare_first_name(c, k, ordinary))
        {
            Some(Run { first: k, last: k })
        } else {
            None
        };
        if let Some(run) = run {
            c.push_run(run, name_label(Subtype::Doctor), SOURCE, S_TITLE);
        }
    }
}

/// The name ending at token `j` when a relative's word alone in parentheses follows it ("asked
/// for Sage (daughter)", "CALLING OUT FOR SUMMER (GIRLFRIEND)", "marisol (wife)"): a listed
/// first name or one that is an ordinary word (`name_words`; the relation says which it is),
/// with a listed first name of the same case right before it.
fn name_before_relation(c: &mut Ctx, j: usize, name_words: &FxMap<String, ()>) -> Option<Run> {
    let (text, toks) = (c.text, c.toks);
    let k = j + 1;
    if k >= toks.len()
        || &text[toks[j].end..toks[k].start] != " ("
        || !text[toks[k].end..].starts_with(')')
        || c.m.single(k) & G_REL == 0
    {
        return None;
    }
    let bits = c.m.single(j);
    let word = &text[toks[j].start..toks[j].end];
    let first_name = bits & FIRSTN != 0 || name_words.contains_key(c.words.folded(j));
    if !first_name || bits & (BREAKS | TRIGGER) != 0 || !word.chars().all(char::is_alphabetic) {
        return None;
    }
    let first = match j.checked_sub(1) {
        Some(i)
            if toks[i].shape == toks[j].shape
                && &text[toks[i].end..toks[j].start] == " "
                && is_first_name(c.m.single(i)) =>
        {
            i
        }
        _ => j,
    };
    Some(Run { first, last: j })
}

/// Whether a staff role follows token `j` after a blank or a comma ("Tamsin, RN", "Costa RN").
/// A role after a name is written in capitals ("RN"; "rn" is no evidence).
pub(super) fn role_after(c: &mut Ctx, j: usize) -> bool {
    let k = j + 1;
    k < c.toks.len()
        && c.toks[k].shape == Shape::Upper
        && matches!(&c.text[c.toks[j].end..c.toks[k].start], " " | ", ")
        && c.m.single(k) & ROLE_AFTER != 0
}

/// Whether a staff role's abbreviation in capitals stands alone in parentheses after token `j`
/// ("MEAL SUPPORT BY KENZIE (MHW)", "ELECTROLARYNX TRAINING BY JOCASTA (SLP)"): a credential
/// or a staff word of two to five capitals.
fn role_in_parentheses_after(c: &mut Ctx, j: usize) -> bool {
    let k = j + 1;
    k < c.toks.len()
        && c.toks[k].shape == Shape::Upper
        && (2..=5).contains(&(c.toks[k].end - c.toks[k].start))
        && &c.text[c.toks[j].end..c.toks[k].start] == " ("
        && c.text[c.toks[k].end..].starts_with(')')
        && c.m.single(k) & (ROLE_AFTER | G_DOC) != 0
}

/// Whether token `k` is a staff role in lower case that ends its line, clause or parentheses,
/// on a line without capitals ("-- k. walsh, rn", "t. nguyen rn\n", "(wilhelmina rn)"): a
/// signature's.
fn lower_case_role(c: &mut Ctx, k: usize) -> bool {
    if c.toks[k].shape != Shape::Lower || c.m.single(k) & ROLE_AFTER == 0 {
        return false;
    }
    let rest = c.text[c.toks[k].end..].trim_start_matches([' ', '\t', '\r']);
    (rest.is_empty() || rest.starts_with(['\n', ',', '.', ';', ')']))
        && !capitalized_on_line(c.text, c.toks, k)
}

/// An initial and a surname in lower case ending at token `j` ("t. nguyen", "m.
/// delacroix-haynes"): a single letter and its full stop, then words of letters joined by
/// hyphens.
fn initial_and_surname_before(c: &mut Ctx, j: usize) -> Option<Run> {
    let (text, toks) = (c.text, c.toks);
    let mut first = j;
    while first > 0 && &text[toks[first - 1].end..toks[first].start] == "-" {
        first -= 1;
    }
    let initial = first.checked_sub(1)?;
    let letter = &text[toks[initial].start..toks[initial].end];
    let word_ok = (first..=j).all(|w| {
        toks[w].shape == Shape::Lower
            && text[toks[w].start..toks[w].end]
                .chars()
                .all(char::is_alphabetic)
    });
    (word_ok
        && letter.chars().count() == 1
        && toks[initial].shape == Shape::Lower
        && &text[toks[initial].end..toks[first].start] == ". "
        && text[toks[first].start..toks[j].end].chars().count() >= 3
        && c.m.single(first) & (BREAKS | TRIGGER) == 0)
        .then_some(Run {
            first: initial,
            last: j,
        })
}

/// The name that ends at token `j` before a role. Without a comma between them the word must
/// be a listed name, an allow-listed word or not ("Charge RN", "Night RN" are roles); with one
/// ("Tamsin, RN") a capitalized word in mixed case is one too, and in capitals a word of
/// letters that no list holds and that is no ordinary word (`ordinary`; "REPORT GIVEN TO DAGNY,
/// RN"; a first name of another language or a rare one counts as none). A first name right
/// before it, in the same case, joins it.
fn name_before_role(
    c: &mut Ctx,
    j: usize,
    comma: bool,
    ordinary: Option<&FxMap<String, ()>>,
) -> Option<Run> {
    let toks = c.toks;
    let shape = toks[j].shape;
    let bits = c.m.single(j);
    let word = &c.text[toks[j].start..toks[j].end];
    let letters = word.chars().count();
    let word_of_letters = letters >= 3 && word.chars().all(char::is_alphabetic);
    // In a line without capitals, a listed first name that is no ordinary word ("called to me
    // (wilhelmina rn)"; not "charge rn", "mark rn").
    let lower_listed = shape == Shape::Lower
        && listed_name(bits)
        && bits & FIRSTN != 0
        && word_of_letters
        && ordinary.is_some_and(|o| !o.contains_key(c.words.folded(j)))
        && !capitalized_on_line(c.text, toks, j);
    // Two capitals are a unit's abbreviation ("report from ED RN", "OR RN"), no name.
    if !(shape.is_proper() || lower_listed) || shape == Shape::Upper && letters < 3 {
        return None;
    }
    let unlisted_caps = comma
        && shape == Shape::Upper
        && bits & !(SURN_OPEN | FOREIGN) == 0
        && word_of_letters
        && ordinary.is_some_and(|o| !o.contains_key(c.words.folded(j)));
    // A listed first name that is an allow-listed word too ("witnessed by Mark RN").
    let allowed_first_name =
        bits & FIRSTN != 0 && bits & (BREAKS | TRIGGER) == 0 && word_of_letters;
    // Past the test above, a word in lower case is `lower_listed`.
    let name = shape == Shape::Lower
        || listed_name(bits)
        || allowed_first_name
        || comma && shape == Shape::Cap && bits & (BREAKS | TRIGGER | ALLOWW) == 0
        || unlisted_caps
        || rare_first_name(c, j, ordinary);
    if !name {
        return None;
    }
    let first = match j.checked_sub(1) {
        Some(i)
            if toks[i].shape == shape
                && &c.text[toks[i].end..toks[j].start] == " "
                && is_first_name(c.m.single(i)) =>
        {
            i
        }
        _ => j,
    };
    Some(Run { first, last: j })
}

/// Whether token `j` is a rare or foreign first name (`FOREIGN`) of five letters or more that
/// is no ordinary word, title or term ("REPORT TO SOLVEIG RN", "IV team (Oswin)"): shorter ones
/// are abbreviations as often ("NICU RN").
fn rare_first_name(c: &mut Ctx, j: usize, ordinary: Option<&FxMap<String, ()>>) -> bool {
    c.m.single(j) & FOREIGN != 0
        && c.text[c.toks[j].start..c.toks[j].end].chars().count() >= 5
        && ordinary.is_some_and(|o| plain_word(c, j, o))
}

/// Whether token `j` is a service, team or doctor's word ("cards", "MICU team", "fellow"):
/// a `TEAM` word, or a `STOP` word (the services, "MD") or a doctor's trigger or title.
fn after_team_word(c: &mut Ctx, j: usize) -> bool {
    c.m.single(j) & (TEAM | STOP | G_DOC | T_DOC) != 0
}

#[cfg(test)]
mod tests {
    fn names(text: &str) -> Vec<String> {
        crate::recognize::context::tests::english_by_source(text, super::SOURCE)
    }

    #[test]
    fn names_before_a_role_after_them() {
        assert_eq!(
            names("Report called to Tamsin, RN on the floor."),
            ["Tamsin"]
        );
        assert_eq!(names("REPORT GIVEN TO DEIRDRE RN."), ["DEIRDRE"]);
        assert_eq!(names("Seen by Maria Lopez, NP."), ["Maria Lopez"]);
        // A rare first name of five letters or more, in either case; not a shorter one.
        assert_eq!(names("REPORT TO SOLVEIG RN AT 0700."), ["SOLVEIG"]);
        assert_eq!(names("Report given to Solveig RN."), ["Solveig"]);
        assert!(names("REPORT TO NICU RN.").is_empty());
        // A credential after the name is a role, no institution's acronym after a signer.
        assert_eq!(
            names("Seen with Marisa Delacroix, CWOCN. Photo in chart."),
            ["Marisa Delacroix"]
        );
        let after_title = "Seen with WOC nurse Brennan O'Hare, CWOCN. Photo in chart.";
        let by_signature =
            crate::recognize::context::tests::english_by_source(after_title, "context:signature");
        assert!(by_signature.is_empty(), "{by_signature:?}");
        // A listed first name that is an allow-listed word too, but no unit's abbreviation.
        assert_eq!(names("Consent witnessed by Mark RN."), ["Mark"]);
        assert!(names("Report from ED RN. OR RN aware.").is_empty());
        for role in [
            "Charge RN aware.",
            "Report to night RN.",
            "ICU RN notified.",
            "Pt, RN",
        ] {
            assert!(names(role).is_empty(), "{role}");
        }
    }

    #[test]
    fn names_before_a_role_alone_in_parentheses() {
        assert_eq!(
            names("MEAL SUPPORT BY KENZIE (MHW), PT ATE 75%."),
            ["KENZIE"]
        );
        assert_eq!(
            names("ELECTROLARYNX TRAINING BY JOCASTA (SLP). SUPPLIES ORDERED."),
            ["JOCASTA"]
        );
        assert_eq!(names("Meal support by Kenzie (MHW) today."), ["Kenzie"]);
        // An ordinary word before it is none, nor an unlisted word in mixed case.
        for text in [
            "DISCUSSED WITH FAMILY (RN) AND MD.",
            "PAIN (RN) ASSESSED",
            "Training by Jocasta (SLP) done.",
        ] {
            assert!(names(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn names_before_a_relation_in_parentheses() {
        for (text, want) in [
            ("Pt asked for Sage (daughter) overnight.", "Sage"),
            ("PT CALLING OUT FOR SUMMER (GIRLFRIEND) AGAIN.", "SUMMER"),
            ("asked for marisol (wife) and tea.", "marisol"),
            ("Called Mary Kate (daughter) at 1900.", "Mary Kate"),
        ] {
            assert_eq!(names(text), [want], "{text}");
        }
        for other in [
            "Report to floor (daughter aware).",
            "Pt asked for tea (daughter brought it).",
            "Spoke with Dr. Lee (cardiology).",
        ] {
            assert!(names(other).is_empty(), "{other}");
        }
    }

    #[test]
    fn an_initial_and_a_surname_before_a_role_sign_a_note_without_capitals() {
        assert_eq!(names("pt resting. -- p. okoro, rn"), ["p. okoro"]);
        assert_eq!(
            names("is 750. d. pereira-lund rn\nnext note"),
            ["d. pereira-lund"]
        );
        // The role must end its clause, on a line without capitals, after an initial.
        assert!(names("p. okoro rn will follow up").is_empty());
        assert!(names("Seen by Kessler. p. okoro rn").is_empty());
        assert!(names("report to okoro rn").is_empty());
        // Or a listed first name that is no ordinary word, before the role.
        assert_eq!(
            names("k 5.1 called to me (wilhelmina rn) at 1810"),
            ["wilhelmina"]
        );
        assert_eq!(names("report given to wilhelmina rn."), ["wilhelmina"]);
        for other in [
            "report to charge rn.",
            "witnessed by mark rn.",
            "Pt Resting In Chair, wilhelmina rn.",
        ] {
            assert!(names(other).is_empty(), "{other}");
        }
    }

    #[test]
    fn names_alone_in_parentheses_after_a_service() {
        assert_eq!(names("EKG done, cards (Rourke) aware."), ["Rourke"]);
        assert_eq!(names("MICU team (Fenwick) aware of temp."), ["Fenwick"]);
        assert_eq!(names("new 20g placed by IV team (Oswin)."), ["Oswin"]);
        assert_eq!(
            names("Dr. Karamanlis's office (Nancy) notified."),
            ["Nancy"]
        );
        for other in [
            "Psych (Consult) following.",
            "Started on heparin (Lovenox).",
            "Pt (Fenwick)",
        ] {
            assert!(names(other).is_empty(), "{other}");
        }
    }
}
