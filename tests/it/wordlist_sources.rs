//! The derived word lists that ship are what their scripts make of their pinned sources: the
//! English drug list is rebuilt from the installed drug dictionary (`.ci/run` installs it into
//! `.ci/venv` from `scripts/requirements-ci.txt`) and compared with the shipped file byte for
//! byte, so its provenance note cannot drift from the list.

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
    let python = std::env::var_os("ANONLM_PYTHON").expect(
        "ANONLM_PYTHON: a python with drug-named-entity-recognition 2.0.9 (.ci/run makes .ci/venv)",
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let data = anonlm::testdata::shared_data("names/en")
        .expect("../shared/data/names/en")
        .join("../..");
    // The package's folder, found without importing it.
    let package = stdout_of(Command::new(&python).args([
        "-c",
        "import importlib.util as u; \
         print(u.find_spec('drug_named_entity_recognition').submodule_search_locations[0])",
    ]));
    // The script reads anonlm's English name and place lists and writes beside them.
    let dir = tempdir();
    let vocab = dir.path();
    fs::create_dir(vocab.join("en")).unwrap();
    for entry in fs::read_dir(root.join("wordlists/en")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "txt") && !path.ends_with("drugs_open.txt") {
            fs::copy(&path, vocab.join("en").join(path.file_name().unwrap())).unwrap();
        }
    }
    stdout_of(
        Command::new(&python)
            .arg(root.join("scripts/build_drug_list.py"))
            .arg(package.trim())
            .arg(&data)
            .arg(vocab),
    );
    for derived in ["en/drugs_open.txt", "PROVENANCE_drugs.md"] {
        let shipped = fs::read(root.join("wordlists").join(derived)).unwrap();
        let rebuilt = fs::read(vocab.join(derived)).unwrap();
        assert!(
            shipped == rebuilt,
            "wordlists/{derived} differs from what scripts/build_drug_list.py derives"
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
