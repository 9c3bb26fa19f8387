//! Feature, weighting and tokenizer options shared by every command.

use clap::{Args, ValueEnum};
use tantivy_dedup::text::{FeatureKind, ScriptFolding, TokenizerConfig, Weighting};
use tantivy_dedup::FingerprintConfig;

/// What the features of a text are (see docs/PARAMETERS.md).
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Features {
    /// Every word.
    Words,
    /// Every run of --n consecutive words.
    Shingles,
    /// Every run of --n consecutive letters or digits.
    Chargrams,
}

/// How features are weighted.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum WeightingArg {
    /// Term count.
    Tf,
    /// Term count times inverse document frequency (jieba's table).
    TfIdf,
    /// TF-IDF times the length relevance of the "improved SimHash" paper.
    TfIdfLength,
}

/// How Chinese script is folded.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum FoldingArg {
    /// No folding.
    Off,
    /// Character by character.
    Characters,
    /// Characters and Taiwan vocabulary (OpenCC tw2sp).
    Regional,
}

/// The fingerprint settings; the defaults are the library's (docs/PARAMETERS.md).
#[derive(Args, Debug, Clone)]
pub struct FingerprintOptions {
    /// Feature kind.
    #[arg(long, value_enum, default_value_t = Features::Words, help_heading = "Fingerprint")]
    features: Features,
    /// Words per shingle or characters per n-gram (1 to 16); ignored for words.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u8).range(1..=16), help_heading = "Fingerprint")]
    n: u8,
    /// Feature weighting.
    #[arg(long, value_enum, default_value_t = WeightingArg::TfIdfLength, help_heading = "Fingerprint")]
    weighting: WeightingArg,
    /// Traditional to Simplified Chinese before segmenting: off, characters (門 -> 门) or
    /// regional (also Taiwan vocabulary: 軟體 -> 软件; slower).
    #[arg(long, value_enum, default_value_t = FoldingArg::Regional, help_heading = "Fingerprint")]
    folding: FoldingArg,
    /// Do not let jieba's HMM guess words missing from its dictionary.
    #[arg(long, help_heading = "Fingerprint")]
    no_hmm: bool,
    /// Drop the built-in Chinese and English stop words.
    #[arg(long, help_heading = "Fingerprint")]
    stop_words: bool,
    /// Seed of the feature hash; another seed gives unrelated fingerprints.
    #[arg(long, default_value_t = 0, help_heading = "Fingerprint")]
    seed: u64,
}

impl FingerprintOptions {
    /// The library config these options describe.
    pub fn config(&self) -> FingerprintConfig {
        let n = usize::from(self.n);
        let features = match self.features {
            Features::Words => FeatureKind::Words,
            Features::Shingles => FeatureKind::WordShingles { n },
            Features::Chargrams => FeatureKind::CharNgrams { n },
        };
        let weighting = match self.weighting {
            WeightingArg::Tf => Weighting::Tf,
            WeightingArg::TfIdf => Weighting::TfIdf,
            WeightingArg::TfIdfLength => Weighting::TfIdfLength,
        };
        let tokenizer = TokenizerConfig::default()
            .folding(match self.folding {
                FoldingArg::Off => ScriptFolding::Off,
                FoldingArg::Characters => ScriptFolding::Characters,
                FoldingArg::Regional => ScriptFolding::Regional,
            })
            .hmm(!self.no_hmm)
            .stop_words(self.stop_words);
        FingerprintConfig::default()
            .tokenizer(tokenizer)
            .features(features)
            .weighting(weighting)
            .seed(self.seed)
    }
}
