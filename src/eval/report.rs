//! What an evaluation reports, serializable as the `eval` command's JSON.

use serde::{Deserialize, Serialize};

use super::counts::{DistanceCounts, Point};
use super::verify::ThresholdPoint;
use crate::fingerprint::FingerprintConfig;

/// The evaluation of one set.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct EvalReport {
    /// The set's name.
    pub set: String,
    /// Documents in the set.
    pub documents: usize,
    /// Near-duplicate pairs counted.
    pub positives: u64,
    /// Distinct pairs counted.
    pub negatives: u64,
    /// The largest *k* of the sweeps.
    pub max_k: u32,
    /// The *k* the per-category figures are also given at: the library's default distance.
    pub default_k: u32,
    /// One result per config of the grid, in grid order.
    pub configs: Vec<ConfigResult>,
    /// The index in `configs` of the config with the highest F1 (the first on ties).
    pub best_config: usize,
    /// The two-stage variants, verified over the best config's candidates.
    pub verify: Vec<VerifyResult>,
}

/// One fingerprint config on one set.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ConfigResult {
    /// The config's name in the grid.
    pub name: String,
    /// The config.
    pub config: FingerprintConfig,
    /// Documents that got no fingerprint (no features): distinct from everything.
    pub no_fingerprint: usize,
    /// Wall time to fingerprint the set, in seconds (all cores).
    pub fingerprint_seconds: f64,
    /// The counted pairs by distance.
    pub counts: DistanceCounts,
    /// Precision, recall and F1 for `k` in `0..=max_k`.
    pub sweep: Vec<Point>,
    /// The sweep's point of highest F1.
    pub best: Point,
    /// The point at the default distance.
    pub at_default_k: Point,
    /// The ROC AUC of the distance as a score; `None` without pairs on both sides.
    pub roc_auc: Option<f64>,
    /// The listed pairs by category, at the best *k* and at the default *k*.
    pub categories: Vec<CategoryResult>,
}

/// The listed pairs of one category (kind, rate, label) under one matcher.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CategoryResult {
    /// The pairs' kind.
    pub kind: String,
    /// Their edit rate, where one applies.
    pub rate: Option<f64>,
    /// Their label.
    pub label: bool,
    /// How many pairs.
    pub pairs: u64,
    /// The fraction called near-duplicates at the best setting: recall for near-duplicate
    /// categories, the false-positive rate for distinct ones.
    pub near_at_best: f64,
    /// The same at the default distance (`None` for two-stage matchers).
    pub near_at_default: Option<f64>,
    /// The fraction within `k` bits for `k` in `0..=max_k`: the recall curve of a
    /// near-duplicate category over *k* (empty for two-stage matchers).
    pub near_by_k: Vec<f64>,
}

/// A two-stage matcher: fingerprint candidates within `loose_k`, kept when a second score
/// reaches a threshold.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct VerifyResult {
    /// The second stage: `minhash` (estimated Jaccard of the signature's shingles),
    /// `combined` (`mu / (hamming + 1) + (1 - mu) * jaccard` with that Jaccard),
    /// `combined-meta` (the same with the Jaccard of the documents' metadata sets), `plugin`
    /// (the plugin's rule: within the default *k*, or that Jaccard beyond it), or
    /// `plugin-bands` (the same with the default candidate stage: beyond the default *k*,
    /// only the pairs sharing a band of their signatures), `containment` (the overlap
    /// coefficient `|A ∩ B| / min(|A|, |B|)` estimated from the signatures), or
    /// `plugin-containment` (the plugin's rule with bands, scored by containment:
    /// [`PairScore::Containment`](crate::matching::PairScore::Containment)), or
    /// `plugin-weighted` and `plugin-weighted-bands` (`plugin` and `plugin-bands` with the
    /// default bands, over signatures whose shingles are weighted by a table learned from
    /// the set itself, as `ingest --idf-from` learns one: the weighted Jaccard).
    pub method: String,
    /// The config whose fingerprints give the candidates.
    pub config: String,
    /// The candidates' distance.
    pub loose_k: u32,
    /// The values per band of `plugin-bands` and `plugin-containment`
    /// ([`EvalOptions::band_rows`](crate::eval::EvalOptions::band_rows)), and of
    /// `plugin-weighted-bands` (the default);
    /// `None` for the other methods.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub band_rows: Option<usize>,
    /// Counted pairs within `loose_k` (and, with bands, within the default *k* or sharing a
    /// band).
    pub candidates: usize,
    /// The threshold of highest F1.
    pub best: ThresholdPoint,
    /// Points at thresholds 0.05 apart.
    pub curve: Vec<ThresholdPoint>,
    /// The listed pairs by category at the best threshold.
    pub categories: Vec<CategoryResult>,
    /// The scores at [`EvalOptions::threshold`](crate::eval::EvalOptions::threshold), by
    /// default the plugin's ([`DEFAULT_THRESHOLD`](crate::matching::DEFAULT_THRESHOLD)).
    pub at_default: ThresholdPoint,
    /// The listed pairs by category at that threshold.
    pub categories_at_default: Vec<CategoryResult>,
}
