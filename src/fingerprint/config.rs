//! `FingerprintConfig`: every setting that changes a fingerprint's bits.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::text::{FeatureKind, TokenizerConfig, Weighting, JIEBA_IDF_IDENTITY};

/// Version of the fingerprint format: bumped whenever the same config would give other bits
/// (a change of hash, of tokenization rules or of the accumulation). Fingerprints of
/// different versions are not comparable.
pub const FORMAT_VERSION: u32 = 1;

/// Default for [`FingerprintConfig::max_text_bytes`]: 1 MiB.
pub const DEFAULT_MAX_TEXT_BYTES: usize = 1 << 20;

/// Everything that changes the bits of a fingerprint, plus the [format version](FORMAT_VERSION).
///
/// Fingerprints are comparable only under equal configs: store the config with the
/// fingerprints (the tantivy plugin writes it into the index directory) and compare with
/// [`FingerprintConfig::differences`] before mixing them.
///
/// The defaults are documented on each setter, and `docs/PARAMETERS.md` says why.
///
/// ```
/// use tantivy_dedup::fingerprint::FingerprintConfig;
/// use tantivy_dedup::text::{FeatureKind, Weighting};
///
/// let config = FingerprintConfig::default()
///     .features(FeatureKind::WordShingles { n: 2 })
///     .weighting(Weighting::TfIdf);
/// let differences = config.differences(&FingerprintConfig::default());
/// let fields: Vec<&str> = differences.iter().map(|d| d.field.as_str()).collect();
/// assert_eq!(fields, ["features.kind", "features.n", "weighting"]);
/// assert_eq!(differences[2].to_string(), r#"weighting: "tf-idf" != "tf""#);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FingerprintConfig {
    version: u32,
    tokenizer: TokenizerConfig,
    features: FeatureKind,
    weighting: Weighting,
    idf: String,
    seed: u64,
    max_text_bytes: usize,
}

impl Default for FingerprintConfig {
    fn default() -> Self {
        FingerprintConfig {
            version: FORMAT_VERSION,
            tokenizer: TokenizerConfig::default(),
            features: FeatureKind::CharNgrams { n: 3 },
            weighting: Weighting::Tf,
            idf: JIEBA_IDF_IDENTITY.to_owned(),
            seed: 0,
            max_text_bytes: DEFAULT_MAX_TEXT_BYTES,
        }
    }
}

/// One setting in which two configs differ, as [`FingerprintConfig::differences`] reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigDifference {
    /// The setting's path, e.g. `tokenizer.hmm` or `features.n`.
    pub field: String,
    /// Its value in `self`, as JSON.
    pub ours: String,
    /// Its value in the other config, as JSON.
    pub theirs: String,
}

impl std::fmt::Display for ConfigDifference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {} != {}", self.field, self.ours, self.theirs)
    }
}

impl FingerprintConfig {
    /// Settings of the tokenizer. Default: [`TokenizerConfig::default`].
    #[must_use]
    pub fn tokenizer(mut self, tokenizer: TokenizerConfig) -> Self {
        self.tokenizer = tokenizer;
        self
    }

    /// What the features are. Default: character 3-grams ([`FeatureKind::CharNgrams`] with
    /// `n = 3`), the most accurate features at distance 3 on the evaluation sets of
    /// `docs/PARAMETERS.md` (precision 0.98 to 1.00 on English and Chinese edits, spam
    /// campaigns and regional mirrors, where whole words fell to 0.32 on English).
    #[must_use]
    pub fn features(mut self, features: FeatureKind) -> Self {
        self.features = features;
        self
    }

    /// How features are weighted. Default: [`Weighting::Tf`]. Over character n-grams, IDF
    /// and length relevance measured the same as TF (an n-gram is rarely in jieba's word
    /// table, so it gets the median IDF), and TF needs no table (`docs/PARAMETERS.md`).
    #[must_use]
    pub fn weighting(mut self, weighting: Weighting) -> Self {
        self.weighting = weighting;
        self
    }

    /// The [identity](crate::text::IdfSource::identity) of the IDF source, used when the
    /// weighting needs one. Default: [`JIEBA_IDF_IDENTITY`], jieba's built-in table.
    #[must_use]
    pub fn idf(mut self, identity: impl Into<String>) -> Self {
        self.idf = identity.into();
        self
    }

    /// Seed of the xxh3 hash of every feature. Default: 0. Another seed gives unrelated
    /// fingerprints, for example to keep two deployments' fingerprints apart.
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Only the first `bytes` of a text (cut back to a character boundary) are fingerprinted,
    /// which bounds the time and memory one huge document can take. Default:
    /// [`DEFAULT_MAX_TEXT_BYTES`] (1 MiB). Two texts sharing their first `bytes` get the same
    /// fingerprint.
    #[must_use]
    pub fn max_text_bytes(mut self, bytes: usize) -> Self {
        self.max_text_bytes = bytes;
        self
    }

    /// See [`FingerprintConfig::tokenizer`](Self::tokenizer()).
    #[must_use]
    pub fn get_tokenizer(&self) -> &TokenizerConfig {
        &self.tokenizer
    }

    /// See [`FingerprintConfig::features`](Self::features()).
    #[must_use]
    pub fn get_features(&self) -> FeatureKind {
        self.features
    }

    /// See [`FingerprintConfig::weighting`](Self::weighting()).
    #[must_use]
    pub fn get_weighting(&self) -> Weighting {
        self.weighting
    }

    /// See [`FingerprintConfig::idf`](Self::idf()).
    #[must_use]
    pub fn get_idf(&self) -> &str {
        &self.idf
    }

    /// See [`FingerprintConfig::seed`](Self::seed()).
    #[must_use]
    pub fn get_seed(&self) -> u64 {
        self.seed
    }

    /// See [`FingerprintConfig::max_text_bytes`](Self::max_text_bytes()).
    #[must_use]
    pub fn get_max_text_bytes(&self) -> usize {
        self.max_text_bytes
    }

    /// The format version this config was written with.
    #[must_use]
    pub fn version(&self) -> u32 {
        self.version
    }

    /// Checks every setting.
    ///
    /// # Errors
    /// [`Error::InvalidSetting`] naming the first setting out of range, or a format version
    /// this build does not produce.
    pub fn validate(&self) -> Result<()> {
        if self.version != FORMAT_VERSION {
            return Err(Error::InvalidSetting {
                name: "version",
                reason: format!(
                    "fingerprint format {} cannot be computed by this build (format {FORMAT_VERSION})",
                    self.version
                ),
            });
        }
        self.features.validate()?;
        if self.max_text_bytes == 0 {
            return Err(Error::InvalidSetting {
                name: "max_text_bytes",
                reason: "must be at least 1".to_owned(),
            });
        }
        Ok(())
    }

    /// The settings in which `self` and `other` differ, with both values; empty when the
    /// fingerprints of both configs are comparable.
    #[must_use]
    pub fn differences(&self, other: &FingerprintConfig) -> Vec<ConfigDifference> {
        serialized_differences(self, other)
    }
}

/// Every leaf in which the JSON serializations of `ours` and `theirs` differ, by path, in
/// key order: the comparison behind [`FingerprintConfig::differences`] and the plugin's
/// settings check.
pub(crate) fn serialized_differences<T: Serialize>(ours: &T, theirs: &T) -> Vec<ConfigDifference> {
    let mut out = Vec::new();
    let ours = serde_json::to_value(ours).unwrap_or(Value::Null);
    let theirs = serde_json::to_value(theirs).unwrap_or(Value::Null);
    collect_differences(String::new(), &ours, &theirs, &mut out);
    out
}

fn collect_differences(
    path: String,
    ours: &Value,
    theirs: &Value,
    out: &mut Vec<ConfigDifference>,
) {
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                let child = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                let null = Value::Null;
                collect_differences(
                    child,
                    a.get(key).unwrap_or(&null),
                    b.get(key).unwrap_or(&null),
                    out,
                );
            }
        }
        _ if ours != theirs => out.push(ConfigDifference {
            field: path,
            ours: ours.to_string(),
            theirs: theirs.to_string(),
        }),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_round_trip() {
        let config = FingerprintConfig::default()
            .features(FeatureKind::CharNgrams { n: 4 })
            .seed(7);
        let json = serde_json::to_string(&config).unwrap();
        let back: FingerprintConfig = serde_json::from_str(&json).unwrap();
        assert_eq!(back, config);
        assert!(
            serde_json::from_str::<FingerprintConfig>(&json.replace("\"seed\"", "\"sed\""))
                .is_err()
        );
    }

    #[test]
    fn differences_name_the_settings() {
        let a = FingerprintConfig::default();
        let b = a
            .clone()
            .tokenizer(TokenizerConfig::default().hmm(false))
            .seed(9);
        let diff = a.differences(&b);
        let fields: Vec<&str> = diff.iter().map(|d| d.field.as_str()).collect();
        assert_eq!(fields, ["seed", "tokenizer.hmm"]);
        assert_eq!(diff[0].to_string(), "seed: 0 != 9");
        assert!(a.differences(&a.clone()).is_empty());
    }

    #[test]
    fn validation_refuses_out_of_range_settings() {
        assert!(FingerprintConfig::default().validate().is_ok());
        let zero = FingerprintConfig::default().max_text_bytes(0);
        assert!(matches!(
            zero.validate(),
            Err(Error::InvalidSetting {
                name: "max_text_bytes",
                ..
            })
        ));
        let shingles = FingerprintConfig::default().features(FeatureKind::WordShingles { n: 0 });
        assert!(shingles.validate().is_err());
        let future = FingerprintConfig {
            version: FORMAT_VERSION + 1,
            ..FingerprintConfig::default()
        };
        assert!(matches!(
            future.validate(),
            Err(Error::InvalidSetting {
                name: "version",
                ..
            })
        ));
    }
}
