//! Entity spans (byte offsets inside the process) and overlap resolution between recognizers.

use crate::labels::{Category, Label};

/// A recognized or gold PHI span. `start`/`end` are **byte** offsets into the document text
/// (end exclusive); corpus readers and writers convert to code points at the edges.
#[derive(Clone, Debug, PartialEq)]
pub struct Entity {
    pub start: usize,
    pub end: usize,
    pub label: Label,
    /// Which recognizer found it, e.g. `pattern:email`, `lookup:surnames_es`, `gold`.
    pub source: String,
    /// Confidence in [0, 1]; rules use fixed priorities expressed as scores.
    pub score: f32,
}

impl Entity {
    pub fn new(
        start: usize,
        end: usize,
        label: Label,
        source: impl Into<String>,
        score: f32,
    ) -> Self {
        Entity {
            start,
            end,
            label,
            source: source.into(),
            score,
        }
    }

    pub fn len(&self) -> usize {
        self.end - self.start
    }

    pub fn is_empty(&self) -> bool {
        self.end <= self.start
    }

    pub fn overlaps(&self, other: &Entity) -> bool {
        self.start < other.end && other.start < self.end
    }
}

/// Resolves overlapping candidates into a sorted, non-overlapping list.
///
/// Recall first: overlapping candidates are never dropped in a way that uncovers text. When two
/// spans overlap, the winner (higher score, then longer, then earlier) keeps its label and its
/// extent grows to cover the loser, so every character any recognizer flagged stays covered.
pub fn resolve_overlaps(mut cands: Vec<Entity>) -> Vec<Entity> {
    cands.retain(|e| !e.is_empty());
    cands.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
    let mut out: Vec<Entity> = Vec::with_capacity(cands.len());
    for e in cands {
        match out.last_mut() {
            Some(last) if last.overlaps(&e) => {
                let e_wins = if phrase_beats_tagger(&e, last) {
                    true
                } else if phrase_beats_tagger(last, &e) {
                    false
                } else {
                    (e.score, e.len()) > (last.score, last.len())
                };
                let (start, end) = (last.start.min(e.start), last.end.max(e.end));
                let loser_label = if e_wins {
                    std::mem::replace(last, e).label
                } else {
                    e.label
                };
                keep_subtype(&mut last.label, loser_label);
                last.start = start;
                last.end = end;
            }
            _ => out.push(e),
        }
    }
    out
}

/// Whether `a` took its category from the phrase before it (a title, a person's or a place's
/// trigger) or from a street type word it ends with, and `b`, a tagger's span over the same
/// words, gives another: the phrase is the stronger evidence ("interpreter Graça", "unit RN
/// Adaeze", which a news tagger reads as places; "lives in Lynn", which it may read as a
/// person; "on Quincy Shore Dr.", a first name and a doctor's title to it).
fn phrase_beats_tagger(a: &Entity, b: &Entity) -> bool {
    (a.start, a.end) == (b.start, b.end)
        && a.label.category != b.label.category
        && matches!(
            a.source.as_str(),
            "context:title" | "context:trigger" | "context:place" | "pattern:street"
        )
        && b.source.starts_with("ner:")
}

/// A winner that knows only the category (a tagger trained on news knows NAME, not DOCTOR or
/// PATIENT) takes the subtype of a loser of the same category, which a rule found from a title,
/// trigger or list.
fn keep_subtype(winner: &mut Label, loser: Label) {
    if winner.subtype.is_none() && winner.category == loser.category {
        winner.subtype = loser.subtype;
    }
}

/// Merges NAME spans separated only by spaces (or a hyphen) into one span, so that
/// "Estefanía" + "Romero" + "Selas" become one name; the same for adjacent LOCATION parts of
/// the same subtype. `text` is the document the byte offsets refer to.
pub fn merge_adjacent(text: &str, spans: Vec<Entity>) -> Vec<Entity> {
    let mut out: Vec<Entity> = Vec::with_capacity(spans.len());
    for e in spans {
        if let Some(last) = out.last_mut() {
            let gap = &text[last.end..e.start.max(last.end)];
            let joinable_gap = gap.len() <= 3 && gap.chars().all(|c| c == ' ' || c == '-');
            let both_names =
                last.label.category == Category::Name && e.label.category == Category::Name;
            let same_location = last.label == e.label && e.label.category == Category::Location;
            let same_kind = both_names || same_location;
            // A learned tagger decided where its entities end: two of its spans stay apart.
            let both_learned = last.source.starts_with("ner:") && e.source.starts_with("ner:");
            if joinable_gap && same_kind && !both_learned && e.start >= last.end {
                last.end = e.end;
                if (e.score, e.len()) > (last.score, last.len()) {
                    let loser_label = std::mem::replace(&mut last.label, e.label);
                    keep_subtype(&mut last.label, loser_label);
                } else {
                    keep_subtype(&mut last.label, e.label);
                }
                continue;
            }
        }
        out.push(e);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labels::Subtype;

    fn ent(s: usize, e: usize, label: Label, score: f32) -> Entity {
        Entity::new(s, e, label, "t", score)
    }

    const NAME: Label = Label::new(Category::Name, Subtype::Patient);
    const DATE: Label = Label::new(Category::Date, Subtype::Date);
    const CITY: Label = Label::new(Category::Location, Subtype::City);

    #[test]
    fn overlap_keeps_union_and_best_label() {
        let r = resolve_overlaps(vec![
            ent(0, 5, NAME, 0.5),
            ent(3, 10, DATE, 0.9),
            ent(20, 25, CITY, 0.1),
        ]);
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].start, r[0].end, r[0].label), (0, 10, DATE));
        assert_eq!((r[1].start, r[1].end), (20, 25));
    }

    #[test]
    fn spans_of_a_learned_tagger_are_not_merged() {
        let text = "Ana Ruiz";
        let tagged = |s, e| Entity::new(s, e, NAME, "ner:bilstm-crf", 0.9);
        assert_eq!(
            merge_adjacent(text, vec![tagged(0, 3), tagged(4, 8)]).len(),
            2
        );
        let mixed = vec![tagged(0, 3), ent(4, 8, NAME, 0.5)];
        assert_eq!(merge_adjacent(text, mixed).len(), 1);
    }

    #[test]
    fn a_winner_without_subtype_keeps_the_losers_subtype() {
        let doctor = Label::new(Category::Name, Subtype::Doctor);
        let name = Label::category_only(Category::Name);
        let city = Label::new(Category::Location, Subtype::City);
        // The tagger's NAME span (score 0.9) wins over a title rule's NAME/DOCTOR.
        let r = resolve_overlaps(vec![ent(0, 9, doctor, 0.6), ent(3, 12, name, 0.9)]);
        assert_eq!((r[0].start, r[0].end, r[0].label), (0, 12, doctor));
        // Another category's subtype is never taken.
        let r = resolve_overlaps(vec![ent(0, 9, city, 0.6), ent(0, 12, name, 0.9)]);
        assert_eq!(r[0].label, name);
        // Merging adjacent name parts keeps the subtype too.
        let text = "Anna Smith";
        let r = merge_adjacent(text, vec![ent(0, 4, doctor, 0.6), ent(5, 10, name, 0.9)]);
        assert_eq!((r.len(), r[0].label), (1, doctor));
    }

    #[test]
    fn a_trigger_or_title_beats_a_taggers_other_category_on_the_same_words() {
        let tagged = |s, e, l| Entity::new(s, e, l, "ner:bilstm-crf", 0.9);
        let rule = |s, e, l, src: &str| Entity::new(s, e, l, src, 0.75);
        let r = resolve_overlaps(vec![
            tagged(0, 5, CITY),
            rule(0, 5, NAME, "context:trigger"),
        ]);
        assert_eq!(r[0].label, NAME);
        let r = resolve_overlaps(vec![rule(0, 4, CITY, "context:place"), tagged(0, 4, NAME)]);
        assert_eq!(r[0].label, CITY);
        // Over other words, or from a list, the tagger's span wins as before.
        let r = resolve_overlaps(vec![
            tagged(0, 9, CITY),
            rule(0, 5, NAME, "context:trigger"),
        ]);
        assert_eq!(r[0].label, CITY);
        let r = resolve_overlaps(vec![
            tagged(0, 5, CITY),
            rule(0, 5, NAME, "lookup:surnames"),
        ]);
        assert_eq!(r[0].label, CITY);
    }

    #[test]
    fn nested_span_is_absorbed() {
        let r = resolve_overlaps(vec![ent(2, 4, NAME, 0.9), ent(0, 10, CITY, 0.9)]);
        assert_eq!(r.len(), 1);
        assert_eq!((r[0].start, r[0].end, r[0].label), (0, 10, CITY));
    }

    #[test]
    fn adjacent_name_parts_merge_but_not_across_words() {
        let text = "Dra. Ana María López y Pedro";
        let at = |w: &str| {
            let s = text.find(w).unwrap();
            ent(s, s + w.len(), NAME, 0.5)
        };
        let spans = vec![at("Ana"), at("María"), at("López"), at("Pedro")];
        let m = merge_adjacent(text, spans);
        assert_eq!(m.len(), 2);
        assert_eq!(&text[m[0].start..m[0].end], "Ana María López");
    }
}
