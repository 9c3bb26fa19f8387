//! `DedupSettings`: everything the plugin keeps with an index — the fingerprint config, the
//! fields it reads and writes, the signature of two-stage matching, and the [`MatchRule`]
//! it opens with by default — and the schema fields it needs.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tantivy::schema::{IndexRecordOption, Schema, SchemaBuilder, TextFieldIndexing, TextOptions};

use crate::error::{Error, Result};
use crate::fingerprint::{
    serialized_differences, ConfigDifference, FingerprintConfig, ShingleWeights,
};
use crate::lookup::DEFAULT_MAX_DISTANCE;
use crate::matching::{
    check_distance, check_shingle_weights, check_version, MatchRule, MatchingSettings,
    Verification, VerifyRule, SETTINGS_VERSION,
};
use crate::plugin::columns::DedupFields;
#[cfg(doc)]
use crate::plugin::columns::{
    CONTENT_FIELD, DUPLICATE_OF_FIELD, FINGERPRINT_FIELD, FLAG_FIELD, REPLACED_FIELD, SCOPE_FIELD,
    SEQUENCE_FIELD, SIGNATURE_FIELD,
};
use crate::text::{IdfSource, IdfTable, JIEBA_IDF_IDENTITY, TOKENIZER_NAME};

/// Deduplication settings of an index, written into its directory at creation and checked on
/// every open (see [`DedupIndex`](super::DedupIndex)).
///
/// ```
/// use tantivy::schema::Schema;
/// use tantivy_dedup::plugin::{text_field_options, DedupSettings};
///
/// let settings = DedupSettings::new(["title", "body"]).key_field("url").flagging(true);
/// let mut schema = Schema::builder();
/// schema.add_text_field("title", text_field_options());
/// schema.add_text_field("body", text_field_options());
/// settings.add_fields(&mut schema)?; // dedup_fingerprint, dedup_sequence, url, dedup_content, dedup_flag, dedup_duplicate_of
/// let schema = schema.build();
/// assert!(schema.get_field("url").is_ok());
/// # Ok::<(), tantivy_dedup::Error>(())
/// ```
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(from = "SettingsFile", into = "SettingsFile")]
pub struct DedupSettings {
    version: u32,
    /// The fingerprint config, the distance and the verification: the matching half, with
    /// its defaults. Its `measured` is always `None` (not stored with an index).
    matching: MatchingSettings,
    text_fields: Vec<String>,
    key_field: Option<String>,
    scope_field: Option<String>,
    flagging: bool,
    /// Frozen with the settings in a file of its own (see `config_file.rs`).
    idf_table: Option<Arc<IdfTable>>,
    /// Frozen with the settings in a file of its own (see `config_file.rs`).
    user_dictionary: Option<Arc<[u8]>>,
    /// Frozen with the settings in a file of its own (see `config_file.rs`).
    shingle_weights: Option<Arc<ShingleWeights>>,
}

/// [`DedupSettings`] as the settings file of an index holds them: the layout (fields and
/// their order) every index has been written in, the matching settings' fields among the
/// others. The frozen resources are files of their own.
#[derive(Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SettingsFile {
    version: u32,
    fingerprint: FingerprintConfig,
    text_fields: Vec<String>,
    key_field: Option<String>,
    /// Absent from the settings files of indexes without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    scope_field: Option<String>,
    flagging: bool,
    distance: u32,
    /// Absent from the settings files of indexes without it (and of every index written
    /// before two-stage matching existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    verification: Option<Verification>,
}

impl From<SettingsFile> for DedupSettings {
    fn from(file: SettingsFile) -> Self {
        DedupSettings {
            version: file.version,
            matching: MatchingSettings::default()
                .fingerprint(file.fingerprint)
                .distance(file.distance)
                .verification(file.verification),
            text_fields: file.text_fields,
            key_field: file.key_field,
            scope_field: file.scope_field,
            flagging: file.flagging,
            idf_table: None,
            user_dictionary: None,
            shingle_weights: None,
        }
    }
}

impl From<DedupSettings> for SettingsFile {
    fn from(settings: DedupSettings) -> Self {
        SettingsFile {
            version: settings.version,
            fingerprint: settings.matching.get_fingerprint().clone(),
            text_fields: settings.text_fields,
            key_field: settings.key_field,
            scope_field: settings.scope_field,
            flagging: settings.flagging,
            distance: settings.matching.get_distance(),
            verification: settings.matching.get_verification().cloned(),
        }
    }
}

impl DedupSettings {
    /// Settings that fingerprint the concatenation of `text_fields` (values joined by a
    /// newline, in this order), with the default [`FingerprintConfig`], no key field, no
    /// flagging, distance [`DEFAULT_MAX_DISTANCE`], and the default two-stage matching
    /// ([`Verification::default`]).
    pub fn new<S: Into<String>>(text_fields: impl IntoIterator<Item = S>) -> Self {
        DedupSettings {
            version: SETTINGS_VERSION,
            matching: MatchingSettings::default(),
            text_fields: text_fields.into_iter().map(Into::into).collect(),
            key_field: None,
            scope_field: None,
            flagging: false,
            idf_table: None,
            user_dictionary: None,
            shingle_weights: None,
        }
    }

    /// The matching settings: the fingerprint config, the Hamming distance and the
    /// two-stage matching (see [`MatchingSettings`] for each and its default). Default:
    /// [`MatchingSettings::default`]. Its [`measured`](MatchingSettings::measured) is left
    /// out: an index does not store it.
    ///
    /// The distance is not part of the fingerprint (an index can be opened with another,
    /// [`DedupIndex::open_with`](super::DedupIndex::open_with)). With a verification the
    /// schema gets [`SIGNATURE_FIELD`], and the writer keeps the references' band keys in
    /// memory, plus the signatures (4 bytes per value) of the documents added since the
    /// last commit; without one (`verification(None)`), ingest is faster
    /// (`docs/BENCHMARKS.md` has the costs) and blind to larger edits. A
    /// [`shingle_weights`](Self::shingle_weights) table set before or after is named in the
    /// verification.
    #[must_use]
    pub fn matching(mut self, matching: MatchingSettings) -> Self {
        self.matching = matching.measured(None);
        self.name_shingle_weights();
        self
    }

    /// A field holding each document's unique key (an id or a URL): it lets the writer
    /// delete and replace documents, and recognize a document added again. Default: none.
    /// [`add_fields`](Self::add_fields) adds it as a raw string (STRING, STORED, FAST).
    #[must_use]
    pub fn key_field(mut self, name: impl Into<String>) -> Self {
        self.key_field = Some(name.into());
        self
    }

    /// A text or facet field naming each document's scope (a site, a language, a tenant):
    /// near-duplicates are looked for only among documents of the same scope, by the
    /// writer, the collectors and the batch helpers. The field is the application's own (a
    /// raw `STRING`, or a facet such as `/site/example.org`: its first value is the scope,
    /// a facet's whole path, and documents without one share the empty scope);
    /// [`add_fields`](Self::add_fields) adds [`SCOPE_FIELD`], where the writer keeps a hash
    /// of it. Default: none (one scope).
    #[must_use]
    pub fn scope_field(mut self, name: impl Into<String>) -> Self {
        self.scope_field = Some(name.into());
        self
    }

    /// Whether the schema has the [`FLAG_FIELD`] and [`DUPLICATE_OF_FIELD`] that
    /// [`Policy::Flag`](super::Policy::Flag) writes. Default: false.
    #[must_use]
    pub fn flagging(mut self, yes: bool) -> Self {
        self.flagging = yes;
        self
    }

    /// Weights from `table` instead of jieba's: the table is frozen into the index
    /// directory with the settings, so fingerprints do not drift as the index grows. Sets
    /// the fingerprint config's [`idf`](FingerprintConfig::idf) to the table's identity.
    #[must_use]
    pub fn idf_table(mut self, table: Arc<IdfTable>) -> Self {
        let config = self
            .matching
            .get_fingerprint()
            .clone()
            .idf(table.identity());
        self.matching = std::mem::take(&mut self.matching).fingerprint(config);
        self.idf_table = Some(table);
        self
    }

    /// Weights the signatures' shingles by `table` (see [`Verification::weights`]), which
    /// is frozen into the index directory with the settings: the shingles of many documents
    /// of the sample it was learned from count less. Learn one with
    /// [`TextMatcher::learn_weights`](crate::matching::TextMatcher::learn_weights) from a
    /// sample of the documents to come. Sets the verification's
    /// [`weights`](Verification::weights) to the table's identity, now and whenever the
    /// verification is set again; without a verification it has no effect.
    #[must_use]
    pub fn shingle_weights(mut self, table: Arc<ShingleWeights>) -> Self {
        self.shingle_weights = Some(table);
        self.name_shingle_weights();
        self
    }

    /// Names the table of [`shingle_weights`](Self::shingle_weights()) in the verification.
    fn name_shingle_weights(&mut self) {
        if let (Some(verification), Some(table)) =
            (self.matching.get_verification(), &self.shingle_weights)
        {
            let named = verification
                .clone()
                .weights(Some(table.identity().to_owned()));
            self.matching = std::mem::take(&mut self.matching).verification(named);
        }
    }

    /// A jieba user dictionary (the text of a dictionary file), frozen into the index
    /// directory with the settings. Its digest is set into the fingerprint config when the
    /// index is created.
    #[must_use]
    pub fn user_dictionary(mut self, words: impl Into<Arc<[u8]>>) -> Self {
        self.user_dictionary = Some(words.into());
        self
    }

    /// See [`matching`](Self::matching()).
    pub fn get_matching(&self) -> &MatchingSettings {
        &self.matching
    }

    /// The fields whose text is fingerprinted, in order.
    pub fn get_text_fields(&self) -> &[String] {
        &self.text_fields
    }

    /// See [`key_field`](Self::key_field()).
    pub fn get_key_field(&self) -> Option<&str> {
        self.key_field.as_deref()
    }

    /// See [`scope_field`](Self::scope_field()).
    pub fn get_scope_field(&self) -> Option<&str> {
        self.scope_field.as_deref()
    }

    /// See [`flagging`](Self::flagging()).
    pub fn get_flagging(&self) -> bool {
        self.flagging
    }

    /// The largest distance at which two documents can be near-duplicates: the candidate
    /// distance of the verification, or the distance.
    pub fn reach(&self) -> u32 {
        let distance = self.matching.get_distance();
        (self.matching.get_verification())
            .map_or(distance, |v| v.get_candidate_distance().max(distance))
    }

    /// See [`idf_table`](Self::idf_table()).
    pub fn get_idf_table(&self) -> Option<&Arc<IdfTable>> {
        self.idf_table.as_ref()
    }

    /// See [`shingle_weights`](Self::shingle_weights()).
    pub fn get_shingle_weights(&self) -> Option<&Arc<ShingleWeights>> {
        self.shingle_weights.as_ref()
    }

    /// See [`user_dictionary`](Self::user_dictionary()).
    pub fn get_user_dictionary(&self) -> Option<&[u8]> {
        self.user_dictionary.as_deref()
    }

    /// Adds the plugin's fields to a schema: [`FINGERPRINT_FIELD`], [`SEQUENCE_FIELD`], the
    /// key field, [`CONTENT_FIELD`] and [`REPLACED_FIELD`] if a key field is set, [`FLAG_FIELD`] and
    /// [`DUPLICATE_OF_FIELD`] if flagging is on, and [`SIGNATURE_FIELD`] with a
    /// verification. The text fields are the caller's own (see [`text_field_options`]), added
    /// before or after.
    ///
    /// A field `schema` has already is kept, as [`extend_schema`](Self::extend_schema) keeps
    /// it: a key field the application declared itself (a raw `STRING`, made FAST and
    /// STORED if it was not), or the plugin's own fields added before. The fields keep
    /// their numbers.
    ///
    /// # Errors
    /// [`Error::Schema`](crate::Error::Schema) when a field already there is unfit (a
    /// tokenized key field, a plugin field of another type, a text field named by the
    /// settings that is not text); `schema` is then left as it was.
    pub fn add_fields(&self, schema: &mut SchemaBuilder) -> Result<()> {
        // tantivy's builder has no lookup: build it, extend the schema, and rebuild the
        // builder from the result (field numbers follow the order of addition).
        let built = std::mem::take(schema).build();
        let extended = DedupFields::with_plugin_fields(&built, self);
        let source = extended.as_ref().unwrap_or(&built);
        for (_, entry) in source.fields() {
            schema.add_field(entry.clone());
        }
        extended.map(drop)
    }

    /// A copy of `schema` with the plugin's fields added where it lacks them, as
    /// [`add_fields`](Self::add_fields) adds them: for a schema that exists already (an
    /// index to [reindex](crate::plugin::reindex), or one built elsewhere). The fields keep
    /// their numbers. A key field already in `schema` is kept, made FAST and STORED if it
    /// was not; the plugin's own fields already present are kept as they are.
    ///
    /// # Errors
    /// [`Error::Schema`](crate::Error::Schema) when a field `schema` has is unfit: a text
    /// field named by the settings that is not text, a key field that is tokenized, a
    /// plugin field of another type.
    pub fn extend_schema(&self, schema: &Schema) -> Result<Schema> {
        DedupFields::extend(schema, self)
    }

    /// Checks that every setting is in range.
    ///
    /// # Errors
    /// [`Error::InvalidSetting`] naming the first one that is not.
    pub fn validate(&self) -> Result<()> {
        self.matching.get_fingerprint().validate()?;
        check_version(self.version)?;
        if self.text_fields.is_empty() {
            return Err(Error::InvalidSetting {
                name: "text_fields",
                reason: "name at least one text field to fingerprint".into(),
            });
        }
        check_distance("distance", self.matching.get_distance())?;
        if let Some(verification) = self.matching.get_verification() {
            verification.validate()?;
        }
        self.check_idf_source()?;
        check_shingle_weights(
            self.matching.get_verification(),
            self.shingle_weights.as_deref(),
        )
    }

    /// Checks that the IDF source the fingerprint config names is one there is: jieba's
    /// built-in table without an [`idf_table`](Self::idf_table), else that table. (Any name
    /// deserializes: a settings file naming another would make an index whose fingerprints
    /// cannot be computed.)
    fn check_idf_source(&self) -> Result<()> {
        let named = self.matching.get_fingerprint().get_idf();
        let given = self.idf_table.as_ref().map(|table| table.identity());
        if given.unwrap_or(JIEBA_IDF_IDENTITY) == named {
            return Ok(());
        }
        Err(Error::InvalidSetting {
            name: "fingerprint.idf",
            reason: match given {
                None => format!(
                    "{named:?} names no IDF source there is: without an IDF table of its own, \
                     the source is jieba's built-in table, {JIEBA_IDF_IDENTITY:?}"
                ),
                Some(given) => {
                    format!("{named:?} is not the IDF table of these settings, {given:?}")
                }
            },
        })
    }

    /// Each setting in which `self` differs from `other`, except those of the
    /// [`rule`](Self::rule), which change no stored value (the distance, and the
    /// verification's candidate stage, candidate distance, threshold and score). Paths are
    /// those of the settings file, e.g. `fingerprint.weighting` or `key_field`.
    pub fn differences(&self, other: &DedupSettings) -> Vec<ConfigDifference> {
        let mut differences = serialized_differences(&self.stored(), &other.stored());
        // The version is the file's format, not a setting: files of two versions can hold
        // the same settings.
        differences.retain(|difference| difference.field != "version");
        differences
    }

    /// The runtime settings: the distance, and the verification's rule. They may change at
    /// every open of an index ([`DedupIndex::open_with`](super::DedupIndex::open_with)).
    pub fn rule(&self) -> MatchRule {
        MatchRule {
            distance: self.matching.get_distance(),
            verify: self.matching.get_verification().map(Verification::rule),
        }
    }

    /// The same stored settings with `rule`'s distance, and its verification rule when
    /// both have a verification (the signatures are stored: a rule cannot add or remove
    /// them).
    #[must_use]
    pub fn with_rule(mut self, rule: MatchRule) -> Self {
        let mut matching = std::mem::take(&mut self.matching).distance(rule.distance);
        if let (Some(verification), Some(verify)) = (matching.get_verification(), rule.verify) {
            let verification = verification.clone().with_rule(verify);
            matching = matching.verification(verification);
        }
        self.matching = matching;
        self
    }

    /// These settings with every runtime setting at its default: what an index stores.
    fn stored(&self) -> DedupSettings {
        self.clone().with_rule(MatchRule {
            distance: DEFAULT_MAX_DISTANCE,
            verify: Some(VerifyRule::default()),
        })
    }

    /// The segment component of an index of these settings, for an index built by hand:
    /// `Index::builder().schema(schema).register_plugin(settings.segment_plugin()?)`.
    /// [`DedupIndex`](crate::plugin::DedupIndex) registers it itself on the indexes it
    /// creates and opens, and records it in an index never committed to.
    ///
    /// # Errors
    /// As [`DedupIndex::create`](crate::plugin::DedupIndex::create) for the settings
    /// themselves (out of range, a user dictionary that does not load).
    pub fn segment_plugin(
        &self,
    ) -> crate::error::Result<std::sync::Arc<dyn tantivy::plugin::SegmentPlugin>> {
        Ok(std::sync::Arc::new(crate::plugin::index::segment_plugin(
            self,
        )?))
    }

    /// The settings file format version these settings were read from or are written in.
    #[must_use]
    pub fn get_version(&self) -> u32 {
        self.version
    }

    /// The fingerprint config with the user dictionary's digest in it, as it is stored.
    pub(crate) fn with_dictionary_digest(mut self, digest: Option<String>) -> Self {
        let config = self.matching.get_fingerprint().clone();
        let tokenizer = config.get_tokenizer().clone();
        let config = config.tokenizer(tokenizer.user_dictionary(digest));
        self.matching = std::mem::take(&mut self.matching).fingerprint(config);
        self
    }

    /// Attaches the frozen resources read back from the index directory.
    pub(crate) fn with_resources(
        mut self,
        idf_table: Option<Arc<IdfTable>>,
        user_dictionary: Option<Arc<[u8]>>,
        shingle_weights: Option<Arc<ShingleWeights>>,
    ) -> Self {
        self.idf_table = idf_table;
        self.user_dictionary = user_dictionary;
        self.shingle_weights = shingle_weights;
        self
    }
}

/// Options for a text field searched with the plugin's [`MixedTokenizer`]: indexed under
/// [`TOKENIZER_NAME`] with frequencies and positions (phrase queries), and stored.
///
/// [`MixedTokenizer`]: crate::text::MixedTokenizer
pub fn text_field_options() -> TextOptions {
    let indexing = TextFieldIndexing::default()
        .set_tokenizer(TOKENIZER_NAME)
        .set_index_option(IndexRecordOption::WithFreqsAndPositions);
    TextOptions::default()
        .set_indexing_options(indexing)
        .set_stored()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_idf_source_that_is_not_there_is_refused() {
        let named = |idf: &str| {
            let config = FingerprintConfig::default().idf(idf);
            DedupSettings::new(["body"])
                .matching(MatchingSettings::default().fingerprint(config))
                .validate()
        };
        assert!(named(JIEBA_IDF_IDENTITY).is_ok());
        match named("bogus") {
            Err(Error::InvalidSetting { name, reason }) => {
                assert_eq!(name, "fingerprint.idf");
                assert!(reason.contains("\"bogus\""), "{reason}");
            }
            other => panic!("expected an invalid idf, got {other:?}"),
        }
        let with_table = DedupSettings::new(["body"]).idf_table(IdfTable::jieba());
        assert!(with_table.validate().is_ok());
    }
    use crate::fingerprint::{KeptBits, ShingleHashing};
    use crate::matching::{PairScore, Verification};
    use crate::text::Weighting;

    #[test]
    fn the_matching_half_moves_alone() {
        let tuned = MatchingSettings::default()
            .distance(5)
            .verification(Verification::default().threshold(0.25))
            .fingerprint(FingerprintConfig::default().weighting(Weighting::TfIdf));
        let index = DedupSettings::new(["title", "body"])
            .key_field("url")
            .flagging(true)
            .matching(tuned.clone());
        assert_eq!(index.get_text_fields(), ["title", "body"]);
        assert_eq!(index.get_key_field(), Some("url"));
        assert!(index.get_flagging());
        assert_eq!(index.get_matching().get_distance(), 5);
        assert_eq!(index.get_matching(), &tuned);
        assert_eq!(
            DedupSettings::new(["body"]).get_matching(),
            &MatchingSettings::default()
        );
    }

    #[test]
    fn differences_ignore_the_distance_and_name_the_rest() {
        let a = DedupSettings::new(["body"]);
        let b = DedupSettings::new(["body"]).matching(MatchingSettings::default().distance(5));
        assert!(a.differences(&b).is_empty());
        let c = DedupSettings::new(["title", "body"])
            .key_field("url")
            .matching(
                MatchingSettings::default()
                    .fingerprint(FingerprintConfig::default().weighting(Weighting::TfIdf)),
            );
        let fields: Vec<String> = a.differences(&c).into_iter().map(|d| d.field).collect();
        assert_eq!(
            fields,
            ["fingerprint.weighting", "key_field", "text_fields"],
            "paths of the settings file"
        );
    }

    #[test]
    fn validation_refuses_what_cannot_work() {
        assert!(DedupSettings::new(["body"]).validate().is_ok());
        let none: [&str; 0] = [];
        assert!(DedupSettings::new(none).validate().is_err());
        assert!(DedupSettings::new(["body"])
            .matching(MatchingSettings::default().distance(65))
            .validate()
            .is_err());
    }

    #[test]
    fn settings_round_trip_through_json() {
        let settings = DedupSettings::new(["body"]).key_field("id").flagging(true);
        let json = serde_json::to_string(&settings).unwrap();
        let back: DedupSettings = serde_json::from_str(&json).unwrap();
        assert!(settings.differences(&back).is_empty());
        assert_eq!(
            back.get_matching().get_distance(),
            settings.get_matching().get_distance()
        );
    }

    #[test]
    fn settings_files_of_earlier_versions_still_read() {
        use crate::matching::CandidateStage;
        let current = serde_json::to_value(DedupSettings::new(["body"])).unwrap();
        // Written before two-stage matching: no verification at all.
        let mut before_verification = current.clone();
        before_verification
            .as_object_mut()
            .unwrap()
            .remove("verification");
        let read: DedupSettings = serde_json::from_value(before_verification).unwrap();
        assert!(read.get_matching().get_verification().is_none());
        // Written before the candidate stage was a setting: every candidate within the
        // candidate distance, the rule of then.
        let mut before_bands = current.clone();
        before_bands["verification"]
            .as_object_mut()
            .unwrap()
            .remove("candidates");
        let read: DedupSettings = serde_json::from_value(before_bands).unwrap();
        read.validate().unwrap();
        let verification = read.get_matching().get_verification().unwrap();
        assert_eq!(verification.get_candidates(), CandidateStage::Scan);
        // And the candidate stage is a runtime setting: no difference to open with.
        assert!(read.differences(&DedupSettings::new(["body"])).is_empty());
        // Format 5 and earlier: a pair within the distance was near whatever its
        // signatures said, and such an index keeps that rule until it is asked for another.
        assert!(current["verification"]["signatures_decide"] == true);
        let mut format_5 = current.clone();
        format_5["version"] = 5.into();
        format_5["verification"]
            .as_object_mut()
            .unwrap()
            .remove("signatures_decide");
        let read: DedupSettings = serde_json::from_value(format_5).unwrap();
        assert!(!read
            .get_matching()
            .get_verification()
            .unwrap()
            .get_signatures_decide());
        assert!(!read.rule().verify.unwrap().signatures_decide);
        // Format 2: signatures hashed a shingle's text, and such an index keeps doing so;
        // the hashing is frozen, so asking for the current default names it.
        // Format 3: signatures kept the low bits of each value, and such an index keeps
        // doing so (and refuses containment).
        let mut format_3 = current.clone();
        format_3["version"] = 3.into();
        format_3["verification"]
            .as_object_mut()
            .unwrap()
            .remove("kept_bits");
        let read: DedupSettings = serde_json::from_value(format_3.clone()).unwrap();
        assert_eq!(
            read.get_matching()
                .get_verification()
                .unwrap()
                .get_kept_bits(),
            KeptBits::Low
        );
        let differences = read.differences(&DedupSettings::new(["body"]));
        let fields: Vec<&str> = differences.iter().map(|d| d.field.as_str()).collect();
        assert_eq!(fields, ["verification.kept_bits"]);
        let containment = read.clone().matching(
            read.get_matching().clone().verification(
                (read.get_matching().get_verification())
                    .unwrap()
                    .clone()
                    .score(PairScore::Containment),
            ),
        );
        assert!(containment.validate().is_err());
        let mut format_2 = format_3;
        format_2["version"] = 2.into();
        format_2["verification"]
            .as_object_mut()
            .unwrap()
            .remove("shingle_hashing");
        let read: DedupSettings = serde_json::from_value(format_2).unwrap();
        let verification = read.get_matching().get_verification().unwrap();
        assert_eq!(verification.get_shingle_hashing(), ShingleHashing::Text);
        let differences = read.differences(&DedupSettings::new(["body"]));
        let fields: Vec<&str> = differences.iter().map(|d| d.field.as_str()).collect();
        assert_eq!(
            fields,
            ["verification.kept_bits", "verification.shingle_hashing"]
        );
        let text = DedupSettings::new(["body"]).matching(
            MatchingSettings::default().verification(
                Verification::default()
                    .shingle_hashing(ShingleHashing::Text)
                    .kept_bits(KeptBits::Low),
            ),
        );
        assert!(read.differences(&text).is_empty());
    }
}
