//! The payload of the writer's commits (`IndexMeta::payload` in `meta.json`): what names the
//! files the plugin keeps beside tantivy's segments, so that tantivy's commit is the one
//! moment they change (see `ledger`).
//!
//! A commit that names no such file carries the caller's payload as it was given; one that
//! does carries `{"tantivy-dedup":{"ledger":N},"payload":"..."}`, the caller's payload
//! inside. [`DedupIndex::commit_payload`](crate::plugin::DedupIndex::commit_payload) reads
//! the caller's part of either.

use serde::{Deserialize, Serialize};

use super::ledger::Named;

#[derive(Serialize, Deserialize)]
struct Envelope {
    #[serde(rename = "tantivy-dedup")]
    ours: Ours,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    payload: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct Ours {
    /// The tip of the ledger.
    ledger: u64,
}

/// The payload of a commit whose ledger tip is `tip`, the caller's `payload` inside.
pub(crate) fn encode(tip: Option<u64>, payload: Option<&str>) -> Option<String> {
    match tip {
        None => payload.map(str::to_owned),
        Some(ledger) => {
            let envelope = Envelope {
                ours: Ours { ledger },
                payload: payload.map(str::to_owned),
            };
            Some(serde_json::to_string(&envelope).expect("a payload serializes"))
        }
    }
}

/// What the last commit's `payload` says of the ledger, and the caller's payload.
pub(crate) fn decode(payload: Option<&str>) -> (Named, Option<String>) {
    let envelope = payload.and_then(|payload| serde_json::from_str::<Envelope>(payload).ok());
    match envelope {
        Some(envelope) => (Named::Tip(Some(envelope.ours.ledger)), envelope.payload),
        None => (Named::Unknown, payload.map(str::to_owned)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_callers_payload_comes_back_whole() {
        for payload in [
            None,
            Some(""),
            Some("crawl 7"),
            Some(r#"{"tantivy-dedup":1}"#),
        ] {
            assert_eq!(
                decode(encode(None, payload).as_deref()).1.as_deref(),
                payload
            );
            let (named, back) = decode(encode(Some(9), payload).as_deref());
            assert_eq!((named, back.as_deref()), (Named::Tip(Some(9)), payload));
        }
        assert_eq!(decode(Some("crawl 7")).0, Named::Unknown);
    }
}
