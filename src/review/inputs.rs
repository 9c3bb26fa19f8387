//! The texts of records the index does not hold (rejected or replaced at ingest), read
//! again from the ingest's JSON-lines inputs: the files are scanned once for where each
//! wanted record starts, and a record's line is read when its decision is shown, so that
//! no more than a page's texts are in memory.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufReader, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::bounded_lines::{read_line, Line, MAX_LINE_BYTES};
use crate::error::{Error, Result};

/// Where the wanted records are in the input files.
#[derive(Debug, Default)]
pub(crate) struct InputTexts {
    files: Vec<PathBuf>,
    /// By id: the file's place in `files` and the byte offset of the record's line.
    at: HashMap<String, (usize, u64)>,
    /// Lines of the files that are no JSON records (invalid UTF-8 or JSON, or over
    /// [`MAX_LINE_BYTES`], which ends the scan of its file), blank lines aside.
    unreadable: usize,
}

/// The fields of an input record the review reads.
#[derive(Deserialize)]
struct InputRecord {
    id: Option<serde_json::Value>,
    text: Option<String>,
    body: Option<String>,
}

impl InputRecord {
    fn id(&self) -> Option<String> {
        match self.id.as_ref()? {
            serde_json::Value::String(id) => Some(id.clone()),
            serde_json::Value::Number(n) => Some(n.to_string()),
            _ => None,
        }
    }
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_owned(),
        source,
    }
}

impl InputTexts {
    /// Finds the records of `wanted` ids in the JSON-lines `files` (the first record of an
    /// id wins, as `ingest` keeps the first; lines that are not records are skipped).
    ///
    /// # Errors
    /// [`Error::Io`] when a file cannot be read.
    pub(crate) fn scan(files: &[PathBuf], wanted: &HashSet<&str>) -> Result<InputTexts> {
        let mut texts = InputTexts {
            files: files.to_vec(),
            at: HashMap::new(),
            unreadable: 0,
        };
        if wanted.is_empty() {
            return Ok(texts);
        }
        for (n, path) in files.iter().enumerate() {
            let mut reader = BufReader::new(File::open(path).map_err(io_error(path))?);
            let mut line = Vec::new();
            let mut offset = 0u64;
            loop {
                let read = match read_line(&mut reader, MAX_LINE_BYTES, &mut line) {
                    Ok(Line::End) => break,
                    Ok(Line::Read(read)) => read,
                    // No end to skip to, maybe: the rest of the file is left unread.
                    Ok(Line::TooLong) => {
                        texts.unreadable += 1;
                        break;
                    }
                    Err(e) => return Err(io_error(path)(e)),
                };
                match serde_json::from_slice::<InputRecord>(&line) {
                    Ok(record) => {
                        if let Some(id) = record.id().filter(|id| wanted.contains(id.as_str())) {
                            texts.at.entry(id).or_insert((n, offset));
                        }
                    }
                    Err(_) if line.trim_ascii().is_empty() => {}
                    Err(_) => texts.unreadable += 1,
                }
                offset += read;
            }
        }
        Ok(texts)
    }

    /// How many of the records wanted the files hold.
    pub(crate) fn found(&self) -> usize {
        self.at.len()
    }

    /// Lines of the files that are no JSON records (invalid UTF-8 or JSON, or too long).
    pub(crate) fn unreadable(&self) -> usize {
        self.unreadable
    }

    /// The text of the record `id`, if the inputs hold it.
    ///
    /// # Errors
    /// [`Error::Io`] when its file cannot be read again.
    pub(crate) fn text_of(&self, id: &str) -> Result<Option<String>> {
        let Some(&(file, offset)) = self.at.get(id) else {
            return Ok(None);
        };
        let path = &self.files[file];
        let mut file = File::open(path).map_err(io_error(path))?;
        file.seek(SeekFrom::Start(offset)).map_err(io_error(path))?;
        let mut line = Vec::new();
        // The same bound as the scan: the file may have changed since.
        read_line(&mut BufReader::new(file), MAX_LINE_BYTES, &mut line).map_err(io_error(path))?;
        Ok(serde_json::from_slice::<InputRecord>(&line)
            .ok()
            .and_then(|record| record.text.or(record.body)))
    }
}
