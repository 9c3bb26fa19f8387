//! `ValuesWriter`: one segment's values as tantivy's indexing thread adds its documents.

use std::any::Any;

use tantivy::indexer::doc_id_mapping::DocIdMapping;
use tantivy::plugin::PluginWriter;
use tantivy::schema::document::ErasedDocument;
use tantivy::schema::{Schema, Value};
use tantivy::{DocId, Segment, TantivyDocument, TantivyError};

use super::file::{DocValues, ValuesBuilder};
use super::tables::TableShape;
use super::{decode_values, SignatureShape};
use crate::matching::TextMatcher;
use crate::plugin::columns::stored::{key_hash, NO_KEY};
use crate::plugin::DedupFields;

pub(super) struct ValuesWriter {
    fields: DedupFields,
    shape: SignatureShape,
    tables: TableShape,
    text: TextMatcher,
    values: ValuesBuilder,
    /// A signature's bytes, for documents signed here.
    scratch: Vec<u8>,
}

impl ValuesWriter {
    pub(super) fn new(
        fields: DedupFields,
        (shape, tables): (SignatureShape, TableShape),
        text: TextMatcher,
    ) -> Self {
        ValuesWriter {
            fields,
            shape,
            tables,
            text,
            values: ValuesBuilder::default(),
            scratch: Vec::new(),
        }
    }
}

impl PluginWriter for ValuesWriter {
    fn add_document(
        &mut self,
        doc_id: DocId,
        doc: &dyn ErasedDocument,
        _schema: &Schema,
    ) -> tantivy::Result<()> {
        if doc_id != self.values.documents() {
            return Err(TantivyError::InternalError(format!(
                "tantivy-dedup's segment values: document {doc_id} came after {} documents",
                self.values.documents()
            )));
        }
        let Some(doc) = doc.as_any().downcast_ref::<TantivyDocument>() else {
            return Err(TantivyError::InvalidArgument(
                "tantivy-dedup's segment values read TantivyDocuments only".into(),
            ));
        };
        let key_hash = self
            .fields
            .key_of(doc)
            .map_or(NO_KEY, |key| key_hash(key.as_bytes()));
        let sequence = (doc.get_first(self.fields.sequence))
            .and_then(|value| value.as_u64())
            .unwrap_or(u64::MAX);
        let flagged = self.fields.flag.is_some_and(|(flag, _)| {
            (doc.get_first(flag))
                .and_then(|value| value.as_u64())
                .is_some_and(|value| value != 0)
        });
        let prepared = self
            .fields
            .values
            .and_then(|field| doc.get_all(field).find_map(|value| value.as_custom()));
        if let Some(bytes) = prepared {
            let Some((fingerprint, signature)) = decode_values(bytes, self.shape) else {
                return Err(TantivyError::InvalidArgument(format!(
                    "tantivy-dedup's values field holds {} bytes not of this index's settings",
                    bytes.len()
                )));
            };
            let values = DocValues {
                fingerprint,
                signature,
                key_hash,
                sequence,
                flagged,
            };
            self.values.push(values, self.shape);
            return Ok(());
        }
        // A document added as it came: its values from its text, as the writer would.
        let (fingerprint, signature) = self.text.values_of(&self.fields.text_of(doc));
        self.scratch.clear();
        if let Some(signature) = signature.as_ref().filter(|_| self.shape.values > 0) {
            self.shape.encode(signature.values(), &mut self.scratch);
        }
        let signature = signature.is_some().then_some(&self.scratch[..]);
        let values = DocValues {
            fingerprint: fingerprint.map(|f| f.bits()),
            signature,
            key_hash,
            sequence,
            flagged,
        };
        self.values.push(values, self.shape);
        Ok(())
    }

    fn serialize(
        self: Box<Self>,
        segment: &Segment,
        doc_id_map: Option<&DocIdMapping>,
    ) -> tantivy::Result<()> {
        if doc_id_map.is_some() {
            // tantivy keeps its mapping's accessors to itself: a sorted index cannot be
            // followed.
            return Err(TantivyError::InvalidArgument(
                "tantivy-dedup's segment values do not support indexes sorted by a field".into(),
            ));
        }
        super::merge::write(segment, &self.values, (self.shape, self.tables))
    }

    fn mem_usage(&self) -> usize {
        self.values.memory() + self.scratch.capacity()
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}
