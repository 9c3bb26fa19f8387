//! `DedupIndex`: a tantivy [`Index`] set up for deduplication — its settings checked, its
//! fields resolved, its tokenizer registered, its [`SimHasher`] built once.

use std::sync::{Arc, Mutex, PoisonError};

use tantivy::directory::error::LockError;
use tantivy::schema::TantivyDocument;
use tantivy::{Index, IndexWriter, TantivyError};

use crate::error::{Error, Result};
use crate::fingerprint::{Fingerprint, Signature, SimHasher};
use crate::matching::{Judgement, MatchRule, Matcher, TextMatcher};
use crate::plugin::columns::stored::next_sequence;
use crate::plugin::columns::{
    DedupFields, FINGERPRINT_FIELD, FLAG_FIELD, SCOPE_FIELD, SIGNATURE_FIELD,
};
use crate::plugin::read_only::lacks_write_access;
use crate::plugin::segment_values::{self, DedupSegmentPlugin};
use crate::plugin::{
    collector::ColumnCache, settings_file, DedupCollector, DedupSettings, DedupWriter, Policy,
};
use crate::text::{ChineseDictionary, IdfSource, MixedTokenizer, TOKENIZER_NAME};

/// An [`Index`] with deduplication settings: the handle every other part of the plugin starts
/// from. Cheap to clone (an `Arc`); `Send + Sync`.
///
/// tantivy does not persist tokenizer registrations, so every way of getting a `DedupIndex`
/// registers the [`MixedTokenizer`] of the stored settings under [`TOKENIZER_NAME`]: one
/// call after each open is all a reopened index needs.
///
/// ```
/// use tantivy::schema::Schema;
/// use tantivy::Index;
/// use tantivy_dedup::plugin::{text_field_options, DedupIndex, DedupSettings};
///
/// let settings = DedupSettings::new(["body"]).key_field("url");
/// let mut schema = Schema::builder();
/// schema.add_text_field("body", text_field_options());
/// settings.add_fields(&mut schema)?;
/// let dir = tempfile::tempdir()?;
/// let index = Index::create_in_dir(dir.path(), schema.build())?;
/// DedupIndex::create(index, settings)?;
///
/// // Later, in another process: the settings come from the index directory.
/// let reopened = DedupIndex::open(Index::open_in_dir(dir.path())?)?;
/// assert_eq!(reopened.settings().get_key_field(), Some("url"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct DedupIndex {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    index: Index,
    settings: DedupSettings,
    fields: DedupFields,
    /// Fingerprints alone, or fingerprints and signatures when the index verifies.
    text: TextMatcher,
    columns: ColumnCache,
    /// The [`SEQUENCE_FIELD`](crate::plugin::SEQUENCE_FIELD) value of the next document,
    /// shared by this handle's writers and [`fill_document`](DedupIndex::fill_document):
    /// read from the index when first needed, so that no number is used twice.
    next_sequence: Mutex<Option<u64>>,
}

impl DedupIndex {
    /// Sets `index` up for deduplication: writes `settings` (and the IDF table and user
    /// dictionary they carry) into the index directory, then opens it. An index already set
    /// up is opened as by [`open_with`](Self::open_with).
    ///
    /// # Errors
    /// [`Error::InvalidSetting`] for settings out of range; [`Error::Schema`] when the schema
    /// lacks a field the settings name; [`Error::SettingsMismatch`] when the index holds
    /// other settings; [`Error::Io`] when the directory cannot be written.
    pub fn create(index: Index, settings: DedupSettings) -> Result<DedupIndex> {
        settings.validate()?;
        let dictionary = dictionary(&settings)?;
        let settings = settings.with_dictionary_digest(dictionary.digest().map(str::to_owned));
        if let Some(stored) = settings_file::read(index.directory())? {
            return Self::checked(index, stored, &settings);
        }
        // Check the schema before anything is written.
        let fields = DedupFields::resolve(&index.schema(), &settings)?;
        if fields.values.is_some() {
            segment_values::record(&index)?;
        }
        settings_file::write(index.directory(), &settings)?;
        Self::assemble(index, settings, dictionary)
    }

    /// Opens an index set up by [`create`](Self::create), with the settings stored in it.
    ///
    /// # Errors
    /// [`Error::MissingSettings`] when the index was never set up; [`Error::Decode`] when the
    /// settings file is damaged; [`Error::Schema`] when the schema no longer fits them.
    pub fn open(index: Index) -> Result<DedupIndex> {
        let settings = read_settings(&index)?;
        let dictionary = dictionary(&settings)?;
        Self::assemble(index, settings, dictionary)
    }

    /// Opens an index set up by [`create`](Self::create), checking that its stored settings
    /// are `settings` (the default distance excepted: `settings`' distance is used).
    ///
    /// # Errors
    /// As [`open`](Self::open), and [`Error::SettingsMismatch`], naming each setting that
    /// differs, when the stored settings are others.
    pub fn open_with(index: Index, settings: &DedupSettings) -> Result<DedupIndex> {
        let stored = read_settings(&index)?;
        let dictionary = dictionary(settings)?;
        let settings = settings
            .clone()
            .with_dictionary_digest(dictionary.digest().map(str::to_owned));
        Self::checked(index, stored, &settings)
    }

    fn checked(index: Index, stored: DedupSettings, asked: &DedupSettings) -> Result<DedupIndex> {
        let differences = asked.differences(&stored);
        if !differences.is_empty() {
            return Err(Error::SettingsMismatch { differences });
        }
        let dictionary = dictionary(&stored)?;
        let stored = stored.with_rule(asked.rule());
        Self::assemble(index, stored, dictionary)
    }

    fn assemble(
        mut index: Index,
        settings: DedupSettings,
        dictionary: ChineseDictionary,
    ) -> Result<DedupIndex> {
        settings.validate()?;
        let fields = DedupFields::resolve(&index.schema(), &settings)?;
        let text = text_matcher(&settings, dictionary)?;
        register_tokenizer(&index, text.hasher().extractor().tokenizer().clone());
        if fields.values.is_some() {
            let plugin = DedupSegmentPlugin::new(settings.clone(), text.clone());
            segment_values::register(&mut index, plugin)?;
        }
        Ok(DedupIndex {
            inner: Arc::new(Inner {
                index,
                settings,
                fields,
                text,
                columns: ColumnCache::new(),
                next_sequence: Mutex::new(None),
            }),
        })
    }

    /// The tantivy index.
    pub fn index(&self) -> &Index {
        &self.inner.index
    }

    /// The payload of the index's last commit, as the caller gave it
    /// ([`DedupPreparedCommit::set_payload`](crate::plugin::DedupPreparedCommit::set_payload)):
    /// `IndexMeta::payload` holds it inside the plugin's own when a commit names the
    /// plugin's ledger.
    ///
    /// # Errors
    /// [`Error::Tantivy`] when `meta.json` cannot be read.
    pub fn commit_payload(&self) -> Result<Option<String>> {
        let metas = self.inner.index.load_metas()?;
        Ok(crate::plugin::writer::decode_payload(metas.payload.as_deref()).1)
    }

    /// The settings in force (the stored ones, with the distance asked for).
    pub fn settings(&self) -> &DedupSettings {
        &self.inner.settings
    }

    /// The plugin's fields in this index's schema.
    pub fn fields(&self) -> &DedupFields {
        &self.inner.fields
    }

    /// The hasher of the stored fingerprint config.
    pub fn hasher(&self) -> &SimHasher {
        self.inner.text.hasher()
    }

    /// The default near-duplicate distance (see [`MatchingSettings::distance`](crate::matching::MatchingSettings::distance)).
    pub fn distance(&self) -> u32 {
        self.inner.settings.get_matching().get_distance()
    }

    /// The matching rule in force: the stored settings' unless
    /// [`open_with`](Self::open_with) was given another (see [`DedupSettings::rule`]).
    pub fn rule(&self) -> MatchRule {
        self.inner.settings.rule()
    }

    /// The fingerprint of a document's text fields, as the writer computes it; `None` when
    /// the text has no features.
    pub fn fingerprint_of(&self, document: &TantivyDocument) -> Option<Fingerprint> {
        self.hasher()
            .fingerprint(&self.inner.fields.text_of(document))
    }

    /// The fingerprint of a document's text fields and, when the index verifies candidates,
    /// their signature's values, as the writer computes them (what
    /// [`fill_document`](Self::fill_document) stores, in the index's stored form); both
    /// `None` when the text has no features.
    pub fn values_of(&self, document: &TantivyDocument) -> (Option<Fingerprint>, Option<Vec<u32>>) {
        let text = self.inner.fields.text_of(document);
        let (fingerprint, signature) = self.fingerprint_and_signature(&text);
        (
            fingerprint,
            signature.map(|signature| signature.values().to_vec()),
        )
    }

    /// Fills the plugin's fields of `document` for an `IndexWriter` of the application's
    /// own, as [`DedupWriter::add`] fills them: its fingerprint and, when the index
    /// verifies, its signature, computed from the text fields; the digest of its text when
    /// the index has a [key field](DedupSettings::key_field) (so that a [`DedupWriter`]
    /// given the same key and text later finds it there, `Exists`); its place in the add
    /// order, after every document of the index and of this handle's writers; its scope
    /// hash when the index has a [scope field](DedupSettings::scope_field); and, when the
    /// index has flag fields, the flag of an original. Returns the fingerprint (`None` for
    /// a text without features, which gets no value).
    ///
    /// Nothing is checked against the index: the document goes in whatever it duplicates.
    /// The collector then judges it as a [`DedupWriter`]'s. Call it once per document: the
    /// values are added, not replaced. When the index cannot be read for the add order (a
    /// damaged segment), the document gets none, and comes after the numbered ones.
    ///
    /// In an index with the [segment plugin](crate::plugin::DedupSegmentPlugin) (settings
    /// format 10 and later) a document added without it is fingerprinted and signed by the
    /// plugin all the same; filling it gives it the rest (its place in the add order, its
    /// text digest, its scope) and computes its values on the caller's thread rather than
    /// tantivy's indexing thread.
    pub fn fill_document(&self, document: &mut TantivyDocument) -> Option<Fingerprint> {
        let fields = self.fields();
        let text = fields.text_of(document);
        let (fingerprint, signature) = self.fingerprint_and_signature(&text);
        let version = fields.version_of(&text, fingerprint);
        drop(text);
        fields.set_fingerprint(document, fingerprint, signature.as_ref());
        fields.set_version(document, version);
        fields.set_scope(document, fields.scope_of(document));
        fields.set_flag(document, None);
        if let Ok(sequence) = self.take_sequence() {
            fields.set_sequence(document, sequence);
        }
        fingerprint
    }

    /// The next number of the add order, read from the index the first time.
    pub(crate) fn take_sequence(&self) -> Result<u64> {
        let mut next = (self.inner.next_sequence)
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let sequence = match *next {
            Some(sequence) => sequence,
            None => {
                let reader = self
                    .index()
                    .reader_builder()
                    .reload_policy(tantivy::ReloadPolicy::Manual)
                    .try_into()?;
                next_sequence(&reader.searcher())?
            }
        };
        *next = Some(sequence + 1);
        Ok(sequence)
    }

    /// Makes the add order go on after `sequence` at least: a writer's numbers, read from
    /// its own view of the index.
    pub(crate) fn reserve_sequences(&self, sequence: u64) {
        let mut next = (self.inner.next_sequence)
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        *next = Some(next.map_or(sequence, |n| n.max(sequence)));
    }

    /// How this index's rule judges two texts (each the text of a document's fingerprinted
    /// fields, joined as [`DedupFields::text_of`] joins them): whether they are
    /// near-duplicates, their fingerprints' distance, their signatures' Jaccard estimate,
    /// and the [`Reason`](crate::matching::Reason). The same rule as the writer's and the
    /// collector's, with the distance and verification in force (see [`rule`](Self::rule)).
    ///
    /// ```
    /// use tantivy::schema::Schema;
    /// use tantivy::Index;
    /// use tantivy_dedup::matching::Reason;
    /// use tantivy_dedup::plugin::{text_field_options, DedupIndex, DedupSettings};
    ///
    /// let settings = DedupSettings::new(["body"]);
    /// let mut schema = Schema::builder();
    /// schema.add_text_field("body", text_field_options());
    /// settings.add_fields(&mut schema)?;
    /// let index = DedupIndex::create(Index::create_in_ram(schema.build()), settings)?;
    ///
    /// let page = "The quick brown fox jumps over the lazy dog near the river bank today.";
    /// let judgement = index.judge(page, page);
    /// assert!(judgement.near);
    /// // The signatures decide, within the distance too.
    /// assert!(matches!(judgement.reason, Reason::Verified { score, .. } if score == 1.0));
    /// let other = index.judge(page, "Completely different words about databases and storage engines.");
    /// assert!(!other.near);
    /// # Ok::<(), tantivy_dedup::Error>(())
    /// ```
    pub fn judge(&self, a: &str, b: &str) -> Judgement {
        self.inner.text.judge(a, b)
    }

    /// The fingerprint of `text`, and its signature when the index verifies candidates
    /// (none without a fingerprint either: such a document is never a near-duplicate).
    pub(crate) fn fingerprint_and_signature(
        &self,
        text: &str,
    ) -> (Option<Fingerprint>, Option<Signature>) {
        self.inner.text.values_of(text)
    }

    /// The rule deciding which documents are near-duplicates, at distance `k` (with the
    /// settings' verification, if any).
    pub(crate) fn matcher(&self, k: u32) -> Matcher {
        Matcher::new(k, self.settings().get_matching().get_verification())
    }

    /// A [`DedupCollector`] for this index: its fingerprint field, its distance, its
    /// [verification](crate::matching::MatchingSettings::verification) if it has one (the same rule as its
    /// writer; a document with a fingerprint and no signature, which an `IndexWriter` that
    /// did not [fill](Self::fill_document) it added to an index of settings format 9 or
    /// earlier, is judged by its fingerprint alone and
    /// counted in [`DedupTopDocs::unverified`](crate::plugin::DedupTopDocs::unverified),
    /// unless [`require_signatures`](DedupCollector::require_signatures) refuses it), its
    /// [scope field](DedupSettings::scope_field) if it has one, the index's
    /// [`ColumnCache`], and, when the index has flag fields, flagged documents skipped
    /// (they are near-duplicates already; [`include_flagged`](DedupCollector::include_flagged)
    /// shows them hidden under their originals instead).
    pub fn collector(&self, limit: usize) -> DedupCollector {
        let mut collector = DedupCollector::new(FINGERPRINT_FIELD, limit)
            .distance(self.distance())
            .column_cache(self.inner.columns.clone());
        if let Some(verification) = self.settings().get_matching().get_verification() {
            collector = collector.verification(SIGNATURE_FIELD, verification.clone());
        }
        if self.settings().get_scope_field().is_some() {
            collector = collector.scope(SCOPE_FIELD);
        }
        if self.inner.fields.flag.is_some() {
            collector.skip_flagged(FLAG_FIELD)
        } else {
            collector
        }
    }

    /// A [`DedupWriter`] over a new `IndexWriter` with tantivy's default number of indexing
    /// threads and a memory budget of `memory_budget_bytes`.
    ///
    /// # Errors
    /// [`Error::NotWritable`] when the writer's lock file cannot be created (read-only
    /// storage, no write permission); otherwise as [`Index::writer`] (another writer holds
    /// the lock, the budget is too small) and [`DedupWriter::new`].
    pub fn writer(&self, policy: Policy, memory_budget_bytes: usize) -> Result<DedupWriter> {
        let writer: IndexWriter = self
            .inner
            .index
            .writer(memory_budget_bytes)
            .map_err(not_writable)?;
        DedupWriter::new(self.clone(), writer, policy)
    }

    /// A [`DedupWriter`] as [`writer`](Self::writer) makes it, with `threads` indexing
    /// threads (tantivy's `writer_with_num_threads`; the memory budget is shared by them).
    ///
    /// # Errors
    /// As [`writer`](Self::writer).
    pub fn writer_with_num_threads(
        &self,
        policy: Policy,
        threads: usize,
        memory_budget_bytes: usize,
    ) -> Result<DedupWriter> {
        let writer: IndexWriter = self
            .inner
            .index
            .writer_with_num_threads(threads, memory_budget_bytes)
            .map_err(not_writable)?;
        DedupWriter::new(self.clone(), writer, policy)
    }
}

/// Registers `tokenizer` on `index` under [`TOKENIZER_NAME`], the name the plugin's text
/// fields use (see [`text_field_options`](super::text_field_options)). tantivy does not
/// persist registrations: call it after every open ([`DedupIndex`] does).
pub fn register_tokenizer(index: &Index, tokenizer: MixedTokenizer) {
    index.tokenizers().register(TOKENIZER_NAME, tokenizer);
}

/// The fingerprints and signatures of `settings`, with `dictionary` for Chinese text.
fn text_matcher(settings: &DedupSettings, dictionary: ChineseDictionary) -> Result<TextMatcher> {
    let mut builder = SimHasher::builder(settings.get_matching().get_fingerprint().clone())
        .dictionary(dictionary.clone());
    if let Some(table) = settings.get_idf_table() {
        builder = builder.idf(Arc::clone(table) as Arc<dyn IdfSource>);
    }
    TextMatcher::with_hasher(
        builder.build()?,
        dictionary,
        settings.get_matching().get_distance(),
        settings.get_matching().get_verification(),
        settings.get_shingle_weights().cloned(),
    )
}

/// The segment component of an index of `settings` (see
/// [`DedupSettings::segment_plugin`]).
pub(crate) fn segment_plugin(settings: &DedupSettings) -> Result<DedupSegmentPlugin> {
    settings.validate()?;
    let dictionary = dictionary(settings)?;
    let settings = settings
        .clone()
        .with_dictionary_digest(dictionary.digest().map(str::to_owned));
    let text = text_matcher(&settings, dictionary)?;
    Ok(DedupSegmentPlugin::new(settings, text))
}

fn read_settings(index: &Index) -> Result<DedupSettings> {
    settings_file::read(index.directory())?.ok_or_else(|| Error::MissingSettings {
        path: settings_file::SETTINGS_FILE.into(),
    })
}

fn dictionary(settings: &DedupSettings) -> Result<ChineseDictionary> {
    match settings.get_user_dictionary() {
        Some(words) => ChineseDictionary::with_user_words(words),
        None => Ok(ChineseDictionary::default()),
    }
}

/// tantivy's error for a writer lock file that cannot be created for want of write access
/// as [`Error::NotWritable`] (tantivy's message blames another writer); others as they are.
fn not_writable(error: TantivyError) -> Error {
    match error {
        TantivyError::LockFailure(LockError::IoError(source), _) if lacks_write_access(&source) => {
            Error::NotWritable { source }
        }
        other => Error::Tantivy(other),
    }
}

#[cfg(test)]
mod tests {
    use tantivy::schema::Schema;
    use tantivy::{doc, DocAddress, Index, IndexWriter};

    use super::*;
    use crate::plugin::columns::stored::signature_at;
    use crate::plugin::text_field_options;

    #[test]
    fn values_of_are_what_fill_document_stores() {
        let settings = DedupSettings::new(["body"]);
        let mut schema = Schema::builder();
        let body = schema.add_text_field("body", text_field_options());
        settings.add_fields(&mut schema).unwrap();
        let index = DedupIndex::create(Index::create_in_ram(schema.build()), settings).unwrap();
        let mut writer: IndexWriter = index
            .index()
            .writer_with_num_threads(1, 15_000_000)
            .unwrap();
        let texts = [
            "Near-duplicate pages, 近似重复的网页 and their 指纹: one signature each.",
            "!!!",
        ];
        for text in texts {
            let mut document = doc!(body => text);
            index.fill_document(&mut document);
            writer.add_document(document).unwrap();
        }
        writer.commit().unwrap();
        let searcher = index.index().reader().unwrap().searcher();
        for (doc, text) in texts.into_iter().enumerate() {
            let document = doc!(body => text);
            let (fingerprint, signature) = index.values_of(&document);
            assert_eq!(fingerprint, index.fingerprint_of(&document));
            let stored = signature_at(&searcher, DocAddress::new(0, doc as u32), 128).unwrap();
            assert_eq!(signature, stored.map(|s| s.values().to_vec()), "{text}");
        }
        let (fingerprint, signature) = index.values_of(&doc!(body => texts[0]));
        assert!(fingerprint.is_some());
        assert_eq!(signature.map(|s| s.len()), Some(128));
        assert_eq!(index.values_of(&doc!(body => "!!!")), (None, None));
    }
}
