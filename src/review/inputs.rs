//! The texts of records the index does not hold (rejected or replaced at ingest), read
//! again from the ingest's JSON-lines inputs: the files are scanned once for where each
//! wanted record starts, and a record's line is read when its decision is shown, so that
//! no more than a page's texts are in memory.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufRead, BufReader, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{Error, Result};

/// Where the wanted records are in the input files.
#[derive(Debug, Default)]
pub(crate) struct InputTexts {
    files: Vec<PathBuf>,
    /// By id: the file's place in `files` and the byte offset of the record's line.
    at: HashMap<String, (usize, u64)>,
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
        };
        if wanted.is_empty() {
            return Ok(texts);
        }
        for (n, path) in files.iter().enumerate() {
            let mut reader = BufReader::new(File::open(path).map_err(io_error(path))?);
            let mut line = Vec::new();
            let mut offset = 0u64;
            loop {
                line.clear();
                let read = reader
                    .read_until(b'\n', &mut line)
                    .map_err(io_error(path))?;
                if read == 0 {
                    break;
                }
                if let Ok(record) = serde_json::from_slice::<InputRecord>(&line) {
                    if let Some(id) = record.id().filter(|id| wanted.contains(id.as_str())) {
                        texts.at.entry(id).or_insert((n, offset));
                    }
                }
                offset += read as u64;
            }
        }
        Ok(texts)
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
        BufReader::new(file)
            .read_until(b'\n', &mut line)
            .map_err(io_error(path))?;
        Ok(serde_json::from_slice::<InputRecord>(&line)
            .ok()
            .and_then(|record| record.text.or(record.body)))
    }
}
