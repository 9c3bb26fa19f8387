//! A shard's identity in a shared space: the name it writes under and a token of its own,
//! kept in a small file in its index folder ([`IDENTITY_FILE`], beside the settings),
//! written when the shard first joins a space. Moved or copied, the folder keeps it: a
//! shard's documents stay its own whatever its path.

use std::hash::{BuildHasher, Hasher};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The file, in an index folder, that holds the shard's [`ShardIdentity`].
pub const IDENTITY_FILE: &str = ".tantivy-dedup-shared.json";

/// A shard's identity in shared spaces: the name it writes under and a token of its own,
/// kept in [`IDENTITY_FILE`] in its index folder from the first time it joins, so that a
/// moved or copied folder keeps it.
///
/// Available with the `cluster` feature.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardIdentity {
    /// The writer name it registers documents under (`ingest --node` overrides it).
    pub node: String,
    /// A random token, the shard's own: a space binds each writer name to the token of the
    /// first shard that joined under it, and refuses that name to any other shard (copies
    /// of a folder share its token, and are kept apart by the writer lease instead).
    pub shard: String,
}

impl ShardIdentity {
    /// A new identity under `node`, with a new random token.
    pub fn new(node: impl Into<String>) -> ShardIdentity {
        ShardIdentity {
            node: node.into(),
            shard: random_token(),
        }
    }

    /// The identity in the index folder `dir`; `None` when the shard never joined a space
    /// (no [`IDENTITY_FILE`]).
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be read; [`Error::Decode`] when it does not hold an
    /// identity.
    pub fn read(dir: &Path) -> Result<Option<ShardIdentity>> {
        let path = dir.join(IDENTITY_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(Error::Io { path, source }),
        };
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| Error::Decode {
                what: "a shard's identity in a shared space",
                source: format!("{}: {e}", path.display()).into(),
            })
    }

    /// Writes this identity into the index folder `dir` (which must exist), atomically: a
    /// temporary file renamed over [`IDENTITY_FILE`].
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be written.
    pub fn write(&self, dir: &Path) -> Result<()> {
        let path = dir.join(IDENTITY_FILE);
        let temporary = dir.join(format!("{IDENTITY_FILE}.{}", std::process::id()));
        let json = serde_json::to_string(self).expect("an identity serializes");
        let io = |path: PathBuf| move |source| Error::Io { path, source };
        std::fs::write(&temporary, json).map_err(io(temporary.clone()))?;
        std::fs::rename(&temporary, &path).map_err(io(path.clone()))
    }
}

/// 128 random bits in hexadecimal, from the standard library's per-process random keys,
/// the time and the process id.
pub(super) fn random_token() -> String {
    let mut token = String::new();
    for part in 0..2u64 {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u64(part);
        hasher.write_u32(std::process::id());
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
        hasher.write_u128(now.map_or(0, |d| d.as_nanos()));
        token.push_str(&format!("{:016x}", hasher.finish()));
    }
    token
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_identity_reads_back_and_tokens_differ() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(ShardIdentity::read(dir.path()).unwrap(), None);
        let identity = ShardIdentity::new("n1");
        identity.write(dir.path()).unwrap();
        assert_eq!(
            ShardIdentity::read(dir.path()).unwrap(),
            Some(identity.clone())
        );
        assert_eq!(identity.shard.len(), 32);
        assert_ne!(ShardIdentity::new("n1").shard, identity.shard);
        std::fs::write(dir.path().join(IDENTITY_FILE), "{").unwrap();
        assert!(matches!(
            ShardIdentity::read(dir.path()),
            Err(Error::Decode { .. })
        ));
    }
}
