//! The decisions of an ingest report (the JSON lines `tantivy-dedup ingest --report`
//! writes): one for every `duplicate` line, read together with the index that holds the
//! documents kept.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use serde::Deserialize;

use super::decision::Action;
use super::pending::{Doc, Pending};
use crate::error::{Error, Result};

/// The fields of a report line the review reads.
#[derive(Deserialize)]
struct Line {
    id: String,
    status: String,
    duplicate_of: Option<String>,
    distance: Option<u32>,
    similarity: Option<f64>,
    action: Option<String>,
    replaced: Option<Vec<String>>,
}

/// The decisions of the report at `path`, in its order: a rejected record against the
/// document it duplicates (its own text is not in the index), a flagged one against its
/// original (both in the index), and a replacing one against every document it replaced
/// (theirs are gone; the distance and similarity are the nearest's, `duplicate_of`).
/// Lines of other statuses are no decisions.
///
/// # Errors
/// [`Error::Io`] when the file cannot be read; [`Error::Report`] for a line that is not a
/// report line.
pub(crate) fn report_decisions(path: &Path) -> Result<Vec<Pending>> {
    let file = File::open(path).map_err(|source| Error::Io {
        path: path.to_owned(),
        source,
    })?;
    let mut pending = Vec::new();
    for (n, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|source| Error::Io {
            path: path.to_owned(),
            source,
        })?;
        if line.trim().is_empty() {
            continue;
        }
        let bad = |reason: String| Error::Report {
            path: path.to_owned(),
            line: n as u64 + 1,
            reason,
        };
        let line: Line = serde_json::from_str(&line).map_err(|e| bad(e.to_string()))?;
        if line.status != "duplicate" {
            continue;
        }
        let Some(original) = line.duplicate_of.clone() else {
            // A shared index's line without the original named: nothing to compare.
            continue;
        };
        let mut push = |kept, other, action, nearest: bool| {
            pending.push(Pending {
                kept,
                other,
                action,
                distance: line.distance.filter(|_| nearest),
                similarity: line.similarity.filter(|_| nearest),
                judgement: None,
                read: pending.len(),
            });
        };
        match line.action.as_deref() {
            Some("flagged") => push(
                Doc::Id(original),
                Doc::Id(line.id.clone()),
                Action::Flagged,
                true,
            ),
            Some("replaced") => {
                let replaced = line
                    .replaced
                    .clone()
                    .unwrap_or_else(|| vec![original.clone()]);
                for gone in replaced {
                    let nearest = gone == original;
                    push(
                        Doc::Id(line.id.clone()),
                        Doc::Gone(gone),
                        Action::Replaced,
                        nearest,
                    );
                }
            }
            // `rejected`, and the shared index's lines, which reject.
            _ => push(
                Doc::Id(original),
                Doc::Gone(line.id.clone()),
                Action::Rejected,
                true,
            ),
        }
    }
    Ok(pending)
}
