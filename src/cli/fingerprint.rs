//! `tantivy-dedup fingerprint`: one JSON line per document, no index involved.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use serde::Serialize;
use tantivy_dedup::SimHasher;

use crate::cli::input::read_inputs;
use crate::cli::options::{FingerprintOptions, InputOptions};

/// One line of output: `fingerprint` (`null` when the text has no words) or `error`.
#[derive(Serialize)]
struct Line<'a> {
    id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    fingerprint: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
}

/// Print the fingerprint of every document.
///
/// One JSON line per document on standard output: {"id":..,"fingerprint":"<16 hex>"}; a
/// document with no words gets "fingerprint":null; a record that cannot be read gets
/// {"id":"FILE:LINE","error":".."} and makes the exit code 1.
#[derive(Args, Debug)]
pub struct FingerprintCommand {
    /// JSON-lines files (.jsonl, .ndjson, .json: "id", "text" or "body"), HTML pages (.html,
    /// .htm, .xhtml: title and main text, menus and footers removed), plain-text files,
    /// folders of these (recursively), or - for standard input. None: standard input.
    inputs: Vec<PathBuf>,
    #[command(flatten)]
    input: InputOptions,
    #[command(flatten)]
    options: FingerprintOptions,
}

impl FingerprintCommand {
    /// Runs the command; `Ok(false)` when some record was an error.
    pub fn run(&self) -> anyhow::Result<bool> {
        let hasher =
            SimHasher::new(&self.options.config()).context("invalid fingerprint options")?;
        let stdout = std::io::stdout();
        let mut out = std::io::BufWriter::new(stdout.lock());
        let mut errors = 0usize;
        let mut result = Ok(());
        let stdin = [PathBuf::from("-")];
        let inputs = if self.inputs.is_empty() {
            &stdin[..]
        } else {
            &self.inputs
        };
        read_inputs(inputs, &self.input.read_options(None), &mut |record| {
            if result.is_err() {
                return;
            }
            let line = match &record {
                Ok(doc) => Line {
                    id: &doc.id,
                    fingerprint: Some(hasher.fingerprint(&doc.text).map(|f| f.to_string())),
                    error: None,
                },
                Err(e) => {
                    errors += 1;
                    note!("error: {}: {}", e.place, e.reason);
                    Line {
                        id: &e.place,
                        fingerprint: None,
                        error: Some(&e.reason),
                    }
                }
            };
            result = serde_json::to_writer(&mut out, &line)
                .map_err(std::io::Error::from)
                .and_then(|()| writeln!(out));
        });
        result.context("cannot write to standard output")?;
        out.flush().context("cannot write to standard output")?;
        Ok(errors == 0)
    }
}
