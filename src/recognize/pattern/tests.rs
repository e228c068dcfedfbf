//! Table-driven tests of the pattern recognizer, per language, with negatives. Sentences are
//! written for these tests.

use super::*;

fn run(lang: Lang, text: &str) -> Vec<(String, String)> {
    let r = PatternRecognizer::new(lang, &ListSources::default()).unwrap();
    let mut out = Vec::new();
    r.find(text, &mut out);
    out.iter()
        .map(|e| (text[e.start..e.end].to_string(), e.label.to_string()))
        .collect()
}

/// Each case: language, text, expected (surface, label) that must be among the spans.
fn check_found(cases: &[(Lang, &str, &str, &str)]) {
    for (lang, text, surface, label) in cases {
        let got = run(*lang, text);
        assert!(
            got.iter().any(|(s, l)| s == surface && l == label),
            "{lang:?} {text:?}: want {surface:?} {label}, got {got:?}"
        );
    }
}

/// Each case: language, text, a substring that must not be covered by any span.
fn check_absent(cases: &[(Lang, &str, &str)]) {
    for (lang, text, part) in cases {
        let r = PatternRecognizer::new(*lang, &ListSources::default()).unwrap();
        let mut out = Vec::new();
        r.find(text, &mut out);
        let at = text.find(part).unwrap();
        let hit = out.iter().find(|e| e.start < at + part.len() && at < e.end);
        assert!(
            hit.is_none(),
            "{lang:?} {text:?}: {part:?} covered by {:?}",
            hit.map(|e| (&text[e.start..e.end], e.label.to_string()))
        );
    }
}

use Lang::{En, Es, Hu, It, Nl};

#[test]
fn contact_details() {
    check_found(&[
        // A hospital's internal extensions after a pager or extension trigger.
        (En, "Dr. Smith, pager #4412.", "4412", "CONTACT/PHONE"),
        (En, "covering resident beeper 2187", "2187", "CONTACT/PHONE"),
        (
            En,
            "Signed: O. Marsh, RN, pgr 31147, 1915",
            "31147",
            "CONTACT/PHONE",
        ),
        // An insurer's authorization for a stay.
        (
            En,
            "approved 14 days, auth # FH-20931. dtr aware",
            "FH-20931",
            "ID/IDNUM",
        ),
        (En, "unit desk ext 5-3321", "5-3321", "CONTACT/PHONE"),
        // An extension after a number is part of it, after `ext.` or an `x`.
        (
            En,
            "niece at (617) 555-0134 x12 or",
            "(617) 555-0134 x12",
            "CONTACT/PHONE",
        ),
        (
            En,
            "office 617-555-0134 ext. 2231.",
            "617-555-0134 ext. 2231",
            "CONTACT/PHONE",
        ),
        (
            En,
            "reached by phone at 2187, ward clerk",
            "2187",
            "CONTACT/PHONE",
        ),
        (
            Es,
            "o enviar fax al 934 112 233.",
            "934 112 233",
            "CONTACT/FAX",
        ),
        (
            En,
            "or by fax on 020 7946 0321 with",
            "020 7946 0321",
            "CONTACT/FAX",
        ),
        (
            It,
            "o via fax al 02-12345678.",
            "02-12345678",
            "CONTACT/FAX",
        ),
        (
            Hu,
            "számon vagy faxon: (52) 411-230.",
            "(52) 411-230",
            "CONTACT/FAX",
        ),
        (
            Hu,
            "elérhető vagyok a (52) 411-230 számon",
            "(52) 411-230",
            "CONTACT/PHONE",
        ),
        (
            Hu,
            "elérhető a 06-52-411-230 számon",
            "06-52-411-230",
            "CONTACT/PHONE",
        ),
        (
            Es,
            "Contacto: ana.garcia@hospital.es.",
            "ana.garcia@hospital.es",
            "CONTACT/EMAIL",
        ),
        (
            Es,
            "E-mail: pedro.martinez.garcía@salud.es",
            "pedro.martinez.garcía@salud.es",
            "CONTACT/EMAIL",
        ),
        (
            En,
            "See https://example.org/a?b=1, then",
            "https://example.org/a?b=1",
            "CONTACT/URL",
        ),
        (
            Nl,
            "Zie www.ziekenhuis.nl.",
            "www.ziekenhuis.nl",
            "CONTACT/URL",
        ),
        (
            En,
            "host 192.168.10.254 logged",
            "192.168.10.254",
            "CONTACT/IPADDR",
        ),
        (
            En,
            "from fe80::1ff:fe23:4567:890a today",
            "fe80::1ff:fe23:4567:890a",
            "CONTACT/IPADDR",
        ),
        (
            Nl,
            "Bel 06-12345678 of 020-1234567.",
            "06-12345678",
            "CONTACT/PHONE",
        ),
        (
            Nl,
            "Bel 06-12345678 of 020-1234567.",
            "020-1234567",
            "CONTACT/PHONE",
        ),
        (
            Nl,
            "Tel: +31 20 123 4567",
            "+31 20 123 4567",
            "CONTACT/PHONE",
        ),
        (
            Hu,
            "Telefon: +36 30 123 4567",
            "+36 30 123 4567",
            "CONTACT/PHONE",
        ),
        (
            Hu,
            "hívja a 06-1-234-5678 számot",
            "06-1-234-5678",
            "CONTACT/PHONE",
        ),
        (
            Es,
            "llamar al 912 345 678 o al 612345678",
            "912 345 678",
            "CONTACT/PHONE",
        ),
        (
            Es,
            "llamar al 912 345 678 o al 612345678",
            "612345678",
            "CONTACT/PHONE",
        ),
        (
            Es,
            "Tel.: + 34 93 693 29 05.",
            "+ 34 93 693 29 05",
            "CONTACT/PHONE",
        ),
        (
            It,
            "cellulare 347 123 4567, ufficio 06 1234 5678",
            "347 123 4567",
            "CONTACT/PHONE",
        ),
        (
            It,
            "cellulare 347 123 4567, ufficio 06 1234 5678",
            "06 1234 5678",
            "CONTACT/PHONE",
        ),
        (
            En,
            "Call 07700 900123 or (555) 123-4567.",
            "07700 900123",
            "CONTACT/PHONE",
        ),
        (
            En,
            "Call 07700 900123 or (555) 123-4567.",
            "(555) 123-4567",
            "CONTACT/PHONE",
        ),
        // Parentheses around the whole number are the sentence's.
        (
            En,
            "Guardian Atty. Keel (508-555-0119) consents.",
            "508-555-0119",
            "CONTACT/PHONE",
        ),
        (
            En,
            "Nephew called from Tbilisi (+995 555 12 34 56) today.",
            "+995 555 12 34 56",
            "CONTACT/PHONE",
        ),
        (
            Es,
            "Tfno: 948 255 400 Fax: 948 296 500",
            "948 296 500",
            "CONTACT/FAX",
        ),
        (Nl, "telefax: 020-7654321", "020-7654321", "CONTACT/FAX"),
        (
            Es,
            "FAX: + 34- 963864175 E-mail",
            "+ 34- 963864175",
            "CONTACT/FAX",
        ),
    ]);
    // A clock time after "phone at" is when the call was made.
    check_absent(&[(En, "daughter notified by phone at 0700.", "0700")]);
    // Apgar scores are no date; a date after "due" is one even when it reads as a score.
    check_absent(&[(En, "Baby Boy Apgars 7/9 at birth", "7/9")]);
    check_absent(&[(En, "NST REACTIVE. BPP 8/8. HOME.", "8/8")]);
    check_found(&[
        (En, "Synagis due 12/15 at clinic", "12/15", "DATE/DATE"),
        (En, "has a bed there through 12/15.", "12/15", "DATE/DATE"),
    ]);
    // "on account of" is no account's number.
    check_absent(&[(En, "dose held on account of 150 mg given", "150")]);
}

#[test]
fn identifiers_with_checksums_and_triggers() {
    check_found(&[
        (Nl, "PATIËNTNUMMER: 7499860", "7499860", "ID/MEDICALRECORD"),
        (
            Es,
            "Nº HISTORIA CLÍNICA: 5540902",
            "5540902",
            "ID/MEDICALRECORD",
        ),
        (
            Hu,
            "KÓRLAPSZÁM: 672 114 487",
            "672 114 487",
            "ID/MEDICALRECORD",
        ),
        (
            Hu,
            "Biztosítási azonosító: DK-269556",
            "DK-269556",
            "ID/HEALTHPLAN",
        ),
        (
            En,
            "Insurance policy: KXP659672781",
            "KXP659672781",
            "ID/HEALTHPLAN",
        ),
        (
            Nl,
            "IBAN NL91ABNA0417164300 bekend",
            "NL91ABNA0417164300",
            "ID/ACCOUNT",
        ),
        (
            En,
            "pay GB82 WEST 1234 5698 7654 32 now",
            "GB82 WEST 1234 5698 7654 32",
            "ID/ACCOUNT",
        ),
        (
            En,
            "Pt's account # 880031247 flagged",
            "880031247",
            "ID/ACCOUNT",
        ),
        (En, "acct 4417-2290 on hold", "4417-2290", "ID/ACCOUNT"),
        (En, "officer at bedside. Badge 4471.", "4471", "ID/IDNUM"),
        (
            En,
            "Rep Ezequiel, call ref H-20260404-7719.",
            "H-20260404-7719",
            "ID/IDNUM",
        ),
        (
            En,
            "REP MAUREEN, REF 7718830. DR AWARE",
            "7718830",
            "ID/IDNUM",
        ),
        (
            En,
            "PA submitted, key B7KQ2X9M. Pharmacist",
            "B7KQ2X9M",
            "ID/IDNUM",
        ),
        (En, "Door code 4417, key in lockbox.", "4417", "ID/IDNUM"),
        (Nl, "zijn nummer 111222333 staat", "111222333", "ID/SSN"),
        (Nl, "BSN: 111222334 (fout)", "111222334", "ID/SSN"),
        (Hu, "száma 123 456 788 szerint", "123 456 788", "ID/SSN"),
        (Hu, "TAJ szám: 123456789", "123456789", "ID/SSN"),
        (Es, "con DNI 12345678Z acude", "12345678Z", "ID/SSN"),
        (Es, "NIE X1234567L", "X1234567L", "ID/SSN"),
        (
            It,
            "codice RSSMRA85T10A562S in atti",
            "RSSMRA85T10A562S",
            "ID/SSN",
        ),
        (En, "NHS no 943 476 5919", "943 476 5919", "ID/SSN"),
        (En, "number 943 476 5919 on file", "943 476 5919", "ID/SSN"),
        (
            Es,
            "NHC: 7834563.\nNASS: 28 12345678 90.",
            "7834563",
            "ID/MEDICALRECORD",
        ),
        (
            Es,
            "NHC: 7834563.\nNASS: 28 12345678 90.",
            "28 12345678 90",
            "ID/HEALTHPLAN",
        ),
        (
            Es,
            "Domicilio: 91 28065072 33.",
            "91 28065072 33",
            "ID/HEALTHPLAN",
        ),
        (
            Es,
            "Médico: Ana Ruiz NºCol: 28 28 34053.",
            "28 28 34053",
            "ID/LICENSE",
        ),
        (
            Es,
            "número de colegiado 08-08-25574",
            "08-08-25574",
            "ID/LICENSE",
        ),
        (Es, "Episodio: 7845162.", "7845162", "ID/IDNUM"),
        (Es, "CIPA: nhc-789412.", "789412", "ID/MEDICALRECORD"),
        (
            Es,
            "nº de afiliación: 28/12345678/90",
            "28/12345678/90",
            "ID/HEALTHPLAN",
        ),
        (
            Nl,
            "patiëntnummer: AB-1234567",
            "AB-1234567",
            "ID/MEDICALRECORD",
        ),
        (
            It,
            "tessera sanitaria n. 80380000500123456789",
            "80380000500123456789",
            "ID/HEALTHPLAN",
        ),
        (
            It,
            "cartella clinica 2019/004512",
            "2019/004512",
            "ID/MEDICALRECORD",
        ),
        (Hu, "KBA: 1234567", "1234567", "ID/MEDICALRECORD"),
        (En, "MRN: ES1234567", "ES1234567", "ID/MEDICALRECORD"),
        (
            En,
            "MR# 4471-209. Admitted from home.",
            "4471-209",
            "ID/MEDICALRECORD",
        ),
        (
            En,
            "Spanish interpreter (ID 40118) used.",
            "40118",
            "ID/IDNUM",
        ),
    ]);
    // "ID" is also the infectious-disease service: without a number it reads nothing.
    let text = "ID consult called, ID following 2/2 cultures, day 5 of vanco.";
    assert!(run(En, text).is_empty(), "{:?}", run(En, text));
    // Nor a measure after the system's header in capitals; the words after a number in
    // capitals are none of it.
    let text = "ID: TMAX 101.4 AT 0200, PAN CX SENT.";
    assert!(run(En, text).is_empty(), "{:?}", run(En, text));
    check_found(&[
        (
            En,
            "PT'S MRN 70418853 ON ALL PAPERWORK.",
            "70418853",
            "ID/MEDICALRECORD",
        ),
        (En, "MRN 1234 5678 on file", "1234 5678", "ID/MEDICALRECORD"),
    ]);
}

#[test]
fn dates_in_five_languages() {
    check_found(&[
        (
            Nl,
            "GEB.DATUM: 14 jun 1954",
            "14 jun 1954",
            "DATE/BIRTHDATE",
        ),
        (Nl, "van 31 mei. 2015 tot", "31 mei. 2015", "DATE/DATE"),
        (
            It,
            "NATO/A IL: 18 Marzo 1958",
            "18 Marzo 1958",
            "DATE/BIRTHDATE",
        ),
        (
            Hu,
            "SZÜLETÉSI IDŐ: 1964. 05. 22.",
            "1964. 05. 22.",
            "DATE/BIRTHDATE",
        ),
        (
            Hu,
            "betegünk 2022. április 6., szerda napján",
            "2022. április 6., szerda",
            "DATE/DATE",
        ),
        (
            Es,
            "ingresó el 3 de mayo de 2010 por",
            "3 de mayo de 2010",
            "DATE/DATE",
        ),
        (Es, "En mayo de 2010 se operó", "mayo de 2010", "DATE/DATE"),
        // A year shifted past 2100, as notes derived from MIMIC write them.
        (
            En,
            "Family meeting held 12/10/2130 with wife",
            "12/10/2130",
            "DATE/DATE",
        ),
        (
            Es,
            "el día 26-julio-2004 reinició",
            "26-julio-2004",
            "DATE/DATE",
        ),
        (
            Es,
            "entre Marzo y Abril de 2000 recibió",
            "Marzo",
            "DATE/DATE",
        ),
        (
            Es,
            "Fecha de nacimiento: 13/05/1961.",
            "13/05/1961",
            "DATE/BIRTHDATE",
        ),
        (Es, "en 1996 se procedió", "1996", "DATE/DATE"),
        (Es, "desde el año 2004, con", "año 2004", "DATE/DATE"),
        (Nl, "op 12 maart 2019 gezien", "12 maart 2019", "DATE/DATE"),
        (Nl, "op 12 mrt. 2019 gezien", "12 mrt. 2019", "DATE/DATE"),
        (Nl, "sinds 2010 klachten", "2010", "DATE/DATE"),
        (Nl, "geb. 01-02-1950", "01-02-1950", "DATE/BIRTHDATE"),
        (
            Hu,
            "2019. március 12. óta",
            "2019. március 12.",
            "DATE/DATE",
        ),
        (Hu, "március 12-én felvéve", "március 12-én", "DATE/DATE"),
        (
            Hu,
            "felvétel: 2019.03.12. napon",
            "2019.03.12.",
            "DATE/DATE",
        ),
        (
            Hu,
            "kontroll 2019. 03. 12. napon",
            "2019. 03. 12.",
            "DATE/DATE",
        ),
        (
            Hu,
            "születési dátum: 1950.02.01.",
            "1950.02.01.",
            "DATE/BIRTHDATE",
        ),
        (
            It,
            "ricoverato il 12 marzo 2019",
            "12 marzo 2019",
            "DATE/DATE",
        ),
        (
            It,
            "data di nascita 01/02/1950",
            "01/02/1950",
            "DATE/BIRTHDATE",
        ),
        (
            En,
            "seen on 12 March 2019 and",
            "12 March 2019",
            "DATE/DATE",
        ),
        (
            En,
            "seen on March 12, 2019 and",
            "March 12, 2019",
            "DATE/DATE",
        ),
        (
            En,
            "seen on the 12th of March.",
            "the 12th of March",
            "DATE/DATE",
        ),
        (
            En,
            "seen on Monday, 12 March 2019.",
            "Monday, 12 March 2019",
            "DATE/DATE",
        ),
        (En, "DOB: 2001-04-23", "2001-04-23", "DATE/BIRTHDATE"),
        (En, "Seen Jan 5 in clinic.", "Jan 5", "DATE/DATE"),
        (En, "cath planned Sept. 12th", "Sept. 12th", "DATE/DATE"),
        // A weekday before a date without a year belongs to it, as to a written date.
        (
            En,
            "Echo done Tuesday 4/7, prelim",
            "Tuesday 4/7",
            "DATE/DATE",
        ),
        (En, "flying in FRIDAY, 12/4.", "FRIDAY, 12/4", "DATE/DATE"),
        (En, "bed open tues. 7/13 at", "tues. 7/13", "DATE/DATE"),
        (Es, "revisión el lunes 15-3 en", "lunes 15-3", "DATE/DATE"),
    ]);
}

#[test]
fn english_streets_without_a_number_only_after_on_and_a_street_word() {
    check_absent(&[
        (En, "seen on Monday Dr. Kessler, who", "Monday Dr"),
        (En, "lives at Pleasant Avenue with", "Pleasant Avenue"),
        (En, "walked down Elm St to the", "Elm St"),
        (En, "agreed on Grove Way today", "Grove Way"),
        (En, "seen on Monday Dr. Kessler, who", "Monday Dr."),
        (En, "called on Friday Dr. Okafor", "Friday Dr."),
    ]);
    check_found(&[
        (
            En,
            "Lives with niece on Quincy Shore Dr.",
            "Quincy Shore Dr",
            "LOCATION/STREET",
        ),
        (
            En,
            "lives on Elm Dr., Weymouth",
            "Elm Dr.",
            "LOCATION/STREET",
        ),
        (
            En,
            "fell on Harbor View Drive last week",
            "Harbor View Drive",
            "LOCATION/STREET",
        ),
    ]);
}

#[test]
fn the_town_after_an_english_street_and_its_comma_is_a_city() {
    check_found(&[
        (
            En,
            "Visit at 27 Orchard Ln, Lunenburg. Pt sleeping.",
            "Lunenburg",
            "LOCATION/CITY",
        ),
        (
            En,
            "moved to 5 Elm St, West Newbury, MA 01985",
            "West Newbury",
            "LOCATION/CITY",
        ),
        (En, "at 9 Main St, Nashua NH", "Nashua", "LOCATION/CITY"),
    ]);
    check_absent(&[
        (En, "lives at 12 Main St, Building 4 with", "Building"),
        (En, "lives at 12 Main St, Pt states", "Pt"),
        (En, "lives at 12 Main St, Family present", "Family"),
    ]);
}

#[test]
fn a_pair_after_a_visit_word_is_a_date_even_with_a_day_of_five() {
    check_found(&[
        (En, "RETURN 12/5 FOR RECHECK.", "12/5", "DATE/DATE"),
        (En, "f/u 3/5 in clinic", "3/5", "DATE/DATE"),
    ]);
}

#[test]
fn an_abbreviated_street_type_leaves_a_sentences_full_stop_out() {
    check_found(&[
        (
            En,
            "lives in a dorm on Huntington Ave. Parents visit.",
            "Huntington Ave",
            "LOCATION/STREET",
        ),
        (
            En,
            "staying on Hampden St.",
            "Hampden St",
            "LOCATION/STREET",
        ),
        (
            En,
            "address is 9 Harbor View Ln, Hyannis",
            "9 Harbor View Ln",
            "LOCATION/STREET",
        ),
        // Inside a sentence the full stop is the abbreviation's.
        (
            En,
            "lives at 12 Oak St. with her son",
            "12 Oak St.",
            "LOCATION/STREET",
        ),
    ]);
}

#[test]
fn abbreviated_months_without_a_year_only_in_english_and_capitalized() {
    check_absent(&[
        (En, "insulin dec 2 units", "dec 2"),
        (En, "Dec 2 units given", "Dec 2"),
        (Nl, "Jan 3 keer gezien", "Jan 3"),
        // Capitals in a mixed-case line and lower case without a date word before it.
        (En, "Light duty until DEC 19 per Dr. Webb", "DEC 19"),
        (En, "bs dec 20 after insulin", "dec 20"),
        (En, "INSULIN DEC 2 UNITS", "DEC 2"),
    ]);
}

#[test]
fn abbreviated_months_in_capitals_or_after_a_date_word_in_lower_case() {
    check_found(&[
        (En, "LIGHT DUTY UNTIL DEC 19.", "DEC 19", "DATE/DATE"),
        (En, "next visit dec 29.", "dec 29", "DATE/DATE"),
        (En, "seen on 3rd jan by np", "3rd jan", "DATE/DATE"),
    ]);
}

#[test]
fn ages() {
    check_found(&[
        (Es, "Varón de 53 años que acude", "53 años", "AGE/AGE"),
        (Es, "Niña de cuatro años que", "cuatro años", "AGE/AGE"),
        (Es, "Lactante de 8 meses con", "8 meses", "AGE/AGE"),
        (Es, "Edad: 11  Sexo: M", "11", "AGE/AGE"),
        (Es, "operado a los 14 años.", "14 años", "AGE/AGE"),
        (Nl, "een 53-jarige man", "53-jarige", "AGE/AGE"),
        (Nl, "patiënt van 53 jaar met", "53 jaar", "AGE/AGE"),
        (Nl, "leeftijd: 53", "53", "AGE/AGE"),
        (Hu, "53 éves férfi", "53 éves", "AGE/AGE"),
        (It, "paziente di 53 anni con", "53 anni", "AGE/AGE"),
        (En, "a 53-year-old woman", "53-year-old", "AGE/AGE"),
        (En, "patient aged 53 presented", "53", "AGE/AGE"),
        (Es, "El Sr. Díaz (71 años) ha pasado", "71 años", "AGE/AGE"),
        (
            Es,
            "Remito a Lucía Navarro, de 44 años, por",
            "44 años",
            "AGE/AGE",
        ),
        (Nl, "Mevrouw Jacobs, 65 jaar, werd", "65 jaar", "AGE/AGE"),
        (
            It,
            "invio la sig.ra Colombo, 47 anni, residente",
            "47 anni",
            "AGE/AGE",
        ),
        (It, "Pietro Bruno, di anni 12, è stato", "12", "AGE/AGE"),
        (En, "Mrs Green (57 years) settled", "57 years", "AGE/AGE"),
        // Tens and units joined by a hyphen are one number.
        (
            En,
            "Pt is ninety-two years old.",
            "ninety-two years",
            "AGE/AGE",
        ),
    ]);
    check_absent(&[
        (Es, "tratamiento con insulina (10 años) y", "10 años"),
        (Nl, "Na de operatie, 2 jaar, geen klachten", "2 jaar"),
        (Nl, "meneer van Dijk, 80 jaar, naar", "Dijk"),
        (
            Nl,
            "in het Sint Antonius Ziekenhuis op 31 mei 2018.",
            "Sint",
        ),
    ]);
}

#[test]
fn addresses_and_postcodes() {
    // Address fields split at the postcode into street, postcode and city.
    for (lang, text, street, zip, city) in [
        (
            Nl,
            "Adres: Kerkstraat 1, 9545 HG Groningen\n",
            "Kerkstraat 1",
            "9545 HG",
            "Groningen",
        ),
        (
            Es,
            "Domicilio: Calle Cervantes, nº 40, 20279 Jerez\n",
            "Calle Cervantes, nº 40",
            "20279",
            "Jerez",
        ),
        (
            Hu,
            "Lakcím: 1922 Zalaegerszeg, Béke tér 62. 2/24\n",
            "Béke tér 62. 2/24",
            "1922",
            "Zalaegerszeg",
        ),
        (
            It,
            "RESIDENZA : Via XX Settembre, 14, 86458 Milano\n",
            "Via XX Settembre, 14",
            "86458",
            "Milano",
        ),
        (
            En,
            "Address: Flat 6, 100 Elm Grove, Dundee DD1 8PP\n",
            "Flat 6, 100 Elm Grove",
            "DD1 8PP",
            "Dundee",
        ),
    ] {
        let got = run(lang, text);
        for (surface, label) in [
            (street, "LOCATION/STREET"),
            (zip, "LOCATION/ZIP"),
            (city, "LOCATION/CITY"),
        ] {
            assert!(
                got.iter().any(|(s, l)| s == surface && l == label),
                "{lang:?} {text:?}: want {surface:?} {label}, got {got:?}"
            );
        }
    }
    check_found(&[
        (
            Nl,
            "woont Sint Jacobsstraat 12 te",
            "Sint Jacobsstraat 12",
            "LOCATION/STREET",
        ),
        (
            It,
            "Comune di residenza: Cagliari\n",
            "Cagliari",
            "LOCATION/CITY",
        ),
        (
            Es,
            "Domicilio: Calle Carmen Romero, 23, 1D.\n",
            "Calle Carmen Romero, 23, 1D",
            "LOCATION/STREET",
        ),
        (
            Es,
            "vive en C/ Mayor 5, 3º izq. desde",
            "C/ Mayor 5, 3º izq.",
            "LOCATION/STREET",
        ),
        (
            Es,
            "en la Avda. de la Constitución 12, Sevilla",
            "Avda. de la Constitución 12",
            "LOCATION/STREET",
        ),
        (
            Es,
            "Hospital X. Paseo de la Castellana, 261. 28046 Madrid",
            "Paseo de la Castellana, 261",
            "LOCATION/STREET",
        ),
        (
            Es,
            "Hospital X. Paseo de la Castellana, 261. 28046 Madrid",
            "28046",
            "LOCATION/ZIP",
        ),
        (
            Es,
            "Hospital Y. Hermanos Falcó, s/n - 02006 Albacete",
            "Hermanos Falcó, s/n",
            "LOCATION/STREET",
        ),
        (Es, "CP: 28029.", "28029", "LOCATION/ZIP"),
        (
            Nl,
            "woont Kerkstraat 12 te",
            "Kerkstraat 12",
            "LOCATION/STREET",
        ),
        (
            Nl,
            "adres Laan van Meerdervoort 10, 2517 AB Den Haag",
            "Laan van Meerdervoort 10",
            "LOCATION/STREET",
        ),
        (
            Nl,
            "adres Laan van Meerdervoort 10, 2517 AB Den Haag",
            "2517 AB",
            "LOCATION/ZIP",
        ),
        (
            It,
            "abita in Via Roma 12, 00184 Roma",
            "Via Roma 12",
            "LOCATION/STREET",
        ),
        (
            It,
            "abita in Via Roma 12, 00184 Roma",
            "00184",
            "LOCATION/ZIP",
        ),
        (
            It,
            "sede in Piazza Garibaldi 3.",
            "Piazza Garibaldi 3",
            "LOCATION/STREET",
        ),
        (
            Hu,
            "lakik: Kossuth Lajos utca 12. alatt",
            "Kossuth Lajos utca 12.",
            "LOCATION/STREET",
        ),
        (Hu, "a Petőfi u. 3. szám", "Petőfi u. 3.", "LOCATION/STREET"),
        (Hu, "1085 Budapest, Üllői út 26.", "1085", "LOCATION/ZIP"),
        (
            En,
            "lives at 12 Baker Street, London",
            "12 Baker Street",
            "LOCATION/STREET",
        ),
        (
            En,
            "lives at 221B Baker St, London NW1 6XE",
            "221B Baker St",
            "LOCATION/STREET",
        ),
        (
            En,
            "lives at 221B Baker St, London NW1 6XE",
            "NW1 6XE",
            "LOCATION/ZIP",
        ),
        // Without a number, after "on".
        (
            En,
            "fell outside their home on Elm St in Malden",
            "Elm St",
            "LOCATION/STREET",
        ),
        (
            En,
            "lives on Pleasant Avenue with her son",
            "Pleasant Avenue",
            "LOCATION/STREET",
        ),
        // The flat or unit belongs to the address.
        (
            En,
            "lives at 14 Elmwood Rd, Apt 3, Waltham",
            "14 Elmwood Rd, Apt 3",
            "LOCATION/STREET",
        ),
        (
            En,
            "home: 9 Cedar St unit 2B with wife",
            "9 Cedar St unit 2B",
            "LOCATION/STREET",
        ),
        (
            En,
            "at 40 Main St, #12 today",
            "40 Main St, #12",
            "LOCATION/STREET",
        ),
        (
            En,
            "at 40 Main St apt. B",
            "40 Main St apt. B",
            "LOCATION/STREET",
        ),
        // No unit: a floor of the hospital or a count stays out.
        (
            En,
            "at 40 Main St, floor plan",
            "40 Main St",
            "LOCATION/STREET",
        ),
        (
            En,
            "at 40 Main St, unit secretary",
            "40 Main St",
            "LOCATION/STREET",
        ),
    ]);
}

#[test]
fn negatives_stay_unmarked() {
    check_absent(&[
        (En, "auth for rehab obtained today", "rehab"),
        (Es, "Se pautó 10 mg cada 8 horas.", "10 mg"),
        (
            Es,
            "Hemoglobina 12.5 g/dl, plaquetas 250.000/mm3.",
            "250.000",
        ),
        (Es, "Control a las 10:30 horas.", "10:30"),
        (Nl, "Controle op 12 mei.", "."),
        (Es, "Estadio T3N0M0 con Ki67 del 20%.", "T3N0M0"),
        (Es, "TA 120/80 mmHg, FC 80 lpm.", "120/80"),
        (Es, "durante 3 años con tratamiento", "3 años"),
        (Es, "hace 5 años presentó", "5 años"),
        (Es, "se colocó en la calle de la izquierda", "calle"),
        (Es, "dosis 12345678A en lote", "12345678A"), // wrong DNI letter, no trigger
        (Es, "Hospital 12 de Octubre de Madrid", "12 de Octubre"),
        (Nl, "nummer 111222334 onbekend", "111222334"), // fails the 11-proef
        (Hu, "szám 123456789 ismeretlen", "123456789"), // wrong TAJ CDV
        (En, "value 9434765918 only", "9434765918"),    // wrong NHS check digit
        (En, "The results may vary by 5 may be", "5 may"),
        (En, "Smith et al. 2010 reported", "2010"),
        (It, "assume 2 compresse da 500 mg", "500 mg"),
        (Nl, "bloeddruk 140/90, saturatie 98%", "140/90"),
        (Hu, "vérnyomás 140/90 Hgmm", "140/90"),
    ]);
}

#[test]
fn sources_carry_rule_names() {
    let r = PatternRecognizer::new(Es, &ListSources::default()).unwrap();
    assert_eq!(r.name(), "pattern");
    let mut out = Vec::new();
    r.find("NHC: 7834563. Email: a.b@c.es", &mut out);
    let sources: Vec<&str> = out.iter().map(|e| e.source.as_str()).collect();
    assert_eq!(sources, ["pattern:record_number", "pattern:email"]);
}

#[test]
fn malformed_user_lists_fail_closed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("es")).unwrap();
    std::fs::write(
        dir.path().join("es/id_triggers.txt"),
        "NHC ID/MEDICALRECORD\n",
    )
    .unwrap();
    let lists = ListSources::with_user_dir(dir.path()).unwrap();
    assert!(matches!(
        PatternRecognizer::new(Es, &lists),
        Err(PatternError::BadEntry { .. })
    ));
    std::fs::write(dir.path().join("es/id_triggers.txt"), "NHC\tNOT/A_LABEL\n").unwrap();
    assert!(PatternRecognizer::new(Es, &lists).is_err());
    std::fs::write(
        dir.path().join("es/id_triggers.txt"),
        "Expediente\tID/MEDICALRECORD\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("es/street_types.txt"), "sideways\tCalle\n").unwrap();
    assert!(PatternRecognizer::new(Es, &lists).is_err());
    std::fs::write(dir.path().join("es/street_types.txt"), "").unwrap();
    let r = PatternRecognizer::new(Es, &lists).unwrap();
    let mut out = Vec::new();
    r.find("Expediente: 445566", &mut out);
    assert_eq!(out.len(), 1);
}

#[test]
fn all_languages_build() {
    for lang in Lang::ALL {
        let r = PatternRecognizer::new(lang, &ListSources::default()).unwrap();
        assert_eq!(r.lang(), lang);
    }
}

#[test]
fn user_names_after_and_before_triggers() {
    check_found(&[
        (
            En,
            "Images were sent by user kwalters.",
            "kwalters",
            "NAME/USERNAME",
        ),
        (
            En,
            "Login: PIETERS0412 at 08:10",
            "PIETERS0412",
            "NAME/USERNAME",
        ),
        (
            Es,
            "enviadas por el usuario mlopez3.",
            "mlopez3",
            "NAME/USERNAME",
        ),
        (It, "dall'utente gverdi, poi", "gverdi", "NAME/USERNAME"),
        (Nl, "door gebruiker jdvries.", "jdvries", "NAME/USERNAME"),
        (
            Hu,
            "A képeket küldte szkovacs felhasználó.",
            "szkovacs",
            "NAME/USERNAME",
        ),
        (Hu, "Felhasználónév: nagyp77", "nagyp77", "NAME/USERNAME"),
    ]);
    check_absent(&[
        (En, "the user reported less pain", "reported"),
        (En, "a drug user of many years", "of"),
        (Es, "el usuario de la silla", "de"),
        (Hu, "a felhasználó jelezte", "jelezte"),
    ]);
}

#[test]
fn a_bare_year_closing_a_past_procedure_is_a_date() {
    check_found(&[
        (En, "PMH: CAD s/p CABG 2005, HTN.", "2005", "DATE/DATE"),
        (
            En,
            "Hx of lymphoma status post R XRT 1999.",
            "1999",
            "DATE/DATE",
        ),
        (En, "s/p appy 2012", "2012", "DATE/DATE"),
    ]);
    check_absent(&[
        // A volume with its unit, too many words away, or another clause.
        (En, "s/p IVF 2000 cc, uo improved", "2000"),
        (En, "s/p lasix with good response 2010", "2010"),
        (En, "s/p CABG, BNP 2010.", "2010"),
        (Es, "s/p CABG 2005, HTA.", "2005"),
    ]);
}

#[test]
fn a_shifted_year_alone_is_a_date_where_no_clock_reads_it() {
    check_found(&[
        (En, "Smokes 1 ppd; quit 2081.", "2081", "DATE/DATE"),
        (
            En,
            "hospitalized in Munich in 2079 with an MI",
            "2079",
            "DATE/DATE",
        ),
        (En, "in US since 2064. Lives with", "2064", "DATE/DATE"),
        (En, "first seen in 2163 at the clinic", "2163", "DATE/DATE"),
        (En, "ex-smoker, quit 1998", "1998", "DATE/DATE"),
    ]);
    check_absent(&[
        // A time of day (20:45, 21:30), or a year past 2039 in a language without shifted notes.
        (En, "arrived to unit at 2045 from ED", "2045"),
        (En, "resting quietly since 2130.", "2130"),
        (It, "ricoverato nel 2079 per IMA", "2079"),
    ]);
}

#[test]
fn an_abbreviated_month_after_its_day_is_a_date_in_english() {
    check_found(&[
        (
            En,
            "s/p fall at home on 14-Nov. Found by",
            "14-Nov",
            "DATE/DATE",
        ),
        (En, "next visit 3rd Dec per PCP", "3rd Dec", "DATE/DATE"),
    ]);
    check_absent(&[(En, "gave 14 units at 1400", "14 units")]);
}

#[test]
fn a_bad_third_trigger_column_fails_the_list() {
    let err = triggers::parse_triggers(En, &["user\tNAME/USERNAME\tafter".to_string()]);
    assert!(err.is_err());
    let ok = triggers::parse_triggers(Hu, &["felhasználó\tNAME/USERNAME\tbefore".to_string()]);
    assert_eq!(ok.unwrap()[0].2, triggers::Placement::Before);
    let ok = triggers::parse_triggers(En, &["DOC\tID/IDNUM\tmarked".to_string()]);
    assert_eq!(ok.unwrap()[0].2, triggers::Placement::Marked);
    let ok = triggers::parse_triggers(En, &["MD\tID/IDNUM\tlong".to_string()]);
    assert_eq!(ok.unwrap()[0].2, triggers::Placement::Long);
}

#[test]
fn a_long_trigger_reads_only_a_number_of_five_digits_or_more() {
    check_found(&[
        (
            En,
            "Dictated By: Okonkwo, Chidubem MD 42287",
            "42287",
            "ID/IDNUM",
        ),
        (En, "Ines Baptiste, M.D. 318840\nJOB#", "318840", "ID/IDNUM"),
    ]);
    check_absent(&[
        (En, "paged MD 1500 re: pressures", "1500"),
        (En, "MD x12 called, MD 3 times", "x12"),
        (En, "MD 10000 units heparin", "10000"),
    ]);
}

#[test]
fn a_marked_trigger_reads_its_value_only_past_a_number_sign_or_word() {
    check_found(&[
        (En, "Returned to jail. DOC # W92817.", "W92817", "ID/IDNUM"),
        (En, "DOC number W92817 on file", "W92817", "ID/IDNUM"),
        (En, "Inmate # W-448102 at bedside", "W-448102", "ID/IDNUM"),
        (En, "A# 214-887-390 on file", "214-887-390", "ID/IDNUM"),
        (En, "Passport no. P4471902 (Haiti)", "P4471902", "ID/IDNUM"),
    ]);
    check_absent(&[
        (En, "paged doc 1400 re: pressures", "1400"),
        (En, "gave a 250 mL bolus", "250"),
    ]);
}

/// The one-letter trigger `A` is matched apart from the automaton of the others (see
/// `Triggers::letters`): where it stands alone, in either case, glued after a lower-case word,
/// and never inside a longer trigger that starts there or before it.
#[test]
fn a_one_letter_trigger_reads_where_the_automaton_would_have_read_it() {
    check_found(&[
        (
            En,
            "Card lists a# 214-887-390 on file",
            "214-887-390",
            "ID/IDNUM",
        ),
        (
            En,
            "pt data:A# 214-887-391 per ICE",
            "214-887-391",
            "ID/IDNUM",
        ),
        (
            En,
            "A-number 214-887-392 on file",
            "214-887-392",
            "ID/IDNUM",
        ),
        (En, "see ClassA# 214-887-393", "214-887-393", "ID/IDNUM"),
    ]);
    // Four digits: fewer than a number sign announces alone (`signed_codes`).
    check_absent(&[
        (En, "CLASSA# 2148 seen", "2148"),
        (En, "data# 2149 seen", "2149"),
    ]);
}

/// A number sign after any word announces a code of five digits or more; other readings of
/// the same digits keep their labels, and short numbers after a sign are none.
#[test]
fn a_long_code_after_a_number_sign_is_an_identifier() {
    check_found(&[
        (En, "Incident report filed #44817.", "44817", "ID/IDNUM"),
        (
            En,
            "Referral #26-118407. Coordinator",
            "26-118407",
            "ID/IDNUM",
        ),
        (
            En,
            "1 UNIT PRBC #W0362611043 HUNG",
            "W0362611043",
            "ID/IDNUM",
        ),
        (
            En,
            "INTAKE WORKER, REPORT # 2024-88731. PT",
            "2024-88731",
            "ID/IDNUM",
        ),
        (Es, "Expediente #4471802 abierto", "4471802", "ID/IDNUM"),
        // A comma or colon between the word and the sign.
        (
            En,
            "security took report, # LB-26-0311. Niece",
            "LB-26-0311",
            "ID/IDNUM",
        ),
        (En, "Case: #26-40418 opened", "26-40418", "ID/IDNUM"),
        (En, "Beeper #17832 overnight", "17832", "CONTACT/PHONE"),
        (En, "MR# 4471-209 on file", "4471-209", "ID/MEDICALRECORD"),
    ]);
    check_absent(&[
        (En, "S/P WHIPPLE POD #3. Drain", "3"),
        (En, "Tracer lot # RX4471. Reading", "RX4471"),
        (En, "moved to room #4412 today", "4412"),
        (En, "#12345 on the list", "12345"),
        (En, "gave 2 # 44817 units", "44817"),
        (En, "gave 2, # 44817 units", "44817"),
    ]);
}

#[test]
fn identifiers_after_a_copula_and_card_numbers() {
    check_found(&[
        (
            Lang::En,
            "Her medical record number is 40-771-235 per the desk.",
            "40-771-235",
            "ID/MEDICALRECORD",
        ),
        (
            Lang::En,
            "The MRN was 3318820 at admission.",
            "3318820",
            "ID/MEDICALRECORD",
        ),
        (
            Lang::En,
            "Paid with 5500-0000-0000-0004 yesterday.",
            "5500-0000-0000-0004",
            "ID/ACCOUNT",
        ),
    ]);
    check_absent(&[(Lang::En, "The MRN is missing from the form.", "missing")]);
}

/// Every month and weekday spelling the date rules know is one `dates` parses: the two read
/// one table (`crate::dates`), and date shifting needs the parse. A weekday must agree with its
/// date, so each is tried on 7-13 January 2019 (Monday to Sunday).
#[test]
fn every_recognized_month_and_weekday_parses() {
    for lang in Lang::ALL {
        let r = PatternRecognizer::new(lang, &ListSources::default()).unwrap();
        let (full, abbr) = crate::dates::month_spellings(lang);
        let weekdays = crate::dates::weekday_spellings(lang);
        let months = full.iter().chain(&abbr).map(|m| (*m, None));
        for (month, weekday) in months.chain(weekdays.iter().map(|w| (full[0], Some(*w)))) {
            let parses = |day: u32| {
                let date = match lang {
                    Lang::Hu => format!("2019. {month} {day}."),
                    Lang::Es => format!("12 de {month} de 2019").replace("12", &day.to_string()),
                    _ => format!("{day} {month} 2019"),
                };
                let date = match weekday {
                    Some(w) if lang == Lang::Hu => format!("{date}, {w}"),
                    Some(w) => format!("{w} {date}"),
                    None => date,
                };
                let text = format!("Controle op {date} zonder klachten.");
                let mut out = Vec::new();
                r.find(&text, &mut out);
                out.iter()
                    .filter(|e| e.label.category == crate::labels::Category::Date)
                    .filter_map(|e| crate::dates::parse_date(&text[e.start..e.end], lang))
                    .any(|p| p.day == Some(day) && p.year == Some(2019))
            };
            let days = if weekday.is_some() { 7..=13 } else { 12..=12 };
            assert!(
                days.into_iter().any(parses),
                "{lang}: {month} / {weekday:?} is recognized but does not parse"
            );
        }
    }
}

#[test]
fn dr_without_its_full_stop_ends_a_numbered_street_before_a_comma_only() {
    check_found(&[(
        En,
        "Letter mailed to pt at 48 Tanglewood Dr, Hudson, NH 03051.",
        "48 Tanglewood Dr",
        "LOCATION/STREET",
    )]);
    check_absent(&[
        (En, "Pt seen by Dr Okafor today.", "Dr Okafor"),
        (En, "Gave 2 Tylenol Dr Smith aware.", "Tylenol"),
    ]);
}

#[test]
fn a_street_written_in_one_case_is_found_after_on_or_a_house_number() {
    check_found(&[
        (
            En,
            "fell from ladder at home on juniper st. wife saw it",
            "juniper st",
            "LOCATION/STREET",
        ),
        (
            En,
            "CYCLIST STRUCK ON HUNTINGTON AVE NEAR THE MUSEUM",
            "HUNTINGTON AVE",
            "LOCATION/STREET",
        ),
        (
            En,
            "mail to 9 orchard ln, apt 2, dedham",
            "9 orchard ln, apt 2",
            "LOCATION/STREET",
        ),
        (
            En,
            "mail to 9 orchard ln, apt 2, dedham",
            "dedham",
            "LOCATION/CITY",
        ),
        (
            En,
            "LIVES AT 31 QUARRY RD, BRAINTREE.",
            "BRAINTREE",
            "LOCATION/CITY",
        ),
    ]);
    // Words of a clause, a date before "st." of a saint, a verb and "in place" are no street.
    check_absent(&[
        (En, "pt walking on the road with pt", "the road"),
        (En, "PT IS 91 AND CANNOT DRIVE.", "AND CANNOT DRIVE"),
        (En, "admitted 11/3 from st. brendan's", "from st"),
        (En, "trach 0 shiley in place", "shiley in place"),
        (En, "GAL visited pt 1300 per court order", "1300 per court"),
        (En, "seen 0900 as court ordered", "0900 as court"),
        (En, "Quincy, 3rd floor walk-up.", "3rd floor walk"),
    ]);
}
