//! Files and folders: a walk over the inputs named on the command line, each file read by
//! its extension.

use std::collections::HashSet;
use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};

use tantivy_dedup::html::ExtractionMethod;

use super::bounded::{read_whole, size, Piped, Whole};
use super::encoding::{decode, decode_borrowed, strip_bom, utf16_order, utf16_to_utf8};
use super::json_lines::read_raw_json_lines;
use super::stream::read_stream;
use super::{error, Document, RawRecord, ReadOptions, Record};

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

/// A walk over the inputs: its options, and the folders read so far (canonical paths).
pub(super) struct Walk<'a> {
    pub(super) options: &'a ReadOptions,
    pub(super) folders_read: HashSet<PathBuf>,
}

impl Walk<'_> {
    /// Reads the file or folder `path`; `walked` when a folder walk found it rather than the
    /// command line naming it.
    pub(super) fn read_path(&mut self, path: &Path, walked: bool, emit: &mut dyn FnMut(RawRecord)) {
        if self.options.stopped() {
            return;
        }
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
                    return emit(
                        error(
                            &place,
                            "not a regular file (a FIFO, socket or device): not read".to_owned(),
                        )
                        .into(),
                    )
                }
                Err(e) => return emit(error(&place, format!("cannot read: {e}")).into()),
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
        read_file(path, &place, self.options, emit);
    }

    fn read_folder(
        &mut self,
        path: &Path,
        place: &str,
        walked: bool,
        emit: &mut dyn FnMut(RawRecord),
    ) {
        if path.join("meta.json").is_file() && path.join(".managed.json").is_file() {
            // Named on the command line, an index is a mistake; met in a walk (the tool's
            // own index inside the corpus folder), it is not a record at all.
            if walked {
                note!("skipped {place}: a tantivy index, not documents");
                return;
            }
            return emit(error(place, "a tantivy index, not documents".to_owned()).into());
        }
        let mut entries: Vec<PathBuf> = match std::fs::read_dir(path) {
            // Hidden files and folders (`.git`, editors' backups, an index's lock files) are
            // not documents; a file named on the command line is read all the same.
            Ok(entries) => entries
                .filter_map(|e| e.ok())
                .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                .map(|e| e.path())
                .collect(),
            Err(e) => return emit(error(place, format!("cannot list folder: {e}")).into()),
        };
        entries.sort();
        for entry in entries {
            self.read_path(&entry, true, emit);
        }
    }
}

/// Reads the file `path`: a regular file directly, anything else (a pipe named on the
/// command line) on a thread of its own, so that an idle one does not hold up a stop.
fn read_file(path: &Path, place: &str, options: &ReadOptions, emit: &mut dyn FnMut(RawRecord)) {
    // A file's path is its id (or its records' FILE:LINE): a name that is not UTF-8 would
    // be shown with U+FFFD in place of its bytes, and two such files would share one id.
    if path.to_str().is_none() {
        // Named with its bytes escaped, so that each such file has its own line.
        let escaped = format!("{path:?}");
        return emit(
            error(
                escaped.trim_matches('"'),
                "the path is not valid UTF-8, so it cannot be an exact id: rename the file"
                    .to_owned(),
            )
            .into(),
        );
    }
    let file = match File::open(path) {
        Ok(file) => file,
        Err(e) => return emit(error(place, format!("cannot open: {e}")).into()),
    };
    let regular = file.metadata().map(|meta| (meta.is_file(), meta.len()));
    match regular {
        Ok((true, length)) => {
            // One record a file, except for JSON lines: known too large before reading.
            if !is_json_lines(path) && length > options.max_record_bytes as u64 {
                return emit(too_large(place, Some(length), options).into());
            }
            // 64 KiB, as for pipes: a JSON line rarely spans two reads, and is then copied
            // out of the buffer at once (8 KiB split a third of them, their copies growing).
            let reader = BufReader::with_capacity(64 << 10, file);
            read_regular(path, reader, place, options, emit);
        }
        _ => match Piped::spawn(file, options.stop.clone()) {
            Ok(piped) => {
                let reader = BufReader::with_capacity(64 << 10, piped);
                if is_json_lines(path) || is_html(path) {
                    read_regular(path, reader, place, options, emit);
                } else {
                    // A pipe says nothing by its name (`/dev/fd/63`): read as standard
                    // input is.
                    read_stream(reader, place, options, emit);
                }
            }
            Err(e) => emit(error(place, format!("cannot read: {e}")).into()),
        },
    }
}

/// The error line of a record larger than the limit (`length`, when known).
pub(super) fn too_large(
    place: &str,
    length: Option<u64>,
    options: &ReadOptions,
) -> super::RecordError {
    let length = match length {
        Some(length) => format!("{length} bytes"),
        None => "larger".to_owned(),
    };
    error(
        place,
        format!(
            "{length}, more than a record may have ({}): not read (--max-record-mb sets the \
             limit)",
            size(options.max_record_bytes)
        ),
    )
}

/// Reads the file `path` from `reader` by its extension.
fn read_regular(
    path: &Path,
    mut reader: impl BufRead,
    place: &str,
    options: &ReadOptions,
    emit: &mut dyn FnMut(RawRecord),
) {
    if reader
        .fill_buf()
        .is_ok_and(|head| utf16_order(head).is_some())
    {
        // Read whole and transcoded: UTF-16 lines do not end at a byte.
        return match read_whole(reader, options.max_record_bytes) {
            Ok(Whole::Read(bytes)) => match utf16_to_utf8(&bytes, options.lossy) {
                Some(Ok(utf8)) => read_decoded(path, io::Cursor::new(utf8), place, options, emit),
                Some(Err(reason)) => emit(error(place, reason).into()),
                None => unreachable!("a UTF-16 byte order mark was seen"),
            },
            Ok(Whole::TooLarge) => emit(too_large(place, None, options).into()),
            Err(e) => emit(error(place, format!("cannot read: {e}")).into()),
        };
    }
    read_decoded(path, reader, place, options, emit);
}

/// Reads the file `path` from `reader`, UTF-8 from here on.
fn read_decoded(
    path: &Path,
    reader: impl BufRead,
    place: &str,
    options: &ReadOptions,
    emit: &mut dyn FnMut(RawRecord),
) {
    if is_json_lines(path) {
        return read_raw_json_lines(reader, place, options, emit);
    }
    match read_whole(reader, options.max_record_bytes) {
        Ok(Whole::Read(mut bytes)) => {
            strip_bom(&mut bytes);
            if is_html(path) {
                emit(RawRecord::html(bytes, place, options.lossy));
            } else {
                emit(plain_text(bytes, place, options.lossy).into());
            }
        }
        Ok(Whole::TooLarge) => emit(too_large(place, None, options).into()),
        Err(_) if options.stopped() => {}
        Err(e) => emit(error(place, format!("cannot read: {e}")).into()),
    }
}

/// A plain-text document, its place its id.
pub(super) fn plain_text(bytes: Vec<u8>, place: &str, lossy: bool) -> Record {
    let text = decode(bytes, lossy).map_err(|reason| error(place, reason))?;
    Ok(Document {
        id: place.to_owned(),
        place: place.to_owned(),
        text,
        title: None,
        url: None,
        tags: Vec::new(),
        from_stdin: false,
        replaced: Vec::new(),
        replaced_texts: Vec::new(),
    })
}

/// An HTML page's title and main text: the text starts with the title, as
/// [`ExtractedPage::to_text`] puts it, so that `fingerprint` and `ingest` see the same text;
/// the title is also kept apart for display.
///
/// [`ExtractedPage::to_text`]: tantivy_dedup::html::ExtractedPage::to_text
pub(super) fn html_page(bytes: &[u8], place: &str, lossy: bool) -> Record {
    let html = decode_borrowed(bytes, lossy).map_err(|reason| error(place, reason))?;
    let page = tantivy_dedup::html::extract(&html).map_err(|e| error(place, e.to_string()))?;
    if page.method == ExtractionMethod::TagsStripped {
        note!(
            "{place}: nested too deep or too many attributes for the HTML parser's bounds: \
             its text read with the tags stripped (no main-content extraction)"
        );
    }
    Ok(Document {
        id: place.to_owned(),
        place: place.to_owned(),
        text: page.to_text(),
        title: page.title.clone(),
        url: None,
        tags: Vec::new(),
        from_stdin: false,
        replaced: Vec::new(),
        replaced_texts: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_extensions() {
        for html in ["a.html", "a.HTM", "dir/a.xhtml"] {
            assert!(is_html(Path::new(html)), "{html}");
        }
        for other in ["a.txt", "a.jsonl", "html", "a.html.txt"] {
            assert!(!is_html(Path::new(other)), "{other}");
        }
    }
}
