//! Table-driven checks of the context rules in all five languages.

use super::*;

fn run(lang: Lang, text: &str) -> Vec<(String, Label, String)> {
    let r = ContextRecognizer::new(lang, &ListSources::default()).expect("lists load");
    let mut out = Vec::new();
    r.find(text, &mut out);
    out.iter()
        .map(|e| (text[e.start..e.end].to_string(), e.label, e.source.clone()))
        .collect()
}

/// The surfaces of the spans that the English context rules find in `text` by `source` (the
/// checks of one rule module).
pub(super) fn english_by_source(text: &str, source: &str) -> Vec<String> {
    run(Lang::En, text)
        .into_iter()
        .filter(|(_, _, s)| s == source)
        .map(|(surface, _, _)| surface)
        .collect()
}

/// Language, text, expected (surface, label) pairs.
type Case<'a> = (Lang, &'a str, &'a [(&'a str, &'a str)]);

fn label(s: &str) -> Label {
    Label::parse(s).expect("test label parses")
}

/// The surfaces of the NAME spans the English context rules find in `text`, each once where
/// two rules find the same name.
fn names(text: &str) -> Vec<String> {
    let mut found: Vec<String> = run(Lang::En, text)
        .into_iter()
        .filter(|(_, l, _)| l.category == Category::Name)
        .map(|(s, _, _)| s)
        .collect();
    found.dedup();
    found
}

#[test]
fn context_rules_in_each_language() {
    let cases: &[Case] = &[
        (Lang::Es, "Nombre: Ernesto.\nApellidos: Rivera Bueno.\nLocalidad/ Provincia: Tolosa, Gipuzkoa.\nPaís: España.\nMédico: Ignacio Navarro Cuéllar NºCol: 28 28 70973.",
            &[("Ernesto", "NAME/PATIENT"), ("Rivera Bueno", "NAME/PATIENT"), ("Tolosa", "LOCATION/CITY"), ("Gipuzkoa", "LOCATION/CITY"), ("España", "LOCATION/COUNTRY"), ("Ignacio Navarro Cuéllar", "NAME/DOCTOR")]),
        (Lang::Es, "Remitido por: Dra. María José de la Fuente Unidad de Cirugía, Hospital Clínico San Carlos, 28040 Madrid.",
            &[("María José de la Fuente", "NAME/DOCTOR"), ("Hospital Clínico San Carlos", "LOCATION/HOSPITAL"), ("Madrid", "LOCATION/CITY")]),
        (Lang::Es, "Valorado por el Dr. Pérez Gallardo y por J. García en el Complejo Hospitalario de Navarra. Su madre refiere dolor.",
            &[("Pérez Gallardo", "NAME/DOCTOR"), ("J. García", "NAME/PATIENT"), ("Complejo Hospitalario de Navarra", "LOCATION/HOSPITAL"), ("madre", "NAME/RELATIVE")]),
        (Lang::Es, "Varón de 40 años, de profesión albañil, trabaja en la Universidad de Granada.",
            &[("albañil", "PROFESSION/PROFESSION"), ("Universidad de Granada", "LOCATION/ORGANIZATION")]),
        (Lang::Es, "Mujer de 51 años de edad, ama de casa, alérgica a penicilina. Varón de 70 años, carpintero. Ocupación: hogar. Remitido al Instituto Riojano del Sueño (IRSU) por insomnio.",
            &[("ama de casa", "PROFESSION/PROFESSION"), ("carpintero", "PROFESSION/PROFESSION"), ("hogar", "PROFESSION/PROFESSION"), ("Instituto Riojano del Sueño (IRSU)", "LOCATION/ORGANIZATION")]),
        (Lang::En, "Occupation: retired bus driver. Lives alone.",
            &[("retired bus driver", "PROFESSION/PROFESSION")]),
        (Lang::En, "SOCIAL: WIFE MARY CALLED, UPDATED BY DR. HENDERSON. pt seen by dr smith in cath lab.",
            &[("MARY", "NAME/RELATIVE"), ("HENDERSON", "NAME/DOCTOR"), ("smith", "NAME/DOCTOR")]),
        (Lang::En, "Seen by Dr. O'Brien and Mr. D'Angelo. Chaplain paged, Father O'Malley to visit; brother O'Connor called.",
            &[("O'Brien", "NAME/DOCTOR"), ("D'Angelo", "NAME/PATIENT"), ("O'Malley", "NAME/RELATIVE"), ("O'Connor", "NAME/RELATIVE")]),
        (Lang::Es, "Remitido por: Dr. Anselmo Quiroga Beltrán. IRMLC. Cantabria",
            &[("Anselmo Quiroga Beltrán", "NAME/DOCTOR"), ("IRMLC", "LOCATION/ORGANIZATION")]),
        (Lang::Nl, "Naam: J. de Vries\nWoonplaats: Zwolle\nBehandelend arts: dr. A.B. van den Berg\nOpgenomen in het Antonius Ziekenhuis.\n\nMet vriendelijke groet,\n\nSanne Bakker\nLogopedist",
            &[("J. de Vries", "NAME/PATIENT"), ("Zwolle", "LOCATION/CITY"), ("A.B. van den Berg", "NAME/DOCTOR"), ("Antonius Ziekenhuis", "LOCATION/HOSPITAL"), ("Sanne Bakker", "NAME/DOCTOR"), ("Logopedist", "PROFESSION/PROFESSION")]),
        (Lang::Hu, "Név: Kovács János\nAnyja neve: Szabó Mária\nKezelőorvos: dr. Nagy Péter\nA beteget a Szent János Kórházba szállították. Tóth Ilona asszony panaszmentes.\nTisztelettel:\ndr. Horváth Anna",
            &[("Kovács János", "NAME/PATIENT"), ("Szabó Mária", "NAME/RELATIVE"), ("Nagy Péter", "NAME/DOCTOR"), ("Szent János Kórházba", "LOCATION/HOSPITAL"), ("Tóth Ilona", "NAME/PATIENT"), ("Horváth Anna", "NAME/DOCTOR")]),
        (Lang::It, "Cognome: Rossi\nNome: Marco\nMedico curante: Dott.ssa Giulia Esposito\nRicoverato presso l'Ospedale San Raffaele, inviato dal Prof. Luca Bianchi.",
            &[("Rossi", "NAME/PATIENT"), ("Marco", "NAME/PATIENT"), ("Giulia Esposito", "NAME/DOCTOR"), ("Ospedale San Raffaele", "LOCATION/HOSPITAL"), ("Luca Bianchi", "NAME/DOCTOR")]),
        (Lang::En, "Patient name: John Smith\nAddress: 12 High Street\nSeen by Dr. P. J. O'Neill at St Mary's Hospital; his wife Anne attended.\nKind regards,\nEmma Clarke",
            &[("John Smith", "NAME/PATIENT"), ("12 High Street", "LOCATION/STREET"), ("P. J. O'Neill", "NAME/DOCTOR"), ("St Mary's Hospital", "LOCATION/HOSPITAL"), ("Anne", "NAME/RELATIVE"), ("Emma Clarke", "NAME/DOCTOR")]),
        // One initial and an open surname that is no word.
        (Lang::En, "Report given to K. Dunmore RN at 0700.", &[("K. Dunmore", "NAME/PATIENT")]),
        // One initial and a surname that is a word, before a staff role.
        (Lang::En, "Plan: extubate in am.\nJ. Costa RN", &[("J. Costa", "NAME/PATIENT")]),
    ];
    for (lang, text, want) in cases {
        let found = run(*lang, text);
        for (surface, lab) in *want {
            assert!(
                found
                    .iter()
                    .any(|(s, l, _)| s == surface && *l == label(lab)),
                "{lang}: expected {surface} as {lab} in {found:?}"
            );
        }
    }
}

#[test]
fn eponyms_and_descriptions_are_not_names() {
    let cases: &[(Lang, &str)] = &[
        (Lang::Es, "Paciente con enfermedad de Parkinson, escala de Glasgow 15 y signo de Babinski negativo."),
        (Lang::Es, "Informe clínico del paciente: Varón de 60 años sin antecedentes."),
        (Lang::Es, "Ingresó en el hospital por la noche; vitamina D. Tras el alta mejoró."),
        (Lang::Nl, "De patiënt heeft de ziekte van Crohn; geen verdere klachten."),
        (Lang::It, "Il paziente presenta morbo di Parkinson."),
        (Lang::En, "The patient has Parkinson's disease and a positive Babinski sign."),
        (Lang::En, "Cultures grew E. coli and S. Aureus; C. Diff negative."),
    ];
    for (lang, text) in cases {
        let found = run(*lang, text);
        let names: Vec<_> = found
            .iter()
            .filter(|(_, l, _)| l.category == Category::Name)
            .collect();
        assert!(
            names.is_empty(),
            "{lang}: unexpected names {names:?} in {text}"
        );
    }
}

#[test]
fn kinship_terms_can_be_turned_off() {
    let r = ContextRecognizer::new(Lang::Es, &ListSources::default())
        .expect("lists load")
        .with_kinship_terms(false);
    let mut out = Vec::new();
    r.find("Su madre y su hermano están sanos.", &mut out);
    assert!(out.is_empty(), "{out:?}");
}

#[test]
fn first_names_take_the_capitalized_words_beside_them() {
    // Language, text, the run expected (None: no first-name run).
    let cases: &[(Lang, &str, Option<&str>)] = &[
        (
            Lang::Nl,
            "Gisteren belde Vincent De Poortere over de afspraak.",
            Some("Vincent De Poortere"),
        ),
        (
            Lang::Nl,
            "Daarna kwam Anke van der Meulen binnen.",
            Some("Anke van der Meulen"),
        ),
        (
            Lang::Es,
            "Ayer llamó Lucía de la Fuente Ortega al servicio.",
            Some("Lucía de la Fuente Ortega"),
        ),
        (
            Lang::It,
            "Ieri è passato Matteo Di Lorenzo in reparto.",
            Some("Matteo Di Lorenzo"),
        ),
        (
            Lang::En,
            "We met Oliver Quennell near the ward yesterday.",
            Some("Oliver Quennell"),
        ),
        // A weekday ends the run: "Ireland" (a first name too) and "Friday" make no name.
        (
            Lang::En,
            "Her cousin arrives from Ireland Friday 12/4.",
            None,
        ),
        (
            Lang::En,
            "Met Oliver Quennell Monday.",
            Some("Oliver Quennell"),
        ),
        // Where a weekday is also a first name of the language, it stays one.
        (
            Lang::Es,
            "Ayer llamó Domingo Mederos Catalano al servicio.",
            Some("Domingo Mederos Catalano"),
        ),
        // Hungarian: surname first, also at the start of a sentence when the surname is listed.
        (
            Lang::Hu,
            "Tegnap Kovács Péter hívott fel minket.",
            Some("Kovács Péter"),
        ),
        (
            Lang::Hu,
            "Kovács Péter hívott fel minket.",
            Some("Kovács Péter"),
        ),
        // A first name of another language opens a name too, but not at a sentence start,
        // not alone, not after an eponym head, and never surname first.
        (
            Lang::It,
            "Il paleontologo polacco Tomasz Sulej ha scoperto i resti.",
            Some("Tomasz Sulej"),
        ),
        (Lang::It, "Tomasz Sulej ha scoperto i resti.", None),
        (Lang::It, "Secondo il giovane Tomasz, era una preda.", None),
        (
            Lang::Es,
            "Diagnóstico final de síndrome de Mayer-Rokitansky en la niña.",
            None,
        ),
        (
            Lang::Hu,
            "Tegnap Lavrov Sergej Viktorovics nyilatkozott.",
            Some("Sergej Viktorovics"),
        ),
        // A lone first name is the lookup's; an all-caps heading is no name by shape.
        (Lang::Hu, "Tegnap Péter hívott.", None),
        (Lang::En, "Thanks, Oliver, for the update.", None),
        (Lang::En, "OLIVER WARD REPORT\nNo change.", None),
    ];
    for (lang, text, want) in cases {
        let found = run(*lang, text);
        let runs: Vec<&str> = found
            .iter()
            .filter(|(_, _, src)| src == "context:first_name_run")
            .map(|(s, _, _)| s.as_str())
            .collect();
        assert_eq!(
            runs,
            want.iter().copied().collect::<Vec<_>>(),
            "{lang}: {text}"
        );
    }
}

#[test]
fn names_after_titles_in_any_case() {
    // Language, text, the name expected after the title (None: nothing after it).
    let cases: &[(Lang, &str, Option<&str>)] = &[
        (
            Lang::Es,
            "visto hoy por dr. garcía en consulta",
            Some("garcía"),
        ),
        (
            Lang::Nl,
            "controle bij dr. jansen volgende week",
            Some("jansen"),
        ),
        (
            Lang::Es,
            "VISTO POR DR. GARCÍA LÓPEZ.",
            Some("GARCÍA LÓPEZ"),
        ),
        // In capitals, the words after the first are the name's only when listed or joined.
        (
            Lang::En,
            "NEURO: MAE. DR. PEMBERTON AWARE OF CHANGE IN MS.",
            Some("PEMBERTON"),
        ),
        (
            Lang::En,
            "DR. JOHN HENDERSON IN TO SEE PT.",
            Some("JOHN HENDERSON"),
        ),
        (Lang::En, "DR. OKAFOR-BELL NOTIFIED.", Some("OKAFOR-BELL")),
        (Lang::En, "DR. O'ROURKE AWARE OF K 5.8.", Some("O'ROURKE")),
        // Plural titles and a nun's title are titles, not names.
        (
            Lang::En,
            "Drs. Whitcombe and team to see pt.",
            Some("Whitcombe"),
        ),
        (
            Lang::En,
            "Visited by Sr. Bernadette today.",
            Some("Bernadette"),
        ),
        (
            Lang::Nl,
            "GEZIEN DOOR DR. VAN DER BERG VANDAAG",
            Some("VAN DER BERG"),
        ),
        // Capitalized text keeps its run.
        (
            Lang::En,
            "Plan agreed, Dr. Pemberton Okafor aware.",
            Some("Pemberton Okafor"),
        ),
        // A name before a colon after a title.
        (
            Lang::En,
            "Resp: CPAP 5/5. Plan per Dr. Lindqvist: wean as tol.",
            Some("Lindqvist"),
        ),
        // A lower-case word that is not a listed name stays text.
        (Lang::Es, "pendiente de valoración por dr. mañana", None),
        // After a lower-case title an open surname is the name, unless it is also a word.
        (Lang::En, "called dr obrien re: k 3.2", Some("obrien")),
        (
            Lang::En,
            "per dr. john nakamura will keep intubated",
            Some("john nakamura"),
        ),
        (
            Lang::Nl,
            "overleg met dr. schoonderwoerd gehad",
            Some("schoonderwoerd"),
        ),
        (
            Lang::En,
            "cardiology (dr. abernathy-cole) following",
            Some("abernathy-cole"),
        ),
        (Lang::En, "nurse states pt slept well", None),
        (Lang::En, "sister states pt slept well", None),
        // After an abbreviated title even an open surname that is also a word ("hale").
        (Lang::En, "spoke with dr hale re: labs", Some("hale")),
        (Lang::En, "dr will call back", None),
        // An all-caps title without its dot: a listed name in capitals only.
        (Lang::En, "DR PRICE AWARE OF PLAN.", Some("PRICE")),
        (Lang::En, "PCP DR HANNIGAN CALLED.", Some("HANNIGAN")),
        (Lang::En, "HX OF MS WITH LE WEAKNESS", None),
        // An allow-listed word after a relative's word is a name; staff named by role.
        (Lang::En, "Pt's daughter Faith visited.", Some("Faith")),
        (
            Lang::En,
            "Son-in-law Marcus Delacroix called.",
            Some("Marcus Delacroix"),
        ),
        (Lang::En, "SW Leticia to see family.", Some("Leticia")),
        (Lang::En, "dr aware of low bp", None),
        // After a relative's word an open surname is taken as any word no list holds and that
        // is no ordinary word (below).
        (Lang::En, "called pt's son obrien", Some("obrien")),
        // Lower-case names after relative and doctor words, not after patient words.
        (Lang::En, "pt seen with wife mary at bedside", Some("mary")),
        (Lang::En, "daughter susan called, updated", Some("susan")),
        // A second word that is an open surname and no ordinary word belongs to the name.
        (
            Lang::En,
            "daughter susan kowalczyk is hcp",
            Some("susan kowalczyk"),
        ),
        (Lang::En, "daughter susan states she agrees", Some("susan")),
        // Staff named by their role in a lower-case note.
        (
            Lang::En,
            "interpreter ana present for teaching",
            Some("ana"),
        ),
        (Lang::En, "screener kim aware of bed offer", Some("kim")),
        (Lang::En, "CASE MGR JOANNE TO CALL.", Some("JOANNE")),
        (Lang::En, "wife visited this am", None),
        // Relatives as nursing notes abbreviate them.
        (Lang::En, "pt's dtr maura called x2", Some("maura")),
        // A first name of another language, in lower case or in capitals.
        (
            Lang::En,
            "spoke with wife agnieszka by phone",
            Some("agnieszka"),
        ),
        (Lang::En, "SON TORSTEN CALLED", Some("TORSTEN")),
        // A rare first name of the language, in capitals or in lower case; no ordinary word.
        (Lang::En, "GRANDSON DERMOT AT BEDSIDE.", Some("DERMOT")),
        (Lang::En, "wife rosaleen called, updated", Some("rosaleen")),
        (Lang::En, "GRANDSON VISITING TODAY. WIFE TEARFUL.", None),
        // The heart team's and the device makers' staff.
        (
            Lang::En,
            "PERFUSIONIST GRZEGORZ REMOVED IABP",
            Some("GRZEGORZ"),
        ),
        (Lang::En, "Zoll rep Kiersten did teaching", Some("Kiersten")),
        // The patient's word alone after a title is the next sentence's ("MR." of mitral
        // regurgitation).
        (
            Lang::En,
            "Echo: severe MR. Pt's cardiologist is away.",
            None,
        ),
        (Lang::Nl, "Mevrouw Koning is rustig.", Some("Koning")),
        // A word no list holds and that is no ordinary word, in the case of the relative's or
        // staff word or abbreviated title before it.
        (Lang::En, "SON FERGAL CALLED FROM HOME", Some("FERGAL")),
        (
            Lang::En,
            "INTERPRETER TSEGAYE PRESENT FOR ROUNDS",
            Some("TSEGAYE"),
        ),
        (Lang::En, "dr gilhooly aware of temp", Some("gilhooly")),
        (
            Lang::En,
            "DR LINDQVIST-HAYES TO CALL BACK",
            Some("LINDQVIST-HAYES"),
        ),
        (
            Lang::En,
            "daughter mariatou called, updated",
            Some("mariatou"),
        ),
        // Ordinary words, drugs, clinical endings, another case, a credential after a
        // staff word, and a language without the list: no name.
        (Lang::En, "DAUGHTER VERBALIZED UNDERSTANDING", None),
        (Lang::En, "wife distraught, emotional support given", None),
        (Lang::En, "md aware, np lopressor held", None),
        (Lang::En, "pt obtunded, dr obtunded?", None),
        (Lang::En, "Wife tesfaye", None),
        (Lang::En, "Signed: RN, CARN, ext. 4412", None),
        (Lang::Nl, "ZOON FERGAL BELDE", None),
        (Lang::It, "la sorella dell'ex moglie", None),
        // In parentheses or apposition, closed on the other side.
        (
            Lang::En,
            "Spoke w/ daughter (Marisol) re: code status.",
            Some("Marisol"),
        ),
        (Lang::En, "SPOKE W/ DAUGHTER (MARISOL).", Some("MARISOL")),
        (Lang::En, "Son, Ezekiel, called at 2200.", Some("Ezekiel")),
        // In one case a listed first name the clause's end closes after a relative's word;
        // not an ordinary word there, nor after a staff word.
        (
            Lang::En,
            "session with pt and dad, ezekiel. pt sang.",
            Some("ezekiel"),
        ),
        (Lang::En, "SPOKE WITH DAD, EZEKIEL.", Some("EZEKIEL")),
        (Lang::En, "called wife, will call back.", None),
        (Lang::En, "spoke with son, then daughter.", None),
        // The occupational therapist before a name, as SLP and RT; not the service.
        (Lang::En, "OT Thackeray to follow 3x/wk.", Some("Thackeray")),
        (
            Lang::En,
            "ot ludmila recommends supervision",
            Some("ludmila"),
        ),
        (Lang::En, "OT eval done, OT TO FOLLOW, PT/OT recs.", None),
        (
            Lang::En,
            "7.0 tube by CRNA Leopoldine Marsh under supervision.",
            Some("Leopoldine Marsh"),
        ),
        (Lang::En, "CRNA aware. CRNA to give report.", None),
        (Lang::Es, "Domicilio en Dos Hermanas, Sevilla.", None),
        (
            Lang::Nl,
            "Met vriendelijke groet,\nHuisarts, Rijnstate\n",
            None,
        ),
        // A title of another language inside the note.
        (
            Lang::Hu,
            "A beteget Mr. Quennell kísérte be.",
            Some("Quennell"),
        ),
        (
            Lang::It,
            "Ha parlato l'on. Bracchetti in aula.",
            Some("Bracchetti"),
        ),
    ];
    for (lang, text, want) in cases {
        let found = run(*lang, text);
        let titled: Vec<&str> = found
            .iter()
            .filter(|(_, l, src)| {
                (src == "context:title" || src == "context:trigger") && l.category == Category::Name
            })
            .map(|(s, _, _)| s.as_str())
            .collect();
        assert_eq!(
            titled,
            want.iter().copied().collect::<Vec<_>>(),
            "{lang}: {text}"
        );
    }
}

/// The places (LOCATION spans) the context recognizer finds in `text`.
fn places(lang: Lang, text: &str) -> Vec<String> {
    run(lang, text)
        .into_iter()
        .filter(|(_, l, _)| l.category == Category::Location)
        .map(|(s, _, _)| s)
        .collect()
}

#[test]
fn the_place_after_lives_in_is_named_in_any_case() {
    let cases: &[(Lang, &str, &[&str])] = &[
        (
            Lang::En,
            "Daughter is HCP, lives in Swampscott.",
            &["Swampscott"],
        ),
        // Towns that are names too: the name lists hold them, not the place lists.
        (Lang::En, "DAUGHTER IS HCP, LIVES IN LYNN.", &["LYNN"]),
        (
            Lang::En,
            "brought photos from home in dorchester",
            &["dorchester"],
        ),
        (Lang::Es, "Vive en Getafe con su hija.", &["Getafe"]),
        // A listed place of several words, in the case of the note.
        (
            Lang::En,
            "pt's mother lives in puerto rico.",
            &["puerto rico"],
        ),
        (
            Lang::En,
            "SON IS FROM NEW HAMPSHIRE, VISITING",
            &["NEW HAMPSHIRE"],
        ),
        // A listed state or country after the town and a comma, in its case; not a word
        // no place list holds, nor a state's two letters.
        (
            Lang::En,
            "dtr lives in portland, oregon, aware.",
            &["portland", "oregon"],
        ),
        (
            Lang::En,
            "moved from nashua, new hampshire",
            &["nashua", "new hampshire"],
        ),
        (Lang::En, "lives in boston, alone", &["boston"]),
        (Lang::En, "lives in worcester, ma", &["worcester"]),
        // A compass word opens the town's part.
        (Lang::En, "pt lives w/ wife in e. boston.", &["e. boston"]),
        (Lang::En, "LIVES IN EAST BOSTON", &["EAST BOSTON"]),
        // A region with its article after a phrase that ends in "in" or "from".
        (
            Lang::En,
            "Sister flying in from the Azores Friday.",
            &["Azores"],
        ),
        (Lang::En, "Transferred to the Floor at noon.", &[]),
        // An ordinary word, or one no list holds, in a note without capitals.
        (Lang::En, "lives in hall with roommate", &[]),
        (Lang::En, "LIVES IN APT WITH WIFE", &[]),
        (Lang::En, "home in am", &[]),
        (
            Lang::En,
            "For a while Ilona lives in harmony with both men.",
            &[],
        ),
    ];
    for (lang, text, want) in cases {
        assert_eq!(places(*lang, text), *want, "{lang}: {text}");
    }
}

#[test]
fn a_listed_place_after_a_preposition_is_named_where_no_capital_marks_it() {
    let cases: &[(Lang, &str, &[&str])] = &[
        (
            Lang::En,
            "husband called from florida, will fly up",
            &["florida"],
        ),
        (Lang::En, "pt was living alone in chelsea.", &["chelsea"]),
        (Lang::En, "FORMER NURSE IN WORCESTER.", &["WORCESTER"]),
        // Capitals that only open sentences mark no names.
        (
            Lang::En,
            "Pt discharged to home in dedham. Dtr to pick up.",
            &["dedham"],
        ),
        // Where capitals mark names the lookup finds the place; the rule takes nothing.
        (Lang::En, "Wife Maria called from florida today.", &[]),
        // Not listed, or an ordinary word: left alone.
        (Lang::En, "wife called from work, in bed", &[]),
        (Lang::En, "pt from home in am", &[]),
        // Short words are abbreviations more often than places (`US`, `Oz` are listed).
        (
            Lang::En,
            "family asks for updates from us, intake in oz",
            &[],
        ),
    ];
    for (lang, text, want) in cases {
        assert_eq!(places(*lang, text), *want, "{lang}: {text}");
    }
}

#[test]
fn prepositions_and_an_article_end_an_institution_name() {
    let text =
        "F/U IN 2 WKS AT THE CHELSEA CLINIC. FROM ST. VINCENT'S HOSPITAL IN WORCESTER ON 11/2.";
    assert_eq!(
        places(Lang::En, text),
        ["CHELSEA CLINIC", "ST. VINCENT'S HOSPITAL", "WORCESTER"],
        "{text}"
    );
}

#[test]
fn nursing_and_rehabilitation_centers_are_named_whole() {
    let text = "Bed offer from Seacoast Nursing and Rehabilitation Center in Gloucester.";
    assert_eq!(
        places(Lang::En, text),
        ["Seacoast Nursing and Rehabilitation Center", "Gloucester"],
        "{text}"
    );
    // The town after an institution and "in".
    let text = "Advised ED eval at Emerson Hospital in Concord tonight.";
    assert_eq!(places(Lang::En, text), ["Emerson Hospital", "Concord"]);
}

#[test]
fn institution_names_in_capitals_end_at_sentence_ends() {
    // "HOSPITAL" both opens names ("Hospital of ...") and closes them; in capitals it closes
    // the one before it, and a full stop after a long word in capitals ends the sentence.
    let text = "BACK TO NORWOOD HOSPITAL WHEN STABLE. HCP IS SON MICHAEL.";
    assert_eq!(places(Lang::En, text), ["NORWOOD HOSPITAL"], "{text}");
    let text = "Back to Norwood Hospital when stable.";
    assert_eq!(places(Lang::En, text), ["Norwood Hospital"], "{text}");
    let text = "Opgenomen in Medisch Centrum Leeuwarden.";
    assert_eq!(
        places(Lang::Nl, text),
        ["Medisch Centrum Leeuwarden"],
        "{text}"
    );
}

#[test]
fn a_units_abbreviation_and_a_connector_end_no_institution_name() {
    // A unit after "Hospital" is the hospital's: the words before it name the place.
    let text = "Bed request from St. Brigid's Hospital ED for ICU level pt.";
    assert_eq!(places(Lang::En, text), ["St. Brigid's Hospital"], "{text}");
    let text = "Admitted from Children's Hospital ED after a fall.";
    assert_eq!(places(Lang::En, text), ["Children's Hospital"], "{text}");
    // A tail word right after "of" or "and" names nothing, in capitals as in mixed case;
    // "for" still follows the name the sentence sends a patient to.
    for text in [
        "OSH RECORDS AND CD OF IMAGING WITH PT.",
        "Osh records and cd of Imaging with pt.",
    ] {
        assert!(
            places(Lang::En, text).is_empty(),
            "{text}: {:?}",
            places(Lang::En, text)
        );
    }
    let text = "PT WOULD LIKE TO GO TO YOUVILLE FOR REHAB.";
    assert_eq!(places(Lang::En, text), ["YOUVILLE FOR REHAB"], "{text}");
    // Ordinary words before the "for" are the sentence's.
    for text in [
        "PLAN FOR HOSPITAL SCHOOL TEACHER TO VISIT.",
        "PT SENT FOR HOSPITAL ADMISSION.",
    ] {
        assert!(places(Lang::En, text).is_empty(), "{text}");
    }
}

#[test]
fn clock_times_are_no_postcodes() {
    let text = "Neo off at 0200, MAPs > 65 since. At 1400, Smith called.";
    assert!(
        places(Lang::En, text).is_empty(),
        "{:?}",
        places(Lang::En, text)
    );
    assert_eq!(places(Lang::Nl, "Kerkstraat 1, 1234 Delft"), ["Delft"]);
}

#[test]
fn names_joined_by_and_after_a_relatives_word_or_a_plural_title_are_names() {
    assert_eq!(
        names("family at bedside: sons kieran and brendan."),
        ["kieran", "brendan"]
    );
    assert_eq!(names("Daughters Ana and Lucia visited."), ["Ana", "Lucia"]);
    // Not what follows a title, nor a trigger word after "and".
    assert_eq!(names("Wife Mary and Pt's son in."), ["Mary"]);
    assert_eq!(
        names("Seen by Dr. Stone and Nurse Kelly."),
        ["Stone", "Kelly"]
    );
    assert_eq!(names("Dr. Stone and Whitcombe Hall."), ["Stone"]);
    // A plural title names them all, in any case.
    assert_eq!(
        names("MICU team (Drs. Stone and Whitcombe) in."),
        ["Stone", "Whitcombe"]
    );
    assert_eq!(names("seen by drs. stone and price."), ["stone", "price"]);
}

#[test]
fn staff_words_in_the_plural_name_the_people_joined_by_and_after_them() {
    assert_eq!(
        names("cambridge police officers dempsey and kowalczyk responded."),
        ["dempsey", "kowalczyk"]
    );
    assert_eq!(
        names("Paramedics Ruiz and Okonkwo-Bell gave report."),
        ["Ruiz", "Okonkwo-Bell"]
    );
    assert_eq!(
        names("PARAMEDICS RUIZ AND CHEN GAVE REPORT."),
        ["RUIZ", "CHEN"]
    );
    // A staff word in the singular names only the first; plural words alone name none.
    assert_eq!(names("nurse abby and kowalczyk at bedside."), ["abby"]);
    assert!(names("Nurses and doctors at bedside.").is_empty());
    assert!(names("officers and staff responded.").is_empty());
}

#[test]
fn troopers_officers_and_the_courts_people_are_named_by_their_word() {
    assert_eq!(
        names("STATE POLICE AT BEDSIDE (TPR OKONJO, TPR WHALEN)."),
        ["OKONJO", "WHALEN"]
    );
    assert_eq!(
        names("Trooper Okonjo at bedside, Tpr. Whalen relieved him. Ofc. Brannigan called."),
        ["Okonjo", "Whalen", "Brannigan"]
    );
    assert_eq!(
        names("PT'S PUBLIC DEFENDER CASTELLANOS ALSO CALLED."),
        ["CASTELLANOS"]
    );
    // Vital signs after `TPR` are none.
    assert!(names("TPR 98.6/88/18, TPR STABLE.").is_empty());
}

#[test]
fn who_passed_a_result_on_and_who_took_it_are_named() {
    let read_back = names("K 6.9 called to and read back by Bronagh Teixeira RN at 0412.");
    assert!(
        read_back.contains(&"Bronagh Teixeira".to_string()),
        "{read_back:?}"
    );
    assert_eq!(
        names("INR 8.2 CRITICAL, CALLED TO GERAINT RN 0655. LEFT MSG WITH DOLORES."),
        ["GERAINT", "DOLORES"]
    );
    assert_eq!(
        names("hgb 5.9. called by marisol from core lab, read back."),
        ["marisol"]
    );
    // Not a place, a service or a relative's word after them.
    for other in [
        "Dr. called to bedside. Pt called by lab. Called to OR 7 at 1124.",
        "CALLED TO BEDSIDE BY WIFE. LEFT MSG WITH PCP OFFICE.",
        "left message with answering service.",
    ] {
        assert!(names(other).is_empty(), "{other}");
    }
}

#[test]
fn a_whole_word_title_before_a_full_stop_ends_a_sentence() {
    assert_eq!(
        names("Reviewed by Nurse Kelly. Staff Nurse. Verified on admission."),
        ["Kelly"]
    );
    assert_eq!(names("Seen by Prof. Quennell today."), ["Quennell"]);
}

#[test]
fn staff_header_labels_name_doctors() {
    let found = run(
        Lang::En,
        "Attending: Ferreira. Resident: Nakamura.
PCP: Okonjo
",
    );
    let named: Vec<&str> = found
        .iter()
        .filter(|(_, l, src)| src == "context:field_label" && *l == label("NAME/DOCTOR"))
        .map(|(s, _, _)| s.as_str())
        .collect();
    assert_eq!(named, ["Ferreira", "Nakamura", "Okonjo"]);
}

#[test]
fn a_name_in_quotes_after_a_trigger_is_a_name() {
    assert_eq!(names("Pt goes by \"Tink\" on the unit."), ["Tink"]);
    assert_eq!(names("Prefers to be called “Bunny”."), ["Bunny"]);
    assert_eq!(names("Pt known as Ziggy to staff."), ["Ziggy"]);
    assert_eq!(names("Pt asks to be called \"Bucky\"."), ["Bucky"]);
    assert_eq!(names("Wife \"Dot\" at bedside."), ["Dot"]);
    assert_eq!(
        names("Creole used; pt's preferred name is \"Ti Jean\"."),
        ["Ti Jean"]
    );
    assert_eq!(names("Nickname is Skip per wife."), ["Skip"]);
    // The name the patient calls someone by.
    assert_eq!(names("she says he calls her \"bunny\"."), ["bunny"]);
    assert_eq!(names("PT CALLS HIM \"BUD\" AND ASKS FOR HIM"), ["BUD"]);
    // The quote must close right after the name.
    assert!(names("Pt goes by \"Tink and friends").is_empty());
    assert!(names("Pt known as a heavy drinker.").is_empty());
}

#[test]
fn any_word_before_a_phone_number_after_a_relatives_word_is_a_name() {
    assert_eq!(names("HCP: NEPHEW ANATOLE (781) 555-0141."), ["ANATOLE"]);
    assert_eq!(names("HCP: NEPHEW ANATOLE (781-555-0141)."), ["ANATOLE"]);
    assert_eq!(
        names("per daughter zenobia 978-555-0103 or her husband"),
        ["zenobia"]
    );
    assert_eq!(names("son quillon @ 617.555.0172"), ["quillon"]);
    // A word that announces the number, a short word, a date or a code is no name.
    for text in [
        "WIFE CELL (617) 555-0141",
        "wife home 617-555-0141",
        "son at 617-555-0141",
        "WIFE AWARE 3/4",
        "SON VISITED 12-31-20",
        "daughter notified (781-555-0141x)",
    ] {
        assert!(names(text).is_empty(), "{text}: {:?}", names(text));
    }
}

#[test]
fn an_allow_listed_word_after_a_relatives_word_is_a_name_in_any_case() {
    assert_eq!(names("family: wife dawn at bedside all evening."), ["dawn"]);
    assert_eq!(names("pt's husband bill states pt was confused."), ["bill"]);
    assert_eq!(names("SON MARK IN TO VISIT."), ["MARK"]);
    // The verb after its subject, and any word after a plural relative's word, is none.
    for text in [
        "son will call tomorrow.",
        "daughter may visit tonight.",
        "DAUGHTER WILL BE IN AM.",
        "daughters hope to visit this weekend.",
    ] {
        assert!(names(text).is_empty(), "{text}: {:?}", names(text));
    }
}

#[test]
fn names_end_before_a_unit_in_capitals_and_an_eponyms_word() {
    // "ED" is the emergency department, not a first name in the run.
    let found = run(
        Lang::En,
        "Seen in Newton ED today, then at West Roxbury VA.",
    );
    let surfaces: Vec<&str> = found.iter().map(|(s, _, _)| s.as_str()).collect();
    assert!(!surfaces.iter().any(|s| s.contains("ED")), "{found:?}");
    assert!(surfaces.contains(&"West Roxbury VA"), "{found:?}");
    // A regnal number is the name's.
    let found = run(Lang::It, "Ha incontrato Giovanni Paolo II ieri.");
    assert!(
        found.iter().any(|(s, _, _)| s == "Giovanni Paolo II"),
        "{found:?}"
    );
    // A first name's run right before a tube's or sign's word is an eponym.
    assert!(names("Jackson-Pratt drain to bulb suction.").is_empty());
}

#[test]
fn a_list_of_names_in_parentheses_or_after_a_plural_relatives_word_is_named() {
    assert_eq!(
        names("Met with pt's 3 children (Pat, Brendan and Siobhan) today."),
        ["Pat", "Brendan", "Siobhan"]
    );
    assert_eq!(
        names("daughters (kathy and ann marie) at bedside."),
        ["kathy", "ann marie"]
    );
    assert_eq!(
        names("Sons Kieran, Padraig, and Tom called."),
        ["Kieran", "Padraig", "Tom"]
    );
    assert_eq!(
        names("Family meeting with children Declan, Nora and Fintan today."),
        ["Declan", "Nora", "Fintan"]
    );
    // After a singular relative's word a comma ends the name, and a parenthesis that holds
    // more than names closes no list.
    assert_eq!(
        names("Son Kieran, Boston resident and nurse, called."),
        ["Kieran"]
    );
    assert!(names("daughter (Marisol, who lives in Quincy) called.").is_empty());
}

#[test]
fn particles_after_a_title_open_the_surname() {
    assert_eq!(
        names("f/u with Dr. de la Cruz at the clinic."),
        ["de la Cruz"]
    );
    // A saint's word after a title opens the surname too.
    assert_eq!(
        names("Consent signed with Dr. St. Pierre today."),
        ["St. Pierre"]
    );
    // After "by" a word before a colon is the name, not a field's label.
    assert_eq!(names("PT eval by Sunniva: ambulated 150 ft."), ["Sunniva"]);
    // So is one after a relative's or staff word, where it is no ordinary word.
    assert_eq!(
        names("Trach teaching with wife Ottoline: suctioning done."),
        ["Ottoline"]
    );
    assert_eq!(
        names("Circuit checked with perfusionist Emeka: flow 4.8 L."),
        ["Emeka"]
    );
    assert!(names("Wife Update: pt stable overnight.").is_empty());
    assert_eq!(names("Seen by Dr. van der Berg today."), ["van der Berg"]);
    // Particles without a capitalized word after them name no one.
    assert!(names("Plan per Dr. de la unit.").is_empty());
}

#[test]
fn a_hyphenated_given_name_keeps_its_lower_case_syllable() {
    assert_eq!(names("wife Soo-jin will visit."), ["Soo-jin"]);
    assert_eq!(names("Son Ji-hoon called."), ["Ji-hoon"]);
    // A longer word after the hyphen is no syllable of the name.
    assert_eq!(names("wife Maria-reported pain."), ["Maria"]);
}

#[test]
fn a_name_field_written_surname_first_takes_the_given_names() {
    assert_eq!(
        names("Name: NGUYEN, MINH   MRN 5580-2231"),
        ["NGUYEN, MINH"]
    );
    assert_eq!(names("Patient: Okafor, Adaeze\n"), ["Okafor, Adaeze"]);
    // A given name in another case, or a service after the comma, is not the field's.
    assert_eq!(names("Doctor: Lindgren, Cardiology"), ["Lindgren"]);
}

#[test]
fn a_person_of_an_institution_is_not_its_name() {
    assert_eq!(
        places(
            Lang::En,
            "PCP is Dr. Ifeoma Chukwu of Codman Square Health Center."
        ),
        ["Codman Square Health Center"]
    );
    assert_eq!(
        places(Lang::En, "his pastor, Rev. Okafor of Bethel AME Church."),
        ["Bethel AME Church"]
    );
    // An institution's own "of" stays, and so does an "and" after a surname.
    assert_eq!(
        places(
            Lang::En,
            "Seen at University of Massachusetts Medical Center."
        ),
        ["University of Massachusetts Medical Center"]
    );
    let found = places(
        Lang::En,
        "Records from Brigham and Women's Hospital arrived.",
    );
    assert!(
        found.contains(&"Brigham and Women's Hospital".to_string()),
        "{found:?}"
    );
}

#[test]
fn a_hospitals_own_clinic_names_no_institution() {
    for text in [
        "Next INR check at the Anticoagulation Clinic.",
        "Follow up in Wound Clinic and Cardiology Clinic.",
        "Appt at Urgent Care Clinic tomorrow.",
    ] {
        assert!(places(Lang::En, text).is_empty(), "{text}");
    }
    assert_eq!(
        places(Lang::En, "f/u at Whittier Street Health Center."),
        ["Whittier Street Health Center"]
    );
    // With the practice's town after it, services and a tail name one place.
    assert_eq!(
        places(Lang::En, "Followed at Cardiology Associates of Woburn."),
        ["Cardiology Associates of Woburn"]
    );
    // So does a region of two words, "Greater" and a town, and a town in capitals after a
    // tail word in capitals.
    assert_eq!(
        places(Lang::En, "Dispo: Life Care Center of Nashoba Valley today."),
        ["Life Care Center of Nashoba Valley"]
    );
    assert_eq!(
        places(
            Lang::En,
            "Followed at Cardiology Associates of Greater Boston."
        ),
        ["Cardiology Associates of Greater Boston"]
    );
    assert_eq!(
        places(
            Lang::En,
            "DISPO: HEBREW REHABILITATION CENTER OF BOSTON. REPORT GIVEN."
        ),
        ["HEBREW REHABILITATION CENTER OF BOSTON"]
    );
    // Not a word after "of" that is no place, nor a town in capitals after a mixed-case tail.
    assert_eq!(
        places(Lang::En, "Seen at Women's Imaging Center of Excellence."),
        ["Women's Imaging Center"]
    );
}

#[test]
fn a_floor_or_unit_and_its_number_after_a_place_word_is_a_place() {
    let found = run(Lang::En, "Pt transferred to Floor 10 at 1600.");
    assert!(
        found
            .iter()
            .any(|(s, l, _)| s == "Floor 10" && *l == label("LOCATION/OTHER")),
        "{found:?}"
    );
    assert_eq!(places(Lang::En, "Pt transferred to Unit 7B."), ["Unit 7B"]);
}

#[test]
fn new_triggers_name_staff_schools_and_towns() {
    assert_eq!(names("Diabetes educator Perpetua to see pt."), ["Perpetua"]);
    assert_eq!(
        places(
            Lang::En,
            "pt is a graduate student at Northeastern, lives alone."
        ),
        ["Northeastern"]
    );
    assert_eq!(
        places(Lang::En, "Parents arriving from Krakow on Friday."),
        ["Krakow"]
    );
}

#[test]
fn a_newborn_is_named_after_baby_boy_or_baby_girl() {
    assert_eq!(
        names("BABY BOY KOWALCZYK TO NICU FOR GRUNTING."),
        ["KOWALCZYK"]
    );
    assert_eq!(names("Baby Girl Ferreira delivered at 0652."), ["Ferreira"]);
}

#[test]
fn a_newborn_is_named_after_the_babys_words() {
    // The name the parents gave, in any case, in quotes or not.
    assert_eq!(names("BABY GIRL \"HOPE\" SKIN TO SKIN WITH MOM."), ["HOPE"]);
    assert_eq!(names("baby august to warmer, vigorous."), ["august"]);
    assert_eq!(names("BABY NAMED BEAU."), ["BEAU"]);
    assert_eq!(names("Mom holding baby Noah."), ["Noah"]);
    assert_eq!(
        names("Twin A girl Willow 2450 g, Twin B boy Ash 2200 g."),
        ["Willow", "Ash"]
    );
    // Not a drug nor a word of care.
    assert!(names("Baby Tylenol given; baby wipes, baby aspirin, baby boy fussy.").is_empty());
}

#[test]
fn a_sentences_verb_before_an_institution_is_not_its_name() {
    assert_eq!(
        places(Lang::En, "Attends Little Sprouts Daycare in town."),
        ["Little Sprouts Daycare"]
    );
    assert_eq!(
        places(Lang::En, "Visiting nurse from Cape Cod VNA will call."),
        ["Cape Cod VNA"]
    );
}

#[test]
fn saints_heads_and_tails_name_agencies_parishes_and_funeral_homes() {
    for (text, want) in [
        (
            "Transferred from St. Elizabeth's Hospital today.",
            "St. Elizabeth's Hospital",
        ),
        (
            "St. Brendan's Parish priest will come.",
            "St. Brendan's Parish",
        ),
        ("Body released to Dolan Funeral Home.", "Dolan Funeral Home"),
        (
            "Died at Rose Monahan Hospice Home.",
            "Rose Monahan Hospice Home",
        ),
        // An abbreviation in capitals after a connector is the sentence's.
        ("Home with VNA of Boston for PICC care.", "VNA of Boston"),
    ] {
        assert_eq!(places(Lang::En, text), [want], "{text}");
    }
}

#[test]
fn ranks_nicknames_and_verbs_around_names() {
    assert_eq!(
        names("Lt. Col. Abernathy (ret.) refuses the lift."),
        ["Abernathy"]
    );
    assert_eq!(
        names("Son Fitzgerald \"Fitz\" Moran at bedside."),
        ["Fitzgerald \"Fitz\" Moran"]
    );
    assert_eq!(names("SON GARETH WILL BRING HER TUESDAY."), ["GARETH"]);
}

#[test]
fn a_role_word_after_a_trigger_is_no_name() {
    assert!(names("Pt asked for Mom, Dad, all of them.").is_empty());
    assert!(
        !names("Joe Arnold, Consultant Physician, Addenbrooke's Hospital")
            .contains(&"Physician".to_string())
    );
}

#[test]
fn numbers_programs_and_banks_around_institutions() {
    for (text, want) in [
        (
            "Pt was a nurse at Carney Hospital for 40 years.",
            &["Carney Hospital"][..],
        ),
        (
            "Medicare and Tufts Health Plan supplement.",
            &["Tufts Health Plan"],
        ),
        ("Pt banks at Eastern Bank downtown.", &["Eastern Bank"]),
        (
            "Rep from American Legion Post 43 visited.",
            &["American Legion Post 43"],
        ),
    ] {
        assert_eq!(places(Lang::En, text), want, "{text}");
    }
}

#[test]
fn birth_staff_name_the_person_after_them() {
    assert_eq!(
        names("Midwife Harriet Oyelowo reviewed the plan."),
        ["Harriet Oyelowo"]
    );
    assert_eq!(
        names("Partner Tobias and doula Greta at bedside."),
        ["Tobias", "Greta"]
    );
}

#[test]
fn emergency_services_courts_and_recovery_houses_are_institutions() {
    for (text, want) in [
        (
            "Pt BIBA Cataldo Ambulance from Revere.",
            "Cataldo Ambulance",
        ),
        (
            "Court date 12/9 at Lynn District Court per pt.",
            "Lynn District Court",
        ),
        (
            "Manager from Hope Recovery House will pick pt up.",
            "Hope Recovery House",
        ),
        (
            "Officer from Brockton Police Department at bedside.",
            "Brockton Police Department",
        ),
    ] {
        let found = places(Lang::En, text);
        assert!(found.contains(&want.to_string()), "{text}: {found:?}");
    }
}

#[test]
fn reference_laboratories_are_institutions_and_a_patients_labs_none() {
    for (text, want) in [
        (
            "Path specimen to Quest Diagnostics today.",
            "Quest Diagnostics",
        ),
        (
            "PATH SPECIMEN TO QUEST DIAGNOSTICS. PT NPO.",
            "QUEST DIAGNOSTICS",
        ),
        (
            "Sent to Mayo Medical Laboratories.",
            "Mayo Medical Laboratories",
        ),
    ] {
        let found = places(Lang::En, text);
        assert!(found.contains(&want.to_string()), "{text}: {found:?}");
    }
    for text in [
        "AM Labs pending, K 3.2.",
        "Admission Labs notable for K 5.1.",
        "Labs: K 3.2, Mg 1.8.",
        "am labs sent.",
        "FOLLOW UP AM LABS.",
    ] {
        assert!(places(Lang::En, text).is_empty(), "{text}");
    }
}

#[test]
fn an_attorney_a_clinician_and_a_sponsor_name_the_person_after_them() {
    assert_eq!(
        names("Pt's guardian Atty. Whitcombe notified."),
        ["Whitcombe"]
    );
    assert_eq!(
        names("Clinician Solveig completed the evaluation."),
        ["Solveig"]
    );
    assert_eq!(
        names("Pt asks for his sponsor Declan to be called."),
        ["Declan"]
    );
}

#[test]
fn scales_named_after_places_and_people_are_no_names_and_a_drive_names_a_town() {
    // An allow-listed phrase holds the first name that opens it.
    assert!(names("RASS -2 per Richmond Agitation-Sedation Scale today.").is_empty());
    // "drove up from" names the town after it.
    let places: Vec<String> = run(Lang::En, "Brother drove up from Providence today.")
        .into_iter()
        .filter(|(_, l, _)| l.category == Category::Location)
        .map(|(s, _, _)| s)
        .collect();
    assert_eq!(places, ["Providence"]);
}

#[test]
fn jails_sheriffs_police_and_transport_services_are_institutions() {
    for (text, want) in [
        (
            "Pt in custody of the Worcester County Sheriff's Office.",
            "Worcester County Sheriff's Office",
        ),
        ("Records faxed from Middlesex Jail today.", "Middlesex Jail"),
        ("Springfield PD officer at bedside.", "Springfield PD"),
        ("Brought in by Pro EMS after a fall.", "Pro EMS"),
        (
            "Chair van from Yarrow Medical Transport booked.",
            "Yarrow Medical Transport",
        ),
        (
            "Discharged to Wayside Youth and Family program.",
            "Wayside Youth and Family",
        ),
    ] {
        let found = places(Lang::En, text);
        assert!(found.contains(&want.to_string()), "{text}: {found:?}");
    }
    // An abbreviation after an eponym or a preposition names no service.
    for text in [
        "Hx Parkinson PD, on sinemet.",
        "HX PARKINSON PD.",
        "Per EMS, down approx 12 hours.",
    ] {
        assert!(places(Lang::En, text).is_empty(), "{text}");
    }
}

#[test]
fn officers_crews_and_workers_name_the_person_after_them() {
    assert_eq!(names("CO Brannigan at bedside."), ["Brannigan"]);
    assert_eq!(names("PT SENT WITH CO HALLORAN."), ["HALLORAN"]);
    assert!(names("CO POISONING SUSPECTED. CO 4.5.").is_empty());
    assert_eq!(names("Paramedic Colm Deasy gave report."), ["Colm Deasy"]);
    assert_eq!(names("EMT Ximena reports 20 min down time."), ["Ximena"]);
    assert_eq!(names("Det. Ruiz called."), ["Ruiz"]);
}

#[test]
fn a_label_word_after_a_capitalized_word_ends_a_name_and_opens_no_field() {
    let fields: Vec<String> = run(Lang::En, "DXA at Concord Hospital: T-score -2.7 today.")
        .into_iter()
        .filter(|(_, _, src)| src == "context:field_label")
        .map(|(s, _, _)| s)
        .collect();
    assert!(fields.is_empty(), "{fields:?}");
    assert_eq!(
        names("Pathologist: Agnieszka Wrobel, MD."),
        ["Agnieszka Wrobel"]
    );
}

#[test]
fn after_dr_in_one_case_initials_allow_listed_words_and_a_colon_keep_the_name() {
    // An allow-listed word is the name after "dr" as in mixed case; a verb is not.
    assert_eq!(names("wound care with dr. joy at bedside."), ["joy"]);
    assert_eq!(names("pcp is dr. summer whitcombe."), ["summer whitcombe"]);
    assert!(names("dr will call back after rounds.").is_empty());
    // An initial in the title's case opens the name; in capitals the name ends where the
    // lists stop supporting it.
    assert_eq!(
        names("meeting w/ dr. r. kowalczyk and sw."),
        ["r. kowalczyk"]
    );
    assert_eq!(
        names("MEETING W/ DR. R. KOWALCZYK AND SW."),
        ["R. KOWALCZYK"]
    );
    assert_eq!(names("MEETING W/ R. KOWALCZYK AND SW."), ["R. KOWALCZYK"]);
    // Particles in the title's case open the surname after them, not a word of the clause.
    assert_eq!(names("dr. van wyk at bedside."), ["van wyk"]);
    assert_eq!(names("DR. DE LA CRUZ NOTIFIED."), ["DE LA CRUZ"]);
    assert!(names("dr. de aware").is_empty());
    // A word in capitals before a colon after a title is the name, read as in a caseless
    // note.
    assert_eq!(
        names("CT READ BY DR. ABERCROMBIE: NO BLEED."),
        ["ABERCROMBIE"]
    );
    assert!(names("SEE DR. NOTE: NO CHANGE.").is_empty());
}

#[test]
fn a_listed_first_name_and_a_surname_in_a_note_in_one_case_are_a_name() {
    assert_eq!(
        english_by_source("-- rosalind ferreira, rn", "context:full_name"),
        ["rosalind ferreira"]
    );
    assert_eq!(
        english_by_source(
            "pt's hcp, henrietta brandt (niece), updated.",
            "context:full_name"
        ),
        ["henrietta brandt"]
    );
    // In capitals and in lower case the surname may be a word no list holds.
    assert_eq!(
        english_by_source("SIGNED: HENRIETTA QUARLESBY RN", "context:full_name"),
        ["HENRIETTA QUARLESBY"]
    );
    assert_eq!(
        english_by_source("visit from henrietta quarlesby today", "context:full_name"),
        ["henrietta quarlesby"]
    );
    assert!(english_by_source("HENRIETTA NOTIFIED", "context:full_name").is_empty());
    // Ordinary words are no such pair ("will grant"), nor is a pair on a line with capitals.
    assert!(english_by_source("pt will grant consent in am", "context:full_name").is_empty());
    assert!(
        english_by_source("Seen in Clinic by rosalind ferreira.", "context:full_name").is_empty()
    );
}

#[test]
fn a_town_only_a_surname_list_holds_is_a_place_after_a_preposition_in_one_case() {
    assert_eq!(
        places(Lang::En, "fell at home in somerville"),
        ["somerville"]
    );
    assert_eq!(
        places(Lang::En, "DAUGHTER DROVE IN FROM PEABODY."),
        ["PEABODY"]
    );
    // Not the first part of a name joined by a hyphen, and after a role word still a person.
    assert!(places(Lang::En, "ADMITTED FROM MELROSE-WAKEFIELD ON 10/2.").is_empty());
    assert_eq!(names("OFFICER DUBOIS TOOK REPORT."), ["DUBOIS"]);
    // In capitals "STATES" after a name is the verb.
    assert_eq!(names("HUSBAND VERNON STATES THIS IS NEW."), ["VERNON"]);
}

#[test]
fn a_name_in_quotes_after_a_patients_word_is_found_in_one_case() {
    assert_eq!(names("PT GOES BY \"PIP\". PLEASANT."), ["PIP"]);
    assert_eq!(names("pt asks to be called \"red\" by staff"), ["red"]);
    assert_eq!(names("PREFERRED NAME IS \"BO JEAN\"."), ["BO JEAN"]);
    // Without its closing quote on the same line, or a long phrase, it is the sentence's.
    assert!(names("PT GOES BY \"PIP AND THE FAMILY AT HOME\"").is_empty());
    assert!(names("pt goes by \"pip\nto staff").is_empty());
}

#[test]
fn in_capitals_a_word_no_list_holds_before_a_comma_and_a_role_is_the_name() {
    assert_eq!(names("REPORT GIVEN TO ZORBLAX, RN."), ["ZORBLAX"]);
    // An ordinary word or a role is none.
    assert!(names("DISCUSSED WITH CHARGE, RN.").is_empty());
    assert!(names("REPORT GIVEN TO FLOOR, RN.").is_empty());
}

#[test]
fn in_lower_case_the_names_before_an_institutions_tail_are_its_name() {
    let found = |text: &str| {
        let mut v = english_by_source(text, "context:hospital");
        v.extend(english_by_source(text, "context:institution"));
        v
    };
    assert_eq!(
        found("transferred to lowell general hospital at 0300"),
        ["lowell general hospital"]
    );
    assert_eq!(found("d/c to hebrew rehab in am"), ["hebrew rehab"]);
    assert_eq!(
        found("son attends brookline high school"),
        ["brookline high school"]
    );
    // Ordinary words, services and conditions name no institution, nor does a line with
    // capitals (there the capitals tell).
    assert!(found("pt needs acute rehab").is_empty());
    assert!(found("f/u in gastro clinic and spasticity clinic").is_empty());
    assert!(found("Seen with Teodor at lowell general hospital").is_empty());
}

#[test]
fn a_newborns_parents_grandparents_and_child_protection_workers_are_triggers() {
    assert_eq!(names("FOB ANDERS AT BEDSIDE."), ["ANDERS"]);
    assert_eq!(
        names("GRANDPARENTS HORACE AND LOUISE BEAUCHAMP DROVE DOWN."),
        ["HORACE", "LOUISE BEAUCHAMP"]
    );
    assert_eq!(names("DCF WORKER TAMSIN REILLY CALLED."), ["TAMSIN REILLY"]);
    assert_eq!(names("Child life (Margo) prepped the siblings."), ["Margo"]);
    assert_eq!(names("PT CALLS HERSELF \"NINI\"."), ["NINI"]);
    // A worker's word before an ordinary word names no one.
    assert!(names("healthcare worker exposure reported").is_empty());
}

#[test]
fn in_lower_case_a_surname_opened_by_an_apostrophe_is_read_whole() {
    assert_eq!(names("dr. o'rourke aware of k 5.8"), ["o'rourke"]);
    assert_eq!(
        names("np o'sullivan-reyes removed staples"),
        ["o'sullivan-reyes"]
    );
    assert_eq!(
        names("sister siobhan o'rourke called"),
        ["siobhan o'rourke"]
    );
    // An ordinary word after the apostrophe is none.
    assert!(names("wife o'clock visit").is_empty());
}

#[test]
fn in_one_case_a_first_name_that_is_a_word_opens_a_listed_surname_after_a_trigger() {
    assert_eq!(
        names("pt's sister autumn pelletier is a potential donor"),
        ["autumn pelletier"]
    );
    assert_eq!(
        names("MOTHER DESTINY FAIRWEATHER STILL INPATIENT."),
        ["DESTINY FAIRWEATHER"]
    );
    // Not before a word no surname list holds, nor a short word ("in" is a dropped name too).
    assert!(names("sister autumn leaves visit").is_empty());
    assert!(names("DAUGHTER IN SOMERVILLE CALLED").is_empty());
}

#[test]
fn in_capitals_a_surname_no_list_holds_follows_a_listed_first_name_after_a_title() {
    assert_eq!(
        names("SEEN BY HER PCP DR. ANAND RAGHUNATHAN AT CLINIC."),
        ["ANAND RAGHUNATHAN"]
    );
    assert_eq!(
        names("PCP: DR. MAHMOUD EL-SAYED, BOSTON"),
        ["MAHMOUD EL-SAYED"]
    );
    // An ordinary word after the first name is the sentence's.
    assert_eq!(names("DR. JOHN NOTIFIED OF CHANGE."), ["JOHN"]);
    assert_eq!(names("DR. MARY AWARE OF K 5.8"), ["MARY"]);
}

#[test]
fn in_one_case_short_hyphenated_parts_a_wound_nurse_and_a_spouse_are_read() {
    assert_eq!(names("PT'S SON HYUN-WOO ASKED TO BE CALLED."), ["HYUN-WOO"]);
    assert_eq!(names("wound care per wocn marisol."), ["marisol"]);
    assert_eq!(
        names("retired teacher, married to benedetta."),
        ["benedetta"]
    );
    assert!(names("married to the job").is_empty());
}

#[test]
fn in_one_case_a_surname_that_is_a_word_ends_a_clause_after_a_physicians_title() {
    assert_eq!(names("plan per dr ng."), ["ng"]);
    assert_eq!(names("cards fellow dr ko aware. k 3.3"), ["ko"]);
    assert_eq!(names("EP (DR MA) CONSULTED, TEMP WIRE"), ["MA"]);
    assert_eq!(names("cardiologist is dr wolf at the clinic"), ["wolf"]);
    assert_eq!(names("F/U TTE READ (DR GOLD). DAUGHTER"), ["GOLD"]);
    // Not where the sentence goes on, not a word the corpora use often, not after a title of
    // another role ("MS" is a diagnosis as often).
    assert!(names("dr gold plan").is_empty());
    assert!(names("dr still at bedside").is_empty());
    assert!(names("spoke with dr re: plan").is_empty());
    assert!(names("dr will call back").is_empty());
    assert!(names("HX OF MS PACE AWARE").is_empty());
}

#[test]
fn in_one_case_a_first_name_that_is_a_word_ends_a_clause_after_a_relatives_word() {
    assert_eq!(
        names("belongings sent with pt; wife sunny to follow by car."),
        ["sunny"]
    );
    assert_eq!(names("SON MILES UPDATED."), ["MILES"]);
    assert_eq!(names("pt's brother chip visited today"), ["chip"]);
    assert_eq!(names("son will called at 0200"), ["will"]);
    assert_eq!(names("wife and daughter (autumn) stayed."), ["autumn"]);
    // Not where the sentence goes on, nor a weekday or an adverb, nor the modal verb.
    assert!(names("son will call at 0200").is_empty());
    assert!(names("daughter soon to arrive").is_empty());
    assert!(names("will call daughter tuesday.").is_empty());
    assert!(names("wife sunny disposition").is_empty());
    assert!(names("daughters hope to visit").is_empty());
    // After a staff member's word too, and an allow-listed first name there ("iris"); an
    // irregular past tense ends the clause's subject.
    assert_eq!(names("number left. sw iris updated."), ["iris"]);
    assert_eq!(names("PT'S SON JUNIOR BROUGHT IN HIS MEDS"), ["JUNIOR"]);
    // A word that gives the person's number ends the name too.
    assert_eq!(names("RIGHT TO APPEAL. CM SUMMER PAGER 2218."), ["SUMMER"]);
    assert_eq!(names("call wife autumn cell 978-555-0100"), ["autumn"]);
    assert!(names("sw iris exam").is_empty());
    assert!(names("case manager will call back").is_empty());
}

#[test]
fn in_mixed_case_a_first_name_that_is_a_word_ends_a_clause_after_a_staff_word() {
    assert_eq!(
        names("Plan to return once stable; facility RN Joy updated by phone."),
        ["Joy"]
    );
    assert_eq!(names("CM Summer following."), ["Summer"]);
    assert_eq!(names("Report given to RN Joy at the facility."), ["Joy"]);
    // Not where the sentence goes on with the word's other sense, nor the modal verb, nor a
    // clinical word, nor after a relative's word that was read before.
    assert!(names("SW Hope packet given to family.").is_empty());
    assert!(names("RN Will call MD with results.").is_empty());
    assert!(names("RN Echo done at bedside.").is_empty());
    assert!(names("Nurses Joy and Summer.").is_empty());
}

#[test]
fn after_a_relatives_or_staff_word_and_is_a_first_name_is_the_name() {
    assert_eq!(names("Case manager is Will, ext 4471."), ["Will"]);
    assert_eq!(
        names("Daughter is Marisol Reyes, she lives in Lynn."),
        ["Marisol Reyes"]
    );
    // Not a word of another kind, nor a first name that is a word where the clause goes on,
    // nor after a plural.
    assert!(names("Wife is Haitian and speaks Kreyol.").is_empty());
    assert!(names("Daughter is Catholic.").is_empty());
    assert!(names("Wife is Aware of plan.").is_empty());
    assert!(names("Case manager was Grace until Monday.").is_empty());
    assert!(names("Sons are Grace and Hope.").is_empty());
}

#[test]
fn after_an_abbreviated_title_a_weekday_is_a_surname_and_a_caps_abbreviation_ends_a_sentence() {
    assert_eq!(
        names("Outpt psychiatrist Dr. Sunday at Bay Cove faxed med list."),
        ["Sunday"]
    );
    assert!(names("Seen by Dr. Friday 12/4.").is_empty());
    // "BR." is the bathroom here, not "Brother": the next word opens a sentence.
    assert_eq!(
        names("Found in BR. No marks. Dr. Stone evaluated."),
        ["Stone"]
    );
    assert!(names("Found in BR. None seen.").is_empty());
    assert_eq!(names("Visited by Br. Anselm today."), ["Anselm"]);
}

#[test]
fn in_one_case_a_first_name_before_from_and_a_service_is_a_staff_members() {
    assert_eq!(
        names("nutrition consulted, becky from nutrition saw pt"),
        ["becky"]
    );
    assert_eq!(names("KATHY FROM PHARMACY CALLED RE: DOSE"), ["KATHY"]);
    // Not a word that is no first name, nor where capitals mark names (the lookup reads
    // "Becky" there), nor before an article.
    assert!(names("pt returned from psych at 1400").is_empty());
    assert!(names("Becky from Nutrition saw pt; kathy from the lab").is_empty());
}

#[test]
fn in_one_case_a_town_that_is_a_word_ends_a_clause_after_a_places_word() {
    assert_eq!(
        places(Lang::En, "pt states he lives in revere with his brother"),
        ["revere"]
    );
    assert_eq!(
        places(Lang::En, "SON CALLED FROM GREENFIELD, UPDATED"),
        ["GREENFIELD"]
    );
    assert_eq!(
        places(Lang::En, "fell at home in concord on 11/22."),
        ["concord"]
    );
    // Not where the clause goes on, nor where capitals mark places, nor a word the corpora
    // use often.
    assert!(places(Lang::En, "in revere silence").is_empty());
    assert!(places(Lang::En, "Wife in concord with the plan, Dr. Hale aware.").is_empty());
    assert!(places(Lang::En, "pt returned from college.").is_empty());
}

#[test]
fn via_until_and_about_are_no_part_of_an_institution_before_its_tail_word() {
    assert!(places(Lang::En, "ARRIVED 2300 VIA AMBULANCE. LIPASE 2400").is_empty());
    assert!(places(Lang::En, "PT'S WIFE JOY ASKS ABOUT HOSPICE.").is_empty());
    assert_eq!(
        places(Lang::En, "TRANSFERRED AT 1100 VIA FALLON AMBULANCE."),
        ["FALLON AMBULANCE"]
    );
    assert_eq!(
        places(
            Lang::En,
            "Referred to Hospital for Special Surgery in New York."
        ),
        ["Hospital for Special Surgery", "New York"]
    );
}

#[test]
fn a_hospital_word_that_modifies_the_noun_after_it_names_no_hospital() {
    assert!(places(
        Lang::En,
        "CM NOTE: DME ORDER FOR HOSPITAL BED AND HOYER SENT."
    )
    .is_empty());
    assert!(places(Lang::En, "SENT FOR HOSPITAL ADMISSION").is_empty());
    assert_eq!(
        places(Lang::En, "SENT TO YOUVILLE FOR REHAB."),
        ["YOUVILLE FOR REHAB"]
    );
    assert_eq!(
        places(Lang::En, "BACK TO NORWOOD HOSPITAL WHEN STABLE."),
        ["NORWOOD HOSPITAL"]
    );
}

#[test]
fn the_letter_closing_a_list_of_slashes_is_no_initial() {
    assert!(names("ADULT DAY CENTER M/W/F. VAN PICKUP 0730.").is_empty());
    assert_eq!(names("Seen by J. Costa RN."), ["J. Costa"]);
}

#[test]
fn courts_elder_agencies_and_shelters_are_read_back_from_their_kind() {
    assert_eq!(
        places(
            Lang::En,
            "petition filed at Middlesex Probate and Family Court on 3/6."
        ),
        ["Middlesex Probate and Family Court"]
    );
    assert_eq!(
        places(
            Lang::En,
            "worker from Greater Lynn Senior Services to meet pt."
        ),
        ["Greater Lynn Senior Services"]
    );
    // (The town that opens it is read as a place too; the two spans merge downstream.)
    assert!(places(
        Lang::En,
        "STAYING AT SOUTHAMPTON STREET SHELTER. CASE MANAGER AWARE."
    )
    .contains(&"SOUTHAMPTON STREET SHELTER".to_string()));
    // The kind alone is none.
    assert!(places(Lang::En, "Referred to elder services and the Family Court.").is_empty());
    assert!(places(Lang::En, "went to the homeless Shelter.").is_empty());
}
