//! A space's description: the layout of its keys, the rule its writers judge by and the
//! fingerprint settings, written by its first writer and checked by every other (and by
//! `repair` and `search`), so that a writer with another rule or other fingerprints (or a
//! build that lays keys out otherwise) is refused rather than missing candidates silently.

use std::collections::{BTreeMap, BTreeSet};

use redis::Commands;
use serde::Serialize;

use super::slots::{GROUPS, LIST_BUCKETS};
use super::store::Store;
use crate::error::{Error, Result};
use crate::fingerprint::FingerprintConfig;
use crate::matching::{MatchingSettings, Verification};

/// The layout of the keys and records this build writes, in the space's description and in
/// every record (its first byte: one digit). Layout 1 (no description) kept a set per band
/// value and signatures in hexadecimal; 2 kept band values as fields of bucket hashes, a
/// key per document's record and a set per block value; 3 keeps every key in one of
/// [`GROUPS`] groups under hash tags, candidate keys as fields of a group's list hashes,
/// records packed as fields of a group's records hash, ids in lists and a set of ids a
/// writer; 4 lists documents by 4-byte handles (a record's group and slot), keeps the id
/// in the record alone, the time and number in binary, and no set a writer. A writer of
/// another layout is
/// refused: old and new writers never share a space, since neither would find the other's
/// documents.
pub(super) const LAYOUT: u32 = 4;

#[derive(Serialize)]
struct Description<'a> {
    layout: u32,
    groups: u64,
    list_buckets: u64,
    distance: u32,
    verification: Option<&'a Verification>,
    /// Everything that changes a fingerprint's or a signature's bits: documents
    /// fingerprinted otherwise are not comparable.
    fingerprint: &'a FingerprintConfig,
}

/// The description of a space whose writers judge by `matching`, as stored.
pub(super) fn describe(matching: &MatchingSettings) -> Result<String> {
    serde_json::to_string(&Description {
        layout: LAYOUT,
        groups: GROUPS,
        list_buckets: LIST_BUCKETS,
        distance: matching.get_distance(),
        verification: matching.get_verification(),
        fingerprint: matching.get_fingerprint(),
    })
    .map_err(|e| Error::Decode {
        what: "the shared space's description",
        source: e.into(),
    })
}

/// Checks that the description of the space `namespace` is `ours` (a [`describe`]);
/// with `create`, writes it first when the space has none yet (without, a space with
/// none passes: nothing was written there by this layout). A description an earlier
/// build wrote without the fingerprint settings, the rest equal, is completed with ours.
///
/// # Errors
/// [`Error::SpaceMismatch`] naming each setting that differs.
pub(super) fn check(store: &Store, namespace: &str, ours: &str, create: bool) -> Result<()> {
    let key = format!("{namespace}:space");
    let counter = format!("{namespace}:seq");
    let found: Option<String> = store.run("cannot read the space's description", |c| {
        if let Some(found) = c.get::<_, Option<String>>(&key)? {
            return Ok(Some(found));
        }
        // Documents numbered, no description: a space of layout 1.
        if c.exists(&counter)? || !create {
            return Ok(None);
        }
        c.set_nx::<_, _, ()>(&key, ours)?;
        c.get(&key)
    })?;
    let found = match found {
        Some(found) => found,
        None if !create && !store.run("cannot read the space", |c| c.exists(&counter))? => {
            return Ok(());
        }
        None => "{\"layout\":1}".to_owned(),
    };
    if found == ours {
        return Ok(());
    }
    let mut differences = differences(&found, ours);
    let earlier = differences.iter().all(|d| d.starts_with("fingerprint."))
        && !found.contains("\"fingerprint\"");
    if earlier && !differences.is_empty() {
        // Written before the fingerprint settings were: completed, atomically, with ours.
        let completed: i64 = store.run("cannot complete the space's description", |c| {
            redis::cmd("EVAL")
                .arg(REPLACE_IF)
                .arg(1)
                .arg(&key)
                .arg(&found)
                .arg(ours)
                .query(c)
        })?;
        if completed == 1 {
            return Ok(());
        }
        // Completed meanwhile by another writer: check again.
        return check(store, namespace, ours, create);
    }
    if differences.is_empty() {
        // Written otherwise with the same settings (by another build, say): both whole.
        differences.push(format!("description: {found} in the space, {ours} here"));
    }
    Err(Error::SpaceMismatch {
        namespace: namespace.to_owned(),
        differences,
    })
}

/// Sets `KEYS[1]` to `ARGV[2]` if it holds `ARGV[1]`: 1 if it did, else 0.
const REPLACE_IF: &str = "
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2])
  return 1
end
return 0
";

/// Each setting that differs between the descriptions `found` (the space's) and `ours`:
/// `path: value in the space, value here`.
fn differences(found: &str, ours: &str) -> Vec<String> {
    let settings = |description: &str| {
        let mut settings = BTreeMap::new();
        let value = serde_json::from_str(description).unwrap_or(serde_json::Value::Null);
        flatten(String::new(), &value, &mut settings);
        settings
    };
    let (found, ours) = (settings(found), settings(ours));
    let absent = || "none".to_owned();
    let paths: BTreeSet<&String> = found.keys().chain(ours.keys()).collect();
    paths
        .into_iter()
        .filter(|path| found.get(*path) != ours.get(*path))
        .map(|path| {
            let theirs = found.get(path).cloned().unwrap_or_else(absent);
            let ours = ours.get(path).cloned().unwrap_or_else(absent);
            format!("{path}: {theirs} in the space, {ours} here")
        })
        .collect()
}

/// The leaves of `value` but nulls, by their dotted paths.
fn flatten(path: String, value: &serde_json::Value, out: &mut BTreeMap<String, String>) {
    match value {
        serde_json::Value::Object(fields) => {
            for (name, value) in fields {
                let path = if path.is_empty() {
                    name.clone()
                } else {
                    format!("{path}.{name}")
                };
                flatten(path, value, out);
            }
        }
        // A setting that is off (no verification) has no leaves: "none".
        serde_json::Value::Null => {}
        leaf => {
            out.insert(path, leaf.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_name_each_setting() {
        let space = r#"{"layout":2,"distance":3,"verification":{"threshold":0.55,"hashes":128}}"#;
        let ours = r#"{"layout":2,"distance":5,"verification":null}"#;
        assert_eq!(
            differences(space, ours),
            [
                "distance: 3 in the space, 5 here",
                "verification.hashes: 128 in the space, none here",
                "verification.threshold: 0.55 in the space, none here",
            ]
        );
        assert_eq!(
            differences(r#"{"layout":1}"#, r#"{"layout":2,"distance":3}"#),
            [
                "distance: none in the space, 3 here",
                "layout: 1 in the space, 2 here"
            ]
        );
    }
}
