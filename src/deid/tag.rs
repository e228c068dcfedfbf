//! The `tag` operator: replaces a span with a label tag in one of several styles.

use crate::error::ValueError;

use super::{OpContext, Operator, Replaced};
use crate::labels::{Category, Label, Subtype};

/// How a tag is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TagStyle {
    /// The tags of the MedRoBERTa.nl training corpus (bare words, spaCy style): NAME → `PERSON`;
    /// LOCATION/CITY, STATE, COUNTRY → `GPE`; LOCATION/HOSPITAL, ORGANIZATION, DEPARTMENT →
    /// `ORG`; any other LOCATION (street, zip, room, other, no subtype) → `LOC`; every other
    /// category → its own name (`DATE`, `AGE`, `ID`, `CONTACT`, `PROFESSION`, `OTHER`).
    /// That corpus only replaced names and places; here nothing is passed through, so the
    /// remaining categories keep a tag rather than their text.
    MedRoberta,
    /// `[NAME]`, or `[NAME_DOCTOR]` when `subtype` is set and the label has one.
    Brackets { subtype: bool },
    /// `<DEID>` for everything.
    Deid,
    /// A user template with `{category}`, `{subtype}` (empty when none) and `{tag}`
    /// (`NAME_DOCTOR`, or `NAME` without subtype).
    Template(String),
}

impl TagStyle {
    /// Parses a style name; `template` needs the template text.
    pub fn parse(
        name: &str,
        subtype: bool,
        template: Option<&str>,
    ) -> Result<TagStyle, ValueError> {
        match name {
            "medroberta" => Ok(TagStyle::MedRoberta),
            "brackets" => Ok(TagStyle::Brackets { subtype }),
            "deid" => Ok(TagStyle::Deid),
            "template" => match template {
                Some(t) => {
                    check_template(t)?;
                    Ok(TagStyle::Template(t.to_string()))
                }
                None => Err("tag_style \"template\" needs tag_template".into()),
            },
            other => Err(ValueError::from(format!(
                "unknown tag_style '{other}' (expected medroberta, brackets, deid or template)"
            ))),
        }
    }

    /// The tag text for `label`.
    pub fn render(&self, label: Label) -> String {
        match self {
            TagStyle::MedRoberta => medroberta_tag(label).to_string(),
            TagStyle::Brackets { subtype: true } => format!("[{}]", label.tag_form()),
            TagStyle::Brackets { subtype: false } => format!("[{}]", label.category),
            TagStyle::Deid => "<DEID>".to_string(),
            TagStyle::Template(t) => t
                .replace("{category}", label.category.as_str())
                .replace("{subtype}", label.subtype.map_or("", Subtype::as_str))
                .replace("{tag}", &label.tag_form()),
        }
    }
}

/// A template may use only the known placeholders, and must not be empty (an empty tag would
/// silently turn `tag` into removal).
pub fn check_template(t: &str) -> Result<(), ValueError> {
    if t.is_empty() {
        return Err("tag_template is empty".into());
    }
    let mut rest = t;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let close = after.find('}').ok_or("tag_template has an unclosed '{'")?;
        let name = &after[..close];
        if !matches!(name, "category" | "subtype" | "tag") {
            return Err(ValueError::from(format!(
                "tag_template uses unknown placeholder {{{name}}} (expected {{category}}, {{subtype}} or {{tag}})"
            )));
        }
        rest = &after[close + 1..];
    }
    Ok(())
}

fn medroberta_tag(label: Label) -> &'static str {
    use Subtype::*;
    match (label.category, label.subtype) {
        (Category::Name, _) => "PERSON",
        (Category::Location, Some(City | State | Country)) => "GPE",
        (Category::Location, Some(Hospital | Organization | Department)) => "ORG",
        (Category::Location, _) => "LOC",
        (c, _) => c.as_str(),
    }
}

/// Replaces a span with its tag.
pub struct Tag {
    pub style: TagStyle,
}

impl Operator for Tag {
    fn name(&self) -> &'static str {
        "tag"
    }

    fn replace(&self, _original: &str, label: Label, _ctx: &mut OpContext) -> Replaced {
        Replaced::by("tag", self.style.render(label))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labels::Category as C;

    #[test]
    fn styles_render_per_label() {
        let doctor = Label::new(C::Name, Subtype::Doctor);
        let city = Label::new(C::Location, Subtype::City);
        let street = Label::new(C::Location, Subtype::Street);
        let hospital = Label::new(C::Location, Subtype::Hospital);
        let loc = Label::category_only(C::Location);
        let date = Label::new(C::Date, Subtype::Date);
        let ssn = Label::new(C::Id, Subtype::Ssn);
        let plain = TagStyle::Brackets { subtype: false };
        let sub = TagStyle::Brackets { subtype: true };
        let tpl = TagStyle::parse("template", false, Some("<{category}:{subtype}>")).unwrap();
        let tagged = TagStyle::parse("template", false, Some("@@{tag}")).unwrap();
        let cases: &[(&TagStyle, Label, &str)] = &[
            (&TagStyle::MedRoberta, doctor, "PERSON"),
            (&TagStyle::MedRoberta, city, "GPE"),
            (&TagStyle::MedRoberta, hospital, "ORG"),
            (&TagStyle::MedRoberta, street, "LOC"),
            (&TagStyle::MedRoberta, loc, "LOC"),
            (&TagStyle::MedRoberta, date, "DATE"),
            (&TagStyle::MedRoberta, ssn, "ID"),
            (&plain, doctor, "[NAME]"),
            (&sub, doctor, "[NAME_DOCTOR]"),
            (&sub, loc, "[LOCATION]"),
            (&TagStyle::Deid, ssn, "<DEID>"),
            (&tpl, doctor, "<NAME:DOCTOR>"),
            (&tpl, loc, "<LOCATION:>"),
            (&tagged, ssn, "@@ID_SSN"),
        ];
        for (style, label, want) in cases {
            assert_eq!(style.render(*label), *want, "{style:?} {label}");
        }
    }

    #[test]
    fn bad_styles_and_templates_are_rejected() {
        for (name, tpl) in [
            ("fancy", None),
            ("template", None),
            ("template", Some("")),
            ("template", Some("{name}")),
            ("template", Some("[{category")),
        ] {
            assert!(TagStyle::parse(name, false, tpl).is_err(), "{name} {tpl:?}");
        }
        assert_eq!(
            TagStyle::parse("brackets", true, None).unwrap(),
            TagStyle::Brackets { subtype: true }
        );
    }
}
