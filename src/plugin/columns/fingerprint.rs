//! `FingerprintColumn`: one segment's fingerprints, from the segment component where the
//! index has it (every document's, those an application's own `IndexWriter` added
//! included), else from the fast column.

use tantivy::columnar::Column;
use tantivy::schema::{FieldType, Schema};
use tantivy::{DocId, SegmentReader};

use super::FINGERPRINT_FIELD;
use crate::error::Result;
use crate::fingerprint::Fingerprint;
use crate::plugin::segment_values::{self, SegmentValues, VALUES_FIELD, VALUES_TYPE};

/// One segment's fingerprints.
#[derive(Clone)]
pub(crate) enum FingerprintColumn {
    /// A u64 fast column.
    Column(Column<u64>),
    /// The segment component's file.
    Segment(SegmentValues),
}

/// Whether `schema` is that of an index whose segments keep the values.
pub(crate) fn has_segment_values(schema: &Schema) -> bool {
    schema.get_field(VALUES_FIELD).is_ok_and(|field| {
        matches!(schema.get_field_entry(field).field_type(),
            FieldType::Custom(options) if options.type_name() == VALUES_TYPE)
    })
}

impl FingerprintColumn {
    /// The fingerprints of `reader`'s segment in the field `name`: the component's when
    /// `name` is [`FINGERPRINT_FIELD`] and the index has the component; `None` when the
    /// segment has no column.
    ///
    /// # Errors
    /// [`Error::Tantivy`](crate::Error::Tantivy) when the column or file cannot be read;
    /// [`Error::Decode`](crate::Error::Decode) for a damaged file.
    pub(crate) fn open(reader: &SegmentReader, name: &str) -> Result<Option<FingerprintColumn>> {
        if name == FINGERPRINT_FIELD && has_segment_values(reader.schema()) {
            return Ok(Some(Self::Segment(segment_values::open(reader)?)));
        }
        Ok(reader
            .fast_fields()
            .column_opt::<u64>(name)?
            .map(Self::Column))
    }

    /// `doc`'s fingerprint, if it has one.
    #[inline]
    pub(crate) fn get(&self, doc: DocId) -> Option<Fingerprint> {
        match self {
            Self::Column(column) => column.first(doc).map(Fingerprint),
            Self::Segment(values) => values.fingerprint(doc),
        }
    }

    /// The number of documents with a fingerprint (an upper bound in a multi-valued
    /// column).
    pub(crate) fn documents(&self) -> u32 {
        match self {
            Self::Column(column) => column.values.num_vals(),
            Self::Segment(values) => values.fingerprinted(),
        }
    }
}
