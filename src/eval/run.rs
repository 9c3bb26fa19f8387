//! [`evaluate`]: every config of a grid on one set, then the two-stage variants.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;

use super::counts::{DistanceCounts, NO_FINGERPRINT};
use super::grid::GridConfig;
use super::pairs::{count_pairs, near_pairs, NearPair, PairCounts};
use super::report::{CategoryResult, ConfigResult, EvalReport, VerifyResult};
use super::set::EvalSet;
use super::verify::{ScoreHistogram, ThresholdPoint};
use crate::error::Result;
use crate::fingerprint::{
    combined_similarity, estimated_size, jaccard, overlap_of, Fingerprint, FingerprintConfig,
    KeptBits, MinHashSignature, MinHasher, ShingleHashing, ShingleWeightsBuilder, Signature,
    Signer, SimHasher, DEFAULT_MU,
};
use crate::lookup::DEFAULT_MAX_DISTANCE;
use crate::matching::{
    CandidateStage, Matcher, PairScore, Verification, DEFAULT_BAND_ROWS, DEFAULT_SHINGLES,
    DEFAULT_THRESHOLD,
};
use crate::text::{ChineseDictionary, FeatureKind};

/// How an evaluation runs.
#[derive(Clone, Debug)]
pub struct EvalOptions {
    /// The largest *k* swept. Default 16.
    pub max_k: u32,
    /// The *k* the per-category figures are also given at. Default: the library's
    /// [`DEFAULT_MAX_DISTANCE`].
    pub default_k: u32,
    /// The candidate distances of the two-stage variants; none to skip them. Default 10 and
    /// 16 (measured: 6 finds too few candidates to verify).
    pub loose_ks: Vec<u32>,
    /// The shingles the second stage's MinHash is taken over. Default: the plugin's
    /// [`DEFAULT_SHINGLES`].
    pub shingles: FeatureKind,
    /// Hash functions of the MinHash signatures. Default 128.
    pub minhash_k: usize,
    /// The weight of the fingerprint distance in the combined similarity. Default
    /// [`DEFAULT_MU`].
    pub mu: f64,
    /// The threshold the two-stage variants are also reported at (`at_default`). Default:
    /// the plugin's [`DEFAULT_THRESHOLD`].
    pub threshold: f64,
    /// Values per band of the `plugin-bands` variants, one variant each (at most
    /// [`minhash_k`](Self::minhash_k)): fewer rows make more candidates, and find pairs of
    /// lower similarity. Default: the plugin's [`DEFAULT_BAND_ROWS`] alone.
    pub band_rows: Vec<usize>,
}

impl Default for EvalOptions {
    fn default() -> Self {
        EvalOptions {
            max_k: 16,
            default_k: DEFAULT_MAX_DISTANCE,
            loose_ks: vec![10, 16],
            shingles: DEFAULT_SHINGLES,
            minhash_k: 128,
            mu: DEFAULT_MU,
            threshold: DEFAULT_THRESHOLD,
            band_rows: vec![DEFAULT_BAND_ROWS],
        }
    }
}

/// Evaluates every config of `grid` on `set`, then the two-stage variants over the
/// candidates of the config with the highest F1.
///
/// Fingerprints are computed once per config, in parallel; the pairs are counted as
/// [`count_pairs`] does.
///
/// # Errors
/// [`Error::InvalidSetting`](crate::Error::InvalidSetting) when a config is invalid, the
/// grid is empty, or `max_k` exceeds 64.
pub fn evaluate(set: &EvalSet, grid: &[GridConfig], options: &EvalOptions) -> Result<EvalReport> {
    if grid.is_empty() {
        return Err(crate::Error::InvalidSetting {
            name: "grid",
            reason: "no config to evaluate".to_owned(),
        });
    }
    if options.max_k > 64 || options.default_k > 64 {
        return Err(crate::Error::InvalidSetting {
            name: "distance",
            reason: "at most 64 bits".to_owned(),
        });
    }
    let mut configs = Vec::with_capacity(grid.len());
    let mut best_fingerprints = Vec::new();
    let mut best_config = 0;
    // The library's default features and weighting: what the plugin verifies by default.
    let library = FingerprintConfig::default();
    let default_config = grid.iter().position(|entry| {
        entry.config.get_features() == library.get_features()
            && entry.config.get_weighting() == library.get_weighting()
    });
    let mut default_fingerprints = Vec::new();
    for (i, entry) in grid.iter().enumerate() {
        let started = Instant::now();
        let fingerprints = fingerprint_all(set, &entry.config)?;
        if Some(i) == default_config {
            default_fingerprints.clone_from(&fingerprints);
        }
        let seconds = started.elapsed().as_secs_f64();
        let counts = count_pairs(set, &fingerprints);
        let result = config_result(set, entry, &fingerprints, &counts, seconds, options);
        if i == 0 || result.best.scores.f1 > configs_best_f1(&configs, best_config) {
            best_config = i;
            best_fingerprints = fingerprints;
        }
        configs.push(result);
    }
    let (positives, negatives) = {
        let overall = &configs[0].counts;
        (overall.positives(), overall.negatives())
    };
    let mut verify = Vec::new();
    if !options.loose_ks.is_empty() && positives > 0 {
        verify = verify_all(
            set,
            &grid[best_config],
            &best_fingerprints,
            positives,
            options,
        )?;
        if let Some(default) = default_config.filter(|&d| d != best_config) {
            verify.extend(verify_all(
                set,
                &grid[default],
                &default_fingerprints,
                positives,
                options,
            )?);
        }
    }
    Ok(EvalReport {
        set: set.name().to_owned(),
        documents: set.len(),
        positives,
        negatives,
        max_k: options.max_k,
        default_k: options.default_k,
        configs,
        best_config,
        verify,
    })
}

fn configs_best_f1(configs: &[ConfigResult], index: usize) -> f64 {
    configs
        .get(index)
        .map_or(f64::NEG_INFINITY, |c| c.best.scores.f1)
}

fn fingerprint_all(set: &EvalSet, config: &FingerprintConfig) -> Result<Vec<Option<Fingerprint>>> {
    let hasher = SimHasher::new(config)?;
    Ok(set
        .texts()
        .par_iter()
        .map(|text| hasher.fingerprint(text))
        .collect())
}

fn config_result(
    set: &EvalSet,
    entry: &GridConfig,
    fingerprints: &[Option<Fingerprint>],
    counts: &PairCounts,
    seconds: f64,
    options: &EvalOptions,
) -> ConfigResult {
    let overall = &counts.overall;
    let best = overall.best(options.max_k);
    let near_within = |c: &DistanceCounts, k: u32| {
        let within = k as usize + 1;
        let side = |v: &[u64]| -> (u64, u64) { (v[..within].iter().sum(), v.iter().sum()) };
        let (pn, pt) = side(&c.positive);
        let (nn, nt) = side(&c.negative);
        (pn + nn, pt + nt)
    };
    let categories = set
        .categories()
        .iter()
        .zip(&counts.by_category)
        .map(|(category, c)| {
            let fraction = |k: u32| {
                let (near, total) = near_within(c, k);
                near as f64 / total.max(1) as f64
            };
            CategoryResult {
                kind: category.kind.clone(),
                rate: category.rate,
                label: category.label,
                pairs: near_within(c, NO_FINGERPRINT as u32 - 1).1,
                near_at_best: fraction(best.k),
                near_at_default: Some(fraction(options.default_k)),
                near_by_k: (0..=options.max_k).map(fraction).collect(),
            }
        })
        .collect();
    ConfigResult {
        name: entry.name.clone(),
        config: entry.config.clone(),
        no_fingerprint: fingerprints.iter().filter(|f| f.is_none()).count(),
        fingerprint_seconds: seconds,
        counts: overall.clone(),
        sweep: overall.sweep(options.max_k),
        best,
        at_default_k: overall.at(options.default_k),
        roc_auc: overall.roc_auc(),
        categories,
    }
}

/// The two-stage variants: for each loose distance, MinHash of word shingles alone, the
/// combined similarity with it, the combined similarity with the metadata sets, and the
/// plugin's rule ([`Matcher`]: within the default *k*, or MinHash at the threshold, with
/// every candidate or with those sharing a band). The shingles' signatures are the
/// plugin's ([`Signer`]).
fn verify_all(
    set: &EvalSet,
    entry: &GridConfig,
    fingerprints: &[Option<Fingerprint>],
    positives: u64,
    options: &EvalOptions,
) -> Result<Vec<VerifyResult>> {
    let minhasher = MinHasher::new(options.minhash_k, entry.config.get_seed())?;
    // The signatures of a new index (a byte a value), and of 32 bits for containment,
    // which estimates the sets' sizes from them.
    let signer = |bits: KeptBits| -> Result<Signer> {
        Signer::new(
            SimHasher::new(&entry.config)?,
            ChineseDictionary::default(),
            options.shingles,
            options.minhash_k,
            ShingleHashing::default(),
            bits,
        )
    };
    let sign_all = |signer: Signer| -> Vec<Signature> {
        (set.texts().par_iter())
            .map(|text| signer.sign(text))
            .collect()
    };
    let shingle_signatures = sign_all(signer(KeptBits::default())?);
    let high_signatures = sign_all(signer(KeptBits::High)?);
    // The signatures of an index whose shingles are weighted by a table learned from the
    // set itself (`ingest --idf-from`).
    let weighted_signatures = {
        let plain = signer(KeptBits::default())?;
        let mut weights = ShingleWeightsBuilder::new();
        for hashes in (set.texts().par_iter())
            .map(|text| plain.shingle_hashes(text))
            .collect::<Vec<_>>()
        {
            weights.add_document(hashes);
        }
        sign_all(plain.with_weights(Some(Arc::new(weights.build()))))
    };
    // Each set's size, estimated once, for containment.
    let sizes: Vec<f64> = (high_signatures.par_iter())
        .map(|signature| estimated_size(signature.values()))
        .collect();
    let meta_signatures: Option<Vec<MinHashSignature>> = set.has_meta().then(|| {
        set.meta()
            .par_iter()
            .map(|m| minhasher.signature(m))
            .collect()
    });
    let categories: HashMap<(u32, u32), u32> = set
        .listed()
        .iter()
        .filter_map(|p| Some(((p.a, p.b), p.category?)))
        .collect();
    let grid: Vec<f64> = (0..=20).map(|i| f64::from(i) * 0.05).collect();
    let mut results = Vec::new();
    for &loose_k in &options.loose_ks {
        let candidates = near_pairs(set, fingerprints, loose_k);
        let shingles = |p: &NearPair| {
            jaccard(
                shingle_signatures[p.a as usize].values(),
                shingle_signatures[p.b as usize].values(),
                KeptBits::default(),
            )
        };
        let meta_jaccard = |signatures: &[MinHashSignature], p: &NearPair| {
            signatures[p.a as usize]
                .jaccard(&signatures[p.b as usize])
                .expect("signatures of one MinHasher")
        };
        // The plugin's rule at the default k with this candidate distance: each pair's
        // strength is the highest threshold at which the rule keeps it, its score (the
        // signatures decide within the default k too).
        let rule = |candidates: CandidateStage, score: PairScore| {
            let bits = match score {
                PairScore::Containment => KeptBits::High,
                _ => KeptBits::default(),
            };
            let verification = Verification::default()
                .kept_bits(bits)
                .shingles(options.shingles)
                .hashes(options.minhash_k)
                .candidates(candidates)
                .candidate_distance(loose_k)
                .score(score);
            Matcher::new(options.default_k, Some(&verification))
        };
        let plugin_score = |matcher: &Matcher, signatures: &[Signature], p: &NearPair| {
            matcher
                .strength(
                    p.distance,
                    Some(signatures[p.a as usize].values()),
                    Some(signatures[p.b as usize].values()),
                )
                .map(|strength| strength.min(2.0))
        };
        // Each method's candidates counted by score, one method at a time: the pairs are
        // held once (a pair of classes of equal documents stands for all of theirs), their
        // scores never.
        let measure = |method: &str,
                       band_rows: Option<usize>,
                       score: &(dyn Fn(&NearPair) -> Option<f64> + Sync)|
         -> VerifyResult {
            let mut histogram = ScoreHistogram::default();
            // The scores of the listed pairs of a category, for the recall by category.
            let mut listed: Vec<(u32, f64)> = Vec::new();
            for pair in candidates.iter() {
                let Some(score) = score(pair) else {
                    continue;
                };
                histogram.add_many(score, pair.label, pair.count);
                if let Some(&category) = (categories.get(&(pair.a, pair.b))).filter(|_| pair.listed)
                {
                    listed.push((category, score));
                }
            }
            let (best, curve) = histogram.sweep(positives, &grid);
            let (_, at_default) = histogram.sweep(positives, &[options.threshold]);
            let at_default = at_default[0];
            VerifyResult {
                method: method.to_owned(),
                config: entry.name.clone(),
                loose_k,
                band_rows,
                candidates: histogram.pairs(),
                best,
                curve,
                categories: verified_categories(set, &listed, &best),
                categories_at_default: verified_categories(set, &listed, &at_default),
                at_default,
            }
        };
        results.push(measure("minhash", None, &|p| Some(shingles(p))));
        results.push(measure("combined", None, &|p| {
            Some(combined_similarity(p.distance, shingles(p), options.mu))
        }));
        results.push(measure("containment", None, &|p| {
            let (a, b) = (p.a as usize, p.b as usize);
            let j = jaccard(
                high_signatures[a].values(),
                high_signatures[b].values(),
                KeptBits::High,
            );
            Some(overlap_of(j, sizes[a], sizes[b]))
        }));
        let mut matchers = vec![(
            "plugin",
            None,
            rule(CandidateStage::Scan, PairScore::Jaccard),
        )];
        for score in [PairScore::Jaccard, PairScore::Containment] {
            for &rows in &options.band_rows {
                let rows = rows.clamp(1, options.minhash_k);
                let banded = rule(CandidateStage::Bands { rows }, score);
                let method = match score {
                    PairScore::Containment => "plugin-containment",
                    _ => "plugin-bands",
                };
                matchers.push((method, Some(rows), banded));
            }
        }
        matchers.push((
            "plugin-weighted",
            None,
            rule(CandidateStage::Scan, PairScore::Jaccard),
        ));
        let default_rows = Some(DEFAULT_BAND_ROWS);
        matchers.push((
            "plugin-weighted-bands",
            default_rows,
            rule(
                CandidateStage::Bands {
                    rows: DEFAULT_BAND_ROWS,
                },
                PairScore::Jaccard,
            ),
        ));
        for (method, band_rows, matcher) in matchers {
            let signatures = match method {
                "plugin-containment" => &high_signatures,
                "plugin-weighted" | "plugin-weighted-bands" => &weighted_signatures,
                _ => &shingle_signatures,
            };
            // With bands, a pair that shares none is kept at no threshold.
            results.push(measure(method, band_rows, &|p| {
                plugin_score(&matcher, signatures, p)
            }));
        }
        if let Some(meta) = &meta_signatures {
            results.push(measure("combined-meta", None, &|p| {
                Some(combined_similarity(
                    p.distance,
                    meta_jaccard(meta, p),
                    options.mu,
                ))
            }));
        }
    }
    Ok(results)
}

/// The listed pairs of each category kept at the threshold of `point`: those of `listed`
/// (each candidate's category and score) scoring at least it, out of all the category's
/// pairs (candidates or not).
fn verified_categories(
    set: &EvalSet,
    listed: &[(u32, f64)],
    point: &ThresholdPoint,
) -> Vec<CategoryResult> {
    let mut totals = vec![0u64; set.categories().len()];
    for pair in set.listed() {
        if let Some(c) = pair.category {
            totals[c as usize] += 1;
        }
    }
    let mut kept = vec![0u64; set.categories().len()];
    for &(category, score) in listed {
        if score >= point.threshold {
            kept[category as usize] += 1;
        }
    }
    set.categories()
        .iter()
        .enumerate()
        .map(|(i, category)| CategoryResult {
            kind: category.kind.clone(),
            rate: category.rate,
            label: category.label,
            pairs: totals[i],
            near_at_best: kept[i] as f64 / totals[i].max(1) as f64,
            near_at_default: None,
            near_by_k: Vec::new(),
        })
        .collect()
}
