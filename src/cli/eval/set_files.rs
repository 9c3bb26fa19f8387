//! Reading an evaluation set from its directory (`docs.jsonl`, `pairs.jsonl`, `set.json`;
//! the format is in docs/DATA.md), reporting each bad line with its file and line number
//! and going on without it.

use std::io::BufRead;
use std::path::Path;

use anyhow::Context;
use serde::Deserialize;
use tantivy_dedup::eval::{EvalSet, EvalSetBuilder, Unlisted};

#[derive(Deserialize)]
struct DocLine {
    id: String,
    #[serde(alias = "body")]
    text: String,
    #[serde(default)]
    group: Option<String>,
    #[serde(default)]
    meta: Vec<String>,
}

#[derive(Deserialize)]
struct PairLine {
    a: String,
    b: String,
    label: Option<bool>,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    rate: Option<f64>,
}

#[derive(Deserialize)]
struct SetLine {
    #[serde(default)]
    name: Option<String>,
    #[serde(default = "default_unlisted")]
    unlisted: Unlisted,
}

fn default_unlisted() -> Unlisted {
    Unlisted::Negative
}

/// A set read from `dir`, and the number of lines left out as errors (each printed to
/// standard error as `FILE:LINE: reason`).
///
/// # Errors
/// When `docs.jsonl` or `set.json` cannot be read or `set.json` is malformed: without them
/// nothing can be counted. A missing `pairs.jsonl` is an empty list (labels by group).
pub fn read_set(dir: &Path) -> anyhow::Result<(EvalSet, usize)> {
    let (name, header) = read_header(dir)?;
    let mut builder = EvalSetBuilder::new(name, header.unlisted);
    let mut errors = 0;
    let docs = dir.join("docs.jsonl");
    for_each_line(&docs, true, &mut errors, |line| {
        let doc: DocLine = serde_json::from_str(line)?;
        builder.doc(doc.id, doc.text, doc.group.as_deref(), doc.meta)?;
        Ok(())
    })?;
    let pairs = dir.join("pairs.jsonl");
    for_each_line(&pairs, false, &mut errors, |line| {
        let pair: PairLine = serde_json::from_str(line)?;
        builder.pair(
            &pair.a,
            &pair.b,
            pair.label,
            pair.kind.as_deref(),
            pair.rate,
        )?;
        Ok(())
    })?;
    Ok((builder.build(), errors))
}

/// Calls `parse` on every non-blank line of `path`; a line that is not UTF-8 or that
/// `parse` refuses is reported and counted in `errors`.
fn for_each_line(
    path: &Path,
    required: bool,
    errors: &mut usize,
    mut parse: impl FnMut(&str) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if !required && e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let mut reader = std::io::BufReader::new(file);
    let mut bytes = Vec::new();
    for number in 1.. {
        bytes.clear();
        let read = reader
            .read_until(b'\n', &mut bytes)
            .with_context(|| format!("cannot read {}", path.display()))?;
        if read == 0 {
            break;
        }
        let outcome = std::str::from_utf8(&bytes)
            .map_err(anyhow::Error::from)
            .and_then(|line| {
                if line.trim().is_empty() {
                    Ok(())
                } else {
                    parse(line)
                }
            });
        if let Err(e) = outcome {
            note!("{}:{number}: {e:#}", path.display());
            *errors += 1;
        }
    }
    Ok(())
}

/// The files of a set that `eval` reads, in its directory.
pub const SET_FILES: [&str; 3] = ["set.json", "docs.jsonl", "pairs.jsonl"];

/// The name of the set in `dir`: its `set.json`'s `name`, else the directory's name.
///
/// # Errors
/// When `set.json` exists and cannot be read or is malformed.
pub fn set_name(dir: &Path) -> anyhow::Result<String> {
    Ok(read_header(dir)?.0)
}

/// The set's name and its `set.json` (the defaults when there is none).
fn read_header(dir: &Path) -> anyhow::Result<(String, SetLine)> {
    let set_file = dir.join("set.json");
    let header: SetLine = match std::fs::read_to_string(&set_file) {
        Ok(text) => serde_json::from_str(&text)
            .with_context(|| format!("{}: not a set description", set_file.display()))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => SetLine {
            name: None,
            unlisted: default_unlisted(),
        },
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", set_file.display())),
    };
    let name = header.name.clone().unwrap_or_else(|| {
        dir.file_name()
            .map_or_else(|| "set".to_owned(), |n| n.to_string_lossy().into_owned())
    });
    Ok((name, header))
}
