//! Replacement counts per label and operator, mergeable across documents and workers, for
//! the end-of-run summary.

use super::apply::OpRecord;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Counts over an ops log. `merge` is associative and commutative, so per-thread or per-shard
/// stats can be combined in any order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeidStats {
    pub documents: u64,
    pub spans: u64,
    /// By category: `NAME`.
    pub by_category: BTreeMap<String, u64>,
    /// By category and subtype: `NAME/DOCTOR` (`NAME` when the span had no subtype).
    pub by_label: BTreeMap<String, u64>,
    /// By operator that produced the value.
    pub by_operator: BTreeMap<String, u64>,
    /// Hand-overs: `date-shift->surrogate`.
    pub fallbacks: BTreeMap<String, u64>,
    /// By pass number (as text, for JSON object keys).
    pub by_pass: BTreeMap<String, u64>,
}

/// Adds `n` under `key`, allocating the key only the first time it is seen.
fn bump(map: &mut BTreeMap<String, u64>, key: &str, n: u64) {
    match map.get_mut(key) {
        Some(count) => *count += n,
        None => {
            map.insert(key.to_string(), n);
        }
    }
}

impl DeidStats {
    /// Adds one document's ops log.
    pub fn add_document(&mut self, ops: &[OpRecord]) {
        self.documents += 1;
        self.spans += ops.len() as u64;
        let mut key = String::new();
        for op in ops {
            bump(&mut self.by_category, op.label.as_str(), 1);
            key.clear();
            key.push_str(op.label.as_str());
            if let Some(s) = op.subtype {
                key.push('/');
                key.push_str(s.as_str());
            }
            bump(&mut self.by_label, &key, 1);
            bump(&mut self.by_operator, &op.operator, 1);
            if let Some(from) = &op.fallback_from {
                bump(&mut self.fallbacks, &format!("{from}->{}", op.operator), 1);
            }
            key.clear();
            write!(key, "{}", op.pass).expect("writing to a String");
            bump(&mut self.by_pass, &key, 1);
        }
    }

    /// Adds another set of counts.
    pub fn merge(&mut self, other: &DeidStats) {
        self.documents += other.documents;
        self.spans += other.spans;
        for (mine, theirs) in [
            (&mut self.by_category, &other.by_category),
            (&mut self.by_label, &other.by_label),
            (&mut self.by_operator, &other.by_operator),
            (&mut self.fallbacks, &other.fallbacks),
            (&mut self.by_pass, &other.by_pass),
        ] {
            for (k, n) in theirs {
                bump(mine, k, *n);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labels::{Category, Subtype};

    fn op(
        cat: Category,
        sub: Option<Subtype>,
        operator: &str,
        from: Option<&str>,
        pass: usize,
    ) -> OpRecord {
        OpRecord {
            label: cat,
            subtype: sub,
            start: 0,
            end: 1,
            out_start: 0,
            out_end: 1,
            operator: operator.into(),
            fallback_from: from.map(str::to_string),
            source: "t".into(),
            pass,
            original: None,
            replacement: None,
        }
    }

    #[test]
    fn counts_and_merges() {
        let doc1 = [
            op(Category::Name, Some(Subtype::Doctor), "tag", None, 1),
            op(Category::Name, None, "tag", None, 2),
            op(
                Category::Date,
                Some(Subtype::Date),
                "surrogate",
                Some("date-shift"),
                1,
            ),
        ];
        let doc2 = [op(Category::Name, Some(Subtype::Doctor), "redact", None, 1)];
        let (mut a, mut b, mut all) = (
            DeidStats::default(),
            DeidStats::default(),
            DeidStats::default(),
        );
        a.add_document(&doc1);
        b.add_document(&doc2);
        all.add_document(&doc1);
        all.add_document(&doc2);
        let mut ab = a.clone();
        ab.merge(&b);
        let mut ba = b.clone();
        ba.merge(&a);
        assert_eq!(ab, all);
        assert_eq!(ba, all);
        assert_eq!(all.documents, 2);
        assert_eq!(all.spans, 4);
        assert_eq!(all.by_category["NAME"], 3);
        assert_eq!(all.by_label["NAME/DOCTOR"], 2);
        assert_eq!(all.by_label["NAME"], 1);
        assert_eq!(all.by_operator["tag"], 2);
        assert_eq!(all.fallbacks["date-shift->surrogate"], 1);
        assert_eq!(all.by_pass["2"], 1);
        let json = serde_json::to_string(&all).unwrap();
        assert_eq!(serde_json::from_str::<DeidStats>(&json).unwrap(), all);
    }
}
