//! What a vocabulary entry spells: its text without the subword marker, whether it starts a word,
//! and the shape of its letters.

use serde::Serialize;

/// How a tokenizer marks word boundaries in its vocabulary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SubwordKind {
    /// `##` marks a piece that continues a word.
    WordPiece,
    /// Byte-level BPE: `Ġ` marks a piece that follows a space.
    ByteLevelBpe,
    /// SentencePiece style (Unigram): `▁` marks a piece that starts a word.
    SentencePiece,
}

impl SubwordKind {
    /// The kind of a tokenizer, from its model.
    pub fn of(tokenizer: &tokenizers::Tokenizer) -> Self {
        match tokenizer.get_model() {
            tokenizers::ModelWrapper::WordPiece(_) => SubwordKind::WordPiece,
            tokenizers::ModelWrapper::Unigram(_) => SubwordKind::SentencePiece,
            _ => SubwordKind::ByteLevelBpe,
        }
    }
}

/// Where a piece sits in a word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Boundary {
    /// Starts a word (`Jansen`, `ĠJansen`, `▁Jansen`).
    WordStart,
    /// Continues one (`##sen`, `sen`).
    Continuation,
}

/// The letters of a piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    /// `Jansen`: an upper-case letter then lower-case letters only (apostrophes and hyphens allowed).
    Capitalized,
    /// `JANSEN`, two or more letters.
    AllCaps,
    /// `jansen`.
    Lower,
    /// Contains a digit.
    HasDigit,
    /// Anything else: punctuation, symbols, single capitals, mixed.
    Other,
}

/// A vocabulary entry read as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Surface {
    /// Without the boundary marker; byte-level BPE bytes mapped back to text.
    pub text: String,
    pub boundary: Boundary,
    pub shape: Shape,
}

impl Surface {
    pub fn of(token: &str, kind: SubwordKind) -> Self {
        let (text, boundary) = match kind {
            SubwordKind::WordPiece => match token.strip_prefix("##") {
                Some(rest) => (rest.to_string(), Boundary::Continuation),
                None => (token.to_string(), Boundary::WordStart),
            },
            SubwordKind::ByteLevelBpe => match token.strip_prefix('Ġ') {
                Some(rest) => (byte_level_text(rest), Boundary::WordStart),
                None => (byte_level_text(token), Boundary::Continuation),
            },
            SubwordKind::SentencePiece => match token.strip_prefix('▁') {
                Some(rest) => (rest.to_string(), Boundary::WordStart),
                None => (token.to_string(), Boundary::Continuation),
            },
        };
        let shape = shape_of(&text);
        Surface {
            text,
            boundary,
            shape,
        }
    }
}

/// Byte-level BPE writes each byte as a printable character; the tokenizers crate's own
/// byte-level decoder maps them back (accented letters included).
fn byte_level_text(piece: &str) -> String {
    use tokenizers::Decoder;
    tokenizers::decoders::byte_level::ByteLevel::default()
        .decode(vec![piece.to_string()])
        .unwrap_or_else(|_| piece.to_string())
}

fn shape_of(text: &str) -> Shape {
    let letters = |c: char| c.is_alphabetic() || c == '\'' || c == '-';
    if text.chars().any(|c| c.is_numeric()) {
        return Shape::HasDigit;
    }
    let mut chars = text.chars();
    let Some(first) = chars.next() else {
        return Shape::Other;
    };
    let rest: Vec<char> = chars.collect();
    if !text.chars().all(letters) || !text.chars().any(char::is_alphabetic) {
        return Shape::Other;
    }
    if first.is_uppercase() && !rest.is_empty() && rest.iter().all(|c| !c.is_uppercase()) {
        Shape::Capitalized
    } else if text.chars().filter(|c| c.is_alphabetic()).count() >= 2
        && text.chars().all(|c| !c.is_lowercase())
    {
        Shape::AllCaps
    } else if text.chars().all(|c| !c.is_uppercase()) {
        Shape::Lower
    } else {
        Shape::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_and_shapes() {
        let s = Surface::of("##sen", SubwordKind::WordPiece);
        assert_eq!(
            (s.text.as_str(), s.boundary, s.shape),
            ("sen", Boundary::Continuation, Shape::Lower)
        );
        let s = Surface::of("Jansen", SubwordKind::WordPiece);
        assert_eq!(
            (s.boundary, s.shape),
            (Boundary::WordStart, Shape::Capitalized)
        );
        let s = Surface::of("ĠJansen", SubwordKind::ByteLevelBpe);
        assert_eq!(
            (s.text.as_str(), s.boundary),
            ("Jansen", Boundary::WordStart)
        );
        let s = Surface::of("▁De", SubwordKind::SentencePiece);
        assert_eq!((s.text.as_str(), s.shape), ("De", Shape::Capitalized));
        assert_eq!(
            Surface::of("ĠAMC", SubwordKind::ByteLevelBpe).shape,
            Shape::AllCaps
        );
        assert_eq!(
            Surface::of("12", SubwordKind::WordPiece).shape,
            Shape::HasDigit
        );
        assert_eq!(Surface::of(".", SubwordKind::WordPiece).shape, Shape::Other);
        assert_eq!(Surface::of("J", SubwordKind::WordPiece).shape, Shape::Other);
        assert_eq!(
            Surface::of("O'Neill", SubwordKind::WordPiece).shape,
            Shape::Other
        );
        assert_eq!(
            Surface::of("Ter-Haar", SubwordKind::WordPiece).shape,
            Shape::Other
        );
    }

    #[test]
    fn byte_level_accents_are_read_back() {
        // "Ġ" + the byte-level spelling of "Müller" (ü = C3 BC -> 'Ã' '¼').
        let s = Surface::of("ĠMÃ¼ller", SubwordKind::ByteLevelBpe);
        assert_eq!(s.text, "Müller");
        assert_eq!(s.shape, Shape::Capitalized);
    }
}
