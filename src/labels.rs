//! Canonical PHI categories and subcategories (i2b2 2014, extended) and their text forms.

use crate::error::ValueError;

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use strum::{IntoStaticStr, VariantArray};

/// Copies a variant list into a fixed-size array, so `ALL` stays a by-value `const` array
/// while the variants are listed only in the enum.
const fn to_array<T: Copy, const N: usize>(variants: &[T]) -> [T; N] {
    assert!(variants.len() == N);
    let mut out = [variants[0]; N];
    let mut i = 1;
    while i < N {
        out[i] = variants[i];
        i += 1;
    }
    out
}

/// Top-level PHI category.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    VariantArray,
    IntoStaticStr,
)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[strum(serialize_all = "SCREAMING_SNAKE_CASE")]
pub enum Category {
    Name,
    Profession,
    Location,
    Age,
    Date,
    Contact,
    Id,
    Other,
}

impl Category {
    /// Every category, in declaration order.
    pub const ALL: [Category; <Category as VariantArray>::VARIANTS.len()] =
        to_array(<Category as VariantArray>::VARIANTS);

    /// The canonical text form (`NAME`, `PROFESSION`), the same as the serde name.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Subtypes allowed under this category.
    pub fn subtypes(self) -> &'static [Subtype] {
        use Subtype::*;
        match self {
            Category::Name => &[Patient, Doctor, Relative, Username, Other],
            Category::Profession => &[Profession],
            Category::Location => &[
                Hospital,
                Department,
                Room,
                Organization,
                Street,
                City,
                State,
                Country,
                Zip,
                Other,
            ],
            Category::Age => &[Age],
            Category::Date => &[Date, Birthdate],
            Category::Contact => &[Phone, Fax, Email, Url, Ipaddr],
            Category::Id => &[
                Ssn,
                Medicalrecord,
                Healthplan,
                Account,
                License,
                Vehicle,
                Device,
                Bioid,
                Idnum,
            ],
            Category::Other => &[Sex, Other],
        }
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Category {
    type Err = crate::error::ValueError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Category::ALL
            .into_iter()
            .find(|c| c.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| ValueError::from(format!("unknown category '{s}'")))
    }
}

/// PHI subcategory. `Other` is shared by NAME, LOCATION and OTHER.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    VariantArray,
    IntoStaticStr,
)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[strum(serialize_all = "SCREAMING_SNAKE_CASE")]
pub enum Subtype {
    Patient,
    Doctor,
    Relative,
    Username,
    Other,
    Profession,
    Hospital,
    Department,
    Room,
    Organization,
    Street,
    City,
    State,
    Country,
    Zip,
    Age,
    Date,
    Birthdate,
    Phone,
    Fax,
    Email,
    Url,
    Ipaddr,
    Ssn,
    Medicalrecord,
    Healthplan,
    Account,
    License,
    Vehicle,
    Device,
    Bioid,
    Idnum,
    Sex,
}

impl Subtype {
    /// Every subtype, in declaration order.
    pub const ALL: [Subtype; <Subtype as VariantArray>::VARIANTS.len()] =
        to_array(<Subtype as VariantArray>::VARIANTS);

    /// The canonical text form (`PATIENT`, `MEDICALRECORD`), the same as the serde name.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

impl fmt::Display for Subtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Subtype {
    type Err = crate::error::ValueError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Subtype::ALL
            .into_iter()
            .find(|c| c.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| ValueError::from(format!("unknown subtype '{s}'")))
    }
}

/// A canonical label: category plus an optional subtype valid for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Label {
    pub category: Category,
    pub subtype: Option<Subtype>,
}

impl Label {
    pub const fn new(category: Category, subtype: Subtype) -> Self {
        Label {
            category,
            subtype: Some(subtype),
        }
    }

    pub const fn category_only(category: Category) -> Self {
        Label {
            category,
            subtype: None,
        }
    }

    /// Builds a label, checking that the subtype belongs to the category.
    pub fn checked(category: Category, subtype: Option<Subtype>) -> Result<Self, ValueError> {
        if let Some(s) = subtype {
            if !category.subtypes().contains(&s) {
                return Err(ValueError::from(format!(
                    "subtype {s} does not belong to category {category}"
                )));
            }
        }
        Ok(Label { category, subtype })
    }

    /// Parses `CATEGORY`, `CATEGORY/SUBTYPE` or `CATEGORY_SUBTYPE` (the brat and IOB2 form).
    pub fn parse(s: &str) -> Result<Self, ValueError> {
        match s.split_once(['/', '_']) {
            Some((c, st)) => Label::checked(c.parse()?, Some(st.parse()?)),
            None => Ok(Label::category_only(s.parse()?)),
        }
    }
}

impl Label {
    /// The form used as a brat type or IOB2 tag suffix: `NAME_DOCTOR`, `DATE`.
    pub fn tag_form(&self) -> String {
        match self.subtype {
            Some(s) => format!("{}_{}", self.category, s),
            None => self.category.to_string(),
        }
    }
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.subtype {
            Some(s) => write!(f, "{}/{}", self.category, s),
            None => write!(f, "{}", self.category),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The serde name of a unit variant: the JSON string it serializes to.
    fn serde_name<T: Serialize>(v: T) -> String {
        match serde_json::to_value(v).unwrap() {
            serde_json::Value::String(s) => s,
            other => panic!("not a string: {other}"),
        }
    }

    #[test]
    fn every_category_text_form_round_trips_and_matches_serde() {
        assert_eq!(Category::ALL.len(), 8);
        for c in Category::ALL {
            let s = c.as_str();
            assert_eq!(s.parse::<Category>().unwrap(), c, "{s}");
            assert_eq!(
                s.to_ascii_lowercase().parse::<Category>().unwrap(),
                c,
                "{s}"
            );
            assert_eq!(format!(" {s} ").parse::<Category>().unwrap(), c, "{s}");
            assert_eq!(serde_name(c), s);
            assert_eq!(c.to_string(), s);
            let back: Category = serde_json::from_value(serde_json::json!(s)).unwrap();
            assert_eq!(back, c);
        }
        assert!("NAMES".parse::<Category>().is_err());
    }

    #[test]
    fn every_subtype_text_form_round_trips_and_matches_serde() {
        assert_eq!(Subtype::ALL.len(), 33);
        for t in Subtype::ALL {
            let s = t.as_str();
            assert_eq!(s.parse::<Subtype>().unwrap(), t, "{s}");
            assert_eq!(s.to_ascii_lowercase().parse::<Subtype>().unwrap(), t, "{s}");
            assert_eq!(format!(" {s} ").parse::<Subtype>().unwrap(), t, "{s}");
            assert_eq!(serde_name(t), s);
            assert_eq!(t.to_string(), s);
            let back: Subtype = serde_json::from_value(serde_json::json!(s)).unwrap();
            assert_eq!(back, t);
        }
        assert!("MEDICAL_RECORD".parse::<Subtype>().is_err());
    }

    #[test]
    fn text_forms_are_the_canonical_i2b2_spellings() {
        let cats: Vec<&str> = Category::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(
            cats,
            [
                "NAME",
                "PROFESSION",
                "LOCATION",
                "AGE",
                "DATE",
                "CONTACT",
                "ID",
                "OTHER"
            ]
        );
        let subs: Vec<&str> = Subtype::ALL.iter().map(|t| t.as_str()).collect();
        assert_eq!(
            subs,
            [
                "PATIENT",
                "DOCTOR",
                "RELATIVE",
                "USERNAME",
                "OTHER",
                "PROFESSION",
                "HOSPITAL",
                "DEPARTMENT",
                "ROOM",
                "ORGANIZATION",
                "STREET",
                "CITY",
                "STATE",
                "COUNTRY",
                "ZIP",
                "AGE",
                "DATE",
                "BIRTHDATE",
                "PHONE",
                "FAX",
                "EMAIL",
                "URL",
                "IPADDR",
                "SSN",
                "MEDICALRECORD",
                "HEALTHPLAN",
                "ACCOUNT",
                "LICENSE",
                "VEHICLE",
                "DEVICE",
                "BIOID",
                "IDNUM",
                "SEX",
            ]
        );
    }

    #[test]
    fn parse_round_trips_and_rejects_wrong_pairs() {
        for c in Category::ALL {
            for &s in c.subtypes() {
                let l = Label::new(c, s);
                assert_eq!(Label::parse(&l.to_string()).unwrap(), l);
            }
        }
        assert!(Label::parse("NAME/ZIP").is_err());
        let l = Label::new(Category::Id, Subtype::Medicalrecord);
        assert_eq!(Label::parse(&l.tag_form()).unwrap(), l);
        assert!(Label::parse("FOO").is_err());
        assert_eq!(
            Label::parse("date").unwrap(),
            Label::category_only(Category::Date)
        );
    }
}
