//! Parallel, order-preserving processing of a document stream in bounded batches.
//!
//! A corpus may be far larger than memory, so documents are read in batches (bounded by count
//! and bytes), processed in parallel with rayon, and handed to the sink in input order, which
//! keeps output deterministic and lets the program work as a streaming filter.

use crate::corpus::{CorpusError, Document};
use rayon::prelude::*;

/// Batch bounds: whichever is reached first closes a batch.
#[derive(Clone, Copy, Debug)]
pub struct BatchLimits {
    pub max_docs: usize,
    pub max_bytes: usize,
}

impl Default for BatchLimits {
    fn default() -> Self {
        BatchLimits {
            max_docs: 2048,
            max_bytes: 8 << 20,
        }
    }
}

/// Reads `docs` batch by batch, maps each document with `work` in parallel, and passes the
/// results to `sink` in input order. Stops at the first read error or sink error.
pub fn process_stream<T, E, I, F, S>(
    docs: I,
    limits: BatchLimits,
    work: F,
    mut sink: S,
) -> Result<usize, E>
where
    I: Iterator<Item = Result<Document, CorpusError>>,
    E: From<CorpusError>,
    T: Send,
    F: Fn(Document) -> T + Sync,
    S: FnMut(T) -> Result<(), E>,
{
    let mut docs = docs.peekable();
    let mut total = 0;
    let mut batch: Vec<Document> = Vec::new();
    while docs.peek().is_some() {
        batch.clear();
        let mut bytes = 0;
        while batch.len() < limits.max_docs && bytes < limits.max_bytes {
            match docs.next() {
                Some(doc) => {
                    let doc = doc?;
                    bytes += doc.text.len();
                    batch.push(doc);
                }
                None => break,
            }
        }
        total += batch.len();
        let results: Vec<T> = std::mem::take(&mut batch)
            .into_par_iter()
            .map(&work)
            .collect();
        for r in results {
            sink(r)?;
        }
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_order_across_batches_and_stops_on_error() {
        let docs = (0..100).map(|i| Ok(Document::new(format!("d{i}"), "x".repeat(i))));
        let limits = BatchLimits {
            max_docs: 7,
            max_bytes: 50,
        };
        let mut seen = Vec::new();
        let n = process_stream::<_, CorpusError, _, _, _>(
            docs,
            limits,
            |d| d.id,
            |id| {
                seen.push(id);
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(n, 100);
        let want: Vec<String> = (0..100).map(|i| format!("d{i}")).collect();
        assert_eq!(seen, want);

        let bad = vec![
            Ok(Document::new("a", "x")),
            Err(CorpusError::line("f.jsonl", 2, "malformed JSON")),
        ];
        let r =
            process_stream::<_, CorpusError, _, _, _>(bad.into_iter(), limits, |d| d, |_| Ok(()));
        assert!(r.unwrap_err().to_string().contains("f.jsonl:2"));
    }
}
