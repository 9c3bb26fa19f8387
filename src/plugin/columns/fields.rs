//! `DedupFields`: the schema fields the settings name, resolved and checked once per open,
//! and the writes of the plugin's values into a document.

use std::borrow::Cow;

use tantivy::schema::{
    Field, FieldType, NumericOptions, Schema, SchemaBuilder, TextOptions, FAST, INDEXED, STORED,
    STRING,
};
use tantivy::schema::{TantivyDocument, Value};
use tantivy::tokenizer::MAX_TOKEN_LEN;
use tantivy::Document as _;

use super::signature::{self, SignatureLayout};
use super::stored::key_hash;
use super::{
    CONTENT_FIELD, DUPLICATE_OF_FIELD, FINGERPRINT_FIELD, FLAG_FIELD, REPLACED_FIELD,
    REPLACED_KEY_FIELD, REPLACED_TEXT_FIELD, SCOPE_FIELD, SEQUENCE_FIELD, SIGNATURE_FIELD,
};
use crate::error::{Error, Result};
use crate::fingerprint::{Fingerprint, Signature};
use crate::plugin::segment_values::{
    encode_values, shape_of, SignatureShape, SEGMENT_VALUES_FROM_FORMAT, VALUES_FIELD, VALUES_TYPE,
};
use crate::plugin::DedupSettings;

/// The fields of an index that the plugin reads and writes.
#[derive(Clone, Debug)]
pub struct DedupFields {
    /// The fingerprint field ([`FINGERPRINT_FIELD`]).
    pub fingerprint: Field,
    /// The add-order field ([`SEQUENCE_FIELD`]).
    pub sequence: Field,
    /// The fields whose text is fingerprinted, in the settings' order.
    pub text: Vec<Field>,
    /// The key field, if the settings name one.
    pub key: Option<Field>,
    /// [`FLAG_FIELD`] and [`DUPLICATE_OF_FIELD`], if flagging is on.
    pub flag: Option<(Field, Field)>,
    /// [`SIGNATURE_FIELD`], if the settings have a verification.
    pub signature: Option<Field>,
    /// How [`signature`](Self::signature) stores signatures (its type in the schema).
    pub(crate) signature_layout: SignatureLayout,
    /// [`CONTENT_FIELD`], if the schema has it (indexes with a key field made by this
    /// version of the crate).
    pub content: Option<Field>,
    /// [`REPLACED_FIELD`], if the schema has it (indexes with a key field made by this
    /// version of the crate).
    pub replaced: Option<Field>,
    /// [`REPLACED_TEXT_FIELD`], if the schema has it (indexes with a key field made by this
    /// version of the crate).
    pub(crate) replaced_text: Option<Field>,
    /// [`REPLACED_KEY_FIELD`], if the schema has it (with [`REPLACED_TEXT_FIELD`]).
    pub(crate) replaced_key: Option<Field>,
    /// The scope field the settings name and [`SCOPE_FIELD`], if they name one.
    pub scope: Option<(Field, Field)>,
    /// [`VALUES_FIELD`], in indexes whose segments keep the values (settings format 10 and
    /// later): a prepared document's fingerprint and signature for the segment component,
    /// where signatures are kept (no [`SIGNATURE_FIELD`] then).
    pub values: Option<Field>,
    /// How the segment component stores signatures.
    pub(crate) values_shape: SignatureShape,
}

impl DedupFields {
    /// Adds the fields `settings` need to `schema` (see
    /// [`DedupSettings::add_fields`](crate::plugin::DedupSettings::add_fields)).
    pub(crate) fn add_to(schema: &mut SchemaBuilder, settings: &DedupSettings) {
        // Indexes of earlier formats find a committed reference again through the exact
        // fingerprint's postings; the segment component's files have a table by fingerprint.
        let fingerprint = match settings.get_version() >= SEGMENT_VALUES_FROM_FORMAT {
            true => NumericOptions::default() | FAST,
            false => NumericOptions::default() | FAST | INDEXED,
        };
        schema.add_u64_field(FINGERPRINT_FIELD, fingerprint);
        schema.add_u64_field(SEQUENCE_FIELD, FAST);
        if let Some(key) = settings.get_key_field() {
            schema.add_text_field(key, STRING | STORED | FAST);
            schema.add_u64_field(CONTENT_FIELD, FAST);
            schema.add_text_field(REPLACED_FIELD, STRING | STORED);
            schema.add_text_field(REPLACED_TEXT_FIELD, STORED);
            schema.add_text_field(REPLACED_KEY_FIELD, STRING);
        }
        if settings.get_flagging() {
            schema.add_u64_field(FLAG_FIELD, FAST | INDEXED | STORED);
            schema.add_text_field(DUPLICATE_OF_FIELD, STRING | STORED);
        }
        if settings.get_version() >= SEGMENT_VALUES_FROM_FORMAT {
            schema.add_custom_field(VALUES_FIELD, VALUES_TYPE, serde_json::json!({}));
        } else if settings.get_matching().get_verification().is_some() {
            // Multi-valued: several signature values a column value (see `signature`).
            schema.add_u64_field(SIGNATURE_FIELD, NumericOptions::default() | FAST);
        }
        if settings.get_scope_field().is_some() {
            schema.add_u64_field(SCOPE_FIELD, FAST);
        }
    }

    /// `schema` with the fields `settings` need added where missing (see
    /// [`DedupSettings::extend_schema`](crate::plugin::DedupSettings::extend_schema)).
    pub(crate) fn extend(schema: &Schema, settings: &DedupSettings) -> Result<Schema> {
        let extended = DedupFields::with_plugin_fields(schema, settings)?;
        DedupFields::resolve(&extended, settings)?;
        Ok(extended)
    }

    /// `schema` with the plugin's fields added where missing and the key field made to fit,
    /// checked; the text fields the settings name need not be there yet (a
    /// [`SchemaBuilder`] may add them after the plugin's), but those present must be text.
    pub(crate) fn with_plugin_fields(schema: &Schema, settings: &DedupSettings) -> Result<Schema> {
        let mut builder = Schema::builder();
        let key = settings.get_key_field();
        for (_, entry) in schema.fields() {
            let entry = match (key, entry.field_type()) {
                // A raw string key gains what the writer needs of it: FAST and STORED.
                (Some(key), FieldType::Str(options)) if entry.name() == key => {
                    if !is_raw(options) {
                        return Err(Error::Schema {
                            field: key.to_owned(),
                            reason: "a key field must be a raw string field (STRING), not \
                                     tokenized"
                                .into(),
                        });
                    }
                    let mut options = options.clone().set_stored();
                    if !options.is_fast() {
                        options = options.set_fast("raw");
                    }
                    tantivy::schema::FieldEntry::new_text(key.to_owned(), options)
                }
                _ => entry.clone(),
            };
            builder.add_field(entry);
        }
        let mut missing = Schema::builder();
        DedupFields::add_to(&mut missing, settings);
        for (_, entry) in missing.build().fields() {
            if schema.get_field(entry.name()).is_err() {
                builder.add_field(entry.clone());
            }
        }
        let extended = builder.build();
        DedupFields::resolve_plugin(&extended, settings)?;
        for name in settings.get_text_fields() {
            if extended.get_field(name).is_ok() {
                text_field(&extended, name)?;
            }
        }
        Ok(extended)
    }

    /// Looks the settings' fields up in `schema` and checks their types and options.
    ///
    /// # Errors
    /// [`Error::Schema`] naming the first field that is missing or unfit.
    pub fn resolve(schema: &Schema, settings: &DedupSettings) -> Result<DedupFields> {
        let mut fields = DedupFields::resolve_plugin(schema, settings)?;
        fields.text = settings
            .get_text_fields()
            .iter()
            .map(|name| text_field(schema, name))
            .collect::<Result<Vec<_>>>()?;
        Ok(fields)
    }

    /// [`resolve`](Self::resolve) without the text fields (left empty).
    fn resolve_plugin(schema: &Schema, settings: &DedupSettings) -> Result<DedupFields> {
        // Without the segment component a committed reference is found again through the
        // fingerprint's postings.
        let component = schema.get_field(VALUES_FIELD).is_ok();
        let fingerprint = field(schema, FINGERPRINT_FIELD, |ty| match ty {
            FieldType::U64(options) if options.is_fast() && component => Ok(()),
            FieldType::U64(options) if options.is_fast() && options.is_indexed() => Ok(()),
            _ if component => Err("must be a u64 field, FAST".into()),
            _ => Err("must be a u64 field, FAST and INDEXED".into()),
        })?;
        let sequence = fast_u64_field(schema, SEQUENCE_FIELD)?;
        let key = settings
            .get_key_field()
            .map(|name| {
                field(schema, name, |ty| match ty {
                    FieldType::Str(options) if options.is_fast() && is_raw(options) => Ok(()),
                    _ => Err("a key field must be a raw string field, STRING and FAST".into()),
                })
            })
            .transpose()?;
        let flag = if settings.get_flagging() {
            let flag = field(schema, FLAG_FIELD, |ty| match ty {
                FieldType::U64(options) if options.is_fast() && options.is_indexed() => Ok(()),
                _ => Err("must be a u64 field, FAST and INDEXED".into()),
            })?;
            let of = text_field(schema, DUPLICATE_OF_FIELD)?;
            Some((flag, of))
        } else {
            None
        };
        let values = match schema.get_field(VALUES_FIELD) {
            Ok(_) => Some(field(schema, VALUES_FIELD, |ty| match ty {
                FieldType::Custom(options) if options.type_name() == VALUES_TYPE => Ok(()),
                _ => Err(format!("must be a custom field of type {VALUES_TYPE}")),
            })?),
            Err(_) => None,
        };
        let signature = settings
            .get_matching()
            .get_verification()
            .filter(|_| values.is_none())
            .map(|_| {
                field(schema, SIGNATURE_FIELD, |ty| match ty {
                    FieldType::U64(options) if options.is_fast() => Ok(()),
                    FieldType::Bytes(options) if options.is_fast() => Ok(()),
                    _ => Err("must be a u64 field (or, made before, a bytes field), FAST".into()),
                })
            })
            .transpose()?;
        // Optional: indexes made before it existed tell versions apart by fingerprint.
        let content = match schema.get_field(CONTENT_FIELD) {
            Ok(_) => Some(fast_u64_field(schema, CONTENT_FIELD)?),
            Err(_) => None,
        };
        // Optional too: indexes made before it existed replace again on a re-run.
        let replaced = match schema.get_field(REPLACED_FIELD) {
            Ok(_) => Some(field(schema, REPLACED_FIELD, |ty| match ty {
                FieldType::Str(options) if options.is_stored() && is_raw(options) => Ok(()),
                _ => Err("must be a raw string field, STRING and STORED".into()),
            })?),
            Err(_) => None,
        };
        // Optional too: without it, a replaced record cannot come back after the commit.
        let replaced_text = match schema.get_field(REPLACED_TEXT_FIELD) {
            Ok(_) => Some(field(schema, REPLACED_TEXT_FIELD, |ty| match ty {
                FieldType::Str(options) if options.is_stored() => Ok(()),
                _ => Err("must be a stored string field".into()),
            })?),
            Err(_) => None,
        };
        let replaced_key = match schema.get_field(REPLACED_KEY_FIELD) {
            Ok(_) => Some(field(schema, REPLACED_KEY_FIELD, |ty| match ty {
                FieldType::Str(options) if is_raw(options) => Ok(()),
                _ => Err("must be a raw string field (STRING)".into()),
            })?),
            Err(_) => None,
        };
        let scope = settings
            .get_scope_field()
            .map(|name| {
                let named = field(schema, name, |ty| match ty {
                    FieldType::Str(_) | FieldType::Facet(_) => Ok(()),
                    _ => Err("a scope field must be a text field (STRING) or a facet".into()),
                })?;
                let hashes = fast_u64_field(schema, SCOPE_FIELD)?;
                Ok::<_, Error>((named, hashes))
            })
            .transpose()?;
        Ok(DedupFields {
            fingerprint,
            sequence,
            scope,
            text: Vec::new(),
            key,
            flag,
            signature,
            signature_layout: signature
                .zip(settings.get_matching().get_verification())
                .and_then(|(field, verification)| {
                    SignatureLayout::written(
                        schema,
                        field,
                        settings.get_version(),
                        verification.get_kept_bits(),
                    )
                })
                .unwrap_or(SignatureLayout::Pairs),
            content,
            replaced,
            replaced_text,
            replaced_key,
            values,
            values_shape: shape_of(settings),
        })
    }

    /// The text to fingerprint: every value of the text fields, in order, joined by
    /// newlines (empty values before the first non-empty one add none).
    pub fn text_of<'a>(&self, document: &'a TantivyDocument) -> Cow<'a, str> {
        // One value (the common case: one body field) is borrowed, not copied.
        let mut text = Cow::Borrowed("");
        for &field in &self.text {
            for value in document.get_all(field).filter_map(|value| value.as_str()) {
                if text.is_empty() {
                    text = Cow::Borrowed(value);
                } else {
                    let joined = text.to_mut();
                    joined.push('\n');
                    joined.push_str(value);
                }
            }
        }
        text
    }

    /// The document's key, if the index has a key field and the document a value in it.
    pub fn key_of<'a>(&self, document: &'a TantivyDocument) -> Option<&'a str> {
        let value = document.get_first(self.key?)?;
        value.as_str()
    }

    /// [`key_of`](Self::key_of), checked to be a key tantivy indexes whole.
    ///
    /// # Errors
    /// [`Error::KeyTooLong`] beyond [`MAX_TOKEN_LEN`] bytes.
    pub(crate) fn checked_key_of<'a>(
        &self,
        document: &'a TantivyDocument,
    ) -> Result<Option<&'a str>> {
        match self.key_of(document) {
            Some(key) if key.len() > MAX_TOKEN_LEN => Err(Error::KeyTooLong {
                length: key.len(),
                max: MAX_TOKEN_LEN,
            }),
            key => Ok(key),
        }
    }

    /// Writes a document's fingerprint and signature, each when it has one (and the index
    /// keeps signatures).
    pub(crate) fn set_fingerprint(
        &self,
        document: &mut TantivyDocument,
        fingerprint: Option<Fingerprint>,
        signature: Option<&Signature>,
    ) {
        if let Some(fingerprint) = fingerprint {
            document.add_u64(self.fingerprint, fingerprint.bits());
        }
        if let Some(field) = self.values {
            let values = signature.map(Signature::values);
            document.add_custom(
                field,
                &encode_values(fingerprint, values, self.values_shape),
            );
        }
        if let (Some(field), Some(signature)) = (self.signature, signature) {
            signature::add_to(document, field, self.signature_layout, signature);
        }
    }

    /// The version of a document whose fingerprinted text is `text`: the digest of the text
    /// when the index has [`CONTENT_FIELD`], else its fingerprint (`None` without one).
    pub(crate) fn version_of(&self, text: &str, fingerprint: Option<Fingerprint>) -> Option<u64> {
        match self.content {
            Some(_) => Some(xxhash_rust::xxh3::xxh3_64(text.as_bytes())),
            None => fingerprint.map(Fingerprint::bits),
        }
    }

    /// The [`REPLACED_FIELD`] value recording a document of `key` and `version` (its text
    /// digest) as replaced: `None` when the index has no such field, or for a key so long
    /// that the value would exceed what tantivy indexes whole (such a record is not kept).
    pub(crate) fn record_of(&self, key: &str, version: u64) -> Option<String> {
        self.replaced?;
        let record = format!("{version:016x}{key}");
        (record.len() <= MAX_TOKEN_LEN).then_some(record)
    }

    /// The key a [`REPLACED_FIELD`] value records (see [`record_of`](Self::record_of)).
    pub(crate) fn key_of_record<'r>(&self, record: &'r str) -> Option<&'r str> {
        record.get(16..).filter(|key| !key.is_empty())
    }

    /// The [`REPLACED_FIELD`] values `document` holds already (a copy's, in a reindex).
    pub(crate) fn records_in(&self, document: &TantivyDocument) -> Vec<String> {
        let Some(field) = self.replaced else {
            return Vec::new();
        };
        document
            .get_all(field)
            .filter_map(|value| value.as_str().map(str::to_owned))
            .collect()
    }

    /// A stored document without the marks a decision gave it ([`FLAG_FIELD`],
    /// [`DUPLICATE_OF_FIELD`], [`REPLACED_FIELD`]): what the writer decides again when a
    /// document it was judged against changes.
    pub(crate) fn unmarked(&self, document: &TantivyDocument) -> TantivyDocument {
        let marks = [
            self.flag.map(|(flag, _)| flag),
            self.flag.map(|(_, of)| of),
            self.replaced,
            self.replaced_text,
            self.replaced_key,
        ];
        let mut unmarked = TantivyDocument::new();
        for (field, value) in document.field_values() {
            if !marks.contains(&Some(field)) {
                unmarked.add_field_value(field, value);
            }
        }
        unmarked
    }

    /// Adds `records` to a document's [`REPLACED_FIELD`], when the index has it.
    pub(crate) fn add_records(&self, document: &mut TantivyDocument, records: &[String]) {
        if let Some(field) = self.replaced {
            for record in records {
                document.add_text(field, record);
            }
        }
        self.add_record_keys(document, records);
    }

    /// Indexes the keys of `records` in [`REPLACED_KEY_FIELD`], when the index has it.
    pub(crate) fn add_record_keys(&self, document: &mut TantivyDocument, records: &[String]) {
        if let Some(field) = self.replaced_key {
            for key in records
                .iter()
                .filter_map(|record| self.key_of_record(record))
            {
                document.add_text(field, key);
            }
        }
    }

    /// Adds to a document's [`REPLACED_TEXT_FIELD`] the stored fields of the document each
    /// of `texts` records (its [`REPLACED_FIELD`] value), when the index has the field:
    /// only the stored fields, without the plugin's marks, are what a stored document reads
    /// back as. A document holding a record's text gives it back when it changes or is
    /// deleted (see [`DedupWriter`](crate::plugin::DedupWriter)); a copy of another index
    /// (whose schema may differ) adds its records' texts so, with the records themselves
    /// in [`REPLACED_FIELD`].
    pub fn add_texts<'d>(
        &self,
        schema: &Schema,
        document: &mut TantivyDocument,
        texts: impl IntoIterator<Item = (&'d str, &'d TantivyDocument)>,
    ) {
        let Some(field) = self.replaced_text else {
            return;
        };
        for (record, text) in texts {
            let mut stored = TantivyDocument::new();
            for (of, value) in self.unmarked(text).field_values() {
                if schema.get_field_entry(of).is_stored() {
                    stored.add_field_value(of, value);
                }
            }
            let value = serde_json::json!([record, stored.to_json(schema)]);
            document.add_text(field, value.to_string());
        }
    }

    /// The records' documents a stored document holds in [`REPLACED_TEXT_FIELD`] (see
    /// [`add_texts`](Self::add_texts)), by record; values that do not read back (written by
    /// something else) are left out, and their records are then reported lost.
    pub(crate) fn texts_in(
        &self,
        schema: &Schema,
        document: &TantivyDocument,
    ) -> Vec<(String, TantivyDocument)> {
        match self.replaced_text {
            Some(field) => replaced_texts(schema, field, document),
            None => Vec::new(),
        }
    }

    /// The hash of a document's scope, when the settings name a scope field: of its first
    /// value there (a text, or a facet's path), or of the empty scope (`None`) when it has
    /// none.
    pub(crate) fn scope_of(&self, document: &TantivyDocument) -> Option<u64> {
        let (field, _) = self.scope?;
        let value = document
            .get_first(field)
            .and_then(|value| value.as_str().or_else(|| value.as_facet()));
        value.map(|scope| key_hash(scope.as_bytes()))
    }

    /// Writes a document's scope hash, when it has one.
    pub(crate) fn set_scope(&self, document: &mut TantivyDocument, scope: Option<u64>) {
        if let (Some((_, field)), Some(scope)) = (self.scope, scope) {
            document.add_u64(field, scope);
        }
    }

    /// Writes a document's text digest, when the index has [`CONTENT_FIELD`].
    pub(crate) fn set_version(&self, document: &mut TantivyDocument, version: Option<u64>) {
        if let (Some(field), Some(version)) = (self.content, version) {
            document.add_u64(field, version);
        }
    }

    /// Writes a document's place in the writer's add order.
    pub(crate) fn set_sequence(&self, document: &mut TantivyDocument, sequence: u64) {
        document.add_u64(self.sequence, sequence);
    }

    /// Writes the flag fields, when the index has them: `Some((distance, original))` for a
    /// flagged document, `None` for an original.
    pub(crate) fn set_flag(&self, document: &mut TantivyDocument, flag: Option<(u32, &str)>) {
        let Some((flag_field, of_field)) = self.flag else {
            return;
        };
        match flag {
            Some((distance, original)) => {
                document.add_u64(flag_field, u64::from(distance) + 1);
                document.add_text(of_field, original);
            }
            None => document.add_u64(flag_field, 0),
        }
    }
}

/// Whether a text field is indexed whole, as one term (`STRING`, the raw tokenizer).
fn is_raw(options: &TextOptions) -> bool {
    options
        .get_indexing_options()
        .is_some_and(|indexing| indexing.tokenizer() == "raw")
}

/// The u64 FAST field `name` of `schema`.
fn fast_u64_field(schema: &Schema, name: &str) -> Result<Field> {
    field(schema, name, |ty| match ty {
        FieldType::U64(options) if options.is_fast() => Ok(()),
        _ => Err("must be a u64 field, FAST".into()),
    })
}

/// The text field `name` of `schema`.
fn text_field(schema: &Schema, name: &str) -> Result<Field> {
    field(schema, name, |ty| match ty {
        FieldType::Str(_) => Ok(()),
        _ => Err("must be a text field".into()),
    })
}

fn field(
    schema: &Schema,
    name: &str,
    check: impl FnOnce(&FieldType) -> std::result::Result<(), String>,
) -> Result<Field> {
    let field = schema.get_field(name).map_err(|_| Error::Schema {
        field: name.to_owned(),
        reason: "not in the schema (DedupSettings::add_fields adds the plugin's fields)".into(),
    })?;
    check(schema.get_field_entry(field).field_type()).map_err(|reason| Error::Schema {
        field: name.to_owned(),
        reason,
    })?;
    Ok(field)
}

/// The records' documents that `document` holds in `field`, the
/// [`REPLACED_TEXT_FIELD`] of an index of `schema` (see [`DedupFields::add_texts`]), by
/// record: for a copy of another index, whose fields are not this one's. Values that do
/// not read back (written by something else) are left out.
#[must_use]
pub fn replaced_texts(
    schema: &Schema,
    field: Field,
    document: &TantivyDocument,
) -> Vec<(String, TantivyDocument)> {
    let parse = |value: &str| {
        let (record, text): (String, String) = serde_json::from_str(value).ok()?;
        Some((record, TantivyDocument::parse_json(schema, &text).ok()?))
    };
    (document.get_all(field))
        .filter_map(|value| value.as_str().and_then(parse))
        .collect()
}
