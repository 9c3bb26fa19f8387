//! [`GridConfig`]: the fingerprint configs an evaluation compares, and the default grid.

use crate::fingerprint::FingerprintConfig;
use crate::text::{FeatureKind, Weighting};

/// A fingerprint config with the name the report gives it.
#[derive(Clone, Debug, PartialEq)]
pub struct GridConfig {
    /// The name in the report: `features/weighting` for the grid's configs.
    pub name: String,
    /// The config.
    pub config: FingerprintConfig,
}

impl GridConfig {
    /// A named config.
    pub fn new(name: impl Into<String>, config: FingerprintConfig) -> GridConfig {
        GridConfig {
            name: name.into(),
            config,
        }
    }

    /// `base` with `features` and `weighting`, named `features/weighting` (for example
    /// `shingles-3/tf-idf`).
    pub fn variant(base: &FingerprintConfig, features: FeatureKind, weighting: Weighting) -> Self {
        GridConfig::new(
            format!("{features}/{}", weighting_name(weighting)),
            base.clone().features(features).weighting(weighting),
        )
    }
}

/// The name of a weighting as the command line spells it.
pub fn weighting_name(weighting: Weighting) -> &'static str {
    match weighting {
        Weighting::Tf => "tf",
        Weighting::TfIdf => "tf-idf",
        Weighting::TfIdfLength => "tf-idf-length",
    }
}

/// Every feature kind (words; word shingles of 2 and 3; character n-grams of 3, 4 and 5) with
/// every weighting, over `base`'s tokenizer and seed: 18 configs.
pub fn default_grid(base: &FingerprintConfig) -> Vec<GridConfig> {
    let features = [
        FeatureKind::Words,
        FeatureKind::WordShingles { n: 2 },
        FeatureKind::WordShingles { n: 3 },
        FeatureKind::CharNgrams { n: 3 },
        FeatureKind::CharNgrams { n: 4 },
        FeatureKind::CharNgrams { n: 5 },
    ];
    let weightings = [Weighting::Tf, Weighting::TfIdf, Weighting::TfIdfLength];
    features
        .iter()
        .flat_map(|&f| {
            weightings
                .iter()
                .map(move |&w| GridConfig::variant(base, f, w))
        })
        .collect()
}
