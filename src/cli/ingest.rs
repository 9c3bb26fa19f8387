//! `tantivy-dedup ingest`: index documents, rejecting (or flagging, or replacing)
//! near-duplicates.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context;
use clap::{Args, ValueEnum};
use rayon::prelude::*;
use tantivy::TantivyDocument;
use tantivy_dedup::corpus::{CorpusFields, CorpusIndex, CorpusRecord, ReportLine};
#[cfg(not(feature = "cluster"))]
use tantivy_dedup::plugin::AddOutcome;
use tantivy_dedup::plugin::{AddAll, DedupWriter, Policy, PreparedDocument};

use crate::cli::created::Created;
#[cfg(feature = "cluster")]
use crate::cli::index_dir::planned_settings;
use crate::cli::index_dir::{open_or_create, IndexArg};
use crate::cli::input::{read_inputs, read_sample, Record, Unnamed, SAMPLE_PLACE};
use crate::cli::options::{FingerprintOptions, InputOptions, VerifyOptions};
use crate::cli::progress::Progress;
use crate::cli::report::{Report, Tally};
#[cfg(feature = "cluster")]
use crate::cli::shared::{matching_of, ClusterOptions, SharedCheck};
use crate::cli::source_index::{SourceFields, SourceIndex};
use crate::cli::windows::{read_in_windows, SHARED_WINDOW};

/// What to do with a near-duplicate.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum PolicyArg {
    /// Do not index it.
    Reject,
    /// Index it, marked with what it duplicates (`search` hides it).
    Flag,
    /// Index it and delete the older documents it duplicates.
    Replace,
}

/// Index documents, keeping near-duplicates out.
///
/// Each document is fingerprinted and compared with every document of the index and of the
/// run so far; one within --distance bits is a near-duplicate. Documents are committed in
/// batches: an interrupted run loses at most the batch in progress, and running the same
/// command again skips the documents already in the index (reported as "exists"). A record
/// whose id is in the index with another text replaces it ("updated"), the new text checked
/// as any addition is.
///
/// With --report FILE, one JSON line per input record, written once its batch is committed:
/// {"id":..,"status":"added"|"updated"|"duplicate"|"exists"|"error","duplicate_of":..,"distance":..}
/// When a record changes a document (an update), the records judged against its old text
/// are decided again: a line for each follows, with "rejudged_after" (the changed id) and
/// its status now, or "lost" when its text is in no document and no near-duplicate of it
/// is (fetch it again); a record's last line is its outcome.
/// (and "similarity", the signatures' Jaccard estimate, for a duplicate of an index with
/// two-stage matching, the default; not of one created with --no-verify; "action":
/// "rejected"|"flagged"|"replaced"; and under --policy replace "replaced": every id it
/// replaced).
/// The exit code is 1 when some record was an error.
#[derive(Args, Debug)]
pub struct IngestCommand {
    /// JSON-lines files (.jsonl: "id", "text" or "body", "title", "url", "tags"), text files,
    /// HTML files, folders of these, or - for standard input. None: standard input, unless
    /// it is a terminal: then the sample corpus shipped with the tool (said so), into a new
    /// index only (an existing one is refused). A
    /// record without an id is FILE:LINE (a file: its path), one of standard input "-:"
    /// and its text's digest in hex.
    inputs: Vec<PathBuf>,
    /// Read the documents of an existing tantivy index instead (its stored fields: see
    /// --id-field, --text-field, --title-field, --url-field), to build a deduplicated index
    /// from it; the source is only read. Each stored document is one record: one that
    /// cannot be read (named by segment and document), is over --max-record-mb, has no id
    /// in --id-field or repeats an earlier one's id is an error line, and the others are
    /// read. The records of replaced versions (dedup_replaced) come along, and with
    /// --id-field their texts (dedup_replaced_text), given back when their holder changes.
    #[arg(long, value_name = "DIR", conflicts_with = "inputs")]
    from_index: Option<PathBuf>,
    #[command(flatten)]
    source_fields: SourceFields,
    #[command(flatten)]
    index: IndexArg,
    /// What to do with a near-duplicate.
    #[arg(long, value_enum, default_value_t = PolicyArg::Reject)]
    policy: PolicyArg,
    /// Largest Hamming distance (of 64 bits) between near-duplicates [default: the index's,
    /// 3 for a new one].
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=64))]
    distance: Option<u32>,
    /// Write one JSON line per record to FILE (- for standard output).
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// Commit every N documents, and sooner when 128 MiB of text are pending (tantivy
    /// queues documents by count, not size, until they are indexed).
    #[arg(long, value_name = "N", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    commit_every: u64,
    #[command(flatten)]
    input: InputOptions,
    /// Memory for tantivy's indexing, in megabytes.
    #[arg(long, value_name = "MB", default_value_t = 200, value_parser = clap::value_parser!(u64).range(20..=4000))]
    memory_mb: u64,
    #[command(flatten)]
    options: FingerprintOptions,
    #[command(flatten)]
    verify: VerifyOptions,
    #[cfg(feature = "cluster")]
    #[command(flatten)]
    cluster: ClusterOptions,
}

/// A record of a window as the shared space decides it: its id, and its document's
/// fingerprint (none without features) and signature.
pub type WindowRecord<'a> = (
    &'a str,
    Option<tantivy_dedup::fingerprint::Fingerprint>,
    Option<&'a [u32]>,
);

/// Without the `cluster` feature there is no shared index: no value of this type exists.
#[cfg(not(feature = "cluster"))]
enum SharedCheck {}

#[cfg(not(feature = "cluster"))]
impl SharedCheck {
    fn check_window(
        &self,
        _: &[WindowRecord<'_>],
    ) -> anyhow::Result<Vec<Result<bool, ReportLine>>> {
        match *self {}
    }

    fn settle(&self, _: &str, _: bool, _: Option<&AddOutcome>) -> anyhow::Result<()> {
        match *self {}
    }
}

impl IngestCommand {
    /// Runs the command; `Ok(false)` when some record was an error.
    pub fn run(&self) -> anyhow::Result<bool> {
        let start = Instant::now();
        // Before the index: a run that cannot write its report must not leave a new index
        // behind with the options it was given. Only checked: a run that fails to open the
        // index must not empty the report of the run before.
        let sources: Vec<PathBuf> = (self.inputs.iter().cloned())
            .chain(self.from_index.clone())
            .collect();
        Report::check_apart(
            self.report.as_deref(),
            &sources,
            self.verify.settings_path(),
            &self.index.index,
        )?;
        Report::check(self.report.as_deref())?;
        // The sample corpus is for a first try: never into an index that exists, which may
        // hold a user's pages that the samples would replace.
        let unnamed = self.inputs.is_empty() && self.from_index.is_none();
        if unnamed
            && matches!(Unnamed::of_stdin(), Unnamed::Terminal)
            && CorpusIndex::exists(&self.index.index)
        {
            anyhow::bail!(
                "no input named and standard input is a terminal: name files, or pipe records \
                 in (the sample corpus goes only into a new index, and {} holds one)",
                self.index.index.display()
            );
        }
        // The source too: a field missing from it is refused before the index is created.
        let source = (self.from_index.as_deref())
            .map(|dir| SourceIndex::open(dir, &self.source_fields))
            .transpose()?;
        let created = Created::before(&self.index.index);
        let result = self.ingest(source.as_ref(), start);
        if let (Err(_), Some(created)) = (&result, created) {
            if let Err(e) = created.undo() {
                note!(
                    "cannot remove the index this failed run created in {}: {e}",
                    self.index.index.display()
                );
            }
        }
        result
    }

    /// The run once its arguments are checked: the index opened or created, the records
    /// read from `source` or the inputs. Every handle on the index is closed on return.
    fn ingest(&self, source: Option<&SourceIndex>, start: Instant) -> anyhow::Result<bool> {
        let policy = match self.policy {
            PolicyArg::Reject => Policy::Reject,
            PolicyArg::Flag => Policy::Flag,
            PolicyArg::Replace => Policy::Replace,
        };
        let dir = &self.index.index;
        #[cfg(feature = "cluster")]
        let reject = matches!(policy, Policy::Reject);
        // A new shard joins the shared space before its folder is made: a space that
        // refuses it (or a cluster out of reach) leaves nothing behind.
        #[cfg(feature = "cluster")]
        let planned = match self.cluster.is_set() {
            true => planned_settings(dir, &self.options, self.distance, &self.verify)?,
            false => None,
        };
        #[cfg(feature = "cluster")]
        let early = match &planned {
            Some(settings) => (self.cluster).connect(settings.get_matching(), dir, reject)?,
            None => None,
        };
        #[cfg(not(feature = "cluster"))]
        let planned = None;
        let index = open_or_create(dir, &self.options, self.distance, &self.verify, planned)?;
        #[cfg(feature = "cluster")]
        let shared = match early {
            Some(shared) => Some(shared),
            None => (self.cluster).connect(&matching_of(&index), dir, reject)?,
        };
        #[cfg(feature = "cluster")]
        let shared = match shared {
            Some(mut shared) => {
                shared.joined(dir)?;
                Some(shared)
            }
            None => None,
        };
        #[cfg(not(feature = "cluster"))]
        let shared: Option<SharedCheck> = None;
        let memory = usize::try_from(self.memory_mb << 20).unwrap_or(usize::MAX);
        let writer = index.dedup.writer(policy, memory).with_context(|| {
            format!(
                "cannot write to the index in {}",
                self.index.index.display()
            )
        })?;
        // The writer's lock is held: no atomic write of another process is under way.
        remove_stale_temporaries(&self.index.index);
        let mut report = Report::create(self.report.as_deref())?;
        let interrupted = Arc::new(AtomicBool::new(false));
        // Set on Ctrl-C and when the run fails: the reading stops.
        let stop = Arc::new(AtomicBool::new(false));
        {
            let (interrupted, stop) = (Arc::clone(&interrupted), Arc::clone(&stop));
            // Without a handler (another one is set), Ctrl-C kills the run: the committed
            // batches are kept all the same.
            let _ = ctrlc::set_handler(move || {
                interrupted.store(true, Ordering::SeqCst);
                stop.store(true, Ordering::SeqCst);
            });
        }
        let mut ingestion = Ingestion {
            writer: &writer,
            shared: shared.as_ref(),
            fields: &index.fields,
            replaced_field: (index.dedup.index().schema())
                .get_field(tantivy_dedup::plugin::REPLACED_FIELD)
                .ok(),
            report: &mut report,
            progress: Progress::new("ingesting"),
            tally: Tally::default(),
            max_text_bytes: (index.dedup.settings().get_matching().get_fingerprint())
                .get_max_text_bytes(),
            pending: 0,
            pending_bytes: 0,
            commit_every: self.commit_every,
            index_dir: &self.index.index,
            interrupted: &interrupted,
            failure: Ok(()),
        };
        let read = |emit: &mut dyn FnMut(Record)| {
            let options = self.input.read_options(Some(Arc::clone(&stop)));
            if let Some(source) = source {
                source.read(&options, emit);
            } else {
                match (self.inputs.is_empty(), Unnamed::of_stdin()) {
                    (false, _) => read_inputs(&self.inputs, &options, emit),
                    (true, Unnamed::Stdin) => {
                        let mut any = false;
                        read_inputs(&[PathBuf::from("-")], &options, &mut |record| {
                            any = true;
                            emit(record)
                        });
                        if !any {
                            // A script, a container build or CI with nothing piped in.
                            note!(
                                "no input named and standard input gave no record: name files \
                                 or folders to ingest (`tantivy-dedup ingest \
                                 samples/corpus.jsonl`), or pipe JSON lines in"
                            );
                        }
                    }
                    (true, Unnamed::Terminal) => {
                        note!(
                            "no input named and standard input is a terminal: ingesting the \
                             sample corpus ({SAMPLE_PLACE}); name files, or pipe records in, to \
                             ingest your own"
                        );
                        read_sample(emit);
                    }
                }
            }
        };
        let window = match shared {
            Some(_) => SHARED_WINDOW.max(DedupWriter::default_window()),
            None => DedupWriter::default_window(),
        };
        // Records an earlier run decided again (or reported lost) and stopped before it was
        // known to have recorded: reported again (`"repeated":true`), with the first batch.
        for lost in writer.take_rejudged() {
            ingestion.report_rejudged(ReportLine::of_rejudged(&lost));
        }
        read_in_windows(window, &stop, read, |records| ingestion.ingest(records));
        let Ingestion {
            progress,
            tally,
            failure,
            ..
        } = ingestion;
        failure?;
        writer.commit().context("commit failed")?;
        share_metadata(&self.index.index)?;
        report.flush()?;
        // The report holds the last batch's lost records now: a commit says so, or the
        // next run would report them again.
        if writer.deliver_reports().context("commit failed")? {
            share_metadata(&self.index.index)?;
        }
        progress.finish();
        let interrupted = interrupted.load(Ordering::SeqCst);
        let searcher = writer.searcher();
        note!(
            "{}{} in {} ({} documents in the index)",
            if interrupted { "interrupted: " } else { "" },
            tally.summary(start.elapsed()),
            self.index.index.display(),
            searcher.num_docs()
        );
        if interrupted {
            std::process::exit(130);
        }
        Ok(tally.errors == 0)
    }
}

/// A run's state between the records it reads.
struct Ingestion<'a> {
    writer: &'a DedupWriter,
    /// The shared index of `--cluster`, which decides each document first.
    shared: Option<&'a SharedCheck>,
    fields: &'a CorpusFields,
    /// The index's field of replaced records, where records read with some (from a source
    /// index) are kept.
    replaced_field: Option<tantivy::schema::Field>,
    report: &'a mut Report,
    progress: Progress,
    tally: Tally,
    /// The fingerprint's `max_text_bytes`: a longer text is judged on its prefix.
    max_text_bytes: usize,
    /// Records since the last commit.
    pending: u64,
    /// Bytes of text handed to the writer since the last commit (see [`COMMIT_BYTES`]).
    pending_bytes: usize,
    commit_every: u64,
    index_dir: &'a std::path::Path,
    interrupted: &'a AtomicBool,
    /// The first failure of the writer or the report: the run stops there.
    failure: anyhow::Result<()>,
}

/// A record of a window: its report line already known (it cannot be added), or the
/// document of it handed to the writer.
enum Item {
    Line(ReportLine),
    Added {
        id: String,
        place: String,
        bytes: usize,
    },
}

/// The most bytes of text handed to the writer between two commits. tantivy's writer takes
/// up to 10,000 documents into its indexing queue whatever their size, and only a commit
/// waits for them to be indexed: without this bound, records of 15 MiB piled up there
/// (120 of them peaked at 3.6 GB). A commit of this much text costs little beside indexing
/// it.
const COMMIT_BYTES: usize = 128 << 20;

/// How a window's documents reach the index.
enum Adding<'a, I> {
    /// Through the writer alone.
    Local(AddAll<'a, I>),
    /// Prepared, then decided in the shared space of `--cluster` (a window at once) before
    /// the writer adds them: each with the space's answer (`Ok(fresh)`: admitted, now or
    /// before; else its report line).
    Prepared(
        std::iter::Zip<
            std::vec::IntoIter<tantivy_dedup::Result<PreparedDocument>>,
            std::vec::IntoIter<Result<bool, ReportLine>>,
        >,
    ),
}

impl Ingestion<'_> {
    /// Adds to `document` the texts of the records it holds, read from a source index
    /// (`--from-index`), as documents of this index.
    fn add_replaced_texts(&self, document: &mut TantivyDocument, texts: &[(String, CorpusRecord)]) {
        if texts.is_empty() {
            return;
        }
        let documents: Vec<(&str, TantivyDocument)> = (texts.iter())
            .map(|(record, text)| (record.as_str(), self.fields.document(text)))
            .collect();
        let index = self.writer.index();
        index.fields().add_texts(
            &index.index().schema(),
            document,
            documents.iter().map(|(record, text)| (*record, text)),
        );
    }

    fn stopped(&self) -> bool {
        self.failure.is_err() || self.interrupted.load(Ordering::SeqCst)
    }

    /// Ingests a window of records: their documents prepared in parallel, then each record
    /// decided, reported and counted in input order, with a commit after every
    /// `commit_every` (or [`COMMIT_BYTES`] of text). False once the run stops (failed, or interrupted).
    fn ingest(&mut self, records: Vec<Record>) -> bool {
        let mut documents = Vec::with_capacity(records.len());
        let items: Vec<Item> = (records.into_iter())
            .map(|record| match record {
                Err(e) => Item::Line(ReportLine::error(e.place, e.reason)),
                Ok(doc) if doc.text.trim().is_empty() => {
                    let reason = if doc.place == doc.id {
                        "empty document: no text".to_owned()
                    } else {
                        format!("empty document at {}: no text", doc.place)
                    };
                    Item::Line(ReportLine::error(doc.id, reason))
                }
                Ok(mut doc) => {
                    if doc.from_stdin && doc.id == doc.place {
                        doc.id = content_id(&doc.text);
                    }
                    let record = CorpusRecord {
                        id: doc.id,
                        text: doc.text,
                        title: doc.title,
                        url: doc.url,
                        tags: doc.tags,
                    };
                    let mut document = self.fields.document(&record);
                    if let Some(field) = self.replaced_field {
                        for replaced in &doc.replaced {
                            document.add_text(field, replaced);
                        }
                        self.add_replaced_texts(&mut document, &doc.replaced_texts);
                    }
                    documents.push(document);
                    Item::Added {
                        id: record.id,
                        place: doc.place,
                        bytes: record.text.len(),
                    }
                }
            })
            .collect();
        let window = documents.len();
        let writer = self.writer;
        let mut adding = match self.shared {
            // The writer prepares the window in parallel and decides each document as its
            // outcome is asked for.
            None => Adding::Local(writer.add_all(documents).window(window)),
            // Prepared here, in parallel, so that the shared space decides each document
            // by the values the writer indexes, computed once.
            // The window is then decided in the shared space at once (a few pipelined
            // steps for all its documents).
            Some(shared) => {
                let prepared: Vec<_> = (documents.into_par_iter())
                    .map(|document| writer.prepare(document))
                    .collect();
                let ids = items.iter().filter_map(|item| match item {
                    Item::Added { id, .. } => Some(id.as_str()),
                    Item::Line(_) => None,
                });
                let window: Vec<WindowRecord<'_>> = (ids.zip(&prepared))
                    .map(|(id, prepared)| match prepared {
                        Ok(prepared) => (id, prepared.fingerprint(), prepared.signature_values()),
                        // The writer's error, reported as an add's would be: not decided.
                        Err(_) => (id, None, None),
                    })
                    .collect();
                let decisions = match shared.check_window(&window) {
                    Ok(decisions) => decisions,
                    Err(e) => {
                        self.failure = Err(e);
                        return false;
                    }
                };
                Adding::Prepared(prepared.into_iter().zip(decisions))
            }
        };
        for item in items {
            if self.stopped() {
                return false;
            }
            let mut rejudged = Vec::new();
            let line = match item {
                Item::Line(line) => line,
                Item::Added { id, place, bytes } => {
                    self.pending_bytes += bytes;
                    let (outcome, fresh) = match &mut adding {
                        Adding::Local(outcomes) => {
                            (outcomes.next().expect("one per document"), false)
                        }
                        Adding::Prepared(prepared) => {
                            let (prepared, decision) = prepared.next().expect("one per document");
                            match (prepared, decision) {
                                // The writer's error (a key too long), reported as an add's
                                // would be.
                                (Err(e), _) => (Err(e), false),
                                (Ok(prepared), Ok(fresh)) => {
                                    (self.writer.add_prepared(prepared), fresh)
                                }
                                (Ok(_), Err(line)) => {
                                    self.push(line);
                                    continue;
                                }
                            }
                        }
                    };
                    if let Some(shared) = self.shared {
                        if let Err(e) = shared.settle(&id, fresh, outcome.as_ref().ok()) {
                            self.failure = Err(e);
                            return false;
                        }
                    }
                    // Records judged against a document this one changed, decided again.
                    rejudged = (writer.take_rejudged().iter())
                        .map(ReportLine::of_rejudged)
                        .collect();
                    match outcome {
                        Ok(outcome) => ReportLine {
                            // Judged on its first `max_text_bytes`: the line says so.
                            cut: (outcome.duplicate_of().is_some() && bytes > self.max_text_bytes)
                                .then_some(true),
                            ..ReportLine::of_outcome(id, &outcome)
                        },
                        // This record's fault, not the writer's: an error line, and on.
                        // Named by its place: the id itself is what is wrong.
                        Err(e @ tantivy_dedup::Error::KeyTooLong { .. }) => {
                            ReportLine::error(place, format!("`id`: {e}"))
                        }
                        Err(e) => {
                            self.failure =
                                Err(anyhow::Error::new(e).context("the index writer failed"));
                            return false;
                        }
                    }
                }
            };
            self.push_with(line, rejudged);
        }
        !self.stopped()
    }

    /// Reports the line of a record decided again (or lost): because of a record of this
    /// run, or, with `repeated`, by an earlier run that stopped before it was known to
    /// have recorded it.
    fn report_rejudged(&mut self, line: ReportLine) {
        if line.status == "lost" {
            let earlier = match line.repeated {
                Some(true) => "; reported by an earlier run that stopped",
                _ => "",
            };
            self.progress.println(&format!(
                "lost: {} (kept out because of {}, which changed{earlier}): fetch it again",
                line.id,
                line.rejudged_after.as_deref().unwrap_or_default()
            ));
        }
        self.tally.count_rejudged(&line);
        self.report.push(line);
    }

    /// Reports one record's line, and commits when `commit_every` records are pending.
    fn push(&mut self, line: ReportLine) {
        self.push_with(line, Vec::new());
    }

    /// Reports one record's line and the lines of the records decided again because of it,
    /// and commits when `commit_every` records are pending.
    fn push_with(&mut self, line: ReportLine, rejudged: Vec<ReportLine>) {
        if line.is_error() {
            self.progress
                .println(&format!("error: {}", line.describe()));
        }
        self.tally.count(&line);
        self.report.push(line);
        for line in rejudged {
            self.report_rejudged(line);
        }
        self.progress.inc();
        self.pending += 1;
        if self.pending >= self.commit_every || self.pending_bytes >= COMMIT_BYTES {
            self.pending = 0;
            self.pending_bytes = 0;
            self.failure = (self.writer.commit())
                .context("commit failed")
                .and_then(|_| share_metadata(self.index_dir))
                .and_then(|_| self.report.flush());
        }
    }
}

/// Removes the temporary files of atomic writes (`meta.json`, `.managed.json`, the ledger's
/// files) that a run killed, or ended during a background merge, left in the index folder:
/// named `.tmp` and six letters or digits by tempfile, named by nothing, never read. Best
/// effort: one that cannot be removed stays.
fn remove_stale_temporaries(dir: &std::path::Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let temporary = (name.strip_prefix(".tmp"))
            .is_some_and(|rest| rest.len() == 6 && rest.chars().all(|c| c.is_ascii_alphanumeric()));
        if temporary && entry.file_type().is_ok_and(|kind| kind.is_file()) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Gives the index's metadata files the permissions of its segment files. tantivy writes
/// `meta.json` and `.managed.json` (and this crate its settings) through a temporary file
/// renamed into place, which leaves them readable by their owner alone (0600) at every
/// commit, where the segments follow the umask: other users who can read the segments could
/// not open the index to search it. The model is tantivy's meta lock file, created plainly.
fn share_metadata(dir: &std::path::Path) -> anyhow::Result<()> {
    let Ok(model) = std::fs::metadata(dir.join(".tantivy-meta.lock")) else {
        return Ok(());
    };
    let mut files: Vec<std::path::PathBuf> = [
        "meta.json",
        ".managed.json",
        tantivy_dedup::plugin::SETTINGS_FILE,
        tantivy_dedup::plugin::IDF_FILE,
        tantivy_dedup::plugin::DICTIONARY_FILE,
        tantivy_dedup::plugin::SHINGLE_WEIGHTS_FILE,
    ]
    .into_iter()
    .map(|name| dir.join(name))
    .collect();
    // The ledger of rejected records and its numbered chunks: another user's later run
    // reads them.
    let ledger = std::fs::read_dir(dir).into_iter().flatten().flatten();
    files.extend(ledger.map(|file| file.path()).filter(|path| {
        (path.file_name()).is_some_and(|name| {
            (name.to_string_lossy()).starts_with(tantivy_dedup::plugin::LEDGER_FILE)
        })
    }));
    for path in files {
        let Ok(metadata) = std::fs::metadata(&path) else {
            continue;
        };
        if metadata.permissions() != model.permissions() {
            std::fs::set_permissions(&path, model.permissions())
                .with_context(|| format!("cannot set the permissions of {}", path.display()))?;
        }
    }
    Ok(())
}

/// The id of a record of standard input that has none: its text's digest. Every run reads
/// another stream, so a line number would give the records of two runs one id, and the
/// second run's would replace the first's; the same text is the same record (`exists`).
fn content_id(text: &str) -> String {
    format!("-:{:016x}", xxhash_rust::xxh3::xxh3_64(text.as_bytes()))
}
