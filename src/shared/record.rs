//! A document's record in the shared space: a Redis hash of a few short fields and the
//! signature, its values as little-endian bytes (half the size of hexadecimal text).

use std::collections::HashMap;

use super::space::LAYOUT;
use crate::error::{Error, Result};
use crate::fingerprint::le_bytes;
use crate::Fingerprint;

/// Where a document stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum State {
    /// Registered, not decided yet (or its writer died: see the lease).
    Pending,
    /// Admitted: near-duplicates numbered after it are rejected.
    Admitted,
    /// Rejected as a near-duplicate of an admitted document numbered before it.
    Rejected,
    /// Given up by its writer (the add failed): as if it had never come.
    Aborted,
}

impl State {
    pub(super) fn code(self) -> &'static str {
        match self {
            State::Pending => "p",
            State::Admitted => "a",
            State::Rejected => "r",
            State::Aborted => "x",
        }
    }

    fn of_code(code: &str) -> Option<State> {
        Some(match code {
            "p" => State::Pending,
            "a" => State::Admitted,
            "r" => State::Rejected,
            "x" => State::Aborted,
            _ => return None,
        })
    }
}

/// A document's record as read back.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Record {
    /// The writer that registered it.
    pub(super) node: String,
    pub(super) fingerprint: Fingerprint,
    pub(super) signature: Option<Vec<u32>>,
    /// Its number from the cluster-wide counter; `None` until its writer wrote it.
    pub(super) seq: Option<u64>,
    pub(super) state: State,
    /// When it was registered (milliseconds since the Unix epoch, by the clock of the Redis
    /// server that holds it: never a writer's).
    pub(super) at: u64,
    /// Who rejected it, when it was rejected, with what fingerprint, at what distance and
    /// with what score.
    pub(super) by: Option<String>,
    pub(super) by_fingerprint: Option<Fingerprint>,
    pub(super) distance: Option<u32>,
    pub(super) similarity: Option<f64>,
}

/// A record as Redis returns it: field names and their values' bytes.
pub(super) type Hash = HashMap<String, Vec<u8>>;

/// The hash fields of a new registration but its time (`at`), which the Redis server
/// stamps.
pub(super) fn fields(
    node: &str,
    fingerprint: Fingerprint,
    signature: Option<&[u32]>,
) -> Vec<(&'static str, Vec<u8>)> {
    let mut fields = vec![
        ("v", LAYOUT.to_string().into_bytes()),
        ("node", node.as_bytes().to_vec()),
        ("fp", format!("{:x}", fingerprint.bits()).into_bytes()),
        ("st", State::Pending.code().as_bytes().to_vec()),
    ];
    if let Some(signature) = signature {
        fields.push(("sig", le_bytes(signature)));
    }
    fields
}

/// The record of a hash read with HGETALL; `None` for an empty or malformed hash (a
/// record being written, or removed).
pub(super) fn parse(hash: &Hash) -> Option<Record> {
    let text = |field: &str| std::str::from_utf8(hash.get(field)?).ok();
    let hex = |field: &str| u64::from_str_radix(text(field)?, 16).ok();
    // A record without its layout (an older build's, its signature in hexadecimal) does not
    // read as one.
    if text("v")?.parse::<u32>().ok()? != LAYOUT {
        return None;
    }
    let signature = match hash.get("sig") {
        None => None,
        Some(bytes) if bytes.len() % 4 == 0 => Some(
            (bytes.chunks_exact(4))
                .map(|v| u32::from_le_bytes([v[0], v[1], v[2], v[3]]))
                .collect(),
        ),
        Some(_) => return None,
    };
    Some(Record {
        node: text("node")?.to_owned(),
        fingerprint: Fingerprint(hex("fp")?),
        signature,
        seq: match hash.get("seq") {
            Some(_) => Some(text("seq")?.parse().ok()?),
            None => None,
        },
        state: State::of_code(text("st")?)?,
        at: text("at")?.parse().ok()?,
        by: text("by").map(str::to_owned),
        by_fingerprint: hex("byfp").map(Fingerprint),
        distance: text("dist").and_then(|d| d.parse().ok()),
        similarity: text("sim").and_then(|s| s.parse().ok()),
    })
}

/// The record at `key`, read as `hash`.
///
/// # Errors
/// [`Error::Decode`] naming the hash's fields (its values are bytes) when they do not make
/// a record.
pub(super) fn read(key: &str, hash: &Hash) -> Result<Record> {
    parse(hash).ok_or_else(|| {
        let mut names: Vec<&str> = hash.keys().map(String::as_str).collect();
        names.sort_unstable();
        Error::Decode {
            what: "a record of the shared index",
            source: format!("{key}: fields {names:?} do not make a record").into(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_registration_reads_back() {
        let fields = fields("n1", Fingerprint(0xABC), Some(&[1, 0xFFFF_FFFF, 0]));
        let mut hash: Hash = fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
        hash.insert("at".into(), b"42".to_vec());
        let record = parse(&hash).unwrap();
        assert_eq!(
            (record.node.as_str(), record.fingerprint),
            ("n1", Fingerprint(0xABC))
        );
        assert_eq!(record.signature.as_deref(), Some(&[1, 0xFFFF_FFFF, 0][..]));
        assert_eq!(
            (record.seq, record.state, record.at),
            (None, State::Pending, 42)
        );
        hash.insert("seq".into(), b"7".to_vec());
        hash.insert("st".into(), b"a".to_vec());
        let record = parse(&hash).unwrap();
        assert_eq!((record.seq, record.state), (Some(7), State::Admitted));
        hash.insert("sig".into(), b"zz".to_vec());
        assert_eq!(parse(&hash), None);
        // An older build's record: no layout.
        hash.insert("sig".into(), vec![0; 8]);
        assert!(parse(&hash).is_some());
        hash.remove("v");
        assert_eq!(parse(&hash), None);
        assert_eq!(parse(&HashMap::new()), None);
    }
}
