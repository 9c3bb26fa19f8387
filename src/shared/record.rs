//! A document's record in the shared space: a Redis hash of a few short fields.

use std::collections::HashMap;

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
    /// When it was registered (milliseconds since the Unix epoch, its writer's clock).
    pub(super) at: u64,
    /// Who rejected it, when it was rejected, with what fingerprint, at what distance and
    /// with what score.
    pub(super) by: Option<String>,
    pub(super) by_fingerprint: Option<Fingerprint>,
    pub(super) distance: Option<u32>,
    pub(super) similarity: Option<f64>,
}

/// The hash fields of a new registration.
pub(super) fn fields(
    node: &str,
    fingerprint: Fingerprint,
    signature: Option<&[u32]>,
    at: u64,
) -> Vec<(&'static str, String)> {
    let mut fields = vec![
        ("node", node.to_owned()),
        ("fp", format!("{:x}", fingerprint.bits())),
        ("st", State::Pending.code().to_owned()),
        ("at", at.to_string()),
    ];
    if let Some(signature) = signature {
        let values: Vec<String> = signature.iter().map(|v| format!("{v:x}")).collect();
        fields.push(("sig", values.join(",")));
    }
    fields
}

/// The record of a hash read with HGETALL; `None` for an empty or malformed hash (a
/// record being written, or removed).
pub(super) fn parse(hash: &HashMap<String, String>) -> Option<Record> {
    let hex = |s: &str| u64::from_str_radix(s, 16).ok();
    let signature = match hash.get("sig") {
        None => None,
        Some(values) => Some(
            values
                .split(',')
                .map(|v| u32::from_str_radix(v, 16).ok())
                .collect::<Option<Vec<u32>>>()?,
        ),
    };
    Some(Record {
        node: hash.get("node")?.clone(),
        fingerprint: Fingerprint(hex(hash.get("fp")?)?),
        signature,
        seq: match hash.get("seq") {
            Some(seq) => Some(seq.parse().ok()?),
            None => None,
        },
        state: State::of_code(hash.get("st")?)?,
        at: hash.get("at")?.parse().ok()?,
        by: hash.get("by").cloned(),
        by_fingerprint: hash.get("byfp").and_then(|f| hex(f)).map(Fingerprint),
        distance: hash.get("dist").and_then(|d| d.parse().ok()),
        similarity: hash.get("sim").and_then(|s| s.parse().ok()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_registration_reads_back() {
        let fields = fields("n1", Fingerprint(0xABC), Some(&[1, 0xFFFF_FFFF, 0]), 42);
        let mut hash: HashMap<String, String> =
            fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
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
        hash.insert("seq".into(), "7".into());
        hash.insert("st".into(), "a".into());
        let record = parse(&hash).unwrap();
        assert_eq!((record.seq, record.state), (Some(7), State::Admitted));
        hash.insert("sig".into(), "zz".into());
        assert_eq!(parse(&hash), None);
        assert_eq!(parse(&HashMap::new()), None);
    }
}
