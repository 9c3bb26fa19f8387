//! One line of an ingest's report: what became of one input record, in the JSON form
//! `tantivy-dedup ingest --report` writes (the contract of `DESIGN.md`).

use serde::Serialize;

use crate::plugin::{AddOutcome, Rejudged};

/// One line of the report: what became of one input record.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReportLine {
    /// The document id, or `FILE:LINE` for a record that could not be read.
    pub id: String,
    /// `added`, `updated`, `duplicate`, `exists` or `error`.
    pub status: &'static str,
    /// For a duplicate: the id of the document it duplicates.
    pub duplicate_of: Option<String>,
    /// For a duplicate: the Hamming distance to it.
    pub distance: Option<u32>,
    /// For a duplicate in an index with two-stage matching (not created with
    /// `--no-verify`): the verification's score.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub similarity: Option<f64>,
    /// For a duplicate: `rejected`, `flagged` or `replaced`, as the policy says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<&'static str>,
    /// For a duplicate that replaced documents: every one it replaced (`duplicate_of` is
    /// the nearest), by id, or by fingerprint for one without an id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replaced: Option<Vec<String>>,
    /// The document's fingerprint, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<String>,
    /// For an error: what is wrong.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// With a shared index (`ingest --cluster`): for a duplicate, `true` when the
    /// document it duplicates was judged in the shared index (it may be in another
    /// writer's shard); for `exists`, the writer whose shard holds the document.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shared: Option<serde_json::Value>,
    /// For a record decided again because a document it had been judged against changed
    /// (a line after the one of that document's change; the record's last line is its
    /// outcome): that document's id. Its status is what it is now, or `lost` when its text
    /// is in no document and no near-duplicate of it is: fetch it again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rejudged_after: Option<String>,
    /// `true` on a line of a record decided again (or `lost`) that an earlier run may have
    /// written already: that run stopped (killed, or failed) after the commit that decided
    /// it and before it was known to have recorded the line, so this run reports it again.
    /// A reader that keeps every report drops a line with `repeated` whose id and
    /// `rejudged_after` it holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repeated: Option<bool>,
    /// `true` on a `duplicate` line of a record whose text is longer than the fingerprint's
    /// [`max_text_bytes`](crate::fingerprint::FingerprintConfig::max_text_bytes) (1 MiB by default):
    /// its distance and similarity are those of its first `max_text_bytes`, not of the
    /// whole text. (Whether two records are the same text is decided on the whole text.)
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cut: Option<bool>,
}

impl ReportLine {
    /// The report line of a document the writer took.
    pub fn of_outcome(id: String, outcome: &AddOutcome) -> ReportLine {
        let fingerprint = match outcome {
            AddOutcome::Added { fingerprint, .. } | AddOutcome::Updated { fingerprint, .. } => {
                *fingerprint
            }
            AddOutcome::Rejected { fingerprint, .. }
            | AddOutcome::Flagged { fingerprint, .. }
            | AddOutcome::Replaced { fingerprint, .. } => Some(*fingerprint),
            AddOutcome::Exists { .. } => None,
        };
        let (status, action) = match outcome {
            AddOutcome::Added { .. } => ("added", None),
            AddOutcome::Updated { .. } => ("updated", None),
            AddOutcome::Exists { .. } => ("exists", None),
            AddOutcome::Rejected { .. } => ("duplicate", Some("rejected")),
            AddOutcome::Flagged { .. } => ("duplicate", Some("flagged")),
            AddOutcome::Replaced { .. } => ("duplicate", Some("replaced")),
        };
        let duplicate = outcome.duplicate_of();
        let named = |d: &crate::plugin::Duplicate| {
            d.key.clone().unwrap_or_else(|| d.fingerprint.to_string())
        };
        let replaced = match outcome {
            AddOutcome::Replaced { replaced, .. } => Some(replaced.iter().map(named).collect()),
            _ => None,
        };
        ReportLine {
            id,
            status,
            duplicate_of: duplicate.map(named),
            replaced,
            distance: duplicate.map(|d| d.distance),
            similarity: duplicate.and_then(|d| d.similarity),
            action,
            fingerprint: fingerprint.map(|f| f.to_string()),
            error: None,
            shared: None,
            rejudged_after: None,
            repeated: None,
            cut: None,
        }
    }

    /// The line of a record decided again because a document it had been judged against
    /// changed (see [`DedupWriter::take_rejudged`](crate::plugin::DedupWriter::take_rejudged)):
    /// its new outcome's line, or a `lost` one; `rejudged_after` names the document. A
    /// record without a key (none under `ingest`) is named by its fingerprint.
    pub fn of_rejudged(rejudged: &Rejudged) -> ReportLine {
        match rejudged {
            Rejudged::Decided {
                key,
                after,
                outcome,
                repeated,
            } => {
                let fingerprint = match outcome {
                    AddOutcome::Added { fingerprint, .. }
                    | AddOutcome::Updated { fingerprint, .. } => *fingerprint,
                    AddOutcome::Rejected { fingerprint, .. }
                    | AddOutcome::Flagged { fingerprint, .. }
                    | AddOutcome::Replaced { fingerprint, .. } => Some(*fingerprint),
                    AddOutcome::Exists { .. } => None,
                };
                let id = key
                    .clone()
                    .unwrap_or_else(|| fingerprint.map_or_else(String::new, |f| f.to_string()));
                ReportLine {
                    rejudged_after: Some(after.clone()),
                    repeated: repeated.then_some(true),
                    ..ReportLine::of_outcome(id, outcome)
                }
            }
            Rejudged::Lost {
                key,
                after,
                repeated,
            } => ReportLine {
                status: "lost",
                error: None,
                rejudged_after: Some(after.clone()),
                repeated: repeated.then_some(true),
                ..ReportLine::error(key.clone(), String::new())
            },
        }
    }

    /// The line of a record that could not be indexed.
    pub fn error(id: String, reason: String) -> ReportLine {
        ReportLine {
            id,
            status: "error",
            replaced: None,
            duplicate_of: None,
            distance: None,
            similarity: None,
            action: None,
            fingerprint: None,
            error: Some(reason),
            shared: None,
            rejudged_after: None,
            repeated: None,
            cut: None,
        }
    }

    /// The line of a document the shared index kept out (`ingest --cluster`): a
    /// near-duplicate of a document admitted by any writer (`duplicate`, `"shared":
    /// true`), or a document another writer admitted under the same id (`exists`,
    /// `"shared": "<that writer>"`); `None` for a document it admitted.
    ///
    /// Available with the `cluster` feature.
    #[cfg(feature = "cluster")]
    pub fn of_shared(
        id: String,
        fingerprint: Option<crate::fingerprint::Fingerprint>,
        decision: &crate::shared::SharedDecision,
    ) -> Option<ReportLine> {
        use crate::shared::SharedDecision;
        let line = ReportLine {
            id,
            status: "duplicate",
            duplicate_of: None,
            distance: None,
            similarity: None,
            action: None,
            replaced: None,
            fingerprint: fingerprint.map(|f| f.to_string()),
            error: None,
            shared: None,
            rejudged_after: None,
            repeated: None,
            cut: None,
        };
        match decision {
            SharedDecision::Admitted { .. } => None,
            SharedDecision::Rejected {
                by,
                distance,
                similarity,
                ..
            } => Some(ReportLine {
                duplicate_of: Some(by.clone()),
                distance: Some(*distance),
                similarity: *similarity,
                action: Some("rejected"),
                shared: Some(serde_json::Value::Bool(true)),
                ..line
            }),
            SharedDecision::Elsewhere { node } => Some(ReportLine {
                status: "exists",
                shared: Some(serde_json::Value::String(node.clone())),
                ..line
            }),
        }
    }

    /// Whether the record was an error.
    pub fn is_error(&self) -> bool {
        self.status == "error"
    }

    /// `ID: REASON`, for messages.
    pub fn describe(&self) -> String {
        format!(
            "{}: {}",
            self.id,
            self.error.as_deref().unwrap_or(self.status)
        )
    }
}
