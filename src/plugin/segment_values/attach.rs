//! The component on an [`Index`]: recorded in its `meta.json` (tantivy fixes the custom
//! components an index requires when it is created) and registered on the handle (tantivy
//! does not persist registrations).

use std::path::Path;
use std::sync::Arc;

use tantivy::directory::Directory;
use tantivy::Index;

use super::{DedupSegmentPlugin, EXTENSION, VALUES_FIELD};
use crate::error::{Error, Result};

/// Whether `index`'s `meta.json` names the component.
fn recorded(index: &Index) -> Result<bool> {
    let metas = index.load_metas()?;
    Ok(metas
        .persisted_custom_extensions
        .iter()
        .any(|ext| ext == EXTENSION))
}

/// Makes `index` require the component: already so when it was built with it
/// ([`DedupSettings::segment_plugin`](crate::plugin::DedupSettings::segment_plugin)); an
/// index never committed to gains it (its `meta.json` written again, as tantivy writes a
/// new index's, with the component named).
///
/// # Errors
/// [`Error::Schema`] for an index that holds commits without the component: tantivy
/// cannot add a component to it.
pub(crate) fn record(index: &Index) -> Result<()> {
    if recorded(index)? {
        return Ok(());
    }
    let mut metas = index.load_metas()?;
    if !metas.segments.is_empty() || metas.opstamp != 0 || metas.payload.is_some() {
        return Err(without_component());
    }
    metas.persisted_custom_extensions.push(EXTENSION.to_owned());
    let mut buffer = serde_json::to_vec_pretty(&metas).map_err(|source| Error::Decode {
        what: "meta.json",
        source: source.into(),
    })?;
    buffer.push(b'\n');
    let path = Path::new("meta.json");
    let io = |source| Error::Io {
        path: path.to_owned(),
        source,
    };
    let directory = index.directory();
    directory.sync_directory().map_err(io)?;
    directory.atomic_write(path, &buffer).map_err(io)?;
    directory.sync_directory().map_err(io)
}

/// Registers `plugin` on `index` unless a component of the crate is registered already,
/// after checking that the index requires it.
///
/// # Errors
/// As [`record`]'s check, without writing anything.
pub(crate) fn register(index: &mut Index, plugin: DedupSegmentPlugin) -> Result<()> {
    if !recorded(index)? {
        return Err(without_component());
    }
    let registered = index
        .all_plugins()
        .any(|registered| registered.extensions().contains(&EXTENSION));
    if !registered {
        index.register_plugin(Arc::new(plugin));
    }
    Ok(())
}

fn without_component() -> Error {
    Error::Schema {
        field: VALUES_FIELD.to_owned(),
        reason: "the index was created without tantivy-dedup's segment component: build it with \
                 Index::builder().register_plugin(settings.segment_plugin()?), or give \
                 DedupIndex::create an index with no commit yet"
            .into(),
    }
}
