//! The settings file kept in an index directory, and the resources frozen beside it.
//!
//! Written with tantivy's [`Directory::atomic_write`], so a crash leaves either the old file
//! or the new one. The names start with a dot on purpose: tantivy's garbage collector
//! deletes every file written through the index's managed directory that no segment uses,
//! except files whose name starts with a dot.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tantivy::directory::error::OpenReadError;
use tantivy::Directory;

use crate::error::{read_error, Error, Result};
use crate::fingerprint::ShingleWeights;
use crate::matching::check_version_of;
use crate::plugin::DedupSettings;
use crate::text::IdfTable;

/// The settings, as JSON.
pub const SETTINGS_FILE: &str = ".tantivy-dedup.json";
/// The IDF table the weights come from, when it is not jieba's built-in one.
pub const IDF_FILE: &str = ".tantivy-dedup-idf.json";
/// The table of shingle weights the signatures take, when there is one.
pub const SHINGLE_WEIGHTS_FILE: &str = ".tantivy-dedup-shingle-weights.bin";
/// The jieba user dictionary, when there is one.
pub const DICTIONARY_FILE: &str = ".tantivy-dedup-dictionary.txt";
/// The writer's ledger: the records rejected under [`Policy::Reject`](crate::plugin::Policy)
/// and the documents they were rejected against, so that a later writer reports them
/// [`Rejudged::Lost`](crate::plugin::Rejudged) when those change, and the lost records whose
/// reports are not delivered yet. Its files are this name, a dot and a number, the last of
/// them named by the index's last commit; this name alone holds the number of the last one
/// for a commit made without the plugin.
pub const LEDGER_FILE: &str = ".tantivy-dedup-ledger";

/// Writes `settings` and its frozen resources; the settings file goes last, so that its
/// presence means the others are complete.
pub(crate) fn write(directory: &dyn Directory, settings: &DedupSettings) -> Result<()> {
    if let Some(table) = settings.get_idf_table() {
        let mut bytes = Vec::new();
        table.save_json(&mut bytes)?;
        atomic_write(directory, IDF_FILE, &bytes)?;
    }
    if let Some(words) = settings.get_user_dictionary() {
        atomic_write(directory, DICTIONARY_FILE, words)?;
    }
    if let Some(table) = settings.get_shingle_weights() {
        atomic_write(directory, SHINGLE_WEIGHTS_FILE, &table.to_bytes())?;
    }
    let json = serde_json::to_vec_pretty(settings).map_err(|source| Error::Decode {
        what: "deduplication settings",
        source: Box::new(source),
    })?;
    atomic_write(directory, SETTINGS_FILE, &json)
}

/// Reads the settings and their frozen resources; `None` when the index has no settings
/// file.
pub(crate) fn read(directory: &dyn Directory) -> Result<Option<DedupSettings>> {
    let Some(json) = atomic_read(directory, SETTINGS_FILE)? else {
        return Ok(None);
    };
    check_version_of(&json)?;
    let settings: DedupSettings =
        serde_json::from_slice(&json).map_err(|source| Error::Decode {
            what: "deduplication settings",
            source: Box::new(source),
        })?;
    let idf_table = match atomic_read(directory, IDF_FILE)? {
        Some(bytes) => Some(Arc::new(IdfTable::load_json(&bytes[..])?)),
        None => None,
    };
    let user_dictionary = atomic_read(directory, DICTIONARY_FILE)?.map(Arc::from);
    // Read only when the settings name it: a table left by an index created before is no
    // part of these settings.
    let shingle_weights = match settings
        .get_matching()
        .get_verification()
        .and_then(|v| v.get_weights())
    {
        Some(_) => match atomic_read(directory, SHINGLE_WEIGHTS_FILE)? {
            Some(bytes) => Some(Arc::new(ShingleWeights::from_bytes(&bytes)?)),
            None => None,
        },
        None => None,
    };
    Ok(Some(settings.with_resources(
        idf_table,
        user_dictionary,
        shingle_weights,
    )))
}

fn atomic_write(directory: &dyn Directory, name: &str, bytes: &[u8]) -> Result<()> {
    directory
        .atomic_write(Path::new(name), bytes)
        .map_err(|source| Error::Io {
            path: PathBuf::from(name),
            source,
        })
}

fn atomic_read(directory: &dyn Directory, name: &str) -> Result<Option<Vec<u8>>> {
    match directory.atomic_read(Path::new(name)) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(OpenReadError::FileDoesNotExist(_)) => Ok(None),
        Err(error) => Err(read_error(Path::new(name), error)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::directory::RamDirectory;

    #[test]
    fn a_later_format_is_named_not_an_unknown_field() {
        let directory = RamDirectory::create();
        let settings = DedupSettings::new(["body"]);
        write(&directory, &settings).unwrap();
        assert_eq!(
            read(&directory).unwrap().unwrap().get_version(),
            crate::matching::SETTINGS_VERSION
        );
        let mut json: serde_json::Value = serde_json::to_value(&settings).unwrap();
        json["version"] = (crate::matching::SETTINGS_VERSION + 1).into();
        json["added_later"] = true.into();
        atomic_write(&directory, SETTINGS_FILE, json.to_string().as_bytes()).unwrap();
        match read(&directory) {
            Err(Error::InvalidSetting { name, reason }) => {
                assert_eq!(name, "version");
                assert!(reason.contains("later tantivy-dedup"), "{reason}");
            }
            other => panic!("expected a version error, got {other:?}"),
        }
    }
}
