//! Conversion between byte offsets (inside the process) and Unicode code point offsets (in files).

/// Maps code point offsets of one text to byte offsets and back in O(log n) per lookup.
pub struct OffsetMap {
    /// Byte offset of every char start, plus `text.len()` at the end.
    char_starts: Vec<usize>,
}

impl OffsetMap {
    pub fn new(text: &str) -> Self {
        let mut char_starts: Vec<usize> = text.char_indices().map(|(b, _)| b).collect();
        char_starts.push(text.len());
        OffsetMap { char_starts }
    }

    /// Number of code points in the text.
    pub fn char_len(&self) -> usize {
        self.char_starts.len() - 1
    }

    /// Byte offset of code point `c`; `None` past the end.
    pub fn char_to_byte(&self, c: usize) -> Option<usize> {
        self.char_starts.get(c).copied()
    }

    /// Code point offset of byte `b`; `None` when `b` is not on a char boundary.
    pub fn byte_to_char(&self, b: usize) -> Option<usize> {
        self.char_starts.binary_search(&b).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_non_ascii_both_ways() {
        let text = "Ős é😀x";
        let m = OffsetMap::new(text);
        assert_eq!(m.char_len(), 6);
        for (ci, (bi, _)) in text.char_indices().enumerate() {
            assert_eq!(m.char_to_byte(ci), Some(bi));
            assert_eq!(m.byte_to_char(bi), Some(ci));
        }
        assert_eq!(m.char_to_byte(6), Some(text.len()));
        assert_eq!(m.byte_to_char(1), None);
        assert_eq!(m.char_to_byte(7), None);
    }
}
