//! The decisions an index holds: every group of near-duplicates as `clusters` finds them
//! (each member against its leader, flagged or not; a flagged leader against an unflagged
//! member), and the records of what documents replaced under `--policy replace`.

use tantivy::schema::IndexRecordOption;
use tantivy::{DocAddress, DocSet, Searcher, TantivyError, TERMINATED};

use super::decision::Action;
use super::pending::{Doc, Pending};
use crate::corpus::CorpusIndex;
use crate::error::Result;
use crate::plugin::{FLAG_FIELD, REPLACED_FIELD};

/// The decisions of the index: members of groups against their leaders, then the
/// replaced records, in that order.
pub(crate) fn index_decisions(index: &CorpusIndex, searcher: &Searcher) -> Result<Vec<Pending>> {
    let dedup = &index.dedup;
    let mut pending = Vec::new();
    let flags = (searcher.segment_readers().iter())
        .map(|segment| segment.fast_fields().column_opt::<u64>(FLAG_FIELD))
        .collect::<tantivy::Result<Vec<_>>>()?;
    let flagged = |address: DocAddress| {
        flags[address.segment_ord as usize]
            .as_ref()
            .and_then(|column| column.first(address.doc_id))
            .is_some_and(|flag| flag > 0)
    };
    for group in dedup.duplicate_groups(searcher, dedup.distance())? {
        for member in group.members {
            // Groups are formed from the near pairs, so a leader may be a document ingest
            // flagged and a member one it kept: the kept one is shown as kept.
            let (kept, other) = if flagged(group.leader) && !flagged(member) {
                (member, group.leader)
            } else {
                (group.leader, member)
            };
            let judgement = dedup.judge_stored(searcher, kept, other)?;
            pending.push(Pending {
                kept: Doc::At(kept),
                other: Doc::At(other),
                action: if flagged(other) {
                    Action::Flagged
                } else {
                    Action::Grouped
                },
                distance: judgement.distance,
                similarity: judgement.jaccard,
                judgement: Some(judgement),
                read: pending.len(),
            });
        }
    }
    replaced_records(searcher, &mut pending)?;
    Ok(pending)
}

/// A decision for every record of [`REPLACED_FIELD`] of an alive document: the document
/// kept, the one it replaced gone (the records of what that one replaced in turn are
/// the kept document's too). Read from the field's terms, without reading documents.
fn replaced_records(searcher: &Searcher, pending: &mut Vec<Pending>) -> Result<()> {
    let Ok(field) = searcher.schema().get_field(REPLACED_FIELD) else {
        return Ok(());
    };
    for (ord, segment) in searcher.segment_readers().iter().enumerate() {
        let inverted = segment.inverted_index(field)?;
        let mut terms = inverted.terms().stream().map_err(TantivyError::from)?;
        while terms.advance() {
            // 16 hex digits of the replaced text's digest, then its key.
            let Some(key) = terms
                .key()
                .get(16..)
                .and_then(|key| std::str::from_utf8(key).ok())
            else {
                continue;
            };
            let mut postings = inverted
                .read_postings_from_terminfo(terms.value(), IndexRecordOption::Basic)
                .map_err(TantivyError::from)?;
            let mut doc = postings.doc();
            while doc != TERMINATED {
                if segment
                    .alive_bitset()
                    .is_none_or(|alive| alive.is_alive(doc))
                {
                    pending.push(Pending {
                        kept: Doc::At(DocAddress::new(ord as u32, doc)),
                        other: Doc::Gone(key.to_owned()),
                        action: Action::Replaced,
                        distance: None,
                        similarity: None,
                        judgement: None,
                        read: pending.len(),
                    });
                }
                doc = postings.advance();
            }
        }
    }
    Ok(())
}
