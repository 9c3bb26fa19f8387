//! What [`DedupWriter::add`](super::DedupWriter::add) does with a near-duplicate, and what it
//! reports, of a document ([`AddOutcome`], [`Check`]) and of a record decided again
//! ([`Rejudged`]).

use serde::{Deserialize, Serialize};
use tantivy::{DocAddress, Opstamp};

use crate::fingerprint::Fingerprint;

/// What the writer does with a document that is a near-duplicate of one already indexed (or
/// added since the last commit).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Policy {
    /// The document is not indexed.
    #[default]
    Reject,
    /// The document is indexed, marked in [`FLAG_FIELD`](crate::plugin::FLAG_FIELD) with the
    /// distance and in [`DUPLICATE_OF_FIELD`](crate::plugin::DUPLICATE_OF_FIELD) with what it
    /// duplicates; it does not become a reference for later documents. Needs
    /// [`DedupSettings::flagging`](crate::plugin::DedupSettings::flagging).
    Flag,
    /// The document is indexed and every document it is a near-duplicate of is deleted, as
    /// Solr's `overwriteDupes` does: the newest version of a page wins. Needs a
    /// [key field](crate::plugin::DedupSettings::key_field) to delete by.
    Replace,
}

/// A document that a new one is a near-duplicate of.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Duplicate {
    /// Its key, when the index has a key field and the document a value in it.
    pub key: Option<String>,
    /// Its address in the writer's [`searcher`](crate::plugin::DedupWriter::searcher) (the last
    /// commit), or `None` when it was added since the last commit.
    #[serde(skip)]
    pub address: Option<DocAddress>,
    /// Its fingerprint.
    pub fingerprint: Fingerprint,
    /// The Hamming distance between the two fingerprints.
    pub distance: u32,
    /// The [verification](crate::matching::Verification)'s score of the pair, when the index
    /// verifies candidates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub similarity: Option<f64>,
}

/// What [`DedupWriter::check`](crate::plugin::DedupWriter::check) finds: what `add` would
/// do with a document, nothing written.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Check {
    /// No near-duplicate: `add` would index it ([`AddOutcome::Added`], or
    /// [`AddOutcome::Updated`] when `update`).
    New {
        /// Its fingerprint; `None` for a text without features.
        fingerprint: Option<Fingerprint>,
        /// Whether it would replace the indexed document of its key (another text).
        update: bool,
    },
    /// A document of its key and text is indexed: `add` would return
    /// [`AddOutcome::Exists`].
    Exists {
        /// The key.
        key: String,
    },
    /// Near-duplicates of it, nearest first: `add` would reject it, flag it as a
    /// near-duplicate of the first, or replace them, by the policy.
    Duplicate {
        /// Its fingerprint.
        fingerprint: Fingerprint,
        /// Every near-duplicate found, nearest first.
        of: Vec<Duplicate>,
    },
}

/// What [`DedupWriter::add`](crate::plugin::DedupWriter::add) did with a document. New
/// outcomes may come in later versions: match with a `_` arm. Serialized as the index's
/// ledger keeps a record decided again until its report is delivered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum AddOutcome {
    /// Indexed: no near-duplicate was found, or the document has no fingerprint (its text has
    /// no features) and so cannot have one.
    Added {
        /// The document's fingerprint.
        fingerprint: Option<Fingerprint>,
        /// The operation stamp of the add.
        opstamp: Opstamp,
    },
    /// Not indexed, under [`Policy::Reject`]: the nearest near-duplicate.
    Rejected {
        /// The document's fingerprint.
        fingerprint: Fingerprint,
        /// The nearest document it duplicates.
        duplicate_of: Duplicate,
    },
    /// Indexed and flagged, under [`Policy::Flag`].
    Flagged {
        /// The document's fingerprint.
        fingerprint: Fingerprint,
        /// The nearest document it duplicates.
        duplicate_of: Duplicate,
        /// The operation stamp of the add.
        opstamp: Opstamp,
    },
    /// Indexed, and the documents it duplicates deleted, under [`Policy::Replace`].
    Replaced {
        /// The document's fingerprint.
        fingerprint: Fingerprint,
        /// Every document deleted, nearest first.
        replaced: Vec<Duplicate>,
        /// The operation stamp of the add.
        opstamp: Opstamp,
    },
    /// Indexed in place of the document with the same key and another text, which is
    /// deleted in the same commit (a page crawled again): the new text was checked against
    /// every other document as any addition is, and is no near-duplicate of one. (A new
    /// version that is a near-duplicate of another document is
    /// [`Rejected`](Self::Rejected), leaving the indexed version as it is, or
    /// [`Flagged`](Self::Flagged) or [`Replaced`](Self::Replaced) in its place.)
    Updated {
        /// The new version's fingerprint.
        fingerprint: Option<Fingerprint>,
        /// The operation stamp of the add.
        opstamp: Opstamp,
    },
    /// Not indexed: a document with the same key and the same text is in the index already
    /// (or was added since the last commit), as when an interrupted ingestion is run again;
    /// or one was, and a near-duplicate that is still indexed replaced it under
    /// [`Policy::Replace`] (see [`REPLACED_FIELD`](crate::plugin::REPLACED_FIELD)).
    Exists {
        /// The key.
        key: String,
    },
}

impl AddOutcome {
    /// The near-duplicate the document was checked against and found to duplicate, if any
    /// (the nearest one, for [`Replaced`](Self::Replaced)).
    pub fn duplicate_of(&self) -> Option<&Duplicate> {
        match self {
            AddOutcome::Rejected { duplicate_of, .. }
            | AddOutcome::Flagged { duplicate_of, .. } => Some(duplicate_of),
            AddOutcome::Replaced { replaced, .. } => replaced.first(),
            AddOutcome::Added { .. } | AddOutcome::Updated { .. } | AddOutcome::Exists { .. } => {
                None
            }
        }
    }

    /// Whether the document went into the index.
    pub fn is_indexed(&self) -> bool {
        matches!(
            self,
            AddOutcome::Added { .. }
                | AddOutcome::Updated { .. }
                | AddOutcome::Flagged { .. }
                | AddOutcome::Replaced { .. }
        )
    }
}

/// A record decided again because a document it had been judged against changed (see
/// [`DedupWriter::take_rejudged`](super::DedupWriter::take_rejudged)).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Rejudged {
    /// Decided again: its new outcome (an [`AddOutcome::Updated`] or
    /// [`AddOutcome::Added`] for a record kept out before and near nothing now, an
    /// [`AddOutcome::Added`] for a copy unflagged, ...).
    Decided {
        /// The record's key, when it has one.
        key: Option<String>,
        /// The key of the document whose change decided it again.
        after: String,
        /// What the writer did with it now.
        outcome: AddOutcome,
        /// Reported by an earlier writer too, which stopped before it was known to be
        /// recorded (see [`DedupWriter::take_rejudged`](super::DedupWriter::take_rejudged)):
        /// a reader that keeps every report may hold it already.
        repeated: bool,
    },
    /// Its text is in no document, and no near-duplicate of it is: it was kept out (rejected,
    /// or replaced) because of a document that changed, at a time the writer no longer holds
    /// its text (before the last commit). Fetch it again and add it.
    Lost {
        /// The record's key.
        key: String,
        /// The key of the document whose change left it out.
        after: String,
        /// Reported by an earlier writer too, which stopped before it was known to be
        /// recorded (see [`DedupWriter::take_rejudged`](super::DedupWriter::take_rejudged)):
        /// a reader that keeps every report may hold it already.
        repeated: bool,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn duplicate(key: &str, distance: u32) -> Duplicate {
        Duplicate {
            key: Some(key.to_owned()),
            address: None,
            fingerprint: Fingerprint(0),
            distance,
            similarity: None,
        }
    }

    #[test]
    fn outcomes_say_where_the_document_went_and_what_it_duplicates() {
        let fingerprint = Fingerprint(1);
        let rejected = AddOutcome::Rejected {
            fingerprint,
            duplicate_of: duplicate("a", 2),
        };
        assert!(!rejected.is_indexed());
        assert_eq!(rejected.duplicate_of().unwrap().key.as_deref(), Some("a"));
        let replaced = AddOutcome::Replaced {
            fingerprint,
            replaced: vec![duplicate("near", 1), duplicate("far", 3)],
            opstamp: 0,
        };
        assert!(replaced.is_indexed());
        assert_eq!(
            replaced.duplicate_of().unwrap().key.as_deref(),
            Some("near"),
            "the nearest"
        );
        let exists = AddOutcome::Exists { key: "a".into() };
        assert!(!exists.is_indexed() && exists.duplicate_of().is_none());
        let added = AddOutcome::Added {
            fingerprint: None,
            opstamp: 0,
        };
        assert!(added.is_indexed() && added.duplicate_of().is_none());
    }
}
