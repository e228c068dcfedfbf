//! Canonical PHI categories and subcategories (i2b2 2014, extended) and their text forms.

use crate::error::ValueError;

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Top-level PHI category.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
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
    pub const ALL: [Category; 8] = [
        Category::Name,
        Category::Profession,
        Category::Location,
        Category::Age,
        Category::Date,
        Category::Contact,
        Category::Id,
        Category::Other,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Category::Name => "NAME",
            Category::Profession => "PROFESSION",
            Category::Location => "LOCATION",
            Category::Age => "AGE",
            Category::Date => "DATE",
            Category::Contact => "CONTACT",
            Category::Id => "ID",
            Category::Other => "OTHER",
        }
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
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
    pub const ALL: [Subtype; 33] = {
        use Subtype::*;
        [
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
        ]
    };

    pub fn as_str(self) -> &'static str {
        use Subtype::*;
        match self {
            Patient => "PATIENT",
            Doctor => "DOCTOR",
            Relative => "RELATIVE",
            Username => "USERNAME",
            Other => "OTHER",
            Profession => "PROFESSION",
            Hospital => "HOSPITAL",
            Department => "DEPARTMENT",
            Room => "ROOM",
            Organization => "ORGANIZATION",
            Street => "STREET",
            City => "CITY",
            State => "STATE",
            Country => "COUNTRY",
            Zip => "ZIP",
            Age => "AGE",
            Date => "DATE",
            Birthdate => "BIRTHDATE",
            Phone => "PHONE",
            Fax => "FAX",
            Email => "EMAIL",
            Url => "URL",
            Ipaddr => "IPADDR",
            Ssn => "SSN",
            Medicalrecord => "MEDICALRECORD",
            Healthplan => "HEALTHPLAN",
            Account => "ACCOUNT",
            License => "LICENSE",
            Vehicle => "VEHICLE",
            Device => "DEVICE",
            Bioid => "BIOID",
            Idnum => "IDNUM",
            Sex => "SEX",
        }
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
