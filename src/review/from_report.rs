//! The decisions of an ingest report (the JSON lines `tantivy-dedup ingest --report`
//! writes): one for every `duplicate` line, read together with the index that holds the
//! documents kept.

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use serde::Deserialize;

use super::bounded_lines::{read_line, Line as Read, MAX_LINE_BYTES};
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
    let mut reader = BufReader::new(file);
    let mut bytes = Vec::new();
    for n in 1.. {
        let bad = |reason: String| Error::Report {
            path: path.to_owned(),
            line: n,
            reason,
        };
        match read_line(&mut reader, MAX_LINE_BYTES, &mut bytes) {
            Ok(Read::End) => break,
            Ok(Read::Read(_)) => {}
            Ok(Read::TooLong) => {
                return Err(bad(format!(
                    "longer than {} MiB (a report line is one record's outcome)",
                    MAX_LINE_BYTES >> 20
                )))
            }
            Err(source) => {
                return Err(Error::Io {
                    path: path.to_owned(),
                    source,
                })
            }
        }
        let Ok(text) = std::str::from_utf8(&bytes) else {
            return Err(bad("not UTF-8".into()));
        };
        // A byte order mark at the start of the file, as an editor may write it.
        let text = if n == 1 {
            text.trim_start_matches('\u{feff}')
        } else {
            text
        };
        if text.trim().is_empty() {
            continue;
        }
        let line: Line = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
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
