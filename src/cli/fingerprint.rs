//! `tantivy-dedup fingerprint`: one JSON line per document, no index involved.

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::Context;
use clap::Args;
use serde::Serialize;
use tantivy_dedup::fingerprint::SimHasher;

use crate::cli::input::{read_inputs, read_raw_inputs, ReadOptions, Record, Unnamed};
use crate::cli::options::{FingerprintOptions, InputOptions};
use crate::cli::ordered::{map_ordered, Windows};

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
/// One JSON line per document on standard output, in input order:
/// {"id":..,"fingerprint":"<16 hex>"}; a document with no words gets "fingerprint":null; a
/// record that cannot be read gets {"id":"FILE:LINE","error":".."} and makes the exit code
/// 1.
///
/// The records are parsed (JSON lines), extracted (HTML pages) and fingerprinted on
/// --threads threads, a window of records at a time, and printed in input order all the
/// same: the output does not depend on the number of threads.
#[derive(Args, Debug)]
pub struct FingerprintCommand {
    /// JSON-lines files (.jsonl, .ndjson, .json: "id", "text" or "body"), HTML pages (.html,
    /// .htm, .xhtml: title and main text, menus and footers removed), plain-text files,
    /// folders of these (recursively), or - for standard input. None: standard input.
    inputs: Vec<PathBuf>,
    /// Threads to parse and fingerprint records on [default: one per core]; with 1, each
    /// record is read, fingerprinted and printed in turn on one thread. The output is the
    /// same for any number.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    threads: Option<u32>,
    #[command(flatten)]
    input: InputOptions,
    #[command(flatten)]
    options: FingerprintOptions,
}

/// The output of one record: its line, and for an error its note for standard error.
struct Printed {
    line: Vec<u8>,
    error: Option<String>,
}

impl FingerprintCommand {
    /// Runs the command; `Ok(false)` when some record was an error.
    pub fn run(&self) -> anyhow::Result<bool> {
        let hasher =
            SimHasher::new(&self.options.config()).context("invalid fingerprint options")?;
        // 0: rayon's default, one thread per core (or RAYON_NUM_THREADS).
        let threads = self.threads.map_or(0, |n| n as usize);
        let pool = match threads {
            1 => None,
            _ => Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .thread_name(|at| format!("fingerprint {at}"))
                    .build()
                    .context("cannot start the threads")?,
            ),
        };
        // Set when standard output fails: reading stops at the next record, as there is no
        // one to print it for.
        let stop = Arc::new(AtomicBool::new(false));
        let options = self.input.read_options(Some(Arc::clone(&stop)));
        // Not locked once for the run: the thread that prints may be one of the pool's.
        let mut out = std::io::BufWriter::new(std::io::stdout());
        let mut errors = 0usize;
        let mut result = Ok(());
        let mut print = |printed: Printed| {
            if result.is_err() {
                return;
            }
            if let Some(note) = &printed.error {
                errors += 1;
                note!("{note}");
            }
            result = out.write_all(&printed.line);
            if result.is_err() {
                stop.store(true, Ordering::SeqCst);
            }
        };
        // Without inputs, standard input: at a terminal too, where a person types or pastes
        // the documents.
        let stdin = [PathBuf::from("-")];
        let inputs = match (self.inputs.is_empty(), Unnamed::of_stdin()) {
            (false, _) => &self.inputs[..],
            (true, Unnamed::Stdin | Unnamed::Terminal) => &stdin[..],
        };
        // A pool of one thread (RAYON_NUM_THREADS=1, one core) reads as --threads 1 does.
        match pool.filter(|pool| pool.current_num_threads() > 1) {
            Some(pool) => print_parallel(&pool, inputs, &options, &hasher, &mut print),
            None => read_inputs(inputs, &options, &mut |record| {
                print(printed(record, &hasher));
            }),
        }
        result.context("cannot write to standard output")?;
        out.flush().context("cannot write to standard output")?;
        Ok(errors == 0)
    }
}

/// Reads `inputs`, parses and fingerprints their records, and prints them in input order,
/// all on `pool`'s threads (see [`map_ordered`]).
fn print_parallel(
    pool: &rayon::ThreadPool,
    inputs: &[PathBuf],
    options: &ReadOptions,
    hasher: &SimHasher,
    print: &mut (dyn FnMut(Printed) + Send),
) {
    // The records are read raw and parsed where they are fingerprinted: parsing JSON is
    // about a tenth of the work, splitting lines a twentieth, and all of it done by the
    // thread that reads would bound the speedup on two cores at about 1.7.
    map_ordered(
        pool,
        Windows::default(),
        |push| read_raw_inputs(inputs, options, push),
        |raw| raw.size(),
        |raw| printed(raw.take(), hasher),
        print,
    );
}

/// The output of `record`: its fingerprint or its error.
fn printed(record: Record, hasher: &SimHasher) -> Printed {
    let (line, error) = match &record {
        Ok(doc) => (
            Line {
                id: &doc.id,
                fingerprint: Some(hasher.fingerprint(&doc.text).map(|f| f.to_string())),
                error: None,
            },
            None,
        ),
        Err(e) => (
            Line {
                id: &e.place,
                fingerprint: None,
                error: Some(&e.reason),
            },
            Some(format!("error: {}: {}", e.place, e.reason)),
        ),
    };
    let mut bytes = serde_json::to_vec(&line).expect("a line of strings is JSON");
    bytes.push(b'\n');
    Printed { line: bytes, error }
}
