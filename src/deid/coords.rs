//! Coordinate maps between a text and its edited version, and their composition over passes.
//!
//! A map is the sorted list of replaced regions; text between regions is copied unchanged, so
//! positions there move by a constant. A span that starts or ends inside a replaced region is
//! widened to the whole region on the other side ("covering" mapping): a detection touching a
//! replacement maps to the whole original span that replacement stands for.

use serde::{Deserialize, Serialize};

/// One replaced region: input bytes `[in_start, in_end)` became output `[out_start, out_end)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edit {
    pub in_start: usize,
    pub in_end: usize,
    pub out_start: usize,
    pub out_end: usize,
}

/// Byte-offset map from an input text to an output text (sorted, non-overlapping edits).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoordMap {
    edits: Vec<Edit>,
}

/// Which side of the map a position is given on.
#[derive(Clone, Copy)]
enum Side {
    In,
    Out,
}

fn range(e: &Edit, side: Side) -> (usize, usize) {
    match side {
        Side::In => (e.in_start, e.in_end),
        Side::Out => (e.out_start, e.out_end),
    }
}

impl CoordMap {
    /// The identity map (no edits).
    pub fn identity() -> Self {
        CoordMap::default()
    }

    /// A map from edits sorted by position (as the applier produces them).
    pub fn from_edits(edits: Vec<Edit>) -> Self {
        debug_assert!(edits
            .windows(2)
            .all(|w| w[0].in_end <= w[1].in_start && w[0].out_end <= w[1].out_start));
        CoordMap { edits }
    }

    pub fn edits(&self) -> &[Edit] {
        &self.edits
    }

    /// Position `p` on `from`, as the start of a span, on the other side.
    fn map_start(&self, p: usize, from: Side) -> usize {
        let to = match from {
            Side::In => Side::Out,
            Side::Out => Side::In,
        };
        // Last edit starting at or before p.
        let i = self.edits.partition_point(|e| range(e, from).0 <= p);
        if i == 0 {
            return p;
        }
        let e = &self.edits[i - 1];
        let (fs, fe) = range(e, from);
        let (ts, te) = range(e, to);
        if p < fe && fs < fe {
            ts
        } else {
            p - fe + te
        }
    }

    /// Position `p` on `from`, as the (exclusive) end of a span, on the other side.
    fn map_end(&self, p: usize, from: Side) -> usize {
        let to = match from {
            Side::In => Side::Out,
            Side::Out => Side::In,
        };
        // Last edit starting strictly before p (an empty edit at p lies after the span).
        let i = self.edits.partition_point(|e| range(e, from).0 < p);
        if i == 0 {
            return p;
        }
        let e = &self.edits[i - 1];
        let (_, fe) = range(e, from);
        let (_, te) = range(e, to);
        if p <= fe {
            te
        } else {
            p - fe + te
        }
    }

    /// An output span on the input side (covering any edit it touches).
    pub fn to_input(&self, start: usize, end: usize) -> (usize, usize) {
        let s = self.map_start(start, Side::Out);
        (s, self.map_end(end, Side::Out).max(s))
    }

    /// An input span on the output side (covering any edit it touches).
    pub fn to_output(&self, start: usize, end: usize) -> (usize, usize) {
        let s = self.map_start(start, Side::In);
        (s, self.map_end(end, Side::In).max(s))
    }

    /// Output regions written by edits.
    pub fn written(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.edits.iter().map(|e| (e.out_start, e.out_end))
    }

    /// `self` maps A → B and `next` maps B → C; the result maps A → C. Edits of both that
    /// overlap on B merge into one region.
    pub fn then(&self, next: &CoordMap) -> CoordMap {
        // Regions on B: this map's outputs and the next map's inputs.
        let mut regions: Vec<(usize, usize)> = self
            .edits
            .iter()
            .map(|e| (e.out_start, e.out_end))
            .chain(next.edits.iter().map(|e| (e.in_start, e.in_end)))
            .collect();
        regions.sort_unstable();
        let mut merged: Vec<(usize, usize)> = Vec::with_capacity(regions.len());
        for (s, e) in regions {
            match merged.last_mut() {
                Some(last) if s < last.1 => last.1 = last.1.max(e),
                Some(last) if (s, e) == *last => {}
                _ => merged.push((s, e)),
            }
        }
        let edits = merged
            .into_iter()
            .map(|(s, e)| {
                let (in_start, in_end) = self.to_input(s, e);
                let (out_start, out_end) = next.to_output(s, e);
                Edit {
                    in_start,
                    in_end,
                    out_start,
                    out_end,
                }
            })
            .collect();
        CoordMap { edits }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Applies `(start, end, replacement)` edits to `text`, returning the output and its map.
    pub(crate) fn apply(text: &str, edits: &[(usize, usize, &str)]) -> (String, CoordMap) {
        let mut out = String::new();
        let mut cur = 0;
        let mut list = Vec::new();
        for &(s, e, r) in edits {
            out.push_str(&text[cur..s]);
            let os = out.len();
            out.push_str(r);
            list.push(Edit {
                in_start: s,
                in_end: e,
                out_start: os,
                out_end: out.len(),
            });
            cur = e;
        }
        out.push_str(&text[cur..]);
        (out, CoordMap::from_edits(list))
    }

    #[test]
    fn maps_spans_both_ways() {
        let text = "Dr. Kovács saw Éva on 2019.03.12 at home";
        let ks = text.find("Kovács").unwrap();
        let es = text.find("Éva").unwrap();
        let (out, map) = apply(
            text,
            &[
                (ks, ks + "Kovács".len(), "[NAME]"),
                (es, es + "Éva".len(), ""),
            ],
        );
        assert_eq!(out, "Dr. [NAME] saw  on 2019.03.12 at home");
        let find = |s: &str| {
            let i = out.find(s).unwrap();
            (i, i + s.len())
        };
        let orig = |s: &str| {
            let i = text.find(s).unwrap();
            (i, i + s.len())
        };
        let cases = [
            ("Dr.", orig("Dr.")),
            ("[NAME]", orig("Kovács")),
            ("AME", orig("Kovács")),
            ("[NAME] saw", orig("Kovács saw")),
            ("saw", orig("saw")),
            ("2019.03.12", orig("2019.03.12")),
            ("at home", orig("at home")),
        ];
        for (o, want) in cases {
            let (s, e) = find(o);
            assert_eq!(map.to_input(s, e), want, "{o}");
        }
        // "saw " ends right before the removed region: it must not grow over "Éva".
        let (s, _) = find("saw");
        assert_eq!(map.to_input(s, s + 4), orig("saw "));
        // A span across the removed region covers it.
        let (s, e) = find("saw  on");
        assert_eq!(map.to_input(s, e), orig("saw Éva on"));
        // And forwards.
        let (s, e) = orig("Kovács");
        assert_eq!(map.to_output(s, e), find("[NAME]"));
        let (s, e) = orig("on 2019");
        assert_eq!(map.to_output(s, e), find("on 2019"));
    }

    #[test]
    fn composition_matches_direct_mapping() {
        let a = "Ana Ruiz met Luis Gil in Vigo";
        let (b, m1) = apply(a, &[(0, 8, "[NAME]"), (25, 29, "[LOC]")]);
        assert_eq!(b, "[NAME] met Luis Gil in [LOC]");
        let luis = b.find("Luis Gil").unwrap();
        let (c, m2) = apply(&b, &[(luis, luis + 8, "[NAME]")]);
        assert_eq!(c, "[NAME] met [NAME] in [LOC]");
        let m = m1.then(&m2);
        let spans: Vec<(usize, usize)> = m.edits().iter().map(|e| (e.in_start, e.in_end)).collect();
        assert_eq!(spans, vec![(0, 8), (13, 21), (25, 29)]);
        let written: Vec<&str> = m.written().map(|(s, e)| &c[s..e]).collect();
        assert_eq!(written, vec!["[NAME]", "[NAME]", "[LOC]"]);
        for (s, e) in [(7, 10), (22, 24), (0, c.len())] {
            let (i, j) = m.to_input(s, e);
            let (i2, j2) = m2.to_input(s, e);
            assert_eq!((i, j), m1.to_input(i2, j2), "{s}..{e}");
        }
        // A second-pass edit that swallows a first-pass replacement covers its whole source.
        let (d, m3) = apply(&b, &[(0, 10, "X")]);
        assert_eq!(d, "X Luis Gil in [LOC]");
        let m = m1.then(&m3);
        assert_eq!(
            m.edits()[0],
            Edit {
                in_start: 0,
                in_end: 12,
                out_start: 0,
                out_end: 1
            }
        );
    }
}
