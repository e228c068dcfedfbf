//! Table-driven checks of the gazetteer recognizer in all five languages.

use super::*;
use crate::labels::Subtype;

/// Finds in `text` with the built-in lists of `lang`: (surface, subtype) per entity.
fn run(lang: Lang, text: &str) -> Vec<(String, Option<Subtype>)> {
    let r = LookupRecognizer::new(lang, &ListSources::default()).expect("lists load");
    let mut out = Vec::new();
    r.find(text, &mut out);
    out.iter()
        .map(|e| (text[e.start..e.end].to_string(), e.label.subtype))
        .collect()
}

/// Language, text, expected (surface, subtype) pairs.
type Case<'a> = (Lang, &'a str, &'a [(&'a str, Subtype)]);

fn has(found: &[(String, Option<Subtype>)], surface: &str, sub: Subtype) -> bool {
    found.iter().any(|(s, t)| s == surface && *t == Some(sub))
}

#[test]
fn finds_names_and_places_in_each_language() {
    use Subtype::*;
    let cases: &[Case] = &[
        (
            Lang::Es,
            "Acude con su amigo Javier Ortega desde Santiago de Compostela (España).",
            &[
                ("Javier", Patient),
                ("Ortega", Patient),
                ("Santiago de Compostela", City),
                ("España", Country),
            ],
        ),
        (
            Lang::Es,
            "Trasladada al Hospital Universitario La Paz desde A Coruña.",
            &[
                ("Hospital Universitario La Paz", Hospital),
                ("A Coruña", City),
            ],
        ),
        (
            Lang::Nl,
            "Gezien samen met Pieter de Vries uit Utrecht, Nederland.",
            &[
                ("Pieter", Patient),
                ("de Vries", Patient),
                ("Nederland", Country),
            ],
        ),
        (
            Lang::Hu,
            "A beteget Kovács János kísérte Debrecenből Budapestre.",
            &[
                ("Kovács", Patient),
                ("János", Patient),
                ("Debrecenből", City),
                ("Budapestre", City),
            ],
        ),
        (
            Lang::It,
            "Accompagnato da Giulia De Luca, residente a Bologna, Italia.",
            &[
                ("Giulia", Patient),
                ("De Luca", Patient),
                ("Bologna", City),
                ("Italia", Country),
            ],
        ),
        (
            Lang::En,
            "Seen with Margaret Thompson, who lives in Leeds, United Kingdom.",
            &[
                ("Margaret", Patient),
                ("Thompson", Patient),
                ("Leeds", City),
                ("United Kingdom", Country),
            ],
        ),
    ];
    for (lang, text, want) in cases {
        let found = run(*lang, text);
        for (surface, sub) in *want {
            assert!(
                has(&found, surface, *sub),
                "{lang}: expected {surface} as {sub:?} in {found:?}"
            );
        }
    }
}

#[test]
fn medical_collisions_and_shapes_are_left_alone() {
    let cases: &[(Lang, &str)] = &[
        (Lang::Es, "Diagnosticado de enfermedad de Parkinson y síndrome de Down; escala de Glasgow 15, signo de Babinski negativo."),
        (Lang::Es, "Serología: ANA negativos, ELISA negativa; EVA 3 sobre 10."),
        (Lang::Es, "madrid y garcía en minúsculas no son nombres."),
        (Lang::Nl, "Bekend met de ziekte van Crohn en de ziekte van Alzheimer."),
        (Lang::Hu, "Parkinson-kór miatt kezelt, Down szindróma nem ismert."),
        (Lang::It, "Affetto da morbo di Parkinson, scala di Glasgow 14."),
        (Lang::En, "Known Parkinson's disease; Glasgow Coma Scale 15; Babinski sign absent."),
        // Clinical words that the open name lists also hold as given names.
        (Lang::En, "Echo done today. Art line placed. Brady to 40s, Dex off."),
        // A ward named by its floor and a compass word.
        (Lang::En, "Donor recovering on 7 West, transfer to 4 North."),
    ];
    for (lang, text) in cases {
        let found = run(*lang, text);
        assert!(found.is_empty(), "{lang}: unexpected {found:?} in {text}");
    }
}

#[test]
fn in_capitals_a_verb_after_a_first_name_is_the_verb() {
    let text = "WIFE JOAN MAY VISIT. SON JOHN WILL CALL. JOHN WILL GARCIA.";
    let found: Vec<String> = run(Lang::En, text).into_iter().map(|(s, _)| s).collect();
    // Before a name it is a part of one (the parts are joined downstream).
    assert_eq!(found, ["JOAN", "JOHN", "JOHN", "WILL", "GARCIA"]);
}

#[test]
fn a_lone_name_before_a_dose_or_drip_is_a_drug() {
    let found = run(
        Lang::En,
        "Neo gtt weaned off. Neo called her mother at 2100.",
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(run(Lang::En, "Mary called at 2100, Mary 2 visits.").len() == 2);
}

#[test]
fn allow_listed_word_next_to_a_name_is_kept() {
    let found = run(Lang::En, "Referred to Mark James Parkinson last week.");
    assert!(found.iter().any(|(s, _)| s == "Parkinson"), "{found:?}");
    // After a surname alone it is the term that follows the name.
    let found = run(Lang::En, "Baby Boy Nakamura Apgars 7/9 at delivery.");
    assert!(
        !found.iter().any(|(s, _)| s.contains("Apgars")),
        "{found:?}"
    );
    // So is one that no name list holds, in capitals after a first name before a reading.
    let found = run(Lang::En, "BABY MAVERICK BILI 14.2 AT 48 HRS.");
    assert!(found.iter().any(|(s, _)| s == "MAVERICK"), "{found:?}");
    assert!(!found.iter().any(|(s, _)| s.contains("BILI")), "{found:?}");
}

#[test]
fn home_medical_suppliers_are_institutions() {
    let found = run(Lang::En, "Supplies from Apria, pump rented from Medela.");
    assert!(has(&found, "Apria", Subtype::Organization), "{found:?}");
    assert!(has(&found, "Medela", Subtype::Organization), "{found:?}");
}

#[test]
fn a_title_or_role_word_opens_no_name() {
    let found = run(Lang::En, "FULL CODE PER HCP, NEPHEW RAYMOND OUELLETTE.");
    let words: Vec<&str> = found.iter().map(|(s, _)| s.as_str()).collect();
    assert!(!words.contains(&"NEPHEW"), "{found:?}");
    assert!(words.contains(&"RAYMOND"), "{found:?}");
    // After a name part a role word that is also a surname stays in the name.
    let found = run(Lang::En, "Seen with Ruth Pastor at the clinic.");
    assert!(found.iter().any(|(s, _)| s == "Pastor"), "{found:?}");
}

#[test]
fn eponym_heads_hide_names_not_places() {
    use Subtype::*;
    let cases: &[Case] = &[
        (Lang::Es, "Líquido libre en la bolsa de Douglas.", &[]),
        (
            Lang::Es,
            "Trabaja en la bolsa de Madrid.",
            &[("Madrid", City)],
        ),
        (Lang::Es, "Puntuación en la escala de Glasgow de 15.", &[]),
        // English eponyms go before their word, with or without a possessive.
        (Lang::En, "IR removed the Hickman line today.", &[]),
        (
            Lang::En,
            "Positive for Murphy's sign and Homans' sign.",
            &[],
        ),
        (
            Lang::En,
            "Then Swan-Ganz placed, then Lyme disease ruled out in Boston.",
            &[("Boston", City)],
        ),
        // A title keeps the name; a word that goes on is no tail ("sign-out").
        (Lang::En, "Then Nguyen line placed, Walsh disease.", &[]),
        // The tail word is no surname of its own after the word it closes.
        (
            Lang::En,
            "PT TRIED TO ELOPE THROUGH SALLY PORT AT 1630.",
            &[],
        ),
        (Lang::En, "Rogers guardianship in place.", &[]),
        (
            Lang::En,
            "Seen by Dr Nguyen's line of residents, Walsh sign-out at 7.",
            &[("Nguyen", Patient), ("Walsh", Patient)],
        ),
    ];
    for (lang, text, want) in cases {
        let found = run(*lang, text);
        let want: Vec<(String, Option<Subtype>)> = want
            .iter()
            .map(|(s, t)| (s.to_string(), Some(*t)))
            .collect();
        assert_eq!(found, want, "{lang}: {text}");
    }
}

#[test]
fn institutions_listed_in_capitals_match_only_in_capitals() {
    let found = run(Lang::En, "Reported to the FDA in March.");
    assert!(has(&found, "FDA", Subtype::Organization), "{found:?}");
    let found = run(Lang::En, "Fda approval is pending.");
    assert!(found.is_empty(), "{found:?}");
    // `WHO` is not listed: in an all-caps note it is the pronoun.
    let found = run(Lang::En, "DAUGHTER WHO STATES PT WAS WELL.");
    assert!(!found.iter().any(|(s, _)| s == "WHO"), "{found:?}");
    assert!(is_acronym("GGD") && is_acronym("AMC-UvA".to_uppercase().as_str()));
    assert!(!is_acronym("Who") && !is_acronym("X"));
}

#[test]
fn listed_institutions_may_end_in_a_possessive_and_hold_no_name() {
    let found = run(Lang::En, "Transferred from Brigham and Women's on 4/12.");
    assert!(
        has(&found, "Brigham and Women's", Subtype::Hospital),
        "{found:?}"
    );
    // The unit after a hospital is no first name ("Ed").
    let found = run(Lang::En, "Transferred from Mass General ED.");
    assert_eq!(
        found,
        [("Mass General".to_string(), Some(Subtype::Hospital))]
    );
    // A lower-case `s` after no apostrophe ends no phrase.
    let found = run(Lang::En, "Brigham and Women s");
    assert!(!has(&found, "Brigham and Women s", Subtype::Hospital));
}

#[test]
fn a_compass_word_before_a_town_names_its_part() {
    for (text, part) in [
        ("Lives in East Boston with wife.", "East Boston"),
        ("FROM SOUTH BOSTON.", "SOUTH BOSTON"),
        ("From S. Boston.", "S. Boston"),
    ] {
        let found = run(Lang::En, text);
        assert!(has(&found, part, Subtype::City), "{text}: {found:?}");
    }
    for (text, town) in [
        ("Went south Boston way.", "Boston"),
        ("Pt's Boston home", "Boston"),
        ("Heading south. Boston next.", "Boston"),
    ] {
        let found = run(Lang::En, text);
        assert!(has(&found, town, Subtype::City), "{text}: {found:?}");
    }
}

#[test]
fn gazetteer_towns_are_cities_but_no_tagger_feature() {
    use Subtype::City;
    let cases: &[Case] = &[
        (
            Lang::En,
            "Lives alone in Brockton. SON IN FRAMINGHAM.",
            &[("Brockton", City), ("FRAMINGHAM", City)],
        ),
        (
            Lang::It,
            "Residente a Gubbio, ricoverata.",
            &[("Gubbio", City)],
        ),
        (
            Lang::Nl,
            "Woont in Wezep bij zijn dochter.",
            &[("Wezep", City)],
        ),
    ];
    for (lang, text, want) in cases {
        let found = run(*lang, text);
        for (surface, sub) in want.iter() {
            assert!(has(&found, surface, *sub), "{lang:?} {text}: {found:?}");
        }
    }
    // Ordinary words the dictionaries know are left out of the gazetteer, in any case.
    for text in ["Mold noted. Union of fracture.", "MOLD NOTED. APEX CLEAR."] {
        assert!(run(Lang::En, text).is_empty(), "{text}");
    }
    // The countries of the open gazetteer (English) are countries, and no tagger feature
    // either.
    let text = "Emigrated from Haiti; son in the Dominican Republic.";
    let found = run(Lang::En, text);
    for surface in ["Haiti", "Dominican Republic"] {
        assert!(has(&found, surface, Subtype::Country), "{text}: {found:?}");
    }
    let r = LookupRecognizer::new(Lang::En, &ListSources::default()).unwrap();
    let mut buf = String::new();
    assert_eq!(r.word_lists("Haiti", &mut buf), 0);
    assert_eq!(r.word_lists("Brockton", &mut buf), 0);
    assert_ne!(r.word_lists("Boston", &mut buf) & 4, 0, "a listed city is");
}

#[test]
fn a_country_in_two_capitals_needs_a_word_that_places_it() {
    let found = run(Lang::En, "Originally from Cape Verde, moved to US in 1988.");
    assert!(has(&found, "US", Subtype::Country), "{found:?}");
    let found = run(Lang::En, "Back from the UK last week.");
    assert!(has(&found, "UK", Subtype::Country), "{found:?}");
    // Elsewhere "US" is an ultrasound.
    for text in [
        "RUQ US showed sludge.",
        "CVL placed under US guidance.",
        "US of the liver.",
    ] {
        assert!(
            run(Lang::En, text).is_empty(),
            "{text}: {:?}",
            run(Lang::En, text)
        );
    }
    // Other languages keep their codes wherever they stand ("VS").
    let found = run(Lang::Nl, "Zoon woont sinds 2010 in VS.");
    assert!(has(&found, "VS", Subtype::Country), "{found:?}");
}

#[test]
fn a_unit_in_capitals_after_a_name_or_hospital_is_no_part_of_it() {
    use Subtype::*;
    let found = run(
        Lang::En,
        "Seen at Dana-Farber ED, then Beth Israel ICU. MGH and BWH aware.",
    );
    let surfaces: Vec<&str> = found.iter().map(|(s, _)| s.as_str()).collect();
    assert_eq!(
        surfaces,
        ["Dana-Farber", "Beth Israel", "MGH", "BWH"],
        "{found:?}"
    );
    assert!(found.iter().all(|(_, t)| *t == Some(Hospital)), "{found:?}");
    // A surname and a short word in capitals are no name of two parts.
    let found = run(Lang::En, "Seen in Farber ED today.");
    assert!(found.iter().all(|(s, _)| !s.contains("ED")), "{found:?}");
    // The hospitals' acronyms match only in capitals.
    assert!(run(Lang::En, "bmc level checked").is_empty());
}

#[test]
fn listed_institutions_in_a_line_without_capitals() {
    let found = run(
        Lang::En,
        "meds filled at cvs. she works at market basket, stays at rosie's place.",
    );
    let surfaces: Vec<&str> = found.iter().map(|(s, _)| s.as_str()).collect();
    assert_eq!(
        surfaces,
        ["cvs", "market basket", "rosie's place"],
        "{found:?}"
    );
    // Words all in capitals, abbreviations and codes, leave a line without capitalized words.
    let found = run(
        Lang::En,
        "to ALS unit, insurance tufts health plan, auth # TH992041. filled at cvs.",
    );
    let surfaces: Vec<&str> = found.iter().map(|(s, _)| s.as_str()).collect();
    assert_eq!(surfaces, ["tufts health plan", "cvs"], "{found:?}");
    // Not where the line has a capitalized word, nor in Dutch; a hospital's acronym or a
    // hospital that is a surname too only after a place's preposition.
    assert!(run(Lang::En, "Filled at cvs today.").is_empty());
    assert!(run(Lang::En, "CXR done. Meds filled at cvs.").is_empty());
    assert!(run(Lang::Nl, "de ing bank belde").is_empty());
    for (text, hospital) in [
        ("transferred from bmc today", "bmc"),
        ("sleep study at lahey showed osa", "lahey"),
    ] {
        let found = run(Lang::En, text);
        assert!(
            has(&found, hospital, Subtype::Hospital),
            "{text}: {found:?}"
        );
    }
    let found = run(Lang::En, "bmc checked, lahey aware");
    assert!(
        found.iter().all(|(_, t)| *t != Some(Subtype::Hospital)),
        "{found:?}"
    );
}

#[test]
fn scales_named_after_a_place_are_no_places() {
    for text in [
        "MoCA 21/30 (Montreal Cognitive Assessment) today",
        "Rancho Los Amigos level V, GOAT 62",
        "Galveston Orientation and Amnesia Test 78",
    ] {
        let found = run(Lang::En, text);
        assert!(found.is_empty(), "{text}: {found:?}");
    }
    assert!(!run(Lang::En, "Moved here from Montreal in May.").is_empty());
}
