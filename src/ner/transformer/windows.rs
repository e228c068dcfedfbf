//! Words as the masked LM's subwords, and documents cut into overlapping windows that fit the
//! model's positions.

use crate::error::StageResult as Result;
use crate::tokenizer::ModelTokenizer;
use std::ops::Range;

/// Most subwords kept for one word; the label sits on the first, the rest add context.
pub const MAX_SUBWORDS_PER_WORD: usize = 16;

/// A document's words as subword ids: `starts[w]..starts[w + 1]` are word `w`'s subwords.
pub struct Subwords {
    pub ids: Vec<u32>,
    pub starts: Vec<usize>,
}

impl Subwords {
    pub fn words(&self) -> usize {
        self.starts.len() - 1
    }

    /// Subwords of words `r`.
    pub fn span(&self, r: &Range<usize>) -> Range<usize> {
        self.starts[r.start]..self.starts[r.end]
    }
}

/// Subwords of `words`, encoded as pre-split words (as `is_split_into_words` does), so no
/// subword crosses a word boundary. A word the tokenizer drops entirely becomes the unknown
/// token, so every word has a first subword to carry its label.
pub fn subwords(tok: &ModelTokenizer, words: &[&str]) -> Result<Subwords> {
    let mut ids = Vec::new();
    let mut starts = Vec::with_capacity(words.len() + 1);
    if words.is_empty() {
        starts.push(0);
        return Ok(Subwords { ids, starts });
    }
    let enc = tok
        .inner
        .encode(words.to_vec(), false)
        .map_err(|e| crate::error::ValueError::new(format!("tokenizer: {e}")))?;
    let mut per_word: Vec<Vec<u32>> = vec![Vec::new(); words.len()];
    for (&id, w) in enc.get_ids().iter().zip(enc.get_word_ids()) {
        if let Some(w) = w {
            let list = &mut per_word[*w as usize];
            if list.len() < MAX_SUBWORDS_PER_WORD {
                list.push(id);
            }
        }
    }
    for list in per_word {
        starts.push(ids.len());
        if list.is_empty() {
            ids.push(tok.specials.unk);
        } else {
            ids.extend(list);
        }
    }
    starts.push(ids.len());
    Ok(Subwords { ids, starts })
}

/// Word ranges of at most `capacity` subwords each, covering every word; consecutive windows
/// share about `overlap` subwords of context. `capacity` must hold the longest word.
pub fn windows(sub: &Subwords, capacity: usize, overlap: usize) -> Vec<Range<usize>> {
    let n = sub.words();
    let mut out = Vec::new();
    let mut start = 0;
    while start < n {
        let mut end = start + 1;
        while end < n && sub.starts[end + 1] - sub.starts[start] <= capacity {
            end += 1;
        }
        out.push(start..end);
        if end == n {
            break;
        }
        // The next window starts where the last `overlap` subwords of this one begin, but
        // shares at least its last word and starts at least one word further on.
        let mut next = end;
        while next > start + 1 && (next == end || sub.starts[end] - sub.starts[next - 1] <= overlap)
        {
            next -= 1;
        }
        start = next;
    }
    out
}

/// For every word, the window in which it has the most context on its nearer side.
pub fn best_window(windows: &[Range<usize>], words: usize) -> Vec<usize> {
    let mut best = vec![(0usize, 0usize); words];
    let mut seen = vec![false; words];
    for (i, r) in windows.iter().enumerate() {
        for w in r.clone() {
            let margin = (w - r.start).min(r.end - 1 - w);
            if !seen[w] || margin > best[w].1 {
                best[w] = (i, margin);
                seen[w] = true;
            }
        }
    }
    best.into_iter().map(|(i, _)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_lengths(lengths: &[usize]) -> Subwords {
        let mut starts = vec![0];
        for l in lengths {
            starts.push(starts.last().unwrap() + l);
        }
        Subwords {
            ids: vec![0; *starts.last().unwrap()],
            starts,
        }
    }

    #[test]
    fn windows_fit_cover_and_overlap() {
        let sub = with_lengths(&[1, 2, 1, 3, 1, 1, 2, 1, 1, 4, 1, 1]);
        let ws = windows(&sub, 6, 2);
        for w in &ws {
            let r = sub.span(w);
            assert!(r.len() <= 6, "{w:?} has {} subwords", r.len());
        }
        assert_eq!(ws.first().unwrap().start, 0);
        assert_eq!(ws.last().unwrap().end, sub.words());
        for pair in ws.windows(2) {
            assert!(pair[1].start > pair[0].start, "windows advance");
            assert!(pair[1].start <= pair[0].end, "no word is skipped");
            assert!(pair[1].start < pair[0].end, "consecutive windows overlap");
        }
        let best = best_window(&ws, sub.words());
        for (w, &i) in best.iter().enumerate() {
            assert!(ws[i].contains(&w));
        }
    }

    #[test]
    fn one_window_when_it_fits_and_words_keep_their_best_context() {
        let sub = with_lengths(&[1; 10]);
        assert_eq!(windows(&sub, 10, 3), vec![0..10]);
        let ws = windows(&sub, 4, 2);
        assert_eq!(ws, vec![0..4, 2..6, 4..8, 6..10]);
        // Word 3 is at the edge of window 0 and one in from the edge of window 1.
        assert_eq!(best_window(&ws, 10)[3], 1);
    }
}
