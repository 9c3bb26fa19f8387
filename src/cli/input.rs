//! Reading documents: JSON lines, plain-text files, HTML pages, folders of these, or standard
//! input.
//!
//! Every record read ends as a document or as an error that says where it was, so that one
//! bad line never stops a batch.

use std::collections::HashSet;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// One document to fingerprint or index.
#[derive(Debug)]
pub struct Document {
    /// The `id` of its JSON line, else `FILE:LINE`; a plain-text or HTML file's path.
    pub id: String,
    /// Where it was read: `FILE:LINE` for a JSON line, else the file (`-` is standard
    /// input).
    pub place: String,
    /// Its text (`text`, else `body`, of a JSON line; a plain-text file's content; an HTML
    /// page's title and main text, from [`tantivy_dedup::html::extract`]).
    pub text: String,
    /// The `title` of its JSON line.
    pub title: Option<String>,
    /// The `url` of its JSON line.
    pub url: Option<String>,
    /// The `tags` of its JSON line.
    pub tags: Vec<String>,
    /// Read from standard input (`-`).
    pub from_stdin: bool,
}

/// A record that could not be read.
#[derive(Debug)]
pub struct RecordError {
    /// Where: `FILE` or `FILE:LINE` (`-` is standard input).
    pub place: String,
    /// What is wrong, for a person.
    pub reason: String,
}

/// What reading one record gives.
pub type Record = Result<Document, RecordError>;

#[derive(Deserialize)]
struct JsonLine {
    id: Option<serde_json::Value>,
    text: Option<String>,
    body: Option<String>,
    title: Option<String>,
    url: Option<String>,
    #[serde(default)]
    tags: Vec<String>,
}

/// True for the extensions read as JSON lines.
fn is_json_lines(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("jsonl" | "ndjson" | "json")
    )
}

/// True for the extensions read as HTML pages, whose main text is extracted.
fn is_html(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        ["html", "htm", "xhtml"]
            .iter()
            .any(|x| e.eq_ignore_ascii_case(x))
    })
}

/// How inputs are read.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReadOptions {
    /// Replace invalid UTF-8 (and unpaired UTF-16 surrogates) with U+FFFD.
    pub lossy: bool,
    /// Follow symbolic links met in folders (each folder is read once: loops are cut).
    pub follow_links: bool,
}

/// Calls `emit` with every record of `inputs`, in order; folders are walked recursively in
/// name order, without hidden entries, and a tantivy index folder met there is skipped with
/// a note (one named on the command line is an error). A walk reads regular files only (a
/// FIFO, socket or device met there is an error line, never read) and skips symbolic links
/// with a note unless `follow_links`, which reads every folder once (a link back to one
/// already read is skipped with a note). Anything named on the command line is read as it
/// is (a pipe such as `<(zcat corpus.gz)` too); a byte order mark is skipped; `.html`, `.htm` and `.xhtml` files go through main-content extraction. `-` reads
/// standard input as JSON lines when its first non-blank byte is `{` (after a byte order
/// mark), else as one plain-text document.
pub fn read_inputs(inputs: &[PathBuf], options: ReadOptions, emit: &mut dyn FnMut(Record)) {
    let lossy = options.lossy;
    let mut walk = Walk {
        options,
        folders_read: HashSet::new(),
    };
    for input in inputs {
        if input.as_os_str() == "-" {
            let emit = &mut |record: Record| {
                emit(record.map(|doc| Document {
                    from_stdin: true,
                    ..doc
                }))
            };
            let mut bytes = Vec::new();
            let read = io::stdin().lock().read_to_end(&mut bytes);
            match utf16_to_utf8(&bytes, lossy) {
                Some(Ok(utf8)) => bytes = utf8,
                Some(Err(reason)) => return emit(Err(error("-", reason))),
                None => {}
            }
            strip_bom(&mut bytes);
            match read {
                Ok(_) if bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') => {
                    read_json_lines(io::Cursor::new(bytes), "-", lossy, emit)
                }
                Ok(_) => emit(plain_text(bytes, "-", lossy)),
                Err(e) => emit(Err(error("-", format!("cannot read standard input: {e}")))),
            }
        } else {
            walk.read_path(input, false, emit);
        }
    }
}

/// A walk over the inputs: its options, and the folders read so far (canonical paths).
struct Walk {
    options: ReadOptions,
    folders_read: HashSet<PathBuf>,
}

impl Walk {
    /// Reads the file or folder `path`; `walked` when a folder walk found it rather than the
    /// command line naming it.
    fn read_path(&mut self, path: &Path, walked: bool, emit: &mut dyn FnMut(Record)) {
        let place = path.display().to_string();
        if walked {
            let link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
            if link && !self.options.follow_links {
                note!(
                    "skipped {place}: a symbolic link (--follow-links reads what links point to)"
                );
                return;
            }
            match std::fs::metadata(path) {
                Ok(meta) if meta.is_dir() || meta.is_file() => {}
                Ok(_) => {
                    return emit(Err(error(
                        &place,
                        "not a regular file (a FIFO, socket or device): not read".to_owned(),
                    )))
                }
                Err(e) => return emit(Err(error(&place, format!("cannot read: {e}")))),
            }
        }
        if path.is_dir() {
            // Each folder once: a link back to a folder read (or being read) would loop.
            let canonical = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
            if !self.folders_read.insert(canonical) {
                note!("skipped {place}: a folder already read");
                return;
            }
            return self.read_folder(path, &place, walked, emit);
        }
        read_file(path, &place, self.options.lossy, emit);
    }

    fn read_folder(
        &mut self,
        path: &Path,
        place: &str,
        walked: bool,
        emit: &mut dyn FnMut(Record),
    ) {
        if path.join("meta.json").is_file() && path.join(".managed.json").is_file() {
            // Named on the command line, an index is a mistake; met in a walk (the tool's
            // own index inside the corpus folder), it is not a record at all.
            if walked {
                note!("skipped {place}: a tantivy index, not documents");
                return;
            }
            return emit(Err(error(
                place,
                "a tantivy index, not documents".to_owned(),
            )));
        }
        let mut entries: Vec<PathBuf> = match std::fs::read_dir(path) {
            // Hidden files and folders (`.git`, editors' backups, an index's lock files) are
            // not documents; a file named on the command line is read all the same.
            Ok(entries) => entries
                .filter_map(|e| e.ok())
                .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                .map(|e| e.path())
                .collect(),
            Err(e) => return emit(Err(error(place, format!("cannot list folder: {e}")))),
        };
        entries.sort();
        for entry in entries {
            self.read_path(&entry, true, emit);
        }
    }
}

/// The sample corpus shipped in the repository (`samples/corpus.jsonl`), built into the
/// binary so that `ingest` without inputs works from anywhere.
pub const SAMPLE_CORPUS: &str = include_str!("../../samples/corpus.jsonl");

/// Where records of [`SAMPLE_CORPUS`] say they come from.
pub const SAMPLE_PLACE: &str = "samples/corpus.jsonl";

/// Calls `emit` with every record of the built-in sample corpus.
pub fn read_sample(emit: &mut dyn FnMut(Record)) {
    read_json_lines(
        io::Cursor::new(SAMPLE_CORPUS.as_bytes()),
        SAMPLE_PLACE,
        false,
        emit,
    );
}

/// Reads the file `path`.
fn read_file(path: &Path, place: &str, lossy: bool, emit: &mut dyn FnMut(Record)) {
    let place = place.to_owned();
    // A file's path is its id (or its records' FILE:LINE): a name that is not UTF-8 would
    // be shown with U+FFFD in place of its bytes, and two such files would share one id.
    if path.to_str().is_none() {
        // Named with its bytes escaped, so that each such file has its own line.
        let escaped = format!("{path:?}");
        return emit(Err(error(
            escaped.trim_matches('"'),
            "the path is not valid UTF-8, so it cannot be an exact id: rename the file".to_owned(),
        )));
    }
    let file = match File::open(path) {
        Ok(file) => file,
        Err(e) => return emit(Err(error(&place, format!("cannot open: {e}")))),
    };
    let mut reader = BufReader::new(file);
    if reader
        .fill_buf()
        .is_ok_and(|head| utf16_order(head).is_some())
    {
        // Read whole and transcoded: UTF-16 lines do not end at a byte.
        let mut bytes = Vec::new();
        if let Err(e) = reader.read_to_end(&mut bytes) {
            return emit(Err(error(&place, format!("cannot read: {e}"))));
        }
        return match utf16_to_utf8(&bytes, lossy) {
            Some(Ok(utf8)) => read_decoded(path, io::Cursor::new(utf8), &place, lossy, emit),
            Some(Err(reason)) => emit(Err(error(&place, reason))),
            None => unreachable!("a UTF-16 byte order mark was seen"),
        };
    }
    read_decoded(path, reader, &place, lossy, emit);
}

/// Reads the file `path` from `reader`, UTF-8 from here on.
fn read_decoded(
    path: &Path,
    mut reader: impl BufRead,
    place: &str,
    lossy: bool,
    emit: &mut dyn FnMut(Record),
) {
    let place = place.to_owned();
    if is_json_lines(path) {
        read_json_lines(reader, &place, lossy, emit);
    } else {
        let mut bytes = Vec::new();
        let read = reader.read_to_end(&mut bytes);
        strip_bom(&mut bytes);
        match read {
            Ok(_) if is_html(path) => emit(html_page(bytes, &place, lossy)),
            Ok(_) => emit(plain_text(bytes, &place, lossy)),
            Err(e) => emit(Err(error(&place, format!("cannot read: {e}")))),
        }
    }
}

/// Whether `head` starts with a UTF-16 byte order mark, and which: `Some(true)` for little
/// endian (what Windows editors call "Unicode"), `Some(false)` for big endian.
fn utf16_order(head: &[u8]) -> Option<bool> {
    match head {
        [0xFF, 0xFE, ..] => Some(true),
        [0xFE, 0xFF, ..] => Some(false),
        _ => None,
    }
}

/// `bytes` as UTF-8 when they start with a UTF-16 byte order mark (which is dropped); an
/// error naming the first unpaired surrogate, unless `lossy` replaces it with U+FFFD.
fn utf16_to_utf8(bytes: &[u8], lossy: bool) -> Option<Result<Vec<u8>, String>> {
    let little = utf16_order(bytes)?;
    let body = &bytes[2..];
    if body.len() % 2 == 1 && !lossy {
        return Some(Err(format!(
            "UTF-16 text of an odd number of bytes ({}): the last one is half a character",
            bytes.len()
        )));
    }
    let units = body.chunks_exact(2).map(|pair| {
        let pair = [pair[0], pair[1]];
        if little {
            u16::from_le_bytes(pair)
        } else {
            u16::from_be_bytes(pair)
        }
    });
    let mut text = String::with_capacity(body.len());
    for (at, decoded) in char::decode_utf16(units).enumerate() {
        match decoded {
            Ok(c) => text.push(c),
            Err(_) if lossy => text.push(char::REPLACEMENT_CHARACTER),
            Err(e) => {
                return Some(Err(format!(
                    "invalid UTF-16: unpaired surrogate {:04X} at byte {} (use --lossy-utf8 \
                     to replace it)",
                    e.unpaired_surrogate(),
                    2 + 2 * at
                )))
            }
        }
    }
    Some(Ok(text.into_bytes()))
}

/// Drops the UTF-8 byte order mark that editors on Windows put at the start of a file: it is
/// not part of the first record (and would make its JSON line malformed).
fn strip_bom(bytes: &mut Vec<u8>) {
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        bytes.drain(..3);
    }
}

fn error(place: &str, reason: String) -> RecordError {
    RecordError {
        place: place.to_owned(),
        reason,
    }
}

fn decode(bytes: Vec<u8>, lossy: bool) -> Result<String, String> {
    match String::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(e) if lossy => Ok(String::from_utf8_lossy(e.as_bytes()).into_owned()),
        Err(e) => Err(format!(
            "invalid UTF-8 at byte {} (use --lossy-utf8 to replace invalid bytes)",
            e.utf8_error().valid_up_to()
        )),
    }
}

fn plain_text(bytes: Vec<u8>, place: &str, lossy: bool) -> Record {
    let text = decode(bytes, lossy).map_err(|reason| error(place, reason))?;
    Ok(Document {
        id: place.to_owned(),
        place: place.to_owned(),
        text,
        title: None,
        url: None,
        tags: Vec::new(),
        from_stdin: false,
    })
}

/// An HTML page's title and main text: the text starts with the title, as
/// [`ExtractedPage::to_text`] puts it, so that `fingerprint` and `ingest` see the same text;
/// the title is also kept apart for display.
///
/// [`ExtractedPage::to_text`]: tantivy_dedup::html::ExtractedPage::to_text
fn html_page(bytes: Vec<u8>, place: &str, lossy: bool) -> Record {
    let html = decode(bytes, lossy).map_err(|reason| error(place, reason))?;
    let page = tantivy_dedup::html::extract(&html).map_err(|e| error(place, e.to_string()))?;
    Ok(Document {
        id: place.to_owned(),
        place: place.to_owned(),
        text: page.to_text(),
        title: page.title.clone(),
        url: None,
        tags: Vec::new(),
        from_stdin: false,
    })
}

pub fn read_json_lines(
    mut reader: impl BufRead,
    place: &str,
    lossy: bool,
    emit: &mut dyn FnMut(Record),
) {
    let mut number = 0usize;
    loop {
        let mut bytes = Vec::new();
        match reader.read_until(b'\n', &mut bytes) {
            Ok(0) => return,
            Ok(_) => {}
            Err(e) => {
                return emit(Err(error(
                    &format!("{place}:{}", number + 1),
                    format!("cannot read: {e}"),
                )));
            }
        }
        number += 1;
        if number == 1 {
            strip_bom(&mut bytes);
        }
        let here = format!("{place}:{number}");
        if bytes.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        emit(json_line(bytes, &here, lossy).map_err(|reason| error(&here, reason)));
    }
}

fn json_line(bytes: Vec<u8>, here: &str, lossy: bool) -> Result<Document, String> {
    let line = decode(bytes, lossy)?;
    // Without its line break, so that a syntax error's column is one of this line.
    let line = line.trim_end_matches(['\n', '\r']);
    let record: JsonLine = serde_json::from_str(line).map_err(|e| malformed(line, &e))?;
    let id = match record.id {
        None | Some(serde_json::Value::Null) => here.to_owned(),
        // An empty key would make every later empty-id line look "already indexed"
        // (the resume rule) and be dropped: refuse it (found by fuzzing).
        Some(serde_json::Value::String(id)) if id.is_empty() => {
            return Err("`id` is empty (leave it out to get FILE:LINE)".to_owned())
        }
        Some(serde_json::Value::String(id)) => id,
        // Integers only, and only those of 64 bits, which serde reads exactly: a larger one
        // or a fraction goes through a float, and two ids would become one.
        Some(serde_json::Value::Number(id)) if id.is_u64() || id.is_i64() => id.to_string(),
        Some(serde_json::Value::Number(id)) => {
            return Err(format!(
                "`id` {id} is not an integer of 64 bits, which cannot be kept exactly: write \
                 it as a string"
            ))
        }
        Some(other) => return Err(format!("`id` must be a string, not {other}")),
    };
    let text = record
        .text
        .or(record.body)
        .ok_or_else(|| "no `text` or `body` field".to_owned())?;
    Ok(Document {
        id,
        place: here.to_owned(),
        text,
        title: record.title,
        url: record.url,
        tags: record.tags,
        from_stdin: false,
    })
}

/// What is wrong with a line that is not a record: for valid JSON of the wrong shape, which
/// field has which type (serde's own message names the type it expected, not the field).
fn malformed(line: &str, error: &serde_json::Error) -> String {
    use serde_json::Value;
    let Ok(value) = serde_json::from_str::<Value>(line) else {
        return format!("malformed JSON line: {error}");
    };
    let Value::Object(fields) = &value else {
        return format!("not a JSON object: {}", abridged(&value));
    };
    let strings = ["text", "body", "title", "url"];
    for (name, value) in fields {
        let fits = match name.as_str() {
            name if strings.contains(&name) => value.is_string() || value.is_null(),
            "tags" => value
                .as_array()
                .is_some_and(|tags| tags.iter().all(Value::is_string)),
            _ => true,
        };
        if !fits {
            let expected = if name == "tags" {
                "a list of strings"
            } else {
                "a string"
            };
            return format!("`{name}` must be {expected}, not {}", abridged(value));
        }
    }
    format!("malformed JSON line: {error}")
}

/// `value` as JSON, cut after 40 characters.
fn abridged(value: &serde_json::Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(40) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8]) -> Vec<Result<(String, String), String>> {
        let mut out = Vec::new();
        read_json_lines(
            io::Cursor::new(input.to_vec()),
            "f.jsonl",
            false,
            &mut |r| {
                out.push(
                    r.map(|d| (d.id, d.text))
                        .map_err(|e| format!("{}: {}", e.place, e.reason)),
                );
            },
        );
        out
    }

    #[test]
    fn html_extensions() {
        for html in ["a.html", "a.HTM", "dir/a.xhtml"] {
            assert!(is_html(Path::new(html)), "{html}");
        }
        for other in ["a.txt", "a.jsonl", "html", "a.html.txt"] {
            assert!(!is_html(Path::new(other)), "{other}");
        }
    }

    #[test]
    fn json_lines_with_and_without_ids() {
        let got =
            lines(b"{\"id\":\"a\",\"text\":\"x\"}\n\n{\"body\":\"y\"}\n{\"id\":7,\"text\":\"z\"}");
        assert_eq!(
            got,
            vec![
                Ok(("a".into(), "x".into())),
                Ok(("f.jsonl:3".into(), "y".into())),
                Ok(("7".into(), "z".into()))
            ]
        );
    }

    #[test]
    fn utf16_with_a_byte_order_mark_is_transcoded() {
        let text = "héllo 世界 \u{1F600}";
        let le: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        let be: Vec<u8> = [0xFE, 0xFF]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_be_bytes))
            .collect();
        for bytes in [le, be] {
            assert_eq!(
                utf16_to_utf8(&bytes, false),
                Some(Ok(text.as_bytes().to_vec()))
            );
        }
        assert_eq!(utf16_to_utf8(b"plain", false), None);
        // An unpaired surrogate: an error, or U+FFFD when lossy.
        let broken = [0xFF, 0xFE, b'a', 0, 0x00, 0xD8, b'b', 0];
        let error = utf16_to_utf8(&broken, false).unwrap().unwrap_err();
        assert!(
            error.contains("unpaired surrogate D800 at byte 4"),
            "{error}"
        );
        let lossy = utf16_to_utf8(&broken, true).unwrap().unwrap();
        assert_eq!(String::from_utf8(lossy).unwrap(), "a\u{FFFD}b");
        assert!(utf16_to_utf8(&[0xFF, 0xFE, b'a'], false).unwrap().is_err());
    }

    /// Numbers beyond 64 bits go through a float in serde: 2^64 and 2^64 + 1 read the same.
    /// They, and fractions, are error lines; integers of 64 bits keep every digit.
    #[test]
    fn numeric_ids_are_exact_or_errors() {
        let got = lines(
            b"{\"id\":18446744073709551615,\"text\":\"a\"}\n\
              {\"id\":-9223372036854775808,\"text\":\"b\"}\n\
              {\"id\":18446744073709551616,\"text\":\"c\"}\n\
              {\"id\":18446744073709551617,\"text\":\"d\"}\n\
              {\"id\":7.5,\"text\":\"e\"}\n",
        );
        assert_eq!(got[0], Ok(("18446744073709551615".into(), "a".into())));
        assert_eq!(got[1], Ok(("-9223372036854775808".into(), "b".into())));
        for (at, line) in got.iter().enumerate().skip(2) {
            let error = line.as_ref().unwrap_err();
            assert!(error.contains("not an integer of 64 bits"), "{at}: {error}");
            assert!(error.starts_with(&format!("f.jsonl:{}", at + 1)), "{error}");
        }
    }

    #[test]
    fn bad_lines_are_reported_with_their_place_and_do_not_stop_the_file() {
        let got = lines(b"{\"id\":\"a\",\"text\":\"x\"\n[1,2]\n{\"id\":\"b\"}\n{\"id\":\"c\",\"text\":\"\xff\"}\n{\"id\":\"d\",\"text\":\"ok\"}\n");
        assert!(got[0]
            .as_ref()
            .unwrap_err()
            .starts_with("f.jsonl:1: malformed JSON line"));
        assert!(got[1]
            .as_ref()
            .unwrap_err()
            .starts_with("f.jsonl:2: not a JSON object"));
        assert!(got[2].as_ref().unwrap_err().contains("no `text` or `body`"));
        assert!(got[3].as_ref().unwrap_err().contains("invalid UTF-8"));
        assert_eq!(got[4], Ok(("d".into(), "ok".into())));
    }

    #[test]
    fn a_field_of_the_wrong_type_is_named() {
        let got = lines(b"{\"id\":\"a\",\"text\":\"x\",\"tags\":\"en\"}\n{\"id\":\"b\",\"text\":\"y\",\"title\":5}\n[1,2,3]\n{\"id\":\"c\",\"text\":\"unterminated\n");
        assert_eq!(
            got[0],
            Err("f.jsonl:1: `tags` must be a list of strings, not \"en\"".to_owned())
        );
        assert_eq!(
            got[1],
            Err("f.jsonl:2: `title` must be a string, not 5".to_owned())
        );
        assert_eq!(
            got[2],
            Err("f.jsonl:3: not a JSON object: [1,2,3]".to_owned())
        );
        let unterminated = got[3].as_ref().unwrap_err();
        assert!(unterminated.contains("line 1 column"), "{unterminated}");
    }

    #[test]
    fn a_byte_order_mark_does_not_cost_the_first_record() {
        let got =
            lines(b"\xEF\xBB\xBF{\"id\":\"a\",\"text\":\"x\"}\n{\"id\":\"b\",\"text\":\"y\"}\n");
        assert_eq!(got[0], Ok(("a".into(), "x".into())));
        assert_eq!(got[1], Ok(("b".into(), "y".into())));
    }

    /// Fuzzing regression (fuzz/seeds/json_lines/empty-id): an empty `id` was accepted, and
    /// every later empty-id line of a run was then skipped as "already indexed".
    #[test]
    fn an_empty_id_is_an_error_not_a_key() {
        let got = lines(b"{\"id\":\"\",\"text\":\"x\"}\n{\"id\":\"\",\"text\":\"y\"}\n");
        assert_eq!(got.len(), 2);
        for (line, record) in got.iter().enumerate() {
            let reason = record.as_ref().unwrap_err();
            assert!(
                reason.starts_with(&format!("f.jsonl:{}: `id` is empty", line + 1)),
                "{reason}"
            );
        }
    }
}
