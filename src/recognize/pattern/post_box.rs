//! Post-office boxes ("PO BOX 2231", "P.O. Box 47", "Apartado de Correos 993", "Postbus 1042",
//! "casella postale 18", "Pf. 115"): a box is where a person's mail goes, so it is a street
//! address, labelled as MEDDOCAN labels "Apartado de Correos 20134" (CALLE), the box words with
//! the number. The words alone are no address ("the apartado 3 of the protocol"), nor is a
//! number after a bare "Box" ("box 2 of the kit").

use super::Cand;
use crate::labels::{Category, Label, Subtype};
use crate::lang::Lang;
use regex::Regex;

const SCORE: f32 = 0.7;

/// The box words of each language, a regular expression each, matched without regard to case
/// but Hungarian's abbreviation, whose capital marks it ("Pf." and not "pf", a unit elsewhere).
fn box_words(lang: Lang) -> &'static str {
    match lang {
        Lang::En => r"(?i:p\.? ?o\.? ?box|post office box)",
        Lang::Es => r"(?i:apartado (?:de correos|postal)|apdo\.?(?: de correos| postal)?)",
        Lang::Nl => r"(?i:postbus)",
        Lang::It => r"(?i:casella postale|cas\. ?post\.)",
        Lang::Hu => r"(?:P[Ff]\.|(?i:postafiók))",
    }
}

pub struct PostBoxes {
    re: Regex,
}

impl PostBoxes {
    pub fn new(lang: Lang) -> Result<Self, regex::Error> {
        // A number sign, "No." or "nº" may stand between the words and the number.
        let re = Regex::new(&format!(
            r"\b{}\s*(?:#|(?i:no\.?|n\.? ?º|núm\.?|nr\.?|n\.)\s*)?\d{{1,6}}\b",
            box_words(lang)
        ))?;
        Ok(PostBoxes { re })
    }

    /// Appends the post-office boxes of `text`.
    pub fn find(&self, text: &str, out: &mut Vec<Cand>) {
        let label = Label::new(Category::Location, Subtype::Street);
        for m in self.re.find_iter(text) {
            out.push(Cand::new(m.start(), m.end(), label, "post_box", SCORE));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(lang: Lang, text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        PostBoxes::new(lang).unwrap().find(text, &mut out);
        out.iter().map(|c| &text[c.start..c.end]).collect()
    }

    #[test]
    fn a_box_word_with_its_number_is_a_street_address() {
        assert_eq!(
            found(Lang::En, "PT'S MAIL GOES TO PO BOX 2231, BOSTON MA"),
            ["PO BOX 2231"]
        );
        assert_eq!(
            found(Lang::En, "mail to P.O. Box 47, Quincy"),
            ["P.O. Box 47"]
        );
        assert_eq!(found(Lang::En, "p.o. box #118"), ["p.o. box #118"]);
        assert_eq!(found(Lang::En, "Post Office Box 9"), ["Post Office Box 9"]);
        assert_eq!(
            found(Lang::Es, "López Apartado de Correos 993 02080 Albacete"),
            ["Apartado de Correos 993"]
        );
        assert_eq!(found(Lang::Es, "Remitir a Apdo. 41, 03550"), ["Apdo. 41"]);
        assert_eq!(
            found(Lang::Es, "apartado postal nº 12"),
            ["apartado postal nº 12"]
        );
        assert_eq!(
            found(Lang::Nl, "Antwoordnummer of Postbus 1042, 3000 BA"),
            ["Postbus 1042"]
        );
        assert_eq!(
            found(Lang::It, "scrivere alla casella postale 18 di Lodi"),
            ["casella postale 18"]
        );
        assert_eq!(found(Lang::Hu, "1525 Budapest, Pf. 115."), ["Pf. 115"]);
    }

    #[test]
    fn the_words_alone_or_a_bare_box_are_no_address() {
        for (lang, text) in [
            (Lang::En, "box 2 of the kit"),
            (Lang::En, "tylenol po q6h, box of gloves"),
            (Lang::En, "PO BOX"),
            (Lang::Es, "según el apartado 3 del protocolo"),
            (Lang::Hu, "2 pf. után"),
            (Lang::Nl, "postbus"),
        ] {
            assert!(found(lang, text).is_empty(), "{text}");
        }
    }
}
