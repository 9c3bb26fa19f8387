//! The library's error type.

use std::path::PathBuf;

/// The result type of every fallible operation in this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in `tantivy-dedup`.
///
/// Each variant says what failed at this crate's level; an underlying cause, where there is
/// one, is available through [`std::error::Error::source`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A string that should hold a fingerprint did not: fingerprints are written as exactly
    /// 16 hexadecimal digits.
    #[error("invalid fingerprint {0:?}: expected 16 hexadecimal digits")]
    InvalidFingerprint(String),

    /// A setting is outside the range it accepts. The message names the setting and the range.
    #[error("invalid setting {name}: {reason}")]
    InvalidSetting {
        /// The setting, as named in the configuration.
        name: &'static str,
        /// What is wrong and what is accepted.
        reason: String,
    },

    /// Bytes given to a strict text API were not valid UTF-8. Use the lossy API to replace
    /// invalid sequences with U+FFFD instead.
    #[error("input is not valid UTF-8 (first invalid byte at offset {valid_up_to})")]
    InvalidUtf8 {
        /// Length of the longest valid UTF-8 prefix, in bytes.
        valid_up_to: usize,
    },

    /// A user dictionary for jieba could not be read or parsed.
    #[error("cannot load the jieba user dictionary")]
    UserDictionary(#[source] jieba_rs::Error),

    /// Reading or writing a file failed.
    #[error("cannot access {path}")]
    Io {
        /// The file involved.
        path: PathBuf,
        /// The underlying I/O error.
        #[source]
        source: std::io::Error,
    },

    /// A settings file ([`MatchingSettings::read`](crate::matching::MatchingSettings::read))
    /// was refused before it was read: it is no regular file (a FIFO would wait for a
    /// writer, `/dev/zero` never ends), or it is larger than
    /// [`MAX_SETTINGS_FILE_BYTES`](crate::matching::MAX_SETTINGS_FILE_BYTES). Name the JSON
    /// file `eval --recommend` wrote, or one written by
    /// [`MatchingSettings::write`](crate::matching::MatchingSettings::write).
    #[error("{} cannot be read as a settings file: {reason}", .path.display())]
    SettingsFile {
        /// The file named.
        path: PathBuf,
        /// Why it was refused.
        reason: String,
    },

    /// A search query is not in tantivy's query syntax (an unclosed parenthesis or phrase,
    /// a field the index does not have). The message is tantivy's parser's.
    #[error("invalid query: {reason}")]
    InvalidQuery {
        /// The query.
        query: String,
        /// What the parser found wrong.
        reason: String,
    },

    /// A search query nests parentheses deeper than
    /// [`MAX_QUERY_NESTING`](crate::corpus::MAX_QUERY_NESTING): refused before tantivy's
    /// parser, whose recursion would overflow the stack. Write the query flatter (`a OR b
    /// OR c` needs no parentheses).
    #[error("invalid query: parentheses nested {depth} deep, more than the {max} allowed")]
    QueryTooNested {
        /// The query's deepest nesting.
        depth: usize,
        /// The deepest allowed.
        max: usize,
    },

    /// A serialized table or configuration could not be decoded.
    #[error("cannot decode {what}")]
    Decode {
        /// What was being decoded.
        what: &'static str,
        /// The underlying decoding error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },

    /// The HTML parser failed on a page (it panicked in both the readability pass and the
    /// full-text fallback of [`html::extract`](crate::html::extract)): a bug in the parser,
    /// not in the page. Fingerprint the page's text some other way (as plain text, or
    /// through another HTML-to-text tool), and please report the page.
    #[error("cannot extract the text of an HTML page: the HTML parser failed ({reason})")]
    HtmlExtraction {
        /// The parser's panic message.
        reason: String,
    },

    /// tantivy failed to read or write an index: a writer's lock held by another writer, a
    /// full disk, a damaged or unreadable file, a field of the wrong type. The message is
    /// tantivy's own, which names what failed.
    #[error(transparent)]
    Tantivy(#[from] tantivy::TantivyError),

    /// A writer cannot be opened because its lock file cannot be created: the index is on
    /// read-only storage, or this process may not write in its folder. (Another writer
    /// holding the lock is [`Error::Tantivy`] with tantivy's `LockFailure`.) Searching works
    /// without write access through
    /// [`ReadOnlyTolerantDirectory`](crate::plugin::ReadOnlyTolerantDirectory).
    #[error("the index cannot be written from here: its writer lock cannot be created")]
    NotWritable {
        /// Why the lock file could not be created.
        #[source]
        source: std::sync::Arc<std::io::Error>,
    },

    /// The index was opened with deduplication settings other than the ones it was created
    /// with: its fingerprints would not be comparable with new ones. Open it with
    /// [`DedupIndex::open`](crate::plugin::DedupIndex::open) to use the stored settings, or
    /// build a new index (every document must be fingerprinted again).
    #[error("the index was created with other deduplication settings: {}", list_differences(.differences))]
    SettingsMismatch {
        /// Each setting that differs: the path, the value asked for, the stored value.
        differences: Vec<crate::fingerprint::ConfigDifference>,
    },

    /// The index has no deduplication settings file: it was not created by
    /// [`DedupIndex::create`](crate::plugin::DedupIndex::create), or the file was removed.
    #[error("{path} is missing: the index was not set up for deduplication (create it with DedupIndex::create)")]
    MissingSettings {
        /// The settings file looked for, relative to the index directory.
        path: PathBuf,
    },

    /// The index schema lacks a field the deduplication settings name, or has it with the
    /// wrong type or options. [`DedupSettings::add_fields`](crate::plugin::DedupSettings::add_fields)
    /// adds the plugin's fields as they must be.
    #[error("schema field {field:?}: {reason}")]
    Schema {
        /// The field's name.
        field: String,
        /// What is missing or wrong.
        reason: String,
    },

    /// The shared near-duplicate space in Redis Cluster (`shared`, cargo feature
    /// `cluster`) could not be reached or answered with an error, after bounded retries
    /// (a failover takes a few seconds). Check that the cluster's seed addresses are right
    /// and that it reports `cluster_state:ok`; nothing falls back to a local-only check.
    #[error("shared index in Redis Cluster: {what}")]
    Cluster {
        /// What was being done.
        what: String,
        /// The client's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },

    /// A shared near-duplicate space (`shared`, cargo feature `cluster`) was made with
    /// another rule or other fingerprint settings than this writer's (or reader's), or by a
    /// build that lays its keys out otherwise: its writers would miss each other's
    /// candidates or judge pairs differently. Every writer of a space needs the same
    /// fingerprint settings, distance and verification; a space of an older layout needs a
    /// new namespace (ingest the shards again there, or `repair` them).
    #[error(
        "the shared space {namespace:?} was made with other settings ({}): every \
         writer of a space needs the same fingerprint settings and rule (use another \
         namespace for others)",
        .differences.join("; ")
    )]
    SpaceMismatch {
        /// The space's namespace.
        namespace: String,
        /// Each setting that differs: `path: value in the space, value here` (`layout: 1`
        /// for a space of an older build).
        differences: Vec<String>,
    },

    /// A live writer holds the name `node` in the shared space (`shared`, cargo feature
    /// `cluster`): a copy of this shard runs, or one `--node` was given to two writers (or
    /// this writer stalled beyond its lease and another took the name). Stop the other
    /// writer, or give this shard a name of its own.
    #[error(
        "a writer named {node:?} is running in the shared space {namespace:?} (it holds the \
         name's lease): stop it, or give this shard another name (--node)"
    )]
    WriterRunning {
        /// The space's namespace.
        namespace: String,
        /// The writer's name.
        node: String,
    },

    /// The writer name `node` belongs in the shared space to another shard (`shared`,
    /// cargo feature `cluster`): two shards under one name would take each other's
    /// documents for their own. Give this shard a name of its own (`--node`).
    #[error(
        "the writer name {node:?} belongs to another shard in the shared space \
         {namespace:?}: give this shard a name of its own (--node)"
    )]
    NameTaken {
        /// The space's namespace.
        namespace: String,
        /// The writer's name.
        node: String,
    },

    /// Shards searched together ([`DedupCollector::search_shards`](crate::plugin::DedupCollector::search_shards))
    /// have different schemas: fields would not mean the same in each. Make every shard
    /// with the same schema (the same fields, added in the same order, and the same
    /// [`DedupSettings`](crate::plugin::DedupSettings)).
    #[error(
        "shard {shard} has another schema than shard 0: shards searched together need one schema"
    )]
    ShardSchema {
        /// The position of the first shard whose schema differs from the first shard's.
        shard: usize,
    },

    /// The index verifies candidates with signatures, but some of its documents have a
    /// fingerprint and no signature: they were added by an `IndexWriter` of the
    /// application's own without their signatures, and a search would judge them by their
    /// fingerprints alone, missing the near-duplicates two-stage matching finds. Fill every
    /// document's plugin fields with
    /// [`DedupIndex::fill_document`](crate::plugin::DedupIndex::fill_document) (or add
    /// through a [`DedupWriter`](crate::plugin::DedupWriter)) and reindex those documents.
    #[error(
        "{documents} documents of segment {segment} have a fingerprint but no signature, \
         though the index verifies with signatures: fill them with DedupIndex::fill_document \
         (or add them through a DedupWriter) and index them again"
    )]
    MissingSignatures {
        /// The segment, as tantivy's short id.
        segment: String,
        /// How many of its documents lack a signature.
        documents: u32,
    },

    /// A document's key is longer than tantivy indexes a term (it would drop it from the
    /// key field's index: deletes and updates by key would miss the document).
    #[error("the key is {length} bytes long; tantivy indexes keys of at most {max} bytes")]
    KeyTooLong {
        /// The key's length in bytes.
        length: usize,
        /// The longest key tantivy indexes ([`tantivy::tokenizer::MAX_TOKEN_LEN`]).
        max: usize,
    },

    /// A line of an ingest report (`tantivy-dedup ingest --report`) that a review cannot
    /// read: not a JSON object with `id` and `status`. Give the report file as `ingest`
    /// wrote it, one JSON object a line.
    #[error("{}:{line}: not a line of an ingest report: {reason}", .path.display())]
    Report {
        /// The report file.
        path: PathBuf,
        /// The line's number, from 1.
        line: u64,
        /// What is wrong with it.
        reason: String,
    },

    /// The index's ledger ([`LEDGER_FILE`](crate::plugin::LEDGER_FILE) and its numbered
    /// files) is damaged: a file the index's last commit names is missing, cut short or
    /// changed (its checksum or its chain does not match), is not a ledger file, or was
    /// written by a later tantivy-dedup. Its files are written whole before the commit that
    /// names them, so a crash leaves none of these: a file of a commit that never happened
    /// is no damage (the next writer deletes it). Restore the index folder from a copy, or
    /// rebuild the index with `ingest --from-index` (the new index knows no rejection of
    /// the old one's runs).
    #[error("the ledger of the index, {}, is damaged: {reason}", .path.display())]
    Ledger {
        /// The file, relative to the index directory.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },

    /// An evaluation set would count pairs wrongly: a repeated document id, a pair naming an
    /// unknown document or one document twice, a pair listed twice, a rate outside `[0, 1]`.
    #[error("invalid evaluation set: {reason}")]
    InvalidEvalSet {
        /// What is wrong.
        reason: String,
    },
}

fn list_differences(differences: &[crate::fingerprint::ConfigDifference]) -> String {
    let listed: Vec<String> = differences.iter().map(ToString::to_string).collect();
    listed.join("; ")
}

/// [`Error::Io`] of a failed read of `path` through a tantivy `Directory`: the operating
/// system's own error where there is one ("Is a directory"), not tantivy's wrapper of it.
pub(crate) fn read_error(
    path: &std::path::Path,
    error: tantivy::directory::error::OpenReadError,
) -> Error {
    use tantivy::directory::error::OpenReadError;
    let source = match error {
        OpenReadError::IoError { io_error, .. } => {
            std::io::Error::new(io_error.kind(), io_error.to_string())
        }
        other => std::io::Error::other(other),
    };
    Error::Io {
        path: path.to_owned(),
        source,
    }
}
