//! The report JSON against `reports/anonlm.report-1.schema.json`: serialized reports validate,
//! a wrong schema string, a missing required field or an unknown field do not.

use serde_json::Value;

use super::fixture::example;

fn validator() -> jsonschema::Validator {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/reports/anonlm.report-1.schema.json"
    );
    let text = std::fs::read_to_string(path).expect("the schema file");
    let schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
    jsonschema::draft202012::new(&schema).expect("a valid draft 2020-12 schema")
}

fn errors(v: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    v.iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

#[test]
fn serialized_reports_validate() {
    let v = validator();
    let full = serde_json::to_value(example()).unwrap();
    assert_eq!(errors(&v, &full), Vec::<String>::new());
    // Without the optional sections too.
    let mut r = example();
    r.deid = None;
    r.vocabulary = None;
    r.canaries = None;
    r.probe = None;
    r.utility = None;
    r.identity.reference = None;
    r.attacks.clear();
    let bare = serde_json::to_value(r).unwrap();
    assert_eq!(errors(&v, &bare), Vec::<String>::new());
}

#[test]
fn wrong_schema_missing_or_unknown_fields_fail() {
    let v = validator();
    let good = serde_json::to_value(example()).unwrap();

    let mut wrong = good.clone();
    wrong["schema"] = "anonlm.report/2".into();
    assert!(!v.is_valid(&wrong));

    let mut missing = good.clone();
    missing.as_object_mut().unwrap().remove("decision");
    assert!(!v.is_valid(&missing));

    let mut nested = good.clone();
    nested["identity"]["model"]
        .as_object_mut()
        .unwrap()
        .remove("weights_sha256");
    assert!(!v.is_valid(&nested));

    let mut unknown = good.clone();
    unknown["data"]["member_names"] = 3.into();
    assert!(!v.is_valid(&unknown));

    let mut outcome = good;
    outcome["decision"]["outcome"] = "MAYBE".into();
    assert!(!v.is_valid(&outcome));
}
