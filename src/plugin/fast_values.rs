//! [`FastValues`]: the values of a segment's fields that are FAST and not STORED, read back
//! from their columns, for a [`reindex`](crate::plugin::reindex) to copy what the document
//! store does not hold (a date to sort by, a counter, a label kept for aggregations).

use tantivy::columnar::{BytesColumn, Column, StrColumn};
use tantivy::schema::{Field, FieldType, Schema};
use tantivy::{DateTime, DocId, SegmentReader, TantivyDocument};

use crate::error::Result;

/// One fast column of a source segment, and the target field its values go to.
enum FastColumn {
    U64(Column<u64>),
    I64(Column<i64>),
    F64(Column<f64>),
    Bool(Column<bool>),
    Date(Column<DateTime>),
    Str(StrColumn),
    Bytes(BytesColumn),
}

/// Whether a field's values can be read back from its fast column: a FAST field of a type
/// this module reads.
pub(crate) fn readable(field_type: &FieldType) -> bool {
    match field_type {
        FieldType::U64(o) | FieldType::I64(o) | FieldType::F64(o) | FieldType::Bool(o) => {
            o.is_fast()
        }
        FieldType::Date(o) => o.is_fast(),
        FieldType::Str(o) => o.is_fast(),
        FieldType::Bytes(o) => o.is_fast(),
        _ => false,
    }
}

/// The fast columns of one segment's fields that `fields` lists (a source field, and the
/// target field of its values).
pub(crate) struct FastValues {
    columns: Vec<(Field, FastColumn)>,
    text: String,
    bytes: Vec<u8>,
}

impl FastValues {
    /// Opens the columns of `fields` (each a source field of `schema` that
    /// [`readable`] accepts, with its target field) in `reader`'s segment; a field no
    /// document of the segment has a value in is left out.
    ///
    /// # Errors
    /// [`Error::Tantivy`](crate::Error::Tantivy) when a column cannot be read.
    pub(crate) fn open(
        reader: &SegmentReader,
        schema: &Schema,
        fields: &[(Field, Field)],
    ) -> Result<FastValues> {
        let fast = reader.fast_fields();
        let mut columns = Vec::with_capacity(fields.len());
        for &(source, target) in fields {
            let entry = schema.get_field_entry(source);
            let name = entry.name();
            let column = match entry.field_type() {
                FieldType::U64(_) => fast.column_opt(name)?.map(FastColumn::U64),
                FieldType::I64(_) => fast.column_opt(name)?.map(FastColumn::I64),
                FieldType::F64(_) => fast.column_opt(name)?.map(FastColumn::F64),
                FieldType::Bool(_) => fast.column_opt(name)?.map(FastColumn::Bool),
                FieldType::Date(_) => fast.column_opt(name)?.map(FastColumn::Date),
                FieldType::Str(_) => fast.str(name)?.map(FastColumn::Str),
                FieldType::Bytes(_) => fast.bytes(name)?.map(FastColumn::Bytes),
                _ => None,
            };
            columns.extend(column.map(|column| (target, column)));
        }
        Ok(FastValues {
            columns,
            text: String::new(),
            bytes: Vec::new(),
        })
    }

    /// Adds `doc`'s values of every column to `document`, in column order.
    ///
    /// # Errors
    /// [`Error::Io`](crate::Error::Io) when a dictionary of terms cannot be read.
    pub(crate) fn add_to(&mut self, doc: DocId, document: &mut TantivyDocument) -> Result<()> {
        for (field, column) in &self.columns {
            let field = *field;
            match column {
                FastColumn::U64(c) => c
                    .values_for_doc(doc)
                    .for_each(|v| document.add_u64(field, v)),
                FastColumn::I64(c) => c
                    .values_for_doc(doc)
                    .for_each(|v| document.add_i64(field, v)),
                FastColumn::F64(c) => c
                    .values_for_doc(doc)
                    .for_each(|v| document.add_f64(field, v)),
                FastColumn::Bool(c) => c
                    .values_for_doc(doc)
                    .for_each(|v| document.add_bool(field, v)),
                FastColumn::Date(c) => c
                    .values_for_doc(doc)
                    .for_each(|v| document.add_date(field, v)),
                FastColumn::Str(c) => {
                    for ord in c.term_ords(doc) {
                        if c.ord_to_str(ord, &mut self.text)
                            .map_err(tantivy::TantivyError::from)?
                        {
                            document.add_text(field, &self.text);
                        }
                    }
                }
                FastColumn::Bytes(c) => {
                    for ord in c.term_ords(doc) {
                        self.bytes.clear();
                        if c.ord_to_bytes(ord, &mut self.bytes)
                            .map_err(tantivy::TantivyError::from)?
                        {
                            document.add_bytes(field, &self.bytes);
                        }
                    }
                }
            }
        }
        Ok(())
    }
}
