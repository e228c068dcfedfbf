//! User probe files: sentences with one `<mask>` each, one per line (any extension but
//! `.csv`/`.jsonl`) or a CSV with a `sentences` column. Sentences are kept byte-exact (leading
//! and trailing spaces included); only the line break is cut from line files.

use super::error::ProbeError;
use super::set::{ProbeSlot, SetKind};
use std::io::{BufRead, Read};
use std::path::Path;

/// The CSV column that holds the sentences.
pub const CSV_COLUMN: &str = "sentences";

/// The mask spellings a user sentence may use; the model's own token is accepted at run time
/// (see [`count_masks`]).
pub const MASK_SPELLINGS: [&str; 2] = ["<mask>", "[MASK]"];

/// Masks in `text`, counting `<mask>`, `[MASK]` and `model_mask` (when given) alike.
pub fn count_masks(text: &str, model_mask: Option<&str>) -> usize {
    let mask = model_mask.unwrap_or("<mask>");
    let normalized = crate::mlm::fill::normalize_masks(text, mask);
    normalized.matches(mask).count()
}

fn user_slot(slot_id: String, text: String, lang: Option<&str>) -> ProbeSlot {
    ProbeSlot {
        slot_id,
        doc_id: None,
        set: SetKind::User,
        label: None,
        subtype: None,
        lang: lang.map(str::to_string),
        text,
    }
}

fn check_one_mask(path: &Path, line: usize, what: &str, text: &str) -> Result<(), ProbeError> {
    match count_masks(text, None) {
        1 => Ok(()),
        0 => Err(ProbeError::line(
            path,
            line,
            format!("{what} has no mask (<mask> or [MASK])"),
        )),
        n => Err(ProbeError::line(
            path,
            line,
            format!("{what} has {n} masks, exactly one is expected"),
        )),
    }
}

/// One sentence per line; blank lines are skipped (line numbers count them). Slot ids are
/// `line N`.
pub fn read_lines(path: &Path, lang: Option<&str>) -> Result<Vec<ProbeSlot>, ProbeError> {
    let file = std::fs::File::open(path).map_err(|e| ProbeError::io(path, e))?;
    let mut out = Vec::new();
    for (n, bytes) in std::io::BufReader::new(file).split(b'\n').enumerate() {
        let line_no = n + 1;
        let bytes = bytes.map_err(|e| ProbeError::io(path, e))?;
        let text = String::from_utf8(bytes)
            .map_err(|_| ProbeError::line(path, line_no, "not valid UTF-8"))?;
        let text = text.strip_suffix('\r').unwrap_or(&text).to_string();
        if text.trim().is_empty() {
            continue;
        }
        check_one_mask(path, line_no, "the sentence", &text)?;
        out.push(user_slot(format!("line {line_no}"), text, lang));
    }
    if out.is_empty() {
        return Err(ProbeError::file(path.to_path_buf(), "no sentences"));
    }
    Ok(out)
}

/// A CSV file with a header row and a `sentences` column (other columns are ignored). Fields
/// are not trimmed. Slot ids are `row N`, N counting data rows from 1; errors give the file
/// line. A file whose header is the `sentences` column alone holds one sentence per line,
/// commas and all (the shape of the MedRoBERTa.nl anonymization test set): see
/// [`read_one_column`].
pub fn read_csv(path: &Path, lang: Option<&str>) -> Result<Vec<ProbeSlot>, ProbeError> {
    if one_column_header(path)? {
        return read_one_column(path, lang);
    }
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .trim(csv::Trim::None)
        .from_path(path)
        .map_err(|e| csv_error(path, e))?;
    let headers = reader.headers().map_err(|e| csv_error(path, e))?.clone();
    let column = headers
        .iter()
        .position(|h| h.trim_start_matches('\u{feff}').trim() == CSV_COLUMN)
        .ok_or_else(|| {
            ProbeError::file(
                path.to_path_buf(),
                format!("no '{CSV_COLUMN}' column in the header"),
            )
        })?;
    let mut out = Vec::new();
    for (n, record) in reader.records().enumerate() {
        let record = record.map_err(|e| csv_error(path, e))?;
        let line = record.position().map_or(n + 2, |p| p.line() as usize);
        let text = record.get(column).ok_or_else(|| {
            ProbeError::line(
                path,
                line,
                format!("row {} has no '{CSV_COLUMN}' field", n + 1),
            )
        })?;
        check_one_mask(path, line, &format!("row {}", n + 1), text)?;
        out.push(user_slot(format!("row {}", n + 1), text.to_string(), lang));
    }
    if out.is_empty() {
        return Err(ProbeError::file(path.to_path_buf(), "no data rows"));
    }
    Ok(out)
}

/// Whether the first line of `path` is the `sentences` column and nothing else.
fn one_column_header(path: &Path) -> Result<bool, ProbeError> {
    let file = std::fs::File::open(path).map_err(|e| ProbeError::io(path, e))?;
    let mut first = Vec::new();
    std::io::BufReader::new(file)
        .take(4096)
        .read_until(b'\n', &mut first)
        .map_err(|e| ProbeError::io(path, e))?;
    let first = String::from_utf8_lossy(&first);
    Ok(first.trim_start_matches('\u{feff}').trim() == CSV_COLUMN)
}

/// A one-column CSV: after the header, every non-blank line is one sentence, unquoted commas
/// included; a line wrapped in double quotes is unquoted (`""` inside stands for `"`). Slot ids
/// are `row N`, N counting sentences from 1; errors give the file line.
pub fn read_one_column(path: &Path, lang: Option<&str>) -> Result<Vec<ProbeSlot>, ProbeError> {
    let file = std::fs::File::open(path).map_err(|e| ProbeError::io(path, e))?;
    let mut out = Vec::new();
    for (n, bytes) in std::io::BufReader::new(file)
        .split(b'\n')
        .enumerate()
        .skip(1)
    {
        let line_no = n + 1;
        let bytes = bytes.map_err(|e| ProbeError::io(path, e))?;
        let text = String::from_utf8(bytes)
            .map_err(|_| ProbeError::line(path, line_no, "not valid UTF-8"))?;
        let text = text.strip_suffix('\r').unwrap_or(&text);
        if text.trim().is_empty() {
            continue;
        }
        let text = match text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
            Some(inner) => inner.replace("\"\"", "\""),
            None => text.to_string(),
        };
        let row = format!("row {}", out.len() + 1);
        check_one_mask(path, line_no, &row, &text)?;
        out.push(user_slot(row, text, lang));
    }
    if out.is_empty() {
        return Err(ProbeError::file(path.to_path_buf(), "no data rows"));
    }
    Ok(out)
}

/// A CSV error by position and kind; the csv crate's messages do not quote field values, but
/// only the position and a short kind are passed on.
fn csv_error(path: &Path, e: csv::Error) -> ProbeError {
    let line = e.position().map(|p| p.line() as usize);
    let msg = match e.kind() {
        csv::ErrorKind::Io(io) => {
            return ProbeError::io(path, std::io::Error::new(io.kind(), io.to_string()))
        }
        csv::ErrorKind::Utf8 { .. } => "not valid UTF-8".to_string(),
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => format!("{len} fields where the header has {expected_len}"),
        _ => "malformed CSV".to_string(),
    };
    match line {
        Some(line) => ProbeError::line(path, line, msg),
        None => ProbeError::file(path.to_path_buf(), msg),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, body: &str) -> std::path::PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, body).unwrap();
        p
    }

    #[test]
    fn line_files_keep_spaces_and_number_lines() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(
            dir.path(),
            "s.txt",
            " Dokter <mask> zei het. \n\n[MASK] kwam binnen.\r\n",
        );
        let slots = read_lines(&p, Some("nl")).unwrap();
        assert_eq!(slots.len(), 2);
        assert_eq!(slots[0].slot_id, "line 1");
        assert_eq!(slots[0].text, " Dokter <mask> zei het. ");
        assert_eq!(slots[1].slot_id, "line 3");
        assert_eq!(slots[1].text, "[MASK] kwam binnen.");
        assert_eq!(slots[1].set, SetKind::User);
        assert_eq!(slots[1].lang.as_deref(), Some("nl"));
    }

    #[test]
    fn csv_keeps_spaces_and_quotes_and_counts_data_rows() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(
            dir.path(),
            "s.csv",
            "id,sentences\n1, Dokter <mask> zei ...\n2,\"  Mevrouw <mask>, 40 jaar, kwam. \"\n",
        );
        let slots = read_csv(&p, None).unwrap();
        assert_eq!(slots.len(), 2);
        assert_eq!(slots[0].slot_id, "row 1");
        assert_eq!(slots[0].text, " Dokter <mask> zei ...");
        assert_eq!(slots[1].slot_id, "row 2");
        assert_eq!(slots[1].text, "  Mevrouw <mask>, 40 jaar, kwam. ");
    }

    #[test]
    fn a_one_column_csv_is_one_sentence_per_line_commas_and_all() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(
            dir.path(),
            "published.csv",
            "\u{feff}sentences\r\nDe patiënt, een man van 60, werd door <mask> gezien.\r\n\r\n\
             \"Zij zei: \"\"<mask> belt terug\"\", en ging.\"\r\n<mask> kwam, zag, en ging\n",
        );
        let slots = read_csv(&p, Some("nl")).unwrap();
        let got: Vec<(&str, &str)> = slots
            .iter()
            .map(|s| (s.slot_id.as_str(), s.text.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "row 1",
                    "De patiënt, een man van 60, werd door <mask> gezien."
                ),
                ("row 2", "Zij zei: \"<mask> belt terug\", en ging."),
                ("row 3", "<mask> kwam, zag, en ging"),
            ]
        );
        let p = write(
            dir.path(),
            "bad.csv",
            "sentences\nok <mask>, fine\nno mask, Jansen\n",
        );
        let err = read_csv(&p, None).unwrap_err().to_string();
        assert!(
            err.contains("bad.csv:3:") && err.contains("row 2 has no mask"),
            "{err}"
        );
        assert!(!err.contains("Jansen"), "{err}");
    }

    #[test]
    fn missing_or_extra_masks_name_the_line_or_row() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(dir.path(), "s.txt", "a <mask> b\nno mask Jansen here\n");
        let err = read_lines(&p, None).unwrap_err().to_string();
        assert!(err.contains("s.txt:2:") && err.contains("no mask"), "{err}");
        assert!(!err.contains("Jansen"), "{err}");
        let p = write(
            dir.path(),
            "t.csv",
            "sentences\n<mask> b\n<mask> en [MASK]\n",
        );
        let err = read_csv(&p, None).unwrap_err().to_string();
        assert!(
            err.contains("t.csv:3:") && err.contains("row 2 has 2 masks"),
            "{err}"
        );
        let p = write(dir.path(), "u.csv", "sentence\n<mask> b\n");
        let err = read_csv(&p, None).unwrap_err().to_string();
        assert!(err.contains("no 'sentences' column"), "{err}");
        let p = write(
            dir.path(),
            "v.csv",
            "id,sentences\n1,<mask> b\n2,<mask>,x\n",
        );
        let err = read_csv(&p, None).unwrap_err().to_string();
        assert!(err.contains("v.csv:3:"), "{err}");
    }

    #[test]
    fn the_models_own_mask_counts_too() {
        assert_eq!(count_masks("a [MASK] b", Some("<mask>")), 1);
        assert_eq!(count_masks("a <mask> b [MASK]", Some("[MASK]")), 2);
        assert_eq!(count_masks("a <mask> b", None), 1);
    }
}
