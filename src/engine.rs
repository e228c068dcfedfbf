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
///
/// Reading and writing stay on the calling thread and overlap the work: while batch k is being
/// mapped on the rayon pool, batch k-1's results go to the sink and batch k+1 is read. At most
/// two batches are in flight, so memory stays bounded by the batch limits.
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
    let mut docs = docs;
    let mut total = 0;
    let work = &work;
    std::thread::scope(|scope| {
        let mut pending: Option<std::thread::ScopedJoinHandle<'_, Vec<T>>> = None;
        loop {
            let batch = read_batch(&mut docs, limits)?;
            total += batch.len();
            let next = (!batch.is_empty())
                .then(|| scope.spawn(move || batch.into_par_iter().map(work).collect()));
            if let Some(done) = pending.take() {
                let results = done
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                for r in results {
                    sink(r)?;
                }
            }
            match next {
                Some(handle) => pending = Some(handle),
                None => return Ok(total),
            }
        }
    })
}

/// The next batch: documents up to the count or byte bound; empty at the end of the stream.
fn read_batch<I>(docs: &mut I, limits: BatchLimits) -> Result<Vec<Document>, CorpusError>
where
    I: Iterator<Item = Result<Document, CorpusError>>,
{
    let mut batch = Vec::new();
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
    Ok(batch)
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
