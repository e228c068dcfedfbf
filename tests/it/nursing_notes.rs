//! Recall and precision floors of `recognize --lang en` on English ICU nursing notes written
//! for the purpose, the nearest stand-in this project has for the PhysioNet notes of the
//! held-out check: `testsets/nursing_notes/en.txt` and `en_batch2.txt` to `en_batch51.txt`, 30
//! notes each and 44 in the thirty-fifth (each batch written after the rules designed on the ones
//! before, and scored before any change made on it); mixed case, capitals and lower case; names of patients,
//! relatives and staff, towns, hospitals, dates, phones, ages over 89. The default (rules,
//! lists and the shipped English tagger) and rules only are both held to a floor, so a change
//! that trades clinical recall for news figures shows here. The figures:
//! `cargo test --release --test it nursing_notes -- --nocapture`.

use crate::util::{anonlm, parse_marked, read_json, tempdir};
use serde_json::{json, Value};
use std::fs;
use std::path::Path;

const NOTES_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testsets/nursing_notes");

/// The notes as JSONL documents with their gold entities: `## id` opens a note, `#` lines
/// before the first note are comments, `[[text|LABEL]]` marks an entity. Offsets in code points.
/// A note may mark none (one of lines, tubes and drugs only, where every span is a false
/// positive), but not every note of a batch.
fn gold_documents(file: &str) -> Vec<Value> {
    let source = fs::read_to_string(Path::new(NOTES_DIR).join(file)).unwrap();
    let mut notes: Vec<(String, String)> = Vec::new();
    for line in source.lines() {
        if let Some(id) = line.strip_prefix("## ") {
            notes.push((id.trim().to_string(), String::new()));
        } else if let Some((_, body)) = notes.last_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    notes
        .into_iter()
        .map(|(id, body)| {
            let (text, spans) = parse_marked(&format!("{}\n", body.trim_matches('\n')));
            let at = |byte: usize| text[..byte].chars().count();
            let entities: Vec<Value> = spans
                .iter()
                .map(|(s, e, label)| {
                    json!({"start": at(*s), "end": at(*e), "label": label.to_string()})
                })
                .collect();
            json!({"id": id, "text": text, "entities": entities})
        })
        .collect()
}

/// The eval report of `recognize` with `flags` on the notes in `dir`.
fn scored(dir: &Path, flags: &[&str]) -> Value {
    let mut args = vec![
        "recognize",
        "docs.jsonl",
        "--lang",
        "en",
        "--out",
        "pred.jsonl",
    ];
    args.extend_from_slice(flags);
    args.extend(["-q", "--overwrite"]);
    anonlm().current_dir(dir).args(&args).assert().success();
    anonlm()
        .current_dir(dir)
        .args(["eval", "--gold", "gold.jsonl", "--pred", "pred.jsonl"])
        .args(["--json", "eval.json", "--overwrite"])
        .assert()
        .success();
    read_json(&dir.join("eval.json"))["report"]["spans"].clone()
}

/// Lines naming each figure of `spans` below its floor (token recall, token precision and
/// overlap recall of the NAME entities, in that order).
fn shortfalls(what: &str, spans: &Value, floors: [f64; 3]) -> Vec<String> {
    let name = spans["per_category"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["label"] == "NAME")
        .expect("a NAME row");
    let figures = [
        ("token recall", &spans["token"]["binary"]["recall"]),
        ("token precision", &spans["token"]["binary"]["precision"]),
        ("name overlap recall", &name["overlap"]["recall"]),
    ];
    for (label, got) in &figures {
        eprintln!("{what}: {label} {:.3}", got.as_f64().unwrap());
    }
    figures
        .iter()
        .zip(floors)
        .filter_map(|((label, got), floor)| {
            let got = got.as_f64().unwrap();
            (got < floor).then(|| format!("{what}: {label} {got:.3} < {floor}"))
        })
        .collect()
}

/// Scores the default and rules only on the notes of `file` (30 notes, 44 in the thirty-fifth
/// batch) and names every figure below its floor (token recall, token precision, NAME overlap
/// recall).
fn floors_hold(file: &str, default_floors: [f64; 3], rules_floors: [f64; 3]) {
    let dir = tempdir();
    let gold = gold_documents(file);
    let expected = if file == "en_batch35.txt" { 44 } else { 30 };
    assert_eq!(gold.len(), expected, "{file}");
    let unmarked = gold.iter().filter(|d| d["entities"] == json!([])).count();
    assert!(unmarked < 3, "{file}: {unmarked} notes mark no entity");
    let lines = |docs: &[Value]| docs.iter().map(|d| format!("{d}\n")).collect::<String>();
    fs::write(dir.path().join("gold.jsonl"), lines(&gold)).unwrap();
    let bare: Vec<Value> = gold
        .iter()
        .map(|d| json!({"id": d["id"], "text": d["text"]}))
        .collect();
    fs::write(dir.path().join("docs.jsonl"), lines(&bare)).unwrap();

    let default = scored(dir.path(), &[]);
    let rules = scored(dir.path(), &["--no-builtin-models"]);
    let mut short = shortfalls(&format!("{file}, default"), &default, default_floors);
    short.extend(shortfalls(
        &format!("{file}, rules only"),
        &rules,
        rules_floors,
    ));
    assert!(short.is_empty(), "{}", short.join("\n"));
}

#[test]
fn names_places_and_dates_of_nursing_notes_are_found() {
    // About three gold tokens below the figures of 2026-11-28, second session (default 0.979,
    // 0.934, 1.000; rules only 0.952, 0.958, 0.950).
    floors_hold("en.txt", [0.95, 0.91, 0.96], [0.93, 0.94, 0.91]);
}

#[test]
fn names_places_and_dates_of_the_second_batch_are_found() {
    // Written after the rules designed on en.txt and scored before any change (default 0.884,
    // 0.844, 0.853; rules only 0.803, 0.908, 0.803), then designed on: about three gold
    // tokens below the figures after (default 0.925, 0.913, 0.934; rules only 0.871, 0.928,
    // 0.934).
    floors_hold("en_batch2.txt", [0.90, 0.89, 0.91], [0.85, 0.90, 0.91]);
}

#[test]
fn names_places_and_dates_of_the_third_batch_are_found() {
    // Written after the rules designed on the second batch and scored before any change
    // (default 0.899, 0.856, 0.912; rules only 0.807, 0.906, 0.842), then designed on: about
    // three gold tokens below the figures after (default 0.933, 0.902, 0.965; rules only
    // 0.857, 0.919, 0.895).
    // Rare first names after a relative's word in notes in one case (2026-11-29): rules only
    // name overlap recall 0.912 → 0.930.
    floors_hold("en_batch3.txt", [0.90, 0.87, 0.93], [0.83, 0.89, 0.90]);
}

#[test]
fn names_places_and_dates_of_the_fourth_batch_are_found() {
    // Written after the rules designed on the third batch and scored before any change
    // (default 0.947, 0.906, 0.943; rules only 0.894, 0.915, 0.925), then three false
    // positives designed on: about three gold tokens below the figures after (default 0.947,
    // 0.947, 0.943; rules only 0.894, 0.944, 0.925).
    // Rare first names (2026-11-29): rules only name overlap recall 0.925 → 0.943.
    floors_hold("en_batch4.txt", [0.92, 0.92, 0.91], [0.87, 0.92, 0.91]);
}

#[test]
fn names_places_and_dates_of_the_fifth_batch_are_found() {
    // Written after the fourth batch's fixes and scored before any change (default 0.919,
    // 0.947, 0.982; rules only 0.801, 0.973, 0.893), then designed on (relatives as notes
    // abbreviate them, staff header lines, `MR#`, written-out ages, state codes): about three
    // gold tokens below the figures after (default 0.949, 0.949, 0.982; rules only 0.846,
    // 0.975, 0.929).
    floors_hold("en_batch5.txt", [0.92, 0.92, 0.95], [0.82, 0.95, 0.90]);
}

#[test]
fn names_places_and_dates_of_the_sixth_batch_are_found() {
    // Written after the fifth batch's changes and scored before any change (default 0.925,
    // 0.918, 0.914; rules only 0.877, 0.934, 0.886), then designed on (staff beside their
    // role, plural and religious titles): about three gold tokens below the figures after
    // (default 0.945, 0.932, 0.957; rules only 0.897, 0.949, 0.929).
    // Rare first names (2026-11-29): name overlap recall 0.957 → 0.986, rules only 0.929 →
    // 0.957.
    floors_hold("en_batch6.txt", [0.92, 0.90, 0.96], [0.87, 0.92, 0.93]);
}

#[test]
fn names_places_and_dates_of_the_seventh_batch_are_found() {
    // Written after the sixth batch's changes and scored before any change (default 0.930,
    // 0.911, 0.926; rules only 0.818, 0.951, 0.870), then designed on (the name a patient goes
    // by, names in quotes after a trigger, a name before a phone number after a relative's
    // word, extensions after an `x`, ZIP codes after a state code or a place): about three
    // gold tokens below the figures after (default 0.965, 0.920, 0.963; rules only 0.853,
    // 0.953, 0.907).
    floors_hold("en_batch7.txt", [0.94, 0.90, 0.94], [0.83, 0.93, 0.88]);
}

#[test]
fn names_places_and_dates_of_the_eighth_batch_are_found() {
    // Written after the seventh batch's changes and scored before any change (default 0.843,
    // 0.935, 0.956; rules only 0.725, 0.925, 0.956), then designed on (an age with the sex
    // glued to it, a date before a clock time, years shifted past 2100, the facility after
    // "accepted at" or "treated at"): about three gold tokens below the figures after
    // (default 0.895, 0.938, 0.956; rules only 0.778, 0.930, 0.956).
    // Rare first names (2026-11-29): name overlap recall 0.956 → 0.978, rules only the same.
    floors_hold("en_batch8.txt", [0.87, 0.91, 0.95], [0.75, 0.90, 0.95]);
}

#[test]
fn names_places_and_dates_of_the_ninth_batch_are_found() {
    // Written after the eighth batch's changes and scored before any change made on it
    // (default 0.906, 0.892, 1.000; rules only 0.836, 0.915, 1.000; the GeoNames countries,
    // built before it was written, made rules only 0.867, 0.917, 1.000), then designed on (the
    // flat or unit of an address, Puerto Rico's towns, a listed place after "in" or "from" in
    // a line without capitals): about three gold tokens below the figures after (default
    // 0.930, 0.895, 1.000; rules only 0.898, 0.920, 1.000).
    floors_hold("en_batch9.txt", [0.91, 0.87, 0.97], [0.87, 0.90, 0.97]);
}

#[test]
fn names_places_and_dates_of_the_tenth_batch_are_found() {
    // Written after the ninth batch's changes and scored before any change made on it
    // (default 0.907, 0.836, 0.973; rules only 0.888, 0.913, 0.973), then designed on
    // (eponyms before their word, drug short forms, a fraction before a fluid after "on",
    // capitals that only open sentences, nursing and rehabilitation centers, an "ID" number,
    // the name a patient asks to be called): about three gold tokens below the figures after
    // (default 0.972, 0.945, 1.000; rules only 0.953, 0.953, 1.000).
    floors_hold("en_batch10.txt", [0.94, 0.91, 0.97], [0.92, 0.92, 0.97]);
}

#[test]
fn names_places_and_dates_of_the_eleventh_batch_are_found() {
    // Written after the tenth batch's changes and scored before any change made on it
    // (default 0.923, 0.889, 0.955; rules only 0.915, 0.975, 0.970), then designed on (plural
    // titles, weekdays that end a name, a whole-word title before a full stop, a state code
    // after a space, a month alone after a word that dates it): about three gold tokens below
    // the figures after (default 0.938, 0.891, 0.970; rules only 0.931, 0.976, 0.985).
    floors_hold("en_batch11.txt", [0.91, 0.86, 0.94], [0.90, 0.95, 0.95]);
}

#[test]
fn names_places_and_dates_of_the_twelfth_batch_are_found() {
    // Written after the eleventh batch's changes and scored before any change made on it
    // (default 0.898, 0.910, 0.966; rules only 0.828, 0.949, 0.914), then designed on (a
    // weekday before a date without a year, an extension after a phone number, a street after
    // "on" without a number, holidays, staff named by role, an open surname after a lower-case
    // first name, clinical words the name lists hold): about three gold tokens below the
    // figures after (default 0.949, 0.914, 0.983; rules only 0.898, 0.959, 0.948).
    floors_hold("en_batch12.txt", [0.92, 0.88, 0.95], [0.87, 0.93, 0.91]);
}

#[test]
fn names_places_and_dates_of_the_thirteenth_batch_are_found() {
    // Written after the twelfth batch's changes and scored before any change made on it
    // (default 0.928, 0.908, 0.979; rules only 0.871, 0.953, 0.958), then designed on (a
    // listed place of several words in a lower-case or all-caps note, the case manager's
    // abbreviations, a health plan's name): about three gold tokens below the figures after
    // (default 0.942, 0.910, 0.979; rules only 0.899, 0.954, 0.979).
    floors_hold("en_batch13.txt", [0.92, 0.88, 0.94], [0.87, 0.93, 0.94]);
}

#[test]
fn names_places_and_dates_of_the_fourteenth_batch_are_found() {
    // Written after the thirteenth batch's changes and scored before any change made on it
    // (default 0.930, 0.863, 0.931; rules only 0.845, 0.938, 0.914), then designed on (an
    // initial and a surname before a staff role, a saint's institution in the possessive,
    // listed phrases ending in a possessive, a town read as a name before a state code, a
    // compass word before a town): about three gold tokens below the figures after (default
    // 0.979, 0.869, 0.948; rules only 0.930, 0.943, 0.931).
    floors_hold("en_batch14.txt", [0.95, 0.84, 0.91], [0.90, 0.91, 0.89]);
}

#[test]
fn names_places_and_dates_of_the_fifteenth_batch_are_found() {
    // Written after the fourteenth batch's changes and scored before any change made on it
    // (default 0.955, 0.870, 0.918; rules only 0.955, 0.927, 0.959), then designed on (an
    // allow-listed first name after a relative's word in lower case, a unit in capitals after
    // a name or hospital, hospital acronyms and the VA, "US" as an ultrasound, a tagger's
    // eponyms and role words): about three gold tokens below the figures after (default
    // 0.977, 0.956, 0.980; rules only 0.977, 0.970, 1.000).
    floors_hold("en_batch15.txt", [0.95, 0.93, 0.92], [0.95, 0.94, 0.94]);
}

#[test]
fn names_places_and_dates_of_the_sixteenth_batch_are_found() {
    // Written after the fifteenth batch's changes and scored before any change made on it
    // (default 0.903, 0.909, 1.000; rules only 0.858, 0.957, 1.000), held out for a session,
    // then designed on (employers and shops by name, abbreviated months, shifted years alone,
    // a suffix or a closing initial after a name, a nickname after "preferred name is", the
    // taggers' readings after lower-case words): about three gold tokens below the figures
    // after (default 1.000, 0.945, 0.978; rules only 1.000, 0.963, 1.000).
    floors_hold("en_batch16.txt", [0.98, 0.93, 0.94], [0.98, 0.95, 0.94]);
}

#[test]
fn names_places_and_dates_of_the_seventeenth_batch_are_found() {
    // Written after the sixteenth batch's changes and scored before any change made on it
    // (default 0.951, 0.917, 0.936; rules only 0.890, 0.948, 0.936, once its gold left the
    // title out of "Br. Anselm" as every batch does), then designed on (relatives as "mom"
    // and "dad", a town before its country, an ordinal day alone, firms joined by "&",
    // schools and inns by their tail word, placeholders of the birth registers no first
    // names, languages no names): about three gold tokens below the figures after (default
    // 0.988, 0.942, 0.979; rules only 0.969, 0.963, 1.000).
    floors_hold("en_batch17.txt", [0.96, 0.92, 0.93], [0.95, 0.94, 0.95]);
}

#[test]
fn names_places_and_dates_of_the_eighteenth_batch_are_found() {
    // Written after the seventeenth batch's changes and scored before any change made on it
    // (default 0.987, 0.945, 0.953; rules only 0.911, 0.966, 0.907), held out for a session,
    // then designed on (particles after a title, a hyphenated given name's lower-case
    // syllable, a surname-first name field, a person before "of" and an institution, a
    // hospital's own clinics, a floor and its number, churches, account numbers): about
    // three gold tokens below the figures after (default 1.000, 0.975, 0.977; rules only
    // 0.975, 0.987, 0.977).
    floors_hold("en_batch18.txt", [0.97, 0.95, 0.95], [0.95, 0.96, 0.95]);
}

#[test]
fn names_places_and_dates_of_the_nineteenth_batch_are_found() {
    // Written after the eighteenth batch's changes and scored before any change made on it
    // (default 0.944, 0.780, 0.978; rules only 0.860, 0.837, 0.956), those figures committed,
    // then designed on (a newborn after "Baby Boy", birth staff as triggers, a sentence's
    // verb before an institution, an allow-listed term after a surname, Apgar scores and a
    // date after "due", streets in "Ln" and a sentence's full stop after a street, visiting
    // nurse associations, practices and suppliers): about three gold tokens below the figures
    // after (default 0.972, 0.853, 0.978; rules only 0.972, 0.885, 0.978). Its precision is
    // low by the set's convention: ages of children and mothers are marked by the tool (as
    // i2b2 marks every age) and not by the batch (HIPAA's ages over 89 only).
    floors_hold("en_batch19.txt", [0.95, 0.83, 0.95], [0.95, 0.86, 0.95]);
}

#[test]
fn names_places_and_dates_of_the_twentieth_batch_are_found() {
    // Written after the nineteenth batch's changes and scored before any change made on it
    // (default 0.893, 0.933, 0.923; rules only 0.821, 0.935, 0.923), those figures committed,
    // then designed on (police, ambulance services, courts and recovery houses by their tail
    // words, `Atty.` as a title, clinicians and sponsors as triggers, a badge number, a date
    // after "through", the patient's word and "BIBA" before an institution, "-phrenia" as a
    // clinical suffix): about three gold tokens below the figures after (default 0.950,
    // 0.950, 0.974; rules only 0.914, 0.955, 0.974).
    floors_hold("en_batch20.txt", [0.93, 0.93, 0.94], [0.89, 0.93, 0.94]);
}

#[test]
fn names_places_and_dates_of_the_twenty_first_batch_are_found() {
    // Written after the twentieth batch's changes and scored before any change made on it
    // (default 0.917, 0.936, 1.000; rules only 0.819, 0.959, 0.957), those figures committed,
    // then designed on (funeral homes, parishes, hospice homes, cancer and donor centers and
    // clinics by their tail words, "VNA of" as a head, specialty pharmacies and hospice
    // agencies listed, "St." inside an institution, a town after a street and its comma, an
    // age without its unit after "Pt is", a date after "return", a region after "from the",
    // the names of a list after "children", "manager" as a trigger, and a tagger's name cut
    // at a lower-case word inside it): about three gold tokens below the figures after
    // (default 1.000, 0.973, 1.000; rules only 1.000, 0.980, 1.000).
    floors_hold("en_batch21.txt", [0.97, 0.94, 0.97], [0.97, 0.95, 0.97]);
}

#[test]
fn names_places_and_dates_of_the_twenty_second_batch_are_found() {
    // Written after the twenty-first batch's changes and scored before any change made on it
    // (default 0.935, 0.935, 0.907; rules only 0.884, 0.979, 0.953), those figures committed,
    // then designed on (a title's or trigger's category over a tagger's on the same words,
    // "Dr. St. Pierre", a name before a colon after "by", the town after an institution and
    // "in", a ward's compass word after its floor, temples, dialysis chains, donor services
    // and health centers by their heads and tails, "Pl" and other street abbreviations, wound
    // dressings allow-listed, a clinical term with abbreviations in capitals, a sentence's
    // "Advised"): about three gold tokens below the figures after (default 0.974, 0.987,
    // 0.977; rules only 0.974, 0.987, 0.977).
    floors_hold("en_batch22.txt", [0.95, 0.96, 0.95], [0.95, 0.96, 0.95]);
}

#[test]
fn names_places_and_dates_of_the_twenty_third_batch_are_found() {
    // Written after the twenty-second batch's changes and scored before any change made on it
    // (default 0.939, 0.911, 0.955; rules only 0.878, 0.935, 0.955), those figures committed,
    // then designed on (military ranks as titles, a nickname in quotes inside a name, a verb
    // in capitals after a name, staff words after a trigger, memory care, banks, credit
    // unions and veterans' posts, a number after a connector and an allow-listed program
    // before one end an institution, titles and roles alone are no tagger span, roles in
    // capitals before a tagger's name, parentheses around a whole phone number): about three
    // gold tokens below the figures after (default 0.963, 0.969, 0.977; rules only 0.945,
    // 0.975, 0.977).
    floors_hold("en_batch23.txt", [0.94, 0.94, 0.95], [0.92, 0.95, 0.95]);
}

#[test]
fn names_places_and_dates_of_the_twenty_fourth_batch_are_found() {
    // Written after the twenty-third batch's changes and scored before any change made on it
    // (default 0.932, 0.943, 0.978; rules only 0.888, 0.966, 0.957), those figures committed,
    // then designed on (role words of work and school as triggers, physicians by their
    // specialty, the first words of a role phrase and a role word before an institution out
    // of a tagger's span, company and trade tails, "modified" before a scale, an abbreviated
    // month in capitals or after a date word, "Dr." ending a street after "on", an age after
    // "lived to", an extension with its "x", listed institutions in a line without capitals,
    // one lower-case word as a tagger's institution): about three gold tokens below the
    // figures after (default 0.988, 0.981, 1.000; rules only 0.963, 0.981, 0.978).
    floors_hold("en_batch24.txt", [0.96, 0.96, 0.97], [0.94, 0.96, 0.95]);
}

#[test]
fn names_places_and_dates_of_the_twenty_fifth_batch_are_found() {
    // Written after the twenty-fourth batch's changes and scored before any change made on it
    // (default 0.943, 0.917, 1.000; rules only 0.793, 0.949, 1.000), those figures committed,
    // then designed on (scales named after places and people read whole by the rules and the
    // tagger, "drove up from" before a town, "auth #" and "pgr" before their values, trade,
    // group-home and "UMass" names, rehabilitation hospitals and wheelchair vendors listed):
    // about three gold tokens below the figures after (default 0.993, 0.959, 1.000; rules
    // only 0.929, 0.977, 1.000).
    floors_hold("en_batch25.txt", [0.96, 0.93, 0.97], [0.90, 0.95, 0.97]);
}

#[test]
fn names_places_and_dates_of_the_twenty_sixth_batch_are_found() {
    // Written after the twenty-fifth batch's changes and scored before any change made on it
    // (default 0.892, 0.967, 0.938; rules only 0.819, 0.986, 0.969, with the state's
    // children's agency unmarked as in batches 18 and 19), those figures committed, then
    // designed on (sheriffs, jails, transport services and a town's "PD" by their tail words,
    // addiction clinics listed, officers, crews and workers as triggers, "CO" as a title, a
    // numbered road after a preposition of place, an inmate's and a "DOC #" number, lower-case
    // words after a tagger's place): about three gold tokens below the figures after (default
    // 0.964, 0.994, 0.969; rules only 0.964, 0.994, 0.969).
    floors_hold("en_batch26.txt", [0.94, 0.97, 0.93], [0.94, 0.97, 0.93]);
}

#[test]
fn names_places_and_dates_of_the_twenty_seventh_batch_are_found() {
    // Written after the twenty-sixth batch's changes and scored before any change made on it
    // (default 0.909, 0.955, 0.909; rules only 0.890, 0.961, 0.909), those figures committed,
    // then designed on (resettlement agencies and charities, consulates and embassies by their
    // heads, passport and alien registration numbers, a form after a road's number, a
    // parenthesis around a number with its country code, nationalities allow-listed, bacteria
    // as clinical terms): about three gold tokens below the figures after (default 0.970,
    // 0.981, 0.909; rules only 0.963, 0.981, 0.909).
    floors_hold("en_batch27.txt", [0.95, 0.96, 0.87], [0.94, 0.96, 0.87]);
}

#[test]
fn names_places_and_dates_of_the_twenty_eighth_batch_are_found() {
    // Written after the twenty-seventh batch's changes and scored before any change made on
    // it (default 0.883, 0.846, 1.000; rules only 0.818, 0.926, 1.000), those figures
    // committed, then designed on (accession, specimen and job numbers, reading and operating
    // staff as field labels and triggers, practices and imaging centers by their tails with
    // an ampersand inside and a town after "of", "Dr" ending a numbered street before a comma,
    // a label word after a capitalized word opening no field, eponyms of imaging allow-listed,
    // a clinical term's course words): about three gold tokens below the figures after
    // (default 1.000, 0.951, 1.000; rules only 1.000, 0.986, 1.000).
    floors_hold("en_batch28.txt", [0.97, 0.92, 0.97], [0.97, 0.95, 0.97]);
}

#[test]
fn names_places_and_dates_of_the_twenty_ninth_batch_are_found() {
    // Written after the twenty-eighth batch's changes and scored before any change made on
    // it (default 0.919, 0.955, 0.972; rules only 0.887, 0.973, 0.944), those figures
    // committed, then designed on (British roles as triggers, "travelled from" before a town,
    // ambulance services, social care and dental practices by their tails, a home-care chain
    // listed, a walking frame's and a cancer charity's names allow-listed): about three gold
    // tokens below the figures after (default 0.969, 0.975, 1.000; rules only 0.944, 0.981,
    // 0.972).
    floors_hold("en_batch29.txt", [0.94, 0.95, 0.97], [0.92, 0.96, 0.94]);
}

#[test]
fn names_places_and_dates_of_the_thirtieth_batch_are_found() {
    // Written after the twenty-ninth batch's changes and scored before any change made on it:
    // a community hospital's notes typed in capitals, in lower case and in mixed case, with
    // visitors, staff and interpreters whose names come from many countries (default 0.850,
    // 0.971, 0.766; rules only 0.750, 0.992, 0.734), those figures committed, then designed on
    // (a word no list holds and no ordinary word, after a relative's or staff word or an
    // abbreviated title in the same case, is the name): about three gold tokens below the
    // figures after (default 0.931, 0.968, 0.953; rules only 0.838, 0.993, 0.938).
    floors_hold("en_batch30.txt", [0.91, 0.95, 0.90], [0.82, 0.97, 0.89]);
}

#[test]
fn names_places_and_dates_of_the_thirty_first_batch_are_found() {
    // Written after the thirtieth batch's changes and scored before any change made on it:
    // CCU and cardiac surgery notes in mixed case, capitals and lower case, with surgeons,
    // fellows, perfusionists, device reps and families calling from far away (default 0.953,
    // 0.953, 0.962; rules only 0.882, 0.974, 0.923), those figures committed, then designed on
    // (perfusionists and device reps as triggers, a practice of services alone named by its
    // town, the patient's word alone after a title no name): about three gold tokens below the
    // figures after (default 0.969, 0.961, 0.981; rules only 0.921, 0.983, 0.962).
    floors_hold("en_batch31.txt", [0.94, 0.94, 0.92], [0.89, 0.96, 0.90]);
}

#[test]
fn names_places_and_dates_of_the_thirty_second_batch_are_found() {
    // Written after the thirty-first batch's changes and scored before any change made on it:
    // neuro ICU, stroke, trauma and burn notes in mixed case, capitals and lower case, with
    // families named in apposition or with an initial, signatures, crash and fire sites
    // (default 0.924, 0.918, 1.000; rules only 0.897, 0.935, 0.982), those figures committed,
    // then designed on (names after "dr" in one case, full names in one case, towns that only
    // surname lists hold, streets in one case): about three gold tokens below the figures
    // after (default 0.952, 0.920, 1.000; rules only 0.924, 0.937, 0.982).
    floors_hold("en_batch32.txt", [0.93, 0.90, 0.94], [0.90, 0.91, 0.92]);
}

#[test]
fn names_places_and_dates_of_the_thirty_third_batch_are_found() {
    // Written after the thirty-second batch's changes and scored before any change made on it:
    // pediatric ICU, NICU, labor and delivery and postpartum notes in mixed case, capitals and
    // lower case, with babies, parents, siblings, foster parents, DCF workers, midwives, doulas,
    // lactation consultants, schools and daycares (default 0.942, 0.902, 0.986; rules only
    // 0.825, 0.926, 0.890), those figures committed, then designed on (institutions before a
    // tail in lower case, hospitals and schools named by a town, saints alone in one case,
    // first names that are words, surnames after a title in capitals, new triggers): about
    // three gold tokens below the figures after (default 0.978, 0.918, 1.000; rules only
    // 0.912, 0.933, 0.973).
    floors_hold("en_batch33.txt", [0.95, 0.89, 0.95], [0.89, 0.91, 0.93]);
}

#[test]
fn names_places_and_dates_of_the_thirty_fourth_batch_are_found() {
    // Written after the thirty-third batch's changes and scored before any change made on it:
    // medical ICU notes system by system (NEURO, CV, RESP, SOCIAL, PLAN), sign-outs, family
    // meetings and proxies, with names that are ordinary words, short surnames and nicknames
    // in mixed case, capitals and lower case (default 0.922, 0.904, 0.889; rules only 0.870,
    // 0.912, 0.810), those figures committed, then designed on (surnames and first names that
    // are words where the clause ends after a title or a relative's word, identifiers in
    // capitals, a tagger's span across a full stop in lower case, an age between commas):
    // about three gold tokens below the figures after (default 0.974, 0.943, 1.000; rules only
    // 0.922, 0.947, 0.921).
    floors_hold("en_batch34.txt", [0.95, 0.92, 0.95], [0.90, 0.92, 0.87]);
}

#[test]
fn names_places_and_dates_of_the_thirty_fifth_batch_are_found() {
    // Written after the thirty-fourth batch's changes and scored before any change made on it:
    // inpatient psychiatry and emergency boarding (mental status, safety checks, sitters, legal
    // status and court dates, groups, visitors, shelters and outside providers), with names
    // that are ordinary words, short surnames and nicknames in mixed case, capitals and lower
    // case (default 0.902, 0.836, 0.872; rules only 0.848, 0.874, 0.884), those figures
    // committed, then designed on (eponyms' tail words, lower-case months, states and
    // hospitals, a weekday after a title, staff members' first names that are words, towns
    // that are words): about three gold tokens below the figures after (default 0.931, 0.864,
    // 0.930; rules only 0.877, 0.891, 0.942).
    floors_hold("en_batch35.txt", [0.91, 0.84, 0.90], [0.86, 0.87, 0.91]);
}

#[test]
fn names_places_and_dates_of_the_thirty_sixth_batch_are_found() {
    // Written after the thirty-fifth batch's changes and scored before any change made on it:
    // labor and delivery, postpartum and the special-care nursery (labor progress, epidurals,
    // deliveries, newborn checks, feeding, birth plans, doulas and midwives, pediatric
    // follow-up, discharge), with babies' names that are ordinary words, partners' names,
    // nicknames and short surnames in mixed case, capitals and lower case (default 0.915,
    // 0.884, 0.905; rules only 0.873, 0.932, 0.878), those figures committed, then designed on
    // (newborns named after the baby's words, quotes at a tagger's span's edges, words of care
    // that name lists hold, a town before a state code, the cities of any country from
    // 100,000, a listed place after "to" in one case): about three gold tokens below the
    // figures after (default 0.965, 0.945, 0.986; rules only 0.923, 0.956, 0.973).
    floors_hold("en_batch36.txt", [0.94, 0.92, 0.94], [0.90, 0.93, 0.93]);
}

#[test]
fn names_places_and_dates_of_the_thirty_seventh_batch_are_found() {
    // Written after the thirty-sixth batch's changes and scored before any change made on it:
    // case management, discharge planning, social work, utilization review and chaplaincy
    // (facility referrals and bed offers, insurers' authorizations, home services and
    // equipment, transport, guardians and proxies, family meetings, shelters, spiritual care),
    // with staff named by role and first name and names that are ordinary words (default
    // 0.906, 0.909, 0.952; rules only 0.867, 0.935, 0.952, on the gold as corrected after the
    // first scoring: two ages over 89, an extension and a pager number, which the other
    // batches mark, had been left unmarked), those figures committed, then designed on (a
    // first name that is a word after a staff word in mixed case, a name after a relative's
    // or staff member's word and "is", a word giving the person's number after the name):
    // about three gold tokens and two names below the figures after (default 0.918, 0.911,
    // 1.000; rules only 0.880, 0.936, 1.000). Its APS report number marked on 2026-12-02, as
    // the thirty-eighth batch marks an incident report's, and found since: default 0.919,
    // 0.923, 1.000; rules only 0.881, 0.937, 1.000.
    floors_hold("en_batch37.txt", [0.90, 0.89, 0.96], [0.86, 0.92, 0.96]);
}

#[test]
fn names_places_and_dates_of_the_thirty_eighth_batch_are_found() {
    // Rapid-response, code, house-supervisor, transfer-center, sitter and restraint notes and
    // night-shift notes with family phone calls, written after the rules designed on the
    // thirty-seventh batch and scored before any change (default 0.957, 0.893, 0.973; rules
    // only 0.929, 0.915, 0.959), then designed on (a unit's abbreviation after "Hospital", a
    // connector before an institution's tail word in capitals): about three gold tokens below
    // the figures after (default 0.964, 0.951, 0.973; rules only 0.943, 0.978, 0.959).
    floors_hold("en_batch38.txt", [0.94, 0.93, 0.95], [0.92, 0.95, 0.93]);
}

#[test]
fn names_places_and_dates_of_the_thirty_ninth_batch_are_found() {
    // Organ-donation, ECMO, dialysis, interventional-radiology, cath-lab, endoscopy,
    // blood-bank and home-health-referral notes, written after the thirty-eighth batch's
    // changes and scored before any change (default 0.938, 0.884, 0.958; rules only 0.889,
    // 0.960, 0.917), then designed on (a tagger's name of ordinary words in lower case, a long
    // code after a number sign, a reference laboratory's tail word, a name before a colon after
    // a staff word): about three gold tokens below the figures after (default 0.969, 0.892,
    // 0.958; rules only 0.926, 0.962, 0.931).
    floors_hold("en_batch39.txt", [0.94, 0.87, 0.93], [0.90, 0.94, 0.90]);
}

#[test]
fn names_places_and_dates_of_the_fortieth_batch_are_found() {
    // Infection-control, public-health, video-visit, orthopedic, head-and-neck, bariatric,
    // GI-bleed and shift-handover notes, written after the thirty-ninth batch was scored and
    // scored before any change (default 0.902, 0.943, 0.938; rules only 0.848, 0.972, 0.908;
    // the session's first build), then designed on (a name before a colon after a relative's
    // word, a pair after a procedure's name, a rare first name before a role or in parentheses
    // after a team): about three gold tokens below the figures after (default 0.951, 0.951,
    // 0.985; rules only 0.896, 0.974, 0.954).
    floors_hold("en_batch40.txt", [0.93, 0.93, 0.96], [0.87, 0.95, 0.93]);
}

#[test]
fn names_places_and_dates_of_the_forty_first_batch_are_found() {
    // Respiratory-therapy, ventilator-weaning, tracheostomy, sleep-lab, pulmonary-rehab,
    // home-oxygen and pulmonary-clinic notes, written after the fortieth batch's changes and
    // scored before any change (default 0.974, 0.949, 0.985; rules only 0.968, 0.980, 0.969;
    // the session's first build), then designed on (a pair after a study's abbreviation, a
    // degree after a name): about three gold tokens below the figures after (default 0.987,
    // 0.956, 0.985; rules only 0.981, 0.981, 0.969).
    floors_hold("en_batch41.txt", [0.96, 0.93, 0.95], [0.96, 0.96, 0.93]);
}

#[test]
fn names_places_and_dates_of_the_forty_second_batch_are_found() {
    // Nutrition, speech-language, wound-ostomy, diabetes-education, pain-service, child-life,
    // occupational-therapy and patient-relations notes, written after the forty-first batch
    // was scored and scored before any change (default 0.879, 0.906, 0.938; rules only 0.830,
    // 0.919, 0.859), then designed on (the occupational therapist's word before a name, a
    // credential after one, a code after a comma and a number sign, a first name the clause's
    // end closes after a relative's word and a comma, ordinary words before "for" and a
    // hospital's tail word, allow-listed words side by side): about three gold tokens below
    // the figures after (default 0.909, 0.943, 0.969; rules only 0.873, 0.947, 0.906).
    floors_hold("en_batch42.txt", [0.89, 0.92, 0.93], [0.85, 0.92, 0.87]);
}

#[test]
fn names_places_and_dates_of_the_forty_third_batch_are_found() {
    // Pre-operative, anesthesia, operating-room, PACU, same-day-surgery, scheduling and
    // post-discharge telephone notes, written after the forty-second batch's changes and
    // scored before any change (default 0.939, 0.933, 0.954; rules only 0.883, 0.986, 0.892),
    // then designed on (the operating room's staff words before a name, a doctor's office
    // before a name in parentheses, a recovery score and an operating table by their authors'
    // names): about three gold tokens below the figures after (default 0.945, 0.969, 0.985;
    // rules only 0.902, 0.987, 0.923).
    floors_hold("en_batch43.txt", [0.92, 0.94, 0.95], [0.88, 0.96, 0.89]);
}

#[test]
fn names_places_and_dates_of_the_forty_fourth_batch_are_found() {
    // ICU progress notes whose names are ordinary words or months (Hope, Joy, Mark, Will,
    // Dawn, April, Summer), beside the same words used as words, written after the
    // forty-third batch's changes and scored before any change (default 0.929, 0.929, 0.893;
    // rules only 0.929, 0.975, 0.893), then designed on (a first name before a relation alone
    // in parentheses, a listed first name that is an allow-listed word before a role): about
    // three gold tokens below the figures after (default 0.964, 0.931, 0.946; rules only
    // 0.964, 0.976, 0.946).
    floors_hold("en_batch44.txt", [0.94, 0.90, 0.91], [0.94, 0.95, 0.91]);
}

#[test]
fn names_places_and_dates_of_the_forty_fifth_batch_are_found() {
    // Guardianship, court, police, protective-service, legal, financial and long-stay notes,
    // written after every rule of the forty-fifth session and scored on its last build, with
    // no rule designed on it (default 0.932, 0.928, 0.946; rules only 0.874, 0.958, 0.892),
    // then designed on by the next (troopers and officers by their words, staff words in the
    // plural, courts and agencies by their kind, post-office boxes, which its gold now marks
    // with the box's words as MEDDOCAN does: 0.923, 0.928, 0.946 and 0.866, 0.958, 0.892 on
    // that gold): about three gold tokens below the figures after (default 0.952, 0.952,
    // 0.986; rules only 0.938, 0.975, 0.959).
    floors_hold("en_batch45.txt", [0.93, 0.93, 0.96], [0.92, 0.95, 0.93]);
}

#[test]
fn names_places_and_dates_of_the_forty_sixth_batch_are_found() {
    // Case-management, financial-counseling, prior-authorization, pharmacy-benefit, appeals and
    // billing notes, written after the forty-fifth batch's changes and scored before any change
    // (default 0.874, 0.935, 0.955; rules only 0.830, 0.972, 0.932), then designed on (call,
    // claim and authorization references, a range of two dates, insurers and suppliers, a
    // hospital word before the noun it modifies): about three gold tokens below the figures
    // after (default 0.972, 0.956, 0.977; rules only 0.951, 0.992, 0.955).
    floors_hold("en_batch46.txt", [0.95, 0.93, 0.95], [0.93, 0.97, 0.93]);
}

#[test]
fn names_places_and_dates_of_the_forty_seventh_batch_are_found() {
    // Home-care, visiting-nurse, home-infusion, hospice-intake, adult-day, equipment and
    // transport notes, written after the forty-sixth batch's changes and scored before any
    // change (default 0.856, 0.880, 0.929; rules only 0.800, 0.905, 0.893), then designed on
    // (door codes, a home's people, parks and towers by their kind, vendors, a slash list's last
    // letter, a hyphenated street word): about three gold tokens below the figures after
    // (default 0.930, 0.913, 0.946; rules only 0.888, 0.941, 0.929).
    floors_hold("en_batch47.txt", [0.91, 0.89, 0.92], [0.87, 0.92, 0.91]);
}

#[test]
fn names_places_and_dates_of_the_forty_eighth_batch_are_found() {
    // Discharge-summary fragments, transfer summaries and discharge nursing notes (field
    // labels, follow-up lines, stamps, social histories), written after every rule of the
    // forty-sixth session and scored on its last build, with no rule designed on it (default
    // 0.944, 0.970, 0.981; rules only 0.911, 0.969, 0.981; the session's first build gave
    // 0.937, 0.969, 0.981 and 0.893, 0.968, 0.981), then designed on by the next (a date after
    // a field's label and before a clock time with a colon, a doctor's number after MD, a
    // union's local, a region after an institution's "of"): about three gold tokens below the
    // figures after (default 0.989, 0.971, 0.981; rules only 0.963, 0.970, 0.981).
    floors_hold("en_batch48.txt", [0.96, 0.95, 0.96], [0.94, 0.95, 0.96]);
}

#[test]
fn names_places_and_dates_of_the_forty_ninth_batch_are_found() {
    // Radiology, pathology, microbiology and laboratory results and the calls that pass them
    // on, written after the forty-eighth batch's changes and scored before any change made on
    // it (default 0.963, 0.922, 0.969; rules only 0.900, 0.993, 0.891), then designed on (who
    // called a result and who read it back, tracking numbers, reference laboratories, a listed
    // first name before a role in lower case, the tagger's lower-case words in a capitalized
    // line): about three gold tokens below the figures after (default 0.981, 0.940, 1.000;
    // rules only 0.956, 0.994, 0.953).
    floors_hold("en_batch49.txt", [0.96, 0.92, 0.97], [0.93, 0.97, 0.93]);
}

#[test]
fn names_places_and_dates_of_the_fiftieth_batch_are_found() {
    // Emergency-department triage, EMS hand-offs, registration, poison-control, boarding and
    // transfer notes, written after the forty-ninth batch's changes and scored before any
    // change made on it (default 0.889, 0.920, 0.927; rules only 0.817, 0.950, 0.891), then
    // designed on (a town's fire department, pubs, urgent-care and ambulance chains, crews,
    // foster parents, a lower-case line's words in capitals): about three gold tokens below
    // the figures after (default 0.947, 0.929, 0.927; rules only 0.918, 0.955, 0.909).
    floors_hold("en_batch50.txt", [0.93, 0.91, 0.90], [0.90, 0.93, 0.89]);
}

#[test]
fn names_places_and_dates_of_the_fifty_first_batch_are_found() {
    // Oncology infusion, chemotherapy-teaching, radiation, clinical-trial, survivorship and
    // hospice-referral notes, written after every rule of the forty-seventh session and scored
    // on its last build, with no rule designed on it (default 0.887, 0.954, 0.984; rules only
    // 0.849, 0.994, 0.934; the session's first build gave 0.882, 0.953, 0.984 and 0.844,
    // 0.994, 0.934): about three gold tokens below.
    floors_hold("en_batch51.txt", [0.87, 0.93, 0.96], [0.83, 0.97, 0.91]);
}
