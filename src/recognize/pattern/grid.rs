//! Latin-American grid addresses: a street type, the street's number and the cross street's
//! number with the house number ("Carrera 39 No 47-33", "Calle 10 # 5-51", "Cra. 7A N° 32-16",
//! "Transversal 5 Bis No. 12-04"), with an optional apartment or office tail.

use super::{Cand, PatternError};
use crate::labels::{Category, Label, Subtype};
use regex::Regex;

const SCORE: f32 = 0.8;

pub struct Grid {
    re: Regex,
}

impl Grid {
    pub fn new() -> Result<Self, PatternError> {
        // Street type (full or abbreviated), street number with optional letter / "Bis",
        // number word or '#', cross-street number, dash, house number; then optionally
        // "apto|apartamento|oficina|int|local|piso" and a number.
        let re = Regex::new(
            r"(?x)
            \b(?:Carrera|CARRERA|Cra\.?|Kra\.?|Cr\.?|Calle|CALLE|Cll\.?|Cl\.?|Avenida|AVENIDA|Av\.?|Avda\.?
               |Diagonal|DIAGONAL|Dg\.?|Transversal|TRANSVERSAL|Tv\.?|Trans\.?)
            \x20{1,2}\d{1,3}\x20?[A-Z]?(?:\x20(?:Bis|bis|BIS))?
            \x20{1,2}(?:No\.?|N[oº°]\.?|Nro\.?|\#)\x20?\d{1,3}\x20?[A-Z]?\x20?-\x20?\d{1,3}\b
            (?:,?\x20(?:[Aa]pto\.?|[Aa]partamento|[Oo]ficina|[Ii]nt\.?|[Ll]ocal|[Pp]iso)\x20?\d{1,4}\b)?",
        )
        .map_err(|e| PatternError::Regex(e.to_string()))?;
        Ok(Grid { re })
    }

    pub fn find(&self, text: &str, out: &mut Vec<Cand>) {
        let label = Label::new(Category::Location, Subtype::Street);
        for m in self.re.find_iter(text) {
            out.push(Cand::new(m.start(), m.end(), label, "grid_address", SCORE));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        Grid::new().unwrap().find(text, &mut out);
        out.iter().map(|c| &text[c.start..c.end]).collect()
    }

    #[test]
    fn grid_addresses() {
        let cases: &[(&str, &[&str])] = &[
            (
                "vive en la Carrera 39 No 47-33 de Medellín",
                &["Carrera 39 No 47-33"],
            ),
            ("Calle 10 # 5-51, apto 301.", &["Calle 10 # 5-51, apto 301"]),
            ("Cra. 7A N° 32-16", &["Cra. 7A N° 32-16"]),
            (
                "Transversal 5 Bis No. 12-04",
                &["Transversal 5 Bis No. 12-04"],
            ),
            ("Av. 68 #22-10 oficina 204", &["Av. 68 #22-10 oficina 204"]),
            // No cross-street number: left to the street rule.
            ("Calle 10 número 5", &[]),
            // Scores and ranges are no addresses.
            ("TA 120/80, FC 10 # 5-51", &[]),
            ("la carrera 3 km 5-10", &[]),
        ];
        for (text, want) in cases {
            assert_eq!(found(text), *want, "{text}");
        }
    }
}
