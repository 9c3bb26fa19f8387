//! What a decision is asked: a [`PreparedDocument`] (a document measured, the part of an add
//! that needs no lock) and the [`Decision`] it is decided as.

use tantivy::schema::TantivyDocument;

#[cfg(doc)]
use super::outcome::Policy;
use crate::error::Result;
use crate::fingerprint::{Fingerprint, Signature};
use crate::plugin::DedupIndex;

/// A document measured by [`DedupWriter::prepare`](super::DedupWriter::prepare) (its
/// fingerprint, signature, version and the plugin's fields set), ready for
/// [`DedupWriter::add_prepared`](super::DedupWriter::add_prepared): the part of an add
/// that needs no lock, done on any thread, and its values at hand before the add decides
/// (to decide it elsewhere first, as `ingest --cluster` does in a shared space).
#[derive(Clone, Debug)]
pub struct PreparedDocument {
    pub(super) document: TantivyDocument,
    pub(super) fingerprint: Option<Fingerprint>,
    pub(super) signature: Option<Signature>,
    pub(super) version: Option<u64>,
    pub(super) key: Option<String>,
    pub(super) scope: Option<u64>,
    pub(super) records: Vec<String>,
}

impl PreparedDocument {
    /// Its fingerprint; `None` for a text without features.
    #[must_use]
    pub fn fingerprint(&self) -> Option<Fingerprint> {
        self.fingerprint
    }

    /// Its key, when the index has a key field and the document a value in it.
    #[must_use]
    pub fn key(&self) -> Option<&str> {
        self.key.as_deref()
    }

    /// Its signature's values, when the index verifies candidates with signatures.
    #[must_use]
    pub fn signature_values(&self) -> Option<&[u32]> {
        self.signature.as_ref().map(Signature::values)
    }

    /// The values it is compared with the references by: fingerprint, signature, scope.
    pub(super) fn values(&self) -> (Option<Fingerprint>, Option<&Signature>, Option<u64>) {
        (self.fingerprint, self.signature.as_ref(), self.scope)
    }
}

/// How a document is decided (see `decision::decide`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Decision {
    /// A document sent to the writer (or a rejected one decided again): by the writer's
    /// policy, its key's latest word.
    Sent,
    /// A text the index kept (a holder of records written again without some, a replaced
    /// record decided again): by the writer's policy, but no new word of its key: a later
    /// text of its key rejected (held, or watched) stays its latest word.
    Older,
    /// A flagged copy written again because its original changed: as
    /// [`Policy::Flag`] decides, whatever the writer's policy, its key's other texts held
    /// or watched as they are.
    FlaggedCopy,
}

/// A document's fingerprint, signature and version (see `DedupFields::version_of`), from
/// its text fields, outside the lock: what `add` and `check` look up.
pub(super) fn measure(
    index: &DedupIndex,
    document: &TantivyDocument,
) -> (Option<Fingerprint>, Option<Signature>, Option<u64>) {
    let fields = index.fields();
    let text = fields.text_of(document);
    let (fingerprint, signature) = index.fingerprint_and_signature(&text);
    let version = fields.version_of(&text, fingerprint);
    (fingerprint, signature, version)
}

/// `document` measured and the plugin's fields set (see
/// [`DedupWriter::prepare`](super::DedupWriter::prepare)).
///
/// # Errors
/// [`Error::KeyTooLong`](crate::Error::KeyTooLong) for a key longer than tantivy indexes.
pub(super) fn prepare(
    index: &DedupIndex,
    mut document: TantivyDocument,
) -> Result<PreparedDocument> {
    let fields = index.fields();
    let (fingerprint, signature, version) = measure(index, &document);
    let key = fields.checked_key_of(&document)?.map(str::to_owned);
    let scope = fields.scope_of(&document);
    fields.set_fingerprint(&mut document, fingerprint, signature.as_ref());
    fields.set_version(&mut document, version);
    fields.set_scope(&mut document, scope);
    // Records of replaced documents the document brings along (a copy, in a reindex).
    let records = fields.records_in(&document);
    fields.add_record_keys(&mut document, &records);
    Ok(PreparedDocument {
        document,
        fingerprint,
        signature,
        version,
        key,
        scope,
        records,
    })
}
