//! The BIOES tag set over canonical labels: entity spans to one tag per token and back.

use crate::labels::Label;
use crate::span::Entity;
use crate::text::Tok;

/// Position of a token inside an entity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    Begin,
    Inside,
    End,
    Single,
}

const PARTS: [Part; 4] = [Part::Begin, Part::Inside, Part::End, Part::Single];

/// Tags `O`, then `B-`, `I-`, `E-`, `S-` for each label in order. Tag id 0 is `O`; the tag of
/// label `l` and part `p` is `1 + 4 l + p`.
#[derive(Clone, Debug, PartialEq)]
pub struct TagSet {
    labels: Vec<Label>,
}

impl TagSet {
    /// A tag set over `labels` (sorted and deduplicated, so the same labels give the same ids).
    pub fn new(mut labels: Vec<Label>) -> Self {
        labels.sort();
        labels.dedup();
        TagSet { labels }
    }

    pub fn labels(&self) -> &[Label] {
        &self.labels
    }

    pub fn len(&self) -> usize {
        1 + 4 * self.labels.len()
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    fn tag(&self, label: usize, part: Part) -> usize {
        1 + 4 * label + PARTS.iter().position(|p| *p == part).expect("a part")
    }

    /// The label index and part of a tag; `None` for `O`.
    pub fn decode_tag(&self, tag: usize) -> Option<(usize, Part)> {
        (tag > 0 && tag < self.len()).then(|| ((tag - 1) / 4, PARTS[(tag - 1) % 4]))
    }

    /// Tag names (`O`, `B-NAME_PATIENT`, ...), for files people read.
    pub fn names(&self) -> Vec<String> {
        let mut out = vec!["O".to_string()];
        for l in &self.labels {
            for p in ["B", "I", "E", "S"] {
                out.push(format!("{p}-{}", l.tag_form()));
            }
        }
        out
    }

    /// One tag per token for the entities (byte offsets). An entity covers the tokens it
    /// intersects; an entity whose label is not in the set, or that meets a token an earlier
    /// entity took, is left out and counted in the returned number.
    pub fn encode(&self, tokens: &[Tok], entities: &[Entity]) -> (Vec<usize>, usize) {
        let mut tags = vec![0usize; tokens.len()];
        let mut dropped = 0;
        let mut sorted: Vec<&Entity> = entities.iter().collect();
        sorted.sort_by_key(|e| (e.start, std::cmp::Reverse(e.end)));
        for e in sorted {
            let first = tokens.partition_point(|t| t.1 <= e.start);
            let last = first + tokens[first..].partition_point(|t| t.0 < e.end);
            let Some(label) = self.labels.iter().position(|l| *l == e.label) else {
                dropped += 1;
                continue;
            };
            if first == last || tags[first..last].iter().any(|&t| t != 0) {
                dropped += 1;
                continue;
            }
            if last - first == 1 {
                tags[first] = self.tag(label, Part::Single);
            } else {
                tags[first] = self.tag(label, Part::Begin);
                for t in &mut tags[first + 1..last - 1] {
                    *t = self.tag(label, Part::Inside);
                }
                tags[last - 1] = self.tag(label, Part::End);
            }
        }
        (tags, dropped)
    }

    /// Entity spans (byte offsets) from one tag per token. Lenient: an `I`/`E` without an open
    /// entity of its label opens one, so no tagged token is ever lost.
    pub fn spans(&self, tokens: &[Tok], tags: &[usize]) -> Vec<(usize, usize, Label)> {
        let mut out = Vec::new();
        let mut open: Option<(usize, usize, usize)> = None; // (label, start, end)
        let close = |open: &mut Option<(usize, usize, usize)>, out: &mut Vec<_>| {
            if let Some((l, s, e)) = open.take() {
                out.push((s, e, self.labels[l]));
            }
        };
        for (tok, &tag) in tokens.iter().zip(tags) {
            match self.decode_tag(tag) {
                None => close(&mut open, &mut out),
                Some((l, part)) => {
                    let continues = matches!(part, Part::Inside | Part::End)
                        && open.is_some_and(|(ol, _, _)| ol == l);
                    if continues {
                        open.as_mut().expect("open").2 = tok.1;
                    } else {
                        close(&mut open, &mut out);
                        open = Some((l, tok.0, tok.1));
                    }
                    if matches!(part, Part::End | Part::Single) {
                        close(&mut open, &mut out);
                    }
                }
            }
        }
        close(&mut open, &mut out);
        out
    }

    /// Whether tag `to` may follow tag `from` in a well-formed BIOES sequence.
    pub fn allowed(&self, from: Option<usize>, to: Option<usize>) -> bool {
        let part = |t: Option<usize>| t.and_then(|t| self.decode_tag(t));
        let open_after = |p: Option<(usize, Part)>| match p {
            Some((l, Part::Begin | Part::Inside)) => Some(l),
            _ => None,
        };
        let needs_open = |p: Option<(usize, Part)>| match p {
            Some((l, Part::Inside | Part::End)) => Some(l),
            _ => None,
        };
        // `None` for `from` is the sentence start; `None` for `to` the sentence end.
        let from_open = if from.is_none() {
            None
        } else {
            open_after(part(from))
        };
        match to {
            None => from_open.is_none(),
            Some(_) => match (from_open, needs_open(part(to))) {
                (Some(a), Some(b)) => a == b,
                (None, None) => true,
                _ => false,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labels::{Category, Subtype};
    use crate::text::tokenize;

    fn set() -> TagSet {
        TagSet::new(vec![
            Label::new(Category::Name, Subtype::Patient),
            Label::new(Category::Date, Subtype::Date),
        ])
    }

    fn ent(s: usize, e: usize, l: Label) -> Entity {
        Entity::new(s, e, l, "gold", 1.0)
    }

    #[test]
    fn encode_and_decode_round_trip() {
        let ts = set();
        let t = "Ana Ruiz vino el 3/4/2020 y Eva";
        let toks = tokenize(t);
        let patient = Label::new(Category::Name, Subtype::Patient);
        let date = Label::new(Category::Date, Subtype::Date);
        let gold = vec![ent(0, 8, patient), ent(17, 25, date), ent(28, 31, patient)];
        let (tags, dropped) = ts.encode(&toks, &gold);
        assert_eq!(dropped, 0);
        let names = ts.names();
        let shown: Vec<&str> = tags.iter().map(|&t| names[t].as_str()).collect();
        assert_eq!(
            shown,
            [
                "B-NAME_PATIENT",
                "E-NAME_PATIENT",
                "O",
                "O",
                "B-DATE_DATE",
                "I-DATE_DATE",
                "I-DATE_DATE",
                "I-DATE_DATE",
                "E-DATE_DATE",
                "O",
                "S-NAME_PATIENT"
            ]
        );
        let back = ts.spans(&toks, &tags);
        assert_eq!(
            back,
            vec![(0, 8, patient), (17, 25, date), (28, 31, patient)]
        );
    }

    #[test]
    fn unknown_labels_and_overlaps_are_counted_not_tagged() {
        let ts = set();
        let t = "Ana Ruiz";
        let toks = tokenize(t);
        let patient = Label::new(Category::Name, Subtype::Patient);
        let other = Label::category_only(Category::Age);
        let (tags, dropped) = ts.encode(
            &toks,
            &[ent(0, 8, patient), ent(4, 8, patient), ent(0, 3, other)],
        );
        assert_eq!(dropped, 2);
        assert_eq!(ts.spans(&toks, &tags), vec![(0, 8, patient)]);
    }

    #[test]
    fn lenient_decoding_keeps_every_tagged_token() {
        let ts = set();
        let t = "a b c d";
        let toks = tokenize(t);
        // I-PATIENT with nothing open, then E-DATE after it: two entities.
        let index = |l: Label| ts.labels().iter().position(|x| *x == l).unwrap();
        let i_pat = 1 + 4 * index(Label::new(Category::Name, Subtype::Patient)) + 1;
        let e_date = 1 + 4 * index(Label::new(Category::Date, Subtype::Date)) + 2;
        let spans = ts.spans(&toks, &[0, i_pat, e_date, 0]);
        assert_eq!(spans.len(), 2);
        assert_eq!((spans[0].0, spans[0].1), (2, 3));
        assert_eq!((spans[1].0, spans[1].1), (4, 5));
    }

    #[test]
    fn allowed_transitions_follow_bioes() {
        let ts = set();
        let (b0, i0, e0, s0) = (1, 2, 3, 4);
        let b1 = 5;
        assert!(
            ts.allowed(None, Some(0)) && ts.allowed(None, Some(b0)) && ts.allowed(None, Some(s0))
        );
        assert!(!ts.allowed(None, Some(i0)) && !ts.allowed(None, Some(e0)));
        assert!(ts.allowed(Some(b0), Some(i0)) && ts.allowed(Some(b0), Some(e0)));
        assert!(!ts.allowed(Some(b0), Some(0)) && !ts.allowed(Some(b0), Some(b1)));
        assert!(ts.allowed(Some(e0), Some(b1)) && ts.allowed(Some(e0), None));
        assert!(!ts.allowed(Some(i0), None));
        assert!(!ts.allowed(Some(0), Some(e0)));
    }
}
