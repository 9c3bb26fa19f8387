//! The tantivy plugin: fingerprints stored in the index, near-duplicates rejected, flagged or
//! replaced while indexing ([`DedupWriter`]), and the settings that make an index's
//! fingerprints comparable kept in its directory ([`DedupIndex`]).
//!
//! The equivalent of Solr's `SignatureUpdateProcessorFactory` with `overwriteDupes`, for
//! near-duplicates rather than exact signatures: a document is a near-duplicate of another
//! when their 64-bit SimHash fingerprints differ in at most *k* bits.
//!
//! * [`DedupSettings`]: text fields, key field, flagging, distance, fingerprint config; and
//!   [`add_fields`](DedupSettings::add_fields), the one call that sets a schema up.
//! * [`DedupIndex`]: creates or opens an index's settings (a typed
//!   [`SettingsMismatch`](crate::Error::SettingsMismatch) when they differ) and registers
//!   the tokenizer.
//! * [`DedupWriter`], [`Policy`], [`AddOutcome`]: index-time deduplication.
//! * [`DedupIndex::near_duplicates_of`], [`DedupIndex::duplicate_groups`]: batch work over
//!   an existing index, by the writer's rule.
//!
//! The module is called `plugin` rather than `tantivy` so that `tantivy::` paths inside the
//! crate keep naming the tantivy crate.

mod batch;
mod config_file;
mod dedup_index;
mod fields;
mod outcome;
mod settings;
mod stored;
mod view;
mod writer;

pub use batch::{DuplicateGroup, NearDuplicate};
pub use config_file::{DICTIONARY_FILE, IDF_FILE, SETTINGS_FILE};
pub use dedup_index::{register_tokenizer, DedupIndex};
pub use fields::DedupFields;
pub use outcome::{AddOutcome, Duplicate, Policy};
pub use settings::{
    text_field_options, DedupSettings, DUPLICATE_OF_FIELD, FINGERPRINT_FIELD, FLAG_FIELD,
    SEQUENCE_FIELD, SETTINGS_VERSION,
};
pub use writer::DedupWriter;
