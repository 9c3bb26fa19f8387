//! A space's description: the layout of its keys and the rule its writers judge by, written
//! by its first writer and checked by every other, so that a writer with another rule (or a
//! build that lays keys out otherwise) is refused rather than missing candidates silently.

use redis::Commands;
use serde::Serialize;

use super::keys::BUCKET_BITS;
use super::store::Store;
use crate::error::{Error, Result};
use crate::matching::Verification;

/// The layout of the keys this build writes. Layout 1 (no description) kept a set per band
/// value and signatures in hexadecimal; 2 keeps band values as fields of bucket hashes and
/// signatures as bytes.
const LAYOUT: u32 = 2;

#[derive(Serialize)]
struct Description<'a> {
    layout: u32,
    bucket_bits: u32,
    distance: u32,
    verification: Option<&'a Verification>,
}

/// Writes the description of the space `namespace` when it has none yet, else checks that
/// it is this writer's.
pub(super) fn check_or_create(
    store: &Store,
    namespace: &str,
    distance: u32,
    verification: Option<&Verification>,
) -> Result<()> {
    let ours = serde_json::to_string(&Description {
        layout: LAYOUT,
        bucket_bits: BUCKET_BITS,
        distance,
        verification,
    })
    .map_err(|e| Error::Decode {
        what: "the shared space's description",
        source: e.into(),
    })?;
    let key = format!("{namespace}:space");
    let counter = format!("{namespace}:seq");
    let found: Option<String> = store.run("cannot read the space's description", |c| {
        if let Some(found) = c.get::<_, Option<String>>(&key)? {
            return Ok(Some(found));
        }
        // Documents numbered, no description: a space of layout 1.
        if c.exists(&counter)? {
            return Ok(None);
        }
        c.set_nx::<_, _, ()>(&key, &ours)?;
        c.get(&key)
    })?;
    match found {
        Some(found) if found == ours => Ok(()),
        found => Err(Error::SpaceMismatch {
            namespace: namespace.to_owned(),
            found: found.unwrap_or_else(|| "{\"layout\":1} (an older build's)".to_owned()),
            ours,
        }),
    }
}
