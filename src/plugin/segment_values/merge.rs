//! Merging segments' values: the alive documents of each source segment, in order, as
//! tantivy stacks them, read from the sources' files as the merged file is written.

use std::io::{BufWriter, Write};

use tantivy::columnar::Column;
use tantivy::error::DataCorruption;
use tantivy::index::SegmentComponent;
use tantivy::indexer::doc_id_mapping::MappingType;
use tantivy::plugin::PluginMergeContext;
use tantivy::{DocId, Segment, TantivyError};

use super::file::{DocValues, SegmentDocs};
use super::tables::TableShape;
use super::{open, SegmentValues, SignatureShape, EXTENSION};
use crate::plugin::columns::{is_flagged, FLAG_FIELD, SEQUENCE_FIELD};

pub(super) fn merge(
    ctx: &PluginMergeContext,
    (shape, tables): (SignatureShape, TableShape),
) -> tantivy::Result<()> {
    if ctx.doc_id_mapping.mapping_type() == MappingType::Shuffled {
        // tantivy keeps the mapping's addresses to itself; stacked segments are the
        // readers' alive documents in order.
        return Err(TantivyError::InvalidArgument(
            "tantivy-dedup's segment values do not support indexes sorted by a field".into(),
        ));
    }
    let mut stacked = Stacked {
        sources: Vec::with_capacity(ctx.readers.len()),
        starts: Vec::with_capacity(ctx.readers.len()),
        documents: 0,
    };
    for reader in ctx.readers {
        let values = open(reader).map_err(|error| match error {
            crate::Error::Tantivy(error) => error,
            other => TantivyError::DataCorruption(DataCorruption::comment_only(other)),
        })?;
        if values.shape() != shape {
            return Err(TantivyError::InvalidArgument(format!(
                "a segment's values are of shape {:?}, the index's {shape:?}",
                values.shape()
            )));
        }
        // A file of format 1 keeps no add order nor flags: they are read from the columns.
        let columns = match values.is_reference(0) {
            Some(_) => None,
            None => {
                let fast = reader.fast_fields();
                Some((fast.u64(SEQUENCE_FIELD)?, fast.u64(FLAG_FIELD).ok()))
            }
        };
        let alive: Vec<DocId> = reader.doc_ids_alive().collect();
        stacked.starts.push(stacked.documents);
        stacked.documents += alive.len() as u32;
        stacked.sources.push(Source {
            values,
            alive,
            columns,
        });
    }
    write(ctx.target_segment, &stacked, (shape, tables))
}

/// The merged segment's documents: each source's alive documents in turn.
struct Stacked {
    sources: Vec<Source>,
    /// The merged id of each source's first alive document.
    starts: Vec<u32>,
    documents: u32,
}

struct Source {
    values: SegmentValues,
    alive: Vec<DocId>,
    /// The add order and flag columns, for a file that does not keep them.
    columns: Option<(Column<u64>, Option<Column<u64>>)>,
}

impl SegmentDocs for Stacked {
    fn documents(&self) -> u32 {
        self.documents
    }

    fn doc(&self, doc: DocId) -> DocValues<'_> {
        let at = self.starts.partition_point(|&start| start <= doc) - 1;
        let source = &self.sources[at];
        let old = source.alive[(doc - self.starts[at]) as usize];
        let values = &source.values;
        let fingerprint = values.fingerprint(old).map(|f| f.bits());
        let (sequence, flagged) = match &source.columns {
            None => (
                values.sequence(old),
                fingerprint.is_some() && values.is_reference(old) == Some(false),
            ),
            Some((sequences, flags)) => (
                sequences.first(old).unwrap_or(u64::MAX),
                is_flagged(flags.as_ref(), old),
            ),
        };
        DocValues {
            fingerprint,
            signature: values.signature_bytes(old),
            key_hash: values.key_hash(old),
            sequence,
            flagged,
        }
    }
}

/// Writes the segment component's file of `docs` into `segment`.
pub(super) fn write(
    segment: &Segment,
    docs: &impl SegmentDocs,
    (shape, tables): (SignatureShape, TableShape),
) -> tantivy::Result<()> {
    let write = segment.open_write(SegmentComponent::Custom(EXTENSION.to_owned()))?;
    let mut buffered = BufWriter::new(write);
    super::file::write_file(docs, shape, tables, &mut buffered)?;
    buffered.flush()?;
    let write = buffered
        .into_inner()
        .map_err(|error| TantivyError::from(error.into_error()))?;
    tantivy::directory::TerminatingWrite::terminate(write)?;
    Ok(())
}
