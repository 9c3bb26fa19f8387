//! [`DedupSegmentPlugin`]: the component's factory, registered on an index.

use std::sync::Arc;

use tantivy::plugin::{PluginMergeContext, PluginWriter, PluginWriterContext, SegmentPlugin};
use tantivy::TantivyError;

use super::tables::TableShape;
use super::writer::ValuesWriter;
use super::{SignatureShape, EXTENSION};
use crate::fingerprint::KeptBits;
use crate::matching::{Matcher, TextMatcher};
use crate::plugin::{DedupFields, DedupSettings};

/// tantivy's [`SegmentPlugin`] of the crate: registered on an index, it keeps each
/// document's fingerprint and signature in a file of every segment, computed from the text
/// fields for a document that came without them (one an application's own `IndexWriter`
/// added), and merges the files as tantivy merges segments.
///
/// [`DedupIndex`](crate::plugin::DedupIndex) registers it on every index it creates or
/// opens; [`DedupSettings::segment_plugin`] makes one for an index built by hand
/// (`Index::builder().register_plugin(...)`), which [`DedupIndex::create`] then takes as
/// it is.
///
/// [`DedupIndex::create`]: crate::plugin::DedupIndex::create
#[derive(Clone)]
pub struct DedupSegmentPlugin {
    shared: Arc<Shared>,
}

struct Shared {
    settings: DedupSettings,
    /// Fingerprints and signatures of documents that come without them.
    text: TextMatcher,
    shape: SignatureShape,
    /// The reference tables a writer of the settings' rule probes.
    tables: TableShape,
}

impl std::fmt::Debug for DedupSegmentPlugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DedupSegmentPlugin")
            .field("shape", &self.shared.shape)
            .finish_non_exhaustive()
    }
}

impl DedupSegmentPlugin {
    /// The component for an index of `settings`, computing missing values with `text`.
    pub(crate) fn new(settings: DedupSettings, text: TextMatcher) -> DedupSegmentPlugin {
        let shape = shape_of(&settings);
        let tables = tables_of(&Matcher::new(
            settings.get_matching().get_distance(),
            settings.get_matching().get_verification(),
        ));
        DedupSegmentPlugin {
            shared: Arc::new(Shared {
                settings,
                text,
                shape,
                tables,
            }),
        }
    }
}

/// How an index of `settings` stores its signatures in the component.
pub(crate) fn shape_of(settings: &DedupSettings) -> SignatureShape {
    match settings.get_matching().get_verification() {
        Some(verification) => SignatureShape {
            values: verification.get_hashes(),
            bytes: if verification.get_kept_bits() == KeptBits::LowByte {
                1
            } else {
                4
            },
        },
        None => SignatureShape::NONE,
    }
}

/// The reference tables a writer judging by `matcher` probes: block tables within its
/// table distance, band tables when its candidates come from bands.
pub(crate) fn tables_of(matcher: &Matcher) -> TableShape {
    TableShape::new(matcher.table_distance(), matcher.bands())
}

impl SegmentPlugin for DedupSegmentPlugin {
    fn extensions(&self) -> &[&str] {
        &[EXTENSION]
    }

    fn create_writer(&self, ctx: &PluginWriterContext) -> tantivy::Result<Box<dyn PluginWriter>> {
        let fields = DedupFields::resolve(&ctx.segment.schema(), &self.shared.settings)
            .map_err(|error| TantivyError::SchemaError(error.to_string()))?;
        Ok(Box::new(ValuesWriter::new(
            fields,
            (self.shared.shape, self.shared.tables),
            self.shared.text.clone(),
        )))
    }

    fn merge(&self, ctx: PluginMergeContext) -> tantivy::Result<()> {
        super::merge::merge(&ctx, (self.shared.shape, self.shared.tables))
    }
}
