//! [`RuleSummary`]: the matching rule an index judged by, as a person reads it in a
//! review: the distance *k*, the second stage's threshold, reach and bands, and the
//! [`Preset`] it is, if any.

use std::fmt;

use serde::Serialize;

use crate::matching::{CandidateStage, PairScore, Preset};
use crate::plugin::DedupIndex;

/// The rule in force in an index (see [`DedupIndex::rule`]), in the terms of the review.
///
/// Available with the `review` feature (on by default).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RuleSummary {
    /// The Hamming distance *k*.
    pub distance: u32,
    /// Whether the signatures decide pairs within *k* too.
    pub signatures_decide: bool,
    /// The second stage's threshold, when the index verifies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threshold: Option<f64>,
    /// How a candidate is scored: `jaccard`, `containment` or `combined`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<&'static str>,
    /// The loose distance of the second stage's candidates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidate_distance: Option<u32>,
    /// Values per band, when the candidates come from bands.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub band_rows: Option<usize>,
    /// The preset whose rule this is (`news`, `rewrites`), when it is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preset: Option<String>,
}

impl RuleSummary {
    /// The rule in force in `index`.
    pub fn of(index: &DedupIndex) -> RuleSummary {
        let verification = index.settings().get_matching().get_verification();
        let rule = verification.map(|v| v.rule());
        let preset = rule.and_then(|rule| {
            (Preset::ALL.into_iter()).find(|preset| preset.verification().rule() == rule)
        });
        RuleSummary {
            distance: index.distance(),
            signatures_decide: rule.is_some_and(|rule| rule.signatures_decide),
            threshold: rule.map(|rule| rule.threshold),
            score: rule.map(|rule| match rule.score {
                PairScore::Jaccard => "jaccard",
                PairScore::Containment => "containment",
                PairScore::Combined { .. } => "combined",
            }),
            candidate_distance: rule.map(|rule| rule.candidate_distance),
            band_rows: rule.and_then(|rule| match rule.candidates {
                CandidateStage::Bands { rows } => Some(rows),
                CandidateStage::Scan => None,
            }),
            preset: preset.map(|preset| preset.to_string()),
        }
    }
}

impl fmt::Display for RuleSummary {
    /// `k ≤ 3 bits; signatures decide: jaccard ≥ 0.80, candidates within 16 bits sharing a
    /// band of 9 values (preset news)`, or `k ≤ 3 bits` without a second stage.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "k ≤ {} bits", self.distance)?;
        if let (Some(threshold), Some(score), Some(reach)) =
            (self.threshold, self.score, self.candidate_distance)
        {
            let decide = if self.signatures_decide {
                "signatures decide"
            } else {
                "beyond k, signatures decide"
            };
            write!(
                f,
                "; {decide}: {score} ≥ {threshold:.2}, candidates within {reach} bits"
            )?;
            if let Some(rows) = self.band_rows {
                write!(f, " sharing a band of {rows} values")?;
            }
        }
        if let Some(preset) = &self.preset {
            write!(f, " (preset {preset})")?;
        }
        Ok(())
    }
}
