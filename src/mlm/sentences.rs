//! Sentence inputs of fill-mask and scoring: one sentence per line, or JSONL objects with a
//! `text` field (and an optional `id`). Text is kept byte-exact (only the line break is cut).

use serde::Deserialize;
use std::io::BufRead;
use std::path::Path;

/// One input sentence and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Sentence {
    /// The JSONL `id`, or `line N` (1-based) for line files.
    pub id: String,
    pub text: String,
}

/// Bad sentence input, naming the file and line: the shared file/line error.
pub type SentenceError = crate::error::InputError;

#[derive(Deserialize)]
struct JsonSentence {
    text: String,
    #[serde(default)]
    id: Option<serde_json::Value>,
}

/// Reads sentences from `path` (`-` for stdin); JSONL when the name ends in `.jsonl`.
/// Blank lines are skipped; line numbers in ids and errors count them.
pub fn read_sentences(path: &Path) -> Result<Vec<Sentence>, SentenceError> {
    let io = |source| SentenceError::Io {
        path: path.to_path_buf(),
        source,
    };
    let reader: Box<dyn BufRead> = if path == Path::new("-") {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(std::io::BufReader::new(
            std::fs::File::open(path).map_err(io)?,
        ))
    };
    let jsonl = path.extension().is_some_and(|e| e == "jsonl");
    let mut out = Vec::new();
    for (n, line) in reader.split(b'\n').enumerate() {
        let line_no = n + 1;
        let bytes = line.map_err(io)?;
        let text = String::from_utf8(bytes).map_err(|_| SentenceError::Line {
            path: path.to_path_buf(),
            line: line_no,
            msg: "not valid UTF-8".into(),
        })?;
        let text = text.strip_suffix('\r').unwrap_or(&text).to_string();
        if text.trim().is_empty() {
            continue;
        }
        if jsonl {
            let parsed: JsonSentence =
                serde_json::from_str(&text).map_err(|e| SentenceError::Line {
                    path: path.to_path_buf(),
                    line: line_no,
                    msg: format!(
                        "not a JSON object with a \"text\" string ({})",
                        json_error_kind(&e)
                    ),
                })?;
            let id = match parsed.id {
                Some(serde_json::Value::String(s)) => s,
                Some(other) => other.to_string(),
                None => format!("line {line_no}"),
            };
            out.push(Sentence {
                id,
                text: parsed.text,
            });
        } else {
            out.push(Sentence {
                id: format!("line {line_no}"),
                text,
            });
        }
    }
    Ok(out)
}

/// The class of a JSON error, without the input excerpt serde_json may quote.
fn json_error_kind(e: &serde_json::Error) -> &'static str {
    match e.classify() {
        serde_json::error::Category::Io => "I/O error",
        serde_json::error::Category::Syntax => "syntax error",
        serde_json::error::Category::Data => "missing or mistyped field",
        serde_json::error::Category::Eof => "unexpected end",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn lines_keep_their_spaces_and_jsonl_ids_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let lines = dir.path().join("s.txt");
        std::fs::File::create(&lines)
            .unwrap()
            .write_all(b" a <mask> b \r\n\nc [MASK]\n")
            .unwrap();
        let got = read_sentences(&lines).unwrap();
        assert_eq!(
            got[0],
            Sentence {
                id: "line 1".into(),
                text: " a <mask> b ".into()
            }
        );
        assert_eq!(got[1].id, "line 3");
        let jsonl = dir.path().join("s.jsonl");
        std::fs::write(
            &jsonl,
            "{\"id\":\"x\",\"text\":\"t <mask>\"}\n{\"id\":7,\"text\":\"u\"}\n",
        )
        .unwrap();
        let got = read_sentences(&jsonl).unwrap();
        assert_eq!((got[0].id.as_str(), got[1].id.as_str()), ("x", "7"));
    }

    #[test]
    fn a_bad_jsonl_line_names_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let jsonl = dir.path().join("bad.jsonl");
        std::fs::write(&jsonl, "{\"text\":\"ok\"}\n{\"txt\":\"secret name\"}\n").unwrap();
        let err = read_sentences(&jsonl).unwrap_err().to_string();
        assert!(err.contains("bad.jsonl:2"), "{err}");
        assert!(!err.contains("secret"), "{err}");
    }
}
