//! The Label Studio labeling config (XML) for exported tasks: a `<Labels>` control over the
//! `<Text>` object, one `<Label>` per label, coloured by canonical category.

use super::{FROM_NAME, TEXT_KEY, TO_NAME};
use crate::labelmap::LabelMap;
use crate::labels::{Category, Label};
use crate::report::escape::escape;
use std::fmt::Write;

/// A colour per category (Okabe-Ito, colour-blind safe); grey for labels of no known category.
fn colour(category: Option<Category>) -> &'static str {
    match category {
        Some(Category::Name) => "#D55E00",
        Some(Category::Profession) => "#CC79A7",
        Some(Category::Location) => "#0072B2",
        Some(Category::Age) => "#E69F00",
        Some(Category::Date) => "#009E73",
        Some(Category::Contact) => "#56B4E9",
        Some(Category::Id) => "#F0E442",
        Some(Category::Other) | None => "#999999",
    }
}

/// Every canonical label with a subtype, category by category, in canonical text form.
pub fn canonical_labels() -> Vec<(String, Option<Category>)> {
    Category::ALL
        .into_iter()
        .flat_map(|c| {
            c.subtypes()
                .iter()
                .map(move |&s| (Label::new(c, s).to_string(), Some(c)))
        })
        .collect()
}

/// The scheme labels of a label map that map to a canonical label (skipped types left out).
pub fn scheme_labels(map: &LabelMap) -> Vec<(String, Option<Category>)> {
    map.entries()
        .iter()
        .filter_map(|(k, l)| l.map(|l| (k.clone(), Some(l.category))))
        .collect()
}

/// The config XML for `labels` (in order, duplicates dropped).
pub fn labeling_config(labels: &[(String, Option<Category>)]) -> String {
    let mut seen = std::collections::HashSet::new();
    let mut x = String::from("<View>\n");
    let _ = writeln!(x, "  <Labels name=\"{FROM_NAME}\" toName=\"{TO_NAME}\">");
    for (value, category) in labels {
        if seen.insert(value.as_str()) {
            let _ = writeln!(
                x,
                "    <Label value=\"{}\" background=\"{}\"/>",
                escape(value),
                colour(*category)
            );
        }
    }
    x.push_str("  </Labels>\n");
    let _ = writeln!(x, "  <Text name=\"{TO_NAME}\" value=\"${TEXT_KEY}\"/>");
    x.push_str("</View>\n");
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_every_label_once_escaped() {
        let mut labels = canonical_labels();
        labels.push(("NAME/PATIENT".into(), Some(Category::Name)));
        labels.push(("A<&\"B".into(), None));
        let x = labeling_config(&labels);
        assert!(x.starts_with("<View>\n  <Labels name=\"label\" toName=\"text\">\n"));
        assert!(x.contains("<Text name=\"text\" value=\"$text\"/>"));
        assert_eq!(x.matches("value=\"NAME/PATIENT\"").count(), 1);
        assert!(x.contains("<Label value=\"A&lt;&amp;&quot;B\" background=\"#999999\"/>"));
        let n: usize = Category::ALL.iter().map(|c| c.subtypes().len()).sum();
        assert_eq!(x.matches("<Label ").count(), n + 1);
    }

    #[test]
    fn scheme_labels_leave_skipped_types_out() {
        let map = LabelMap::parse(
            "name = \"t\"\n[labels]\nPER = \"NAME\"\nCAB = \"\"\nFECHA = \"DATE\"\n",
            "t.toml",
        )
        .unwrap();
        let labels = scheme_labels(&map);
        assert_eq!(
            labels,
            vec![
                ("PER".to_string(), Some(Category::Name)),
                ("FECHA".to_string(), Some(Category::Date))
            ]
        );
    }
}
