//! Entity counts per label of a stream of documents, for the summaries commands print (labels
//! and numbers only, never text).

use std::collections::BTreeMap;

use super::Document;

/// Entity counts per label: labels only, never text.
#[derive(Default, Debug, serde::Serialize)]
pub struct LabelCounts {
    pub documents: usize,
    pub entities: usize,
    /// Keyed by the label itself: no string is built per entity.
    #[serde(serialize_with = "labels_as_text")]
    pub per_label: BTreeMap<crate::labels::Label, usize>,
}

/// Writes label keys as their text form (`NAME/DOCTOR`), in alphabetical order.
fn labels_as_text<S: serde::Serializer>(
    counts: &BTreeMap<crate::labels::Label, usize>,
    ser: S,
) -> Result<S::Ok, S::Error> {
    let text: BTreeMap<String, usize> = counts.iter().map(|(l, n)| (l.to_string(), *n)).collect();
    ser.collect_map(text)
}

impl LabelCounts {
    pub fn add(&mut self, doc: &Document) {
        self.documents += 1;
        self.entities += doc.entities.len();
        for e in &doc.entities {
            *self.per_label.entry(e.label).or_default() += 1;
        }
    }

    /// A short table for stderr, labels in alphabetical order.
    pub fn table(&self) -> String {
        let mut s = format!("{} documents, {} entities\n", self.documents, self.entities);
        let mut rows: Vec<(String, usize)> = self
            .per_label
            .iter()
            .map(|(label, n)| (label.to_string(), *n))
            .collect();
        rows.sort();
        for (label, n) in rows {
            s.push_str(&format!("  {label:<28} {n:>9}\n"));
        }
        s
    }
}
