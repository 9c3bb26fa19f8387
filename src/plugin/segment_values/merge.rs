//! Merging segments' values: the alive documents of each source segment, in order, as
//! tantivy stacks them.

use std::io::{BufWriter, Write};

use tantivy::index::SegmentComponent;
use tantivy::indexer::doc_id_mapping::MappingType;
use tantivy::plugin::PluginMergeContext;
use tantivy::{Segment, TantivyError};

use super::file::ValuesBuilder;
use super::{open, SignatureShape, EXTENSION};
use tantivy::error::DataCorruption;

pub(super) fn merge(ctx: &PluginMergeContext, shape: SignatureShape) -> tantivy::Result<()> {
    if ctx.doc_id_mapping.mapping_type() == MappingType::Shuffled {
        // tantivy keeps the mapping's addresses to itself; stacked segments are the
        // readers' alive documents in order.
        return Err(TantivyError::InvalidArgument(
            "tantivy-dedup's segment values do not support indexes sorted by a field".into(),
        ));
    }
    let mut merged = ValuesBuilder::default();
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
        for doc in reader.doc_ids_alive() {
            let fingerprint = values.fingerprint(doc).map(|f| f.bits());
            let signature = values.signature_bytes(doc);
            merged.push(fingerprint, signature, values.key_hash(doc), shape);
        }
    }
    write_file(ctx.target_segment, &merged, shape)
}

pub(super) fn write_file(
    segment: &Segment,
    values: &ValuesBuilder,
    shape: SignatureShape,
) -> tantivy::Result<()> {
    let write = segment.open_write(SegmentComponent::Custom(EXTENSION.to_owned()))?;
    let mut buffered = BufWriter::new(write);
    values.write_to(shape, &mut buffered)?;
    buffered.flush()?;
    let write = buffered
        .into_inner()
        .map_err(|error| TantivyError::from(error.into_error()))?;
    tantivy::directory::TerminatingWrite::terminate(write)?;
    Ok(())
}
