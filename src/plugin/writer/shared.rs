//! A [`DedupWriter`] in a near-duplicate space shared with writers on other machines
//! (cargo feature `cluster`): each document is decided in the [`SharedRegistry`] first, by
//! the index's rule against every writer's documents, then by this writer against its own
//! index.

use super::dedup_writer::DedupWriter;
use super::outcome::{AddOutcome, Duplicate, Policy};
use super::prepared_document::PreparedDocument;
use crate::error::{Error, Result};
use crate::shared::{SharedDecision, SharedRegistry};

impl DedupWriter {
    /// This writer in `registry`'s shared space: from now on every document it adds is
    /// decided there first, against the documents of every writer sharing the space, by
    /// the index's rule (the registry must judge by this index's distance and
    /// verification), then against this index as any add is.
    ///
    /// Available with the `cluster` feature.
    ///
    /// - A near-duplicate of a document any writer admitted there is
    ///   [`AddOutcome::Rejected`]; its [`Duplicate`] has the other document's key and
    ///   fingerprint, and no `address` (the space does not know where a shard holds it).
    /// - A key another writer admitted is [`AddOutcome::Exists`]: that writer holds it.
    /// - A document the space admitted now and this index leaves out after all (a
    ///   near-duplicate of one it held before it joined the space, or an error) is given up
    ///   in the space again, with the records it rejected meanwhile
    ///   ([`SharedRegistry::abort`]). A key admitted before (a new version of a document
    ///   the index holds) stays the writer's whatever the index does with the new text.
    /// - Documents without a fingerprint are indexed without the space, as ever.
    ///
    /// Under the registry's faults (docs/SCALING.md) an add is [`Error::Cluster`]; nothing
    /// falls back to this index alone. `tantivy-dedup repair` mends what a crash leaves
    /// between the space and the index.
    ///
    /// # Errors
    /// [`Error::InvalidSetting`] for a policy other than [`Policy::Reject`], an index
    /// without a key field (the space knows documents by their keys), or a registry
    /// connected with other matching settings than the index's (`matching`).
    pub fn shared(mut self, registry: SharedRegistry) -> Result<DedupWriter> {
        if self.policy() != Policy::Reject {
            return Err(Error::InvalidSetting {
                name: "policy",
                reason: "a shared near-duplicate space decides under Reject only".into(),
            });
        }
        if self.index().fields().key.is_none() {
            return Err(Error::InvalidSetting {
                name: "key_field",
                reason: "a shared near-duplicate space knows documents by their keys: \
                         set DedupSettings::key_field"
                    .into(),
            });
        }
        let settings = self.index().settings();
        let matching = (settings.get_matching().clone()).distance(self.index().distance());
        if !registry.judges_by(&matching) {
            return Err(Error::InvalidSetting {
                name: "matching",
                reason: "the shared registry judges by other fingerprint settings or another \
                         rule than this index: connect it with the index's \
                         DedupSettings::matching"
                    .into(),
            });
        }
        self.shared = Some(registry);
        Ok(self)
    }

    /// The shared space's decision on `prepared`, then this index's.
    pub(super) fn decide_shared(
        &self,
        registry: &SharedRegistry,
        prepared: PreparedDocument,
    ) -> Result<AddOutcome> {
        let Some(fingerprint) = prepared.fingerprint() else {
            return self.decide(prepared);
        };
        let Some(key) = prepared.key().map(str::to_owned) else {
            return Err(Error::InvalidSetting {
                name: "key_field",
                reason: "a document without a key cannot be decided in a shared space".into(),
            });
        };
        let decision = registry.decide(&key, fingerprint, prepared.signature_values())?;
        match decision {
            SharedDecision::Admitted { again, .. } => {
                let outcome = self.decide(prepared);
                let indexed = matches!(
                    outcome,
                    Ok(AddOutcome::Added { .. }
                        | AddOutcome::Updated { .. }
                        | AddOutcome::Exists { .. })
                );
                if !again && !indexed {
                    // The add's own error, if any, is the one to report.
                    let aborted = registry.abort(&key);
                    let outcome = outcome?;
                    aborted?;
                    return Ok(outcome);
                }
                outcome
            }
            SharedDecision::Rejected {
                by,
                fingerprint: theirs,
                distance,
                similarity,
                ..
            } => Ok(AddOutcome::Rejected {
                fingerprint,
                duplicate_of: Duplicate {
                    key: Some(by),
                    address: None,
                    fingerprint: theirs,
                    distance,
                    similarity,
                },
            }),
            SharedDecision::Elsewhere { .. } => Ok(AddOutcome::Exists { key }),
        }
    }
}
