//! De-identification policy: which operator handles which label, and the operators' options.
//! Read from TOML (built-in ones under `wordlists/policies/`), adjustable from flags.
//!
//! ```toml
//! default = "tag"              # operator for labels not listed below
//! tag_style = "brackets"       # medroberta | brackets | deid | template
//! tag_subtype = false          # brackets: [NAME_DOCTOR] instead of [NAME]
//! tag_template = "<{category}>"  # template style: {category} {subtype} {tag}
//! redact_char = "*"
//! redact_remove = false        # true: delete the span instead of filling it
//! surrogate_scope = "document" # document | corpus (corpus needs a key)
//! pseudonym_hex = 8            # hex digits after the prefix (4..=64)
//! date_shift_min_days = 1      # shift magnitude range; never 0
//! date_shift_max_days = 365
//! [labels]                     # CATEGORY or CATEGORY/SUBTYPE (or CATEGORY_SUBTYPE)
//! NAME = "surrogate"
//! DATE = "date-shift"
//! "ID/SSN" = "pseudonym"
//! ```
//!
//! Lookup takes the most specific entry: CATEGORY/SUBTYPE, then CATEGORY, then `default`.

use crate::error::ValueError;

use super::tag::TagStyle;
use crate::labels::{Category, Label};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use toml::Spanned;

/// The operators a policy can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OperatorKind {
    Tag,
    Redact,
    Surrogate,
    Pseudonym,
    DateShift,
}

impl OperatorKind {
    pub const ALL: [OperatorKind; 5] = [
        OperatorKind::Tag,
        OperatorKind::Redact,
        OperatorKind::Surrogate,
        OperatorKind::Pseudonym,
        OperatorKind::DateShift,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            OperatorKind::Tag => "tag",
            OperatorKind::Redact => "redact",
            OperatorKind::Surrogate => "surrogate",
            OperatorKind::Pseudonym => "pseudonym",
            OperatorKind::DateShift => "date-shift",
        }
    }

    pub fn parse(s: &str) -> Result<Self, ValueError> {
        let s = s.trim();
        OperatorKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s || (*k == OperatorKind::DateShift && s == "date_shift"))
            .ok_or_else(|| {
                ValueError::from(format!("unknown operator '{s}' (expected tag, redact, surrogate, pseudonym or date-shift)"))
            })
    }
}

/// How far surrogate consistency reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SurrogateScope {
    /// Same value within a document; draws come from the per-document RNG.
    Document,
    /// Same value across the corpus; draws are seeded from the key (key required).
    Corpus,
}

#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    #[error("{source_name}:{line}: {msg}")]
    Bad {
        source_name: String,
        line: usize,
        msg: String,
    },
    #[error("policy override {what}: {msg}")]
    Override { what: String, msg: String },
    #[error("no built-in policy '{0}' (expected a file wordlists/policies/{0}.toml in the build)")]
    NoBuiltin(String),
    #[error("policy file {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

/// A validated policy.
#[derive(Clone, Debug, PartialEq)]
pub struct Policy {
    /// Where it came from (file path or `builtin:NAME`), for messages.
    pub source: String,
    pub default: OperatorKind,
    labels: BTreeMap<Label, OperatorKind>,
    pub tag_style: TagStyle,
    pub redact_fill: char,
    pub redact_remove: bool,
    pub surrogate_scope: SurrogateScope,
    pub pseudonym_hex: usize,
    pub date_shift_min_days: u32,
    pub date_shift_max_days: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPolicy {
    default: Option<Spanned<String>>,
    tag_style: Option<Spanned<String>>,
    tag_subtype: Option<bool>,
    tag_template: Option<Spanned<String>>,
    redact_char: Option<Spanned<String>>,
    redact_remove: Option<bool>,
    surrogate_scope: Option<Spanned<String>>,
    pseudonym_hex: Option<Spanned<i64>>,
    date_shift_min_days: Option<Spanned<i64>>,
    date_shift_max_days: Option<Spanned<i64>>,
    #[serde(default)]
    labels: BTreeMap<Spanned<String>, Spanned<String>>,
}

/// 1-based line of byte offset `pos` in `text`.
fn line_of(text: &str, pos: usize) -> usize {
    1 + text.as_bytes()[..pos.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

/// Checks an operator choice for a label (`None` = the default).
fn check_choice(label: Option<Label>, op: OperatorKind) -> Result<(), ValueError> {
    match (label, op) {
        (Some(l), OperatorKind::DateShift) if l.category != Category::Date => Err(
            ValueError::from(format!("date-shift applies only to DATE labels, not {l}")),
        ),
        (None, OperatorKind::DateShift) => {
            Err("date-shift cannot be the default operator (it applies only to DATE)".into())
        }
        _ => Ok(()),
    }
}

impl Default for Policy {
    /// Tag everything with `[CATEGORY]`: needs no key and keeps no original text.
    fn default() -> Self {
        Policy {
            source: "built-in defaults".into(),
            default: OperatorKind::Tag,
            labels: BTreeMap::new(),
            tag_style: TagStyle::Brackets { subtype: false },
            redact_fill: '*',
            redact_remove: false,
            surrogate_scope: SurrogateScope::Document,
            pseudonym_hex: 8,
            date_shift_min_days: 1,
            date_shift_max_days: 365,
        }
    }
}

impl Policy {
    /// Parses and validates policy TOML; `source_name` names it in errors.
    pub fn from_toml(text: &str, source_name: &str) -> Result<Policy, PolicyError> {
        let bad = |pos: usize, msg: String| PolicyError::Bad {
            source_name: source_name.to_string(),
            line: line_of(text, pos),
            msg,
        };
        let raw: RawPolicy = toml::from_str(text).map_err(|e| {
            let pos = e.span().map_or(0, |s| s.start);
            bad(pos, e.message().trim().to_string())
        })?;
        let mut p = Policy {
            source: source_name.to_string(),
            ..Policy::default()
        };
        if let Some(d) = &raw.default {
            p.default = OperatorKind::parse(d.get_ref())
                .and_then(|k| check_choice(None, k).map(|_| k))
                .map_err(|m| bad(d.span().start, m.0))?;
        }
        let subtype = raw.tag_subtype.unwrap_or(false);
        let template = raw.tag_template.as_ref().map(|t| t.get_ref().as_str());
        let (style_name, style_pos) = match (&raw.tag_style, &raw.tag_template) {
            (Some(s), _) => (s.get_ref().as_str(), s.span().start),
            (None, Some(t)) => ("template", t.span().start),
            (None, None) => ("brackets", 0),
        };
        if let (Some(t), true) = (&raw.tag_template, style_name != "template") {
            return Err(bad(
                t.span().start,
                format!("tag_template is set but tag_style is \"{style_name}\""),
            ));
        }
        p.tag_style =
            TagStyle::parse(style_name, subtype, template).map_err(|m| bad(style_pos, m.0))?;
        if let Some(c) = &raw.redact_char {
            let mut chars = c.get_ref().chars();
            p.redact_fill = match (chars.next(), chars.next()) {
                (Some(ch), None) => ch,
                _ => {
                    return Err(bad(
                        c.span().start,
                        "redact_char must be one character".into(),
                    ))
                }
            };
        }
        p.redact_remove = raw.redact_remove.unwrap_or(false);
        if let Some(s) = &raw.surrogate_scope {
            p.surrogate_scope = match s.get_ref().as_str() {
                "document" => SurrogateScope::Document,
                "corpus" => SurrogateScope::Corpus,
                other => {
                    return Err(bad(
                        s.span().start,
                        format!("unknown surrogate_scope '{other}' (expected document or corpus)"),
                    ))
                }
            };
        }
        if let Some(h) = &raw.pseudonym_hex {
            let v = *h.get_ref();
            if !(4..=64).contains(&v) {
                return Err(bad(
                    h.span().start,
                    format!("pseudonym_hex {v} is outside 4..=64"),
                ));
            }
            p.pseudonym_hex = v as usize;
        }
        for (field, target) in [
            (&raw.date_shift_min_days, &mut p.date_shift_min_days),
            (&raw.date_shift_max_days, &mut p.date_shift_max_days),
        ] {
            if let Some(v) = field {
                let n = *v.get_ref();
                if !(1..=36_500).contains(&n) {
                    return Err(bad(
                        v.span().start,
                        format!("{n} days is outside 1..=36500"),
                    ));
                }
                *target = n as u32;
            }
        }
        if p.date_shift_min_days > p.date_shift_max_days {
            let pos = raw
                .date_shift_min_days
                .as_ref()
                .map_or(0, |v| v.span().start);
            return Err(bad(
                pos,
                "date_shift_min_days exceeds date_shift_max_days".into(),
            ));
        }
        for (k, v) in &raw.labels {
            let label = Label::parse(k.get_ref()).map_err(|m| bad(k.span().start, m.0))?;
            let op = OperatorKind::parse(v.get_ref()).map_err(|m| bad(v.span().start, m.0))?;
            check_choice(Some(label), op).map_err(|m| bad(v.span().start, m.0))?;
            if p.labels.insert(label, op).is_some() {
                return Err(bad(
                    k.span().start,
                    format!("label {label} is listed twice"),
                ));
            }
        }
        Ok(p)
    }

    /// Reads a policy file.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Policy, PolicyError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| PolicyError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Policy::from_toml(&text, &path.display().to_string())
    }

    /// A built-in policy, `wordlists/policies/<name>.toml` (e.g. `default`, `medroberta`).
    pub fn builtin(name: &str) -> Result<Policy, PolicyError> {
        let text = crate::wordlists::builtin(&format!("policies/{name}.toml"))
            .ok_or_else(|| PolicyError::NoBuiltin(name.to_string()))?;
        Policy::from_toml(text, &format!("wordlists/policies/{name}.toml"))
    }

    /// Overrides the operator for `label` (`CATEGORY`, `CATEGORY/SUBTYPE`) or, with the label
    /// `default`, the default operator; validated like the file form.
    pub fn set(&mut self, label: &str, operator: &str) -> Result<(), PolicyError> {
        let err = |msg: String| PolicyError::Override {
            what: format!("{label}={operator}"),
            msg,
        };
        let op = OperatorKind::parse(operator).map_err(|e| err(e.0))?;
        if label.trim().eq_ignore_ascii_case("default") {
            check_choice(None, op).map_err(|e| err(e.0))?;
            self.default = op;
            return Ok(());
        }
        let l = Label::parse(label).map_err(|e| err(e.0))?;
        check_choice(Some(l), op).map_err(|e| err(e.0))?;
        self.labels.insert(l, op);
        Ok(())
    }

    /// The operator for `label`: CATEGORY/SUBTYPE entry, then CATEGORY entry, then default.
    pub fn operator_for(&self, label: Label) -> OperatorKind {
        if label.subtype.is_some() {
            if let Some(&op) = self.labels.get(&label) {
                return op;
            }
        }
        self.labels
            .get(&Label::category_only(label.category))
            .copied()
            .unwrap_or(self.default)
    }

    /// Operators this policy can call (default and every label entry).
    pub fn operators_used(&self) -> Vec<OperatorKind> {
        let mut v: Vec<OperatorKind> = std::iter::once(self.default)
            .chain(self.labels.values().copied())
            .collect();
        v.sort();
        v.dedup();
        v
    }

    /// Why this policy needs a key, or `None` when it does not.
    pub fn key_requirement(&self) -> Option<String> {
        let mut why: Vec<String> = Vec::new();
        for (label, op) in std::iter::once((None, self.default))
            .chain(self.labels.iter().map(|(l, o)| (Some(*l), *o)))
        {
            if matches!(op, OperatorKind::Pseudonym | OperatorKind::DateShift) {
                let who = label.map_or("default".to_string(), |l| l.to_string());
                why.push(format!("{who} uses {}", op.as_str()));
            }
        }
        if self.surrogate_scope == SurrogateScope::Corpus {
            why.push("surrogate_scope = corpus".into());
        }
        (!why.is_empty()).then(|| why.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labels::Subtype;

    const EXAMPLE: &str = r#"
default = "tag"
tag_style = "brackets"
[labels]
NAME = "surrogate"
"DATE" = "date-shift"
"ID/SSN" = "pseudonym"
NAME_DOCTOR = "redact"
"#;

    #[test]
    fn lookup_prefers_most_specific() {
        let p = Policy::from_toml(EXAMPLE, "ex.toml").unwrap();
        use OperatorKind::*;
        let cases = [
            (Label::new(Category::Name, Subtype::Patient), Surrogate),
            (Label::new(Category::Name, Subtype::Doctor), Redact),
            (Label::category_only(Category::Name), Surrogate),
            (Label::new(Category::Date, Subtype::Birthdate), DateShift),
            (Label::new(Category::Id, Subtype::Ssn), Pseudonym),
            (Label::new(Category::Id, Subtype::Account), Tag),
            (Label::category_only(Category::Age), Tag),
        ];
        for (label, want) in cases {
            assert_eq!(p.operator_for(label), want, "{label}");
        }
        assert!(p
            .key_requirement()
            .unwrap()
            .contains("ID/SSN uses pseudonym"));
    }

    #[test]
    fn errors_name_file_and_line() {
        let cases = [
            ("default = \"shred\"\n", 1, "unknown operator 'shred'"),
            (
                "default = \"tag\"\n[labels]\nNAME = \"hide\"\n",
                3,
                "unknown operator 'hide'",
            ),
            (
                "[labels]\nNAME = \"tag\"\nPATIENTNAME = \"tag\"\n",
                3,
                "unknown category",
            ),
            ("[labels]\n\"NAME/ZIP\" = \"tag\"\n", 2, "does not belong"),
            ("[labels]\nAGE = \"date-shift\"\n", 2, "only to DATE"),
            ("\ndefault = \"date-shift\"\n", 2, "cannot be the default"),
            ("tag_style = \"fancy\"\n", 1, "unknown tag_style"),
            (
                "tag_style = \"deid\"\ntag_template = \"{tag}\"\n",
                2,
                "tag_template is set",
            ),
            ("tag_template = \"{who}\"\n", 1, "unknown placeholder"),
            ("redact_char = \"ab\"\n", 1, "one character"),
            ("surrogate_scope = \"world\"\n", 1, "surrogate_scope"),
            ("pseudonym_hex = 2\n", 1, "outside 4..=64"),
            ("date_shift_min_days = 0\n", 1, "outside"),
            (
                "date_shift_min_days = 30\ndate_shift_max_days = 10\n",
                1,
                "exceeds",
            ),
            ("\n\ncolour = \"red\"\n", 3, "unknown field"),
            ("[labels]\nNAME = \"tag\"\nname = \"redact\"\n", 3, "twice"),
            ("default = [\n", 2, ""),
        ];
        for (text, line, needle) in cases {
            let err = Policy::from_toml(text, "my/policy.toml").unwrap_err();
            let msg = err.to_string();
            assert!(
                msg.starts_with(&format!("my/policy.toml:{line}: ")),
                "{text:?}: {msg}"
            );
            assert!(msg.contains(needle), "{text:?}: {msg}");
        }
    }

    #[test]
    fn overrides_and_key_requirements() {
        let mut p = Policy::default();
        assert_eq!(p.key_requirement(), None);
        p.set("NAME", "redact").unwrap();
        p.set("default", "surrogate").unwrap();
        assert_eq!(
            p.operator_for(Label::new(Category::Name, Subtype::Doctor)),
            OperatorKind::Redact
        );
        assert_eq!(
            p.operator_for(Label::category_only(Category::Age)),
            OperatorKind::Surrogate
        );
        assert_eq!(p.key_requirement(), None);
        for (label, op) in [
            ("NAME", "nuke"),
            ("NAMES", "tag"),
            ("AGE", "date-shift"),
            ("default", "date-shift"),
        ] {
            let e = p.set(label, op).unwrap_err().to_string();
            assert!(e.contains(&format!("{label}={op}")), "{e}");
        }
        p.set("DATE/BIRTHDATE", "date_shift").unwrap();
        assert!(p
            .key_requirement()
            .unwrap()
            .contains("DATE/BIRTHDATE uses date-shift"));
        let q = Policy::from_toml("surrogate_scope = \"corpus\"\n", "q").unwrap();
        assert!(q.key_requirement().unwrap().contains("corpus"));
    }

    #[test]
    fn builtin_policies_load() {
        let d = Policy::builtin("default").unwrap();
        assert_eq!(
            d.key_requirement(),
            None,
            "the default policy must run without a key"
        );
        let m = Policy::builtin("medroberta").unwrap();
        assert_eq!(m.tag_style, TagStyle::MedRoberta);
        assert!(matches!(
            Policy::builtin("nope"),
            Err(PolicyError::NoBuiltin(_))
        ));
    }
}
