//! Opening corpus input: bounded line reading, capped whole-file reads, format detection and
//! the `open_input` entry point that picks a streaming reader for a format and path.

use super::{
    brat, canonical_resolver, conll, jsonl, text, CorpusError, DocIter, DocResult, Format,
    ReadOptions, SharedResolver,
};
use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, ErrorKind, Read};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The path that means standard input / output.
pub const STDIO: &str = "-";

const READ_BUF: usize = 1 << 16;

/// True when `path` is `-` (stdin or stdout).
pub fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == STDIO
}

/// Where a stream comes from: the name used in errors and the stem used to build document ids.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    pub name: PathBuf,
    pub stem: String,
}

impl Source {
    pub fn stdin() -> Self {
        Source {
            name: PathBuf::from("<stdin>"),
            stem: "stdin".into(),
        }
    }

    pub fn file(path: &Path) -> Self {
        Source {
            name: path.to_path_buf(),
            stem: file_stem(path),
        }
    }

    /// `Source::stdin()` for `-`, else `Source::file(path)`.
    pub fn for_path(path: &Path) -> Self {
        if is_stdio(path) {
            Source::stdin()
        } else {
            Source::file(path)
        }
    }
}

/// The file stem as a string (lossy for non-UTF-8 names).
pub fn file_stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// One line of input without its line terminator.
#[derive(Debug)]
pub struct Line {
    /// 1-based line number.
    pub no: usize,
    pub text: String,
}

/// Reads lines of at most `max` bytes from any `BufRead`, checking UTF-8 and counting lines.
///
/// An over-long line is never held in memory beyond `max` bytes: its rest is skipped and an
/// error naming the line is returned, after which reading goes on with the next line. Invalid
/// UTF-8 is an error for that line only; an I/O error ends the stream.
pub struct LineReader<R> {
    inner: R,
    source: Source,
    max: usize,
    line: usize,
    buf: Vec<u8>,
    done: bool,
}

impl<R: BufRead> LineReader<R> {
    pub fn new(inner: R, source: Source, max: usize) -> Self {
        LineReader {
            inner,
            source,
            max,
            line: 0,
            buf: Vec::new(),
            done: false,
        }
    }

    pub fn source(&self) -> &Source {
        &self.source
    }

    /// The next line, `None` at the end of input.
    pub fn next_line(&mut self) -> Option<Result<Line, CorpusError>> {
        if self.done {
            return None;
        }
        self.buf.clear();
        let mut too_long = false;
        let mut saw_bytes = false;
        loop {
            let avail = match self.inner.fill_buf() {
                Ok(a) => a,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.done = true;
                    return Some(Err(CorpusError::io(&self.source.name, e)));
                }
            };
            if avail.is_empty() {
                self.done = true;
                if !saw_bytes {
                    return None;
                }
                break;
            }
            saw_bytes = true;
            let (len, found) = match memchr::memchr(b'\n', avail) {
                Some(i) => (i, true),
                None => (avail.len(), false),
            };
            if !too_long {
                if self.buf.len() + len > self.max {
                    too_long = true;
                    self.buf.clear();
                } else {
                    self.buf.extend_from_slice(&avail[..len]);
                }
            }
            self.inner.consume(len + usize::from(found));
            if found {
                break;
            }
        }
        self.line += 1;
        let no = self.line;
        if too_long {
            return Some(Err(CorpusError::line(
                &self.source.name,
                no,
                format!(
                    "line is longer than the limit of {} bytes (max_doc_bytes)",
                    self.max
                ),
            )));
        }
        if self.buf.last() == Some(&b'\r') {
            self.buf.pop();
        }
        if no == 1 && self.buf.starts_with("\u{feff}".as_bytes()) {
            self.buf.drain(..3);
        }
        Some(
            String::from_utf8(std::mem::take(&mut self.buf))
                .map(|text| Line { no, text })
                .map_err(|e| {
                    let col = e.utf8_error().valid_up_to() + 1;
                    CorpusError::line(
                        &self.source.name,
                        no,
                        format!("invalid UTF-8 at byte {col} of the line"),
                    )
                }),
        )
    }
}

/// Bytes already taken from stdin to detect its format; the stdin reader yields them first.
static STDIN_HEAD: Mutex<Vec<u8>> = Mutex::new(Vec::new());

/// Most leading whitespace read from stdin while looking for its first non-blank byte.
const STDIN_PEEK_MAX: usize = 1 << 20;

/// The first byte of stdin that is not whitespace (after a byte order mark), `None` for blank
/// input. The bytes read stay in [`STDIN_HEAD`], so the stream is unchanged for its reader.
fn peek_stdin_first_byte() -> Result<Option<u8>, CorpusError> {
    let mut head = STDIN_HEAD.lock().unwrap_or_else(|e| e.into_inner());
    let mut chunk = [0u8; 8192];
    loop {
        let body = head.strip_prefix("\u{feff}".as_bytes()).unwrap_or(&head);
        if let Some(&b) = body.iter().find(|b| !b.is_ascii_whitespace()) {
            return Ok(Some(b));
        }
        if head.len() >= STDIN_PEEK_MAX {
            return Ok(None);
        }
        let n = match io::stdin().read(&mut chunk) {
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(CorpusError::io("<stdin>", e)),
        };
        if n == 0 {
            return Ok(None);
        }
        head.extend_from_slice(&chunk[..n]);
    }
}

/// A buffered reader for a path, or for stdin when the path is `-`.
pub fn open_reader(path: &Path) -> Result<(Box<dyn BufRead + Send>, Source), CorpusError> {
    if is_stdio(path) {
        let head = std::mem::take(&mut *STDIN_HEAD.lock().unwrap_or_else(|e| e.into_inner()));
        let r = BufReader::with_capacity(READ_BUF, io::Cursor::new(head).chain(io::stdin()));
        return Ok((Box::new(r), Source::stdin()));
    }
    let f = File::open(path).map_err(|e| CorpusError::io(path, e))?;
    Ok((
        Box::new(BufReader::with_capacity(READ_BUF, f)),
        Source::file(path),
    ))
}

/// Reads a whole file as one document's text: at most `max` bytes (larger files are an error
/// naming the limit, and are not read), valid UTF-8 (else an error naming the line). The bytes
/// are kept exactly (a byte order mark too), since brat offsets count every character.
pub fn read_file_capped(path: &Path, max: usize) -> Result<String, CorpusError> {
    let over = |n: String| {
        CorpusError::file(
            path,
            format!("document is {n} bytes, over the limit of {max} bytes (max_doc_bytes)"),
        )
    };
    let f = File::open(path).map_err(|e| CorpusError::io(path, e))?;
    let len = f.metadata().map_err(|e| CorpusError::io(path, e))?.len();
    if len > max as u64 {
        return Err(over(len.to_string()));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    f.take(max as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| CorpusError::io(path, e))?;
    if bytes.len() > max {
        return Err(over(format!("more than {max}")));
    }
    String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = 1 + memchr::memchr_iter(b'\n', valid).count();
        CorpusError::line(path, line, "invalid UTF-8")
    })
}

/// Files directly inside `dir` whose extension is one of `exts`, sorted by name.
pub fn list_files(dir: &Path, exts: &[&str]) -> Result<Vec<PathBuf>, CorpusError> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| CorpusError::io(dir, e))? {
        let path = entry.map_err(|e| CorpusError::io(dir, e))?.path();
        let ext_ok = path
            .extension()
            .and_then(|x| x.to_str())
            .is_some_and(|x| exts.iter().any(|e| x.eq_ignore_ascii_case(e)));
        if ext_ok && path.is_file() {
            out.push(path);
        }
    }
    out.sort();
    Ok(out)
}

/// Yields one "no documents" error when the wrapped stream yields nothing at all.
pub struct NonEmpty<I> {
    inner: I,
    source: PathBuf,
    yielded: bool,
    done: bool,
}

impl<I> NonEmpty<I> {
    pub fn new(inner: I, source: impl Into<PathBuf>) -> Self {
        NonEmpty {
            inner,
            source: source.into(),
            yielded: false,
            done: false,
        }
    }
}

impl<I: Iterator<Item = DocResult>> Iterator for NonEmpty<I> {
    type Item = DocResult;
    fn next(&mut self) -> Option<DocResult> {
        if self.done {
            return None;
        }
        match self.inner.next() {
            Some(item) => {
                self.yielded = true;
                Some(item)
            }
            None => {
                self.done = true;
                (!self.yielded).then(|| Err(CorpusError::file(&self.source, "no documents")))
            }
        }
    }
}

/// File extensions read as CoNLL.
pub const CONLL_EXTS: &[&str] = &["conll", "iob", "iob2", "bio"];
/// File extensions read as document JSONL.
pub const JSONL_EXTS: &[&str] = &["jsonl", "ndjson"];

/// Guesses the format of an input path: a directory holding `.ann` files is brat, `.jsonl` is
/// JSONL, `.conll`/`.iob`/`.bio` is CoNLL; anything else is text. Stdin is JSONL when its first
/// non-blank byte is `{` (JSONL read as text would keep the names inside it), else text.
/// A directory without `.ann` or `.txt` files is JSONL or CoNLL when it holds such files.
pub fn detect_format(path: &Path) -> Result<Format, CorpusError> {
    if is_stdio(path) {
        return Ok(detect_stream_format(peek_stdin_first_byte()?));
    }
    if path.is_dir() {
        if !list_files(path, &["ann"])?.is_empty() {
            return Ok(Format::Brat);
        }
        if list_files(path, &["txt"])?.is_empty() {
            if !list_files(path, JSONL_EXTS)?.is_empty() {
                return Ok(Format::Jsonl);
            }
            if !list_files(path, CONLL_EXTS)?.is_empty() {
                return Ok(Format::Conll);
            }
        }
        return Ok(Format::Text);
    }
    let ext = path
        .extension()
        .and_then(|x| x.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    Ok(if JSONL_EXTS.contains(&ext.as_str()) {
        Format::Jsonl
    } else if CONLL_EXTS.contains(&ext.as_str()) {
        Format::Conll
    } else {
        Format::Text
    })
}

/// The format of a stream from its first non-blank byte.
fn detect_stream_format(first: Option<u8>) -> Format {
    if first == Some(b'{') {
        Format::Jsonl
    } else {
        Format::Text
    }
}

/// Opens a lazy document stream for `format` at `path` (`-` is stdin).
///
/// - text: a directory of `.txt` files (a document each, id = stem, sorted) or a file / stdin
///   with a document per non-empty line (id = `<stem>:<line>`, `stdin:<line>`);
/// - jsonl: a file / stdin, or a directory of `.jsonl` files;
/// - brat: a directory of `.txt` + `.ann`;
/// - conll: a file / stdin, or a directory of `.conll`/`.iob`/`.bio` files.
///
/// `resolver` maps labels of a foreign scheme (JSONL, brat, CoNLL); `None` means canonical
/// labels. Errors for one line or document do not end the stream, I/O errors do; an input that
/// holds no document yields a "no documents" error.
pub fn open_input(
    format: Format,
    path: &Path,
    opts: &ReadOptions,
    resolver: Option<SharedResolver>,
) -> Result<DocIter, CorpusError> {
    let resolver = resolver.unwrap_or_else(canonical_resolver);
    let opts = opts.clone();
    let is_dir = !is_stdio(path) && path.is_dir();
    if !is_stdio(path) && !path.exists() {
        return Err(CorpusError::io(
            path,
            io::Error::new(ErrorKind::NotFound, "no such file or directory"),
        ));
    }
    let iter: DocIter = match (format, is_dir) {
        (Format::Brat, true) => Box::new(brat::BratDirReader::new(path, &opts, resolver)?),
        (Format::Brat, false) => {
            return Err(CorpusError::file(
                path,
                "brat input must be a directory of .txt and .ann files",
            ))
        }
        (Format::Text, true) => Box::new(text::TextDirReader::new(path, &opts)?),
        (Format::Text, false) => {
            let (r, src) = open_reader(path)?;
            Box::new(text::TextLinesReader::new(r, src, &opts))
        }
        (Format::Jsonl, false) => {
            let (r, src) = open_reader(path)?;
            Box::new(jsonl::JsonlReader::new(r, src, &opts, resolver))
        }
        (Format::Conll, false) => {
            let (r, src) = open_reader(path)?;
            Box::new(conll::ConllReader::new(r, src, &opts, resolver))
        }
        (Format::Jsonl | Format::Conll, true) => {
            let exts = if format == Format::Jsonl {
                JSONL_EXTS
            } else {
                CONLL_EXTS
            };
            let files = list_files(path, exts)?;
            if files.is_empty() {
                return Err(CorpusError::file(
                    path,
                    format!("no documents: the directory holds no .{} files", exts[0]),
                ));
            }
            Box::new(files.into_iter().flat_map(move |f| -> DocIter {
                match open_reader(&f) {
                    Ok((r, src)) if format == Format::Jsonl => {
                        Box::new(jsonl::JsonlReader::new(r, src, &opts, resolver.clone()))
                    }
                    Ok((r, src)) => {
                        Box::new(conll::ConllReader::new(r, src, &opts, resolver.clone()))
                    }
                    Err(e) => Box::new(std::iter::once(Err(e))),
                }
            }))
        }
    };
    Ok(Box::new(NonEmpty::new(iter, Source::for_path(path).name)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    /// Each line or its error message (the tests compare messages).
    type Lines = Vec<Result<(usize, String), String>>;

    fn lines(input: &[u8], max: usize) -> Lines {
        let mut r = LineReader::new(Cursor::new(input.to_vec()), Source::stdin(), max);
        std::iter::from_fn(|| r.next_line())
            .map(|l| l.map(|l| (l.no, l.text)).map_err(|e| e.to_string()))
            .collect()
    }

    #[test]
    fn line_reader_cases() {
        let ok = |n: usize, s: &str| Ok((n, s.to_string()));
        let cases: Vec<(&[u8], usize, Lines)> = vec![
            (b"", 10, vec![]),
            (b"a\nb", 10, vec![ok(1, "a"), ok(2, "b")]),
            (b"a\r\n\nb\n", 10, vec![ok(1, "a"), ok(2, ""), ok(3, "b")]),
            ("\u{feff}ő\n".as_bytes(), 10, vec![ok(1, "ő")]),
            (
                b"ok\n0123456789ABC\nnext\n",
                10,
                vec![
                    ok(1, "ok"),
                    Err(
                        "<stdin>:2: line is longer than the limit of 10 bytes (max_doc_bytes)"
                            .into(),
                    ),
                    ok(3, "next"),
                ],
            ),
            (
                b"x\nab\xffcd\ny",
                10,
                vec![
                    ok(1, "x"),
                    Err("<stdin>:2: invalid UTF-8 at byte 3 of the line".into()),
                    ok(3, "y"),
                ],
            ),
        ];
        for (input, max, want) in cases {
            assert_eq!(lines(input, max), want, "input {input:?}");
        }
    }

    #[test]
    fn long_line_is_not_buffered_past_the_limit() {
        // A reader that yields 1 KiB chunks so the line spans many fill_buf calls.
        let data = vec![b'x'; 1 << 20];
        let mut r = LineReader::new(
            BufReader::with_capacity(1024, Cursor::new(data)),
            Source::stdin(),
            4096,
        );
        assert!(r.next_line().unwrap().is_err());
        assert!(
            r.buf.capacity() <= 8192,
            "buffer grew to {}",
            r.buf.capacity()
        );
        assert!(r.next_line().is_none());
    }

    #[test]
    fn non_empty_reports_empty_streams_once() {
        let mut it = NonEmpty::new(std::iter::empty(), "x.txt");
        assert_eq!(
            it.next().unwrap().unwrap_err().to_string(),
            "x.txt: no documents"
        );
        assert!(it.next().is_none());
    }
}
