//! Reading documents: JSON lines, plain-text files, HTML pages, folders of these, standard
//! input or pipes.
//!
//! Every record read ends as a document or as an error that says where it was, so that one
//! bad line never stops a batch. Memory is bounded: a record larger than
//! [`ReadOptions::max_record_bytes`] is an error line, read no further than needed to skip
//! it.

mod bounded;
mod encoding;
mod json_lines;
mod raw;
mod stream;
mod unnamed;
mod walk;

use std::collections::HashSet;
use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tantivy_dedup::corpus::CorpusRecord;

pub use json_lines::read_json_lines;
pub use raw::RawRecord;
pub use unnamed::Unnamed;

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
    /// The records of the documents it replaced (`dedup_replaced`), read from a source
    /// index made by this tool; none from other inputs.
    pub replaced: Vec<String>,
    /// The texts of those records the source kept (`dedup_replaced_text`), each with its
    /// record: a document of the new index gives them back when it changes.
    pub replaced_texts: Vec<(String, CorpusRecord)>,
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

/// A record as the readers' tests compare it: `(id, text)`, or `"place: reason"`.
#[cfg(test)]
fn outline(record: Record) -> Result<(String, String), String> {
    record
        .map(|d| (d.id, d.text))
        .map_err(|e| format!("{}: {}", e.place, e.reason))
}

/// How standard input (and a pipe named without an extension) is read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StreamFormat {
    /// JSON lines when the first non-blank byte is `{`, else one plain-text document (which
    /// is an error when one of its later lines is a JSON record); no record when the stream
    /// has no byte at all.
    #[default]
    Auto,
    /// JSON lines, every line a record or an error line.
    JsonLines,
    /// One plain-text document.
    Text,
}

/// The largest record read by default: 16 MiB (a JSON line, a text or HTML file, standard
/// input read as one document).
pub const DEFAULT_MAX_RECORD_BYTES: usize = 16 << 20;

/// How inputs are read.
#[derive(Clone, Debug)]
pub struct ReadOptions {
    /// Replace invalid UTF-8 (and unpaired UTF-16 surrogates) with U+FFFD.
    pub lossy: bool,
    /// Follow symbolic links met in folders (each folder is read once: loops are cut).
    pub follow_links: bool,
    /// The largest record: a larger one is an error line.
    pub max_record_bytes: usize,
    /// How standard input and pipes without an extension are read.
    pub stream_format: StreamFormat,
    /// Set when the run is stopping (Ctrl-C): reading ends at the next record, even on an
    /// idle pipe.
    pub stop: Option<Arc<AtomicBool>>,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            lossy: false,
            follow_links: false,
            max_record_bytes: DEFAULT_MAX_RECORD_BYTES,
            stream_format: StreamFormat::Auto,
            stop: None,
        }
    }
}

impl ReadOptions {
    /// True once the run is stopping.
    pub fn stopped(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|stop| stop.load(Ordering::SeqCst))
    }
}

/// Calls `emit` with every record of `inputs`, in order, as they are read (a pipe is
/// streamed: records come as its lines do); reading ends early when `options` says the run
/// is stopping.
///
/// Folders are walked recursively in name order, without hidden entries, and a tantivy index
/// folder met there is skipped with a note (one named on the command line is an error). A
/// walk reads regular files only (a FIFO, socket or device met there is an error line, never
/// read) and skips symbolic links with a note unless `follow_links`, which reads every
/// folder once (a link back to one already read is skipped with a note). Anything named on
/// the command line is read as it is (a pipe such as `<(zcat corpus.gz)` too); a byte order
/// mark is skipped; UTF-16 with one is transcoded; `.html`, `.htm` and `.xhtml` files go
/// through main-content extraction. `-` (and a pipe without an extension) is read as
/// [`ReadOptions::stream_format`] says.
pub fn read_inputs(inputs: &[PathBuf], options: &ReadOptions, emit: &mut dyn FnMut(Record)) {
    read_raw_inputs(inputs, options, &mut |raw| emit(raw.parse()));
}

/// [`read_inputs`] with the costly last step of each record, parsing its JSON line or
/// extracting its HTML page's text, left to the caller ([`RawRecord::parse`]): reading is
/// then little more than splitting lines, and the records can be finished on other
/// threads. The records are those of [`read_inputs`], in the same order.
pub fn read_raw_inputs(inputs: &[PathBuf], options: &ReadOptions, emit: &mut dyn FnMut(RawRecord)) {
    let mut walk = walk::Walk {
        options,
        folders_read: HashSet::new(),
    };
    for input in inputs {
        if options.stopped() {
            return;
        }
        if input.as_os_str() == "-" {
            stream::read_stdin(options, emit);
        } else {
            walk.read_path(input, false, emit);
        }
    }
}

/// The sample corpus shipped in the repository (`samples/corpus.jsonl`), built into the
/// binary so that `ingest` without inputs works from anywhere.
pub const SAMPLE_CORPUS: &str = include_str!("../../../samples/corpus.jsonl");

/// Where records of [`SAMPLE_CORPUS`] say they come from.
pub const SAMPLE_PLACE: &str = "samples/corpus.jsonl";

/// Calls `emit` with every record of the built-in sample corpus.
pub fn read_sample(emit: &mut dyn FnMut(Record)) {
    read_json_lines(
        io::Cursor::new(SAMPLE_CORPUS.as_bytes()),
        SAMPLE_PLACE,
        &ReadOptions::default(),
        emit,
    );
}

/// A size for people: "16 MiB", "512 KiB", "100 bytes".
pub fn size_for_people(bytes: usize) -> String {
    bounded::size(bytes)
}

fn error(place: &str, reason: String) -> RecordError {
    RecordError {
        place: place.to_owned(),
        reason,
    }
}
