//! Code point <-> byte offset conversion at the corpus edges, with an ASCII fast path.

use crate::offsets::OffsetMap;

/// Offsets of one text; ASCII texts (most of them) need no table at all.
pub enum CodePoints {
    Ascii(usize),
    Map(OffsetMap),
}

impl CodePoints {
    pub fn new(text: &str) -> Self {
        if text.is_ascii() {
            CodePoints::Ascii(text.len())
        } else {
            CodePoints::Map(OffsetMap::new(text))
        }
    }

    /// Number of code points.
    pub fn char_len(&self) -> usize {
        match self {
            CodePoints::Ascii(n) => *n,
            CodePoints::Map(m) => m.char_len(),
        }
    }

    /// Byte offset of code point `c`; `None` past the end.
    pub fn to_byte(&self, c: usize) -> Option<usize> {
        match self {
            CodePoints::Ascii(n) => (c <= *n).then_some(c),
            CodePoints::Map(m) => m.char_to_byte(c),
        }
    }

    /// Code point offset of byte `b`; `None` past the end or inside a character.
    pub fn to_char(&self, b: usize) -> Option<usize> {
        match self {
            CodePoints::Ascii(n) => (b <= *n).then_some(b),
            CodePoints::Map(m) => m.byte_to_char(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_and_non_ascii_agree_with_char_indices() {
        for text in ["plain ascii", "Ődön ű ñá 😀 end", ""] {
            let cp = CodePoints::new(text);
            let mut n = 0;
            for (ci, (bi, _)) in text.char_indices().enumerate() {
                assert_eq!(cp.to_byte(ci), Some(bi));
                assert_eq!(cp.to_char(bi), Some(ci));
                n = ci + 1;
            }
            assert_eq!(cp.char_len(), n);
            assert_eq!(cp.to_byte(n), Some(text.len()));
            assert_eq!(cp.to_byte(n + 1), None);
            assert_eq!(cp.to_char(text.len() + 1), None);
        }
        assert_eq!(CodePoints::new("ő").to_char(1), None);
    }
}
