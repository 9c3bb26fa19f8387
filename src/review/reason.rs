//! A [`Reason`] as the review shows it: a short kind for filters and JSON, and a sentence.

use serde_json::{json, Value};

use crate::matching::Reason;

/// The kind of a reason, as filters and JSON name it: `no_fingerprint`,
/// `within_distance`, `beyond_reach`, `no_signature`, `no_shared_band`, `below_threshold`,
/// `verified`; `reported` for a decision known from an ingest report alone (a text was not
/// kept, so the rule could not be applied again).
///
/// Available with the `review` feature (on by default).
pub fn reason_kind(reason: Option<&Reason>) -> &'static str {
    match reason {
        None => "reported",
        Some(Reason::NoFingerprint) => "no_fingerprint",
        Some(Reason::WithinDistance { .. }) => "within_distance",
        Some(Reason::BeyondReach { .. }) => "beyond_reach",
        Some(Reason::NoSignature) => "no_signature",
        Some(Reason::NoSharedBand { .. }) => "no_shared_band",
        Some(Reason::BelowThreshold { .. }) => "below_threshold",
        Some(Reason::Verified { .. }) => "verified",
    }
}

/// The reason as JSON: `{"kind":..}` with the reason's numbers (`k`, `reach`, `rows`,
/// `score`, `threshold`).
///
/// Available with the `review` feature (on by default).
pub fn reason_json(reason: Option<&Reason>) -> Value {
    let kind = reason_kind(reason);
    match reason {
        Some(Reason::WithinDistance { k }) => json!({"kind": kind, "k": k}),
        Some(Reason::BeyondReach { reach }) => json!({"kind": kind, "reach": reach}),
        Some(Reason::NoSharedBand { rows }) => json!({"kind": kind, "rows": rows}),
        Some(
            Reason::BelowThreshold { score, threshold } | Reason::Verified { score, threshold },
        ) => {
            json!({"kind": kind, "score": score, "threshold": threshold})
        }
        _ => json!({ "kind": kind }),
    }
}

/// The reason in a sentence.
///
/// Available with the `review` feature (on by default).
pub fn reason_text(reason: Option<&Reason>) -> String {
    match reason {
        None => {
            "as the ingest report says (a text was not kept, so the rule was not applied again)"
                .into()
        }
        Some(Reason::NoFingerprint) => {
            "a text has no features, so no fingerprint: never a near-duplicate".into()
        }
        Some(Reason::WithinDistance { k }) => {
            format!("near: the fingerprints are within k = {k} bits")
        }
        Some(Reason::BeyondReach { reach }) => {
            format!("not near: the fingerprints are more than {reach} bits apart")
        }
        Some(Reason::NoSignature) => {
            "not near: beyond k, and a text has no shingles to sign".into()
        }
        Some(Reason::NoSharedBand { rows }) => {
            format!("not near: beyond k, and the signatures share no band of {rows} values")
        }
        Some(Reason::BelowThreshold { score, threshold }) => {
            format!("not near: score {score:.3} is under the threshold {threshold:.2}")
        }
        Some(Reason::Verified { score, threshold }) => {
            format!("near: score {score:.3} reaches the threshold {threshold:.2}")
        }
    }
}
