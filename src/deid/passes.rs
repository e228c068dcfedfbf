//! Multi-pass de-identification: recognize again on the output of the previous pass to catch
//! what the first pass missed, with the ops log mapped back to the original text.
//!
//! Text written by earlier passes (tags, pseudonyms, surrogates) is never re-recognized: a
//! detection in pass k is cut where it overlaps a region an earlier pass wrote, its pieces are
//! trimmed of non-alphanumeric characters at the cuts, and only the pieces that remain are
//! replaced. A detection lying wholly inside written text is dropped. The passes share one
//! document state, so a surname found in pass 2 gets the same surrogate as in pass 1.

use super::apply::{clean_entities, Deidentifier, OpRecord};
use super::coords::CoordMap;
use crate::lang::Lang;
use crate::span::Entity;

/// The result of `run_passes`.
#[derive(Clone, Debug)]
pub struct MultiPassOutput {
    pub text: String,
    /// Every replacement, sorted by `start`: `start`/`end` in the ORIGINAL text,
    /// `out_start`/`out_end` in the final text, `pass` the pass that made it.
    pub ops: Vec<OpRecord>,
    /// Original-text byte spans that were replaced (sorted, merged where passes touched).
    pub replaced: Vec<(usize, usize)>,
    /// Original → final byte map.
    pub map: CoordMap,
    /// Passes that replaced something (0 when nothing was found).
    pub passes_run: usize,
}

impl Deidentifier {
    /// Runs up to `passes` passes (at least one): pass 1 recognizes `text`, pass k the output
    /// of pass k-1; stops early when a pass finds nothing new outside text it wrote itself.
    pub fn run_passes(
        &self,
        doc_id: &str,
        lang: Lang,
        patient: Option<&str>,
        text: &str,
        passes: usize,
        recognize: impl Fn(&str) -> Vec<Entity>,
    ) -> MultiPassOutput {
        let mut state = self.new_state(doc_id);
        let mut current: Option<String> = None;
        let mut total = CoordMap::identity();
        let mut pass_maps: Vec<CoordMap> = Vec::new();
        let mut ops: Vec<OpRecord> = Vec::new();
        for pass in 1..=passes.max(1) {
            let cur = current.as_deref().unwrap_or(text);
            let found = recognize(cur);
            let cleaned = clean_entities(cur, &found);
            let ents = if pass == 1 {
                cleaned.into_owned()
            } else {
                outside_written(cur, &cleaned, &total)
            };
            if ents.is_empty() {
                break;
            }
            let out = self.apply_pass(&mut state, doc_id, lang, patient, cur, &ents, pass);
            for mut op in out.ops {
                (op.start, op.end) = total.to_input(op.start, op.end);
                ops.push(op);
            }
            total = total.then(&out.map);
            pass_maps.push(out.map);
            current = Some(out.text);
        }
        // Output offsets of each op, carried through the passes after its own.
        for op in &mut ops {
            for m in &pass_maps[op.pass..] {
                (op.out_start, op.out_end) = m.to_output(op.out_start, op.out_end);
            }
        }
        ops.sort_by_key(|o| (o.start, o.pass));
        let replaced = total
            .edits()
            .iter()
            .filter(|e| e.in_start < e.in_end)
            .map(|e| (e.in_start, e.in_end))
            .collect();
        MultiPassOutput {
            text: current.unwrap_or_else(|| text.to_string()),
            ops,
            replaced,
            passes_run: pass_maps.len(),
            map: total,
        }
    }
}

/// The parts of `ents` outside the regions earlier passes wrote, trimmed at the cuts.
fn outside_written(text: &str, ents: &[Entity], total: &CoordMap) -> Vec<Entity> {
    let written: Vec<(usize, usize)> = total.written().filter(|(s, e)| s < e).collect();
    let mut out = Vec::with_capacity(ents.len());
    for e in ents {
        // Pieces of [e.start, e.end) between written regions; `cut` marks edges made here.
        let mut pos = e.start;
        let mut cut_left = false;
        let first = written.partition_point(|&(_, we)| we <= e.start);
        for &(ws, we) in &written[first..] {
            if ws >= e.end {
                break;
            }
            if ws > pos {
                push_piece(text, e, pos, ws, cut_left, true, &mut out);
            }
            pos = pos.max(we);
            cut_left = true;
        }
        if pos < e.end {
            push_piece(text, e, pos, e.end, cut_left, false, &mut out);
        }
    }
    out
}

fn push_piece(
    text: &str,
    e: &Entity,
    mut s: usize,
    mut t: usize,
    cut_left: bool,
    cut_right: bool,
    out: &mut Vec<Entity>,
) {
    let keep = |c: char| c.is_alphanumeric();
    if cut_left {
        s += text[s..t].find(keep).unwrap_or(t - s);
    }
    if cut_right {
        t = s + text[s..t].rfind(keep).map_or(0, |i| {
            i + text[s + i..].chars().next().map_or(0, char::len_utf8)
        });
    }
    if s < t {
        let mut piece = e.clone();
        piece.start = s;
        piece.end = t;
        out.push(piece);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::deid::policy::Policy;
    use crate::keys::Key;
    use crate::labels::Label;

    /// A recognizer that finds every occurrence of the given words.
    fn finder(words: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Vec<Entity> {
        move |text: &str| every_occurrence(text, words)
    }

    /// Every occurrence of the given words with their labels, overlaps resolved: a stand-in
    /// recognizer for tests of the pass machinery.
    pub(crate) fn every_occurrence(text: &str, words: &[(&str, &str)]) -> Vec<Entity> {
        let mut v = Vec::new();
        for (w, label) in words {
            for (i, _) in text.match_indices(w) {
                v.push(Entity::new(
                    i,
                    i + w.len(),
                    Label::parse(label).unwrap(),
                    "t",
                    1.0,
                ));
            }
        }
        crate::span::resolve_overlaps(v)
    }

    fn tagger() -> Deidentifier {
        Deidentifier::new(Policy::default(), None, 1).unwrap()
    }

    #[test]
    fn pass_two_finds_what_pass_one_left() {
        let text = "Dr. Ádám Szabó called. Szabó will call back on Monday.";
        // Pass 1 sees only the full name; pass 2 (a recognizer that learned the surname, as a
        // per-document name cache does) finds the lone surname in the output of pass 1.
        let calls = std::cell::Cell::new(0);
        let recognize = |t: &str| {
            calls.set(calls.get() + 1);
            let words: &[(&str, &str)] = if calls.get() == 1 {
                &[("Ádám Szabó", "NAME/DOCTOR")]
            } else {
                &[("Szabó", "NAME/DOCTOR")]
            };
            let mut v = Vec::new();
            for (w, l) in words {
                for (i, _) in t.match_indices(w) {
                    v.push(Entity::new(
                        i,
                        i + w.len(),
                        Label::parse(l).unwrap(),
                        "t",
                        1.0,
                    ));
                }
            }
            v
        };
        let out = tagger().run_passes("d", Lang::Hu, None, text, 3, recognize);
        assert_eq!(
            out.text,
            "Dr. [NAME] called. [NAME] will call back on Monday."
        );
        assert_eq!(out.passes_run, 2);
        assert_eq!(calls.get(), 3, "pass 3 ran and found nothing new");
        let orig: Vec<&str> = out.ops.iter().map(|o| &text[o.start..o.end]).collect();
        assert_eq!(orig, vec!["Ádám Szabó", "Szabó"]);
        assert_eq!(
            out.ops.iter().map(|o| o.pass).collect::<Vec<_>>(),
            vec![1, 2]
        );
        for o in &out.ops {
            assert_eq!(&out.text[o.out_start..o.out_end], "[NAME]");
        }
        let replaced: Vec<&str> = out.replaced.iter().map(|&(s, e)| &text[s..e]).collect();
        assert_eq!(replaced, orig);
    }

    #[test]
    fn tool_output_is_not_re_replaced() {
        // The recognizer flags "NAME" (inside the tag the first pass wrote) and a span that
        // straddles a tag; only the untouched parts are replaced.
        let text = "Ana Ruiz (Luis) visitó Vigo.";
        let words: &'static [(&str, &str)] = &[("Ana Ruiz", "NAME"), ("Vigo", "LOCATION/CITY")];
        let first = finder(words);
        let calls = std::cell::Cell::new(0);
        let recognize = |t: &str| {
            calls.set(calls.get() + 1);
            if calls.get() == 1 {
                return first(t);
            }
            let tag = t.find("[NAME]").unwrap();
            let luis = t.find("Luis").unwrap();
            vec![
                Entity::new(tag + 1, tag + 5, Label::parse("NAME").unwrap(), "t", 1.0),
                Entity::new(tag, luis + 4, Label::parse("NAME").unwrap(), "t", 1.0),
            ]
        };
        let out = tagger().run_passes("d", Lang::Es, None, text, 2, recognize);
        assert_eq!(out.text, "[NAME] ([NAME]) visitó [LOCATION].");
        let got: Vec<(&str, usize)> = out
            .ops
            .iter()
            .map(|o| (&text[o.start..o.end], o.pass))
            .collect();
        assert_eq!(got, vec![("Ana Ruiz", 1), ("Luis", 2), ("Vigo", 1)]);
        for o in &out.ops {
            assert_eq!(out.map.to_input(o.out_start, o.out_end), (o.start, o.end));
        }
    }

    #[test]
    fn unchanged_text_maps_one_to_one_and_surrogates_stay_consistent() {
        let text = "Mr John Smith, 54. Smith lives in Leeds; Smith's son visits.";
        let key = Key::from_bytes(&[6u8; 32]);
        let p = Policy::from_toml("default = \"surrogate\"\nsurrogate_scope = \"corpus\"", "t")
            .unwrap();
        let d = Deidentifier::new(p, key, 2).unwrap();
        let calls = std::cell::Cell::new(0);
        let recognize = |t: &str| {
            calls.set(calls.get() + 1);
            let mut v = Vec::new();
            let words: &[(&str, &str)] = if calls.get() == 1 {
                &[("John Smith", "NAME/PATIENT"), ("Leeds", "LOCATION/CITY")]
            } else {
                &[("Smith", "NAME/PATIENT")]
            };
            for (w, l) in words {
                for (i, _) in t.match_indices(w) {
                    v.push(Entity::new(
                        i,
                        i + w.len(),
                        Label::parse(l).unwrap(),
                        "t",
                        1.0,
                    ));
                }
            }
            crate::span::resolve_overlaps(v)
        };
        let out = d.run_passes("d", Lang::En, None, text, 2, recognize);
        let spans: Vec<(&str, usize)> = out
            .ops
            .iter()
            .map(|o| (&text[o.start..o.end], o.pass))
            .collect();
        assert_eq!(
            spans,
            vec![("John Smith", 1), ("Smith", 2), ("Leeds", 1), ("Smith", 2)]
        );
        let vals: Vec<&str> = out
            .ops
            .iter()
            .map(|o| &out.text[o.out_start..o.out_end])
            .collect();
        assert_eq!(vals[1], vals[3], "one surname, one surrogate");
        assert!(!out.text.contains("Smith") && !out.text.contains("Leeds"));
        // Unchanged text between replacements maps 1:1.
        for piece in [", 54. ", " lives in ", "'s son visits."] {
            let o = out.text.find(piece).unwrap();
            let (s, e) = out.map.to_input(o, o + piece.len());
            assert_eq!(&text[s..e], piece);
        }
    }

    #[test]
    fn nothing_found_leaves_text_alone() {
        let out = tagger().run_passes("d", Lang::Nl, None, "Geen namen hier.", 3, |_| Vec::new());
        assert_eq!(out.text, "Geen namen hier.");
        assert_eq!(out.passes_run, 0);
        assert!(out.ops.is_empty() && out.replaced.is_empty());
    }
}
