//! [`recommend`]: the plugin settings that best meet a goal on a labeled sample, chosen
//! among those an evaluation measured, as a settings file `ingest --settings` reads.

use std::fmt;

use super::counts::Scores;
use super::end_to_end::end_to_end;
use super::report::{EvalReport, VerifyResult};
use super::run::EvalOptions;
use super::set::EvalSet;
use crate::error::Result;
use crate::fingerprint::KeptBits;
use crate::lookup::MAX_TABLE_DISTANCE;
use crate::matching::{CandidateStage, MatchingSettings, Measured, PairScore, Verification};

/// What a recommendation is chosen for.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Goal {
    /// The highest F1.
    BestF1,
    /// The highest recall at a precision of at least this.
    Precision(f64),
}

impl fmt::Display for Goal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Goal::BestF1 => f.write_str("best F1"),
            Goal::Precision(p) => write!(f, "recall at precision >= {p}"),
        }
    }
}

/// How far below the best score a cheaper setting may be and still be recommended: 0.005
/// of F1 (or of recall, for a precision target). On the heavy-rewrite sets, bands of one
/// value score 0.002 above bands of two, with 110 times the candidates to verify.
pub const NEAR_BEST: f64 = 0.005;

impl Goal {
    /// What the goal maximises, and what breaks ties: `None` when `scores` do not meet it.
    fn key(self, scores: &Scores) -> Option<(f64, f64)> {
        if scores.true_positives == 0 {
            return None;
        }
        match self {
            Goal::BestF1 => Some((scores.f1, scores.precision)),
            Goal::Precision(p) => {
                (scores.precision >= p).then_some((scores.recall, scores.precision))
            }
        }
    }
}

/// Settings recommended for a goal, with what they scored on the sample.
#[derive(Clone, Debug, PartialEq)]
pub struct Recommendation {
    /// The settings, their [`Measured`] filled in.
    pub settings: MatchingSettings,
    /// What they scored on the sample, pair by pair.
    pub scores: Scores,
    /// What they scored end to end ([`end_to_end`]): the groups an ingest and `clusters`
    /// make, when measured.
    pub end_to_end: Option<Scores>,
    /// The matcher in the report's words: `plugin-bands`, `plugin` or `simhash`, the
    /// config, and the distances, rows and threshold.
    pub summary: String,
}

/// The settings that meet `goal` on the set of `report` (made with `options`), among those
/// the plugin can run and the report measured: fingerprints alone at each swept distance,
/// for every config; and the plugin's rule (`plugin-bands` and `plugin-containment` rows,
/// and `plugin` rows whose candidate distance a block table serves, at most
/// [`MAX_TABLE_DISTANCE`]: a scan beyond it compares each new document with the whole
/// index) at each threshold of its curve and at its best one. Of the settings within [`NEAR_BEST`] of the best score, the one with the
/// fewest candidate pairs to verify wins (fingerprints alone verify none); then the higher
/// score, then the higher threshold.
///
/// `None` when no setting finds a near-duplicate pair, or none reaches the precision asked.
pub fn recommend(report: &EvalReport, options: &EvalOptions, goal: Goal) -> Option<Recommendation> {
    let chosen = near_best(report, options, goal).into_iter().next()?;
    Some(with_measured(chosen, report, goal))
}

/// Settings measured end to end before one is recommended by
/// [`recommend_end_to_end`]: the cheapest near the best pairwise score first.
pub const END_TO_END_CANDIDATES: usize = 6;

/// The settings that meet `goal` on `set` end to end: of the settings [`recommend`] would
/// choose among (within [`NEAR_BEST`] of the best pairwise score), the first
/// [`END_TO_END_CANDIDATES`] in its order are ingested and grouped ([`end_to_end`]), and
/// the one with the best end-to-end score wins (the cheaper on a tie). Pairs the labels do
/// not list join or split groups, so the pairwise best can be worse end to end.
///
/// # Errors
/// As [`end_to_end`].
pub fn recommend_end_to_end(
    set: &EvalSet,
    report: &EvalReport,
    options: &EvalOptions,
    goal: Goal,
) -> Result<Option<Recommendation>> {
    let mut best: Option<(Recommendation, (f64, f64))> = None;
    for mut candidate in near_best(report, options, goal)
        .into_iter()
        .take(END_TO_END_CANDIDATES)
    {
        let scores = end_to_end(set, &candidate.settings)?;
        candidate.end_to_end = Some(scores);
        let Some(key) = goal.key(&scores) else {
            continue;
        };
        if best.as_ref().is_none_or(|(_, incumbent)| key > *incumbent) {
            best = Some((candidate, key));
        }
    }
    Ok(best.map(|(chosen, _)| with_measured(chosen, report, goal)))
}

/// `chosen` with its scores written into its settings' [`Measured`].
fn with_measured(mut chosen: Recommendation, report: &EvalReport, goal: Goal) -> Recommendation {
    let end_to_end = chosen.end_to_end;
    chosen.settings = chosen.settings.measured(Measured {
        sample: report.set.clone(),
        goal: goal.to_string(),
        precision: chosen.scores.precision,
        recall: chosen.scores.recall,
        f1: chosen.scores.f1,
        end_to_end_precision: end_to_end.map(|s| s.precision),
        end_to_end_recall: end_to_end.map(|s| s.recall),
        end_to_end_f1: end_to_end.map(|s| s.f1),
    });
    chosen
}

/// The settings within [`NEAR_BEST`] of the best score for `goal`, in the order
/// [`recommend`] prefers them: the fewest candidate pairs to verify first, then the higher
/// score; the plugin's settings before fingerprints alone, falling thresholds, on ties.
fn near_best(report: &EvalReport, options: &EvalOptions, goal: Goal) -> Vec<Recommendation> {
    // Each setting measured, with its cost: the candidate pairs it verifies.
    let mut measured: Vec<(Recommendation, usize)> = Vec::new();
    let mut measure = |settings, scores, summary, cost| {
        let recommendation = Recommendation {
            settings,
            scores,
            end_to_end: None,
            summary,
        };
        measured.push((recommendation, cost));
    };
    let rows = |method: &'static str| report.verify.iter().filter(move |row| row.method == method);
    let runnable_scans = rows("plugin").filter(|row| row.loose_k <= MAX_TABLE_DISTANCE);
    let banded = rows("plugin-bands").chain(rows("plugin-containment"));
    for row in banded.chain(runnable_scans) {
        let Some(config) = report.configs.iter().find(|c| c.name == row.config) else {
            continue;
        };
        let mut points: Vec<_> = row.curve.iter().chain([&row.best]).collect();
        points.retain(|p| p.threshold <= 1.0);
        points.sort_by(|a, b| b.threshold.total_cmp(&a.threshold));
        for point in points {
            let verification = verification_of(row, options).threshold(point.threshold);
            let settings = MatchingSettings::default()
                .fingerprint(config.config.clone())
                .distance(report.default_k)
                .verification(verification);
            let summary = format!(
                "{} over {}: within {} bits, or candidates within {} bits{} at {} >= {:.3}",
                row.method,
                row.config,
                report.default_k,
                row.loose_k,
                row.band_rows
                    .map(|r| format!(" sharing a band of {r} rows"))
                    .unwrap_or_default(),
                if row.method == "plugin-containment" {
                    "containment"
                } else {
                    "Jaccard"
                },
                point.threshold,
            );
            measure(settings, point.scores, summary, row.candidates);
        }
    }
    for config in &report.configs {
        for point in config.sweep.iter().rev() {
            let settings = MatchingSettings::default()
                .fingerprint(config.config.clone())
                .distance(point.k)
                .verification(None);
            let summary = format!("simhash over {}: within {} bits", config.name, point.k);
            measure(settings, point.scores, summary, 0);
        }
    }
    let Some(best) = measured
        .iter()
        .filter_map(|(r, _)| goal.key(&r.scores))
        .map(|(score, _)| score)
        .max_by(f64::total_cmp)
    else {
        return Vec::new();
    };
    // The cheapest near the best first; on equal cost and score, the order listed (plugin
    // first, then by falling threshold): a stable sort keeps it.
    let mut near: Vec<(Recommendation, usize, (f64, f64))> = measured
        .into_iter()
        .filter_map(|(candidate, cost)| {
            let key = goal
                .key(&candidate.scores)
                .filter(|k| k.0 >= best - NEAR_BEST)?;
            Some((candidate, cost, key))
        })
        .collect();
    let higher = |a: (f64, f64), b: (f64, f64)| b.0.total_cmp(&a.0).then(b.1.total_cmp(&a.1));
    near.sort_by(|a, b| a.1.cmp(&b.1).then(higher(a.2, b.2)));
    near.into_iter()
        .map(|(candidate, _, _)| candidate)
        .collect()
}

/// The verification a `plugin`, `plugin-bands` or `plugin-containment` row measured, at the
/// default threshold.
fn verification_of(row: &VerifyResult, options: &EvalOptions) -> Verification {
    let candidates = match row.band_rows {
        Some(rows) => CandidateStage::Bands { rows },
        None => CandidateStage::Scan,
    };
    let (score, bits) = match row.method.as_str() {
        "plugin-containment" => (PairScore::Containment, KeptBits::High),
        _ => (PairScore::Jaccard, KeptBits::default()),
    };
    Verification::default()
        .kept_bits(bits)
        .shingles(options.shingles)
        .hashes(options.minhash_k)
        .candidates(candidates)
        .candidate_distance(row.loose_k)
        .score(score)
}
