//! Feature, weighting and tokenizer options shared by every command.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use anyhow::Context;
use clap::{Args, ValueEnum};
use tantivy_dedup::fingerprint::FingerprintConfig;
use tantivy_dedup::lookup::band_rows_for;
use tantivy_dedup::matching::{CandidateStage, MatchingSettings, PairScore, Preset, Verification};
use tantivy_dedup::plugin::DedupSettings;
use tantivy_dedup::text::{FeatureKind, ScriptFolding, TokenizerConfig, Weighting};

use crate::cli::input::{ReadOptions, StreamFormat, DEFAULT_MAX_RECORD_BYTES};

/// How standard input is read.
#[derive(Clone, Copy, Debug, Default, ValueEnum)]
pub enum StdinFormat {
    /// JSON lines when the first non-blank byte is `{`, else one plain-text document.
    #[default]
    Auto,
    /// JSON lines: every line a record, or an error line.
    Jsonl,
    /// One plain-text document.
    Text,
}

/// How inputs are read, shared by the commands that read documents.
#[derive(Args, Debug, Clone)]
pub struct InputOptions {
    /// Replace invalid UTF-8 with U+FFFD instead of reporting the record as an error.
    #[arg(long, help_heading = "Input")]
    lossy_utf8: bool,
    /// Follow symbolic links met in folders (each folder is read once); without it they are
    /// skipped with a note.
    #[arg(long, help_heading = "Input")]
    follow_links: bool,
    /// The largest record, in MiB: a larger JSON line, file or standard input document is
    /// an error line, not read.
    #[arg(long, value_name = "MB", default_value_t = (DEFAULT_MAX_RECORD_BYTES >> 20) as u64,
          value_parser = clap::value_parser!(u64).range(1..=4096), help_heading = "Input")]
    max_record_mb: u64,
    /// How standard input (and a pipe named without an extension) is read: auto (JSON lines
    /// when its first non-blank byte is `{`, else one plain-text document, refused when a
    /// later line is a JSON record), jsonl or text.
    #[arg(long, value_enum, default_value_t = StdinFormat::Auto, help_heading = "Input")]
    stdin_format: StdinFormat,
}

impl InputOptions {
    /// The reading options; reading stops early once `stop` is set.
    pub fn read_options(&self, stop: Option<Arc<AtomicBool>>) -> ReadOptions {
        ReadOptions {
            lossy: self.lossy_utf8,
            follow_links: self.follow_links,
            max_record_bytes: usize::try_from(self.max_record_mb << 20).unwrap_or(usize::MAX),
            stream_format: match self.stdin_format {
                StdinFormat::Auto => StreamFormat::Auto,
                StdinFormat::Jsonl => StreamFormat::JsonLines,
                StdinFormat::Text => StreamFormat::Text,
            },
            stop,
        }
    }
}

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
    /// Characters and Taiwan vocabulary (OpenCC tw2sp), in text with Traditional characters.
    Regional,
    /// Characters, and Taiwan vocabulary in either script (软体 as 軟體).
    RegionalAnyScript,
}

/// The fingerprint settings. Each option left out keeps its value: the library default for
/// a new index or for `fingerprint`, the stored one for an existing index.
#[derive(Args, Debug, Clone, Default)]
pub struct FingerprintOptions {
    /// Feature kind [default: chargrams, with --n 3].
    #[arg(long, value_enum, help_heading = "Fingerprint")]
    features: Option<Features>,
    /// Words per shingle or characters per n-gram, 1 to 16 [default: 3]; ignored for words.
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=16), help_heading = "Fingerprint")]
    n: Option<u8>,
    /// Feature weighting [default: tf].
    #[arg(long, value_enum, help_heading = "Fingerprint")]
    weighting: Option<WeightingArg>,
    /// Traditional to Simplified Chinese before segmenting: off, characters (門 -> 门),
    /// regional (also Taiwan vocabulary in Traditional text: 軟體 -> 软件) or
    /// regional-any-script (also Taiwan vocabulary in Simplified text: 软体 -> 软件)
    /// [default: regional-any-script].
    #[arg(long, value_enum, help_heading = "Fingerprint")]
    folding: Option<FoldingArg>,
    /// Do not let jieba's HMM guess words missing from its dictionary.
    #[arg(long, help_heading = "Fingerprint")]
    no_hmm: bool,
    /// Drop the built-in Chinese and English stop words.
    #[arg(long, help_heading = "Fingerprint")]
    stop_words: bool,
    /// Seed of the feature hash; another seed gives unrelated fingerprints [default: 0].
    #[arg(long, help_heading = "Fingerprint")]
    seed: Option<u64>,
}

impl FingerprintOptions {
    /// The library's default config with these options applied.
    pub fn config(&self) -> FingerprintConfig {
        self.config_over(FingerprintConfig::default())
    }

    /// True when no option was given.
    pub fn is_empty(&self) -> bool {
        self.features.is_none()
            && self.n.is_none()
            && self.weighting.is_none()
            && self.folding.is_none()
            && !self.no_hmm
            && !self.stop_words
            && self.seed.is_none()
    }

    /// `base` with the options given applied.
    pub fn config_over(&self, base: FingerprintConfig) -> FingerprintConfig {
        let mut config = base;
        if self.features.is_some() || self.n.is_some() {
            let kind = self.features.unwrap_or(match config.get_features() {
                FeatureKind::Words => Features::Words,
                // Script shingles (a library setting the tool does not offer) are closest.
                FeatureKind::WordShingles { .. } | FeatureKind::ScriptShingles { .. } => {
                    Features::Shingles
                }
                // Character n-grams, or a kind the tool does not know: the default.
                _ => Features::Chargrams,
            });
            let n = self.n.map_or(
                match config.get_features() {
                    FeatureKind::WordShingles { n } | FeatureKind::CharNgrams { n } => n,
                    FeatureKind::ScriptShingles { words, .. } => words,
                    // Words, or a kind the tool does not know.
                    _ => 3,
                },
                usize::from,
            );
            config = config.features(match kind {
                Features::Words => FeatureKind::Words,
                Features::Shingles => FeatureKind::WordShingles { n },
                Features::Chargrams => FeatureKind::CharNgrams { n },
            });
        }
        if let Some(weighting) = self.weighting {
            config = config.weighting(match weighting {
                WeightingArg::Tf => Weighting::Tf,
                WeightingArg::TfIdf => Weighting::TfIdf,
                WeightingArg::TfIdfLength => Weighting::TfIdfLength,
            });
        }
        let mut tokenizer: TokenizerConfig = config.get_tokenizer().clone();
        if let Some(folding) = self.folding {
            tokenizer = tokenizer.folding(match folding {
                FoldingArg::Off => ScriptFolding::Off,
                FoldingArg::Characters => ScriptFolding::Characters,
                FoldingArg::Regional => ScriptFolding::Regional,
                FoldingArg::RegionalAnyScript => ScriptFolding::RegionalAnyScript,
            });
        }
        if self.no_hmm {
            tokenizer = tokenizer.hmm(false);
        }
        if self.stop_words {
            tokenizer = tokenizer.stop_words(true);
        }
        config = config.tokenizer(tokenizer);
        if let Some(seed) = self.seed {
            config = config.seed(seed);
        }
        config
    }
}

/// Two-stage matching: candidates within a loose distance, verified with MinHash
/// signatures (word 2-shingles outside Han text, character 3-grams inside) stored beside the
/// fingerprints (docs/PARAMETERS.md).
#[derive(Args, Debug, Clone, Default)]
pub struct VerifyOptions {
    /// Create the index with two-stage matching, as by default: a pair within --distance
    /// bits, or within --candidate-distance bits sharing a band, is a near-duplicate when
    /// its signatures' Jaccard estimate reaches --threshold (the signatures decide: two
    /// reports of one frame with other figures, a bit apart, stay apart).
    #[arg(long, help_heading = "Two-stage matching")]
    verify: bool,
    /// Create the index without two-stage matching: fingerprints alone, within --distance
    /// bits (no signatures: faster to ingest, and no bands in the writer's memory, but edits
    /// of more than 1 to 2% go unnoticed; docs/BENCHMARKS.md has the costs). Only at
    /// creation: an index keeps the choice it was created with.
    #[arg(long, help_heading = "Two-stage matching", conflicts_with_all = ["verify", "candidate_distance", "band_rows", "threshold", "score", "preset"])]
    no_verify: bool,
    /// Two-stage matching of a preset: news (precision first, as a new index has it by
    /// default: reports of one frame with other figures stay apart) or rewrites (recall
    /// first, for plagiarism, textbook editions and paraphrase: texts sharing a fifth of
    /// their shingles are near, template pages of one site too). docs/PARAMETERS.md gives
    /// each one's precision and recall. For an existing index, its rule for this run. The
    /// options below given beside it override it. Implies --verify for a new index.
    #[arg(long, value_enum, help_heading = "Two-stage matching")]
    preset: Option<PresetArg>,
    /// Loose distance of the candidates, 0 to 64 [default: the index's, 16 for a new one].
    /// Implies --verify for a new index.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(0..=64), help_heading = "Two-stage matching")]
    candidate_distance: Option<u32>,
    /// Values per band of the candidate stage (MinHash LSH): a pair beyond --distance is a
    /// candidate when its signatures agree on all R values of one band; 0 takes every pair
    /// within --candidate-distance instead (exact, but a scan of the index per document)
    /// [default: with --threshold, the rows whose S-curve suits it (2 up to about 0.3, 4 at
    /// 0.55, 9 at 0.8; docs/PARAMETERS.md); else the index's, 9 (14 bands) for a new one]. Implies
    /// --verify for a new index.
    #[arg(long, value_name = "R", help_heading = "Two-stage matching")]
    band_rows: Option<usize>,
    /// Jaccard estimate at or above which a candidate is a near-duplicate, 0 to 1
    /// [default: the index's, 0.8 for a new one]. Implies --verify for a new index.
    #[arg(long, value_name = "T", value_parser = threshold, help_heading = "Two-stage matching")]
    threshold: Option<f64>,
    /// How a candidate is scored against --threshold: jaccard (how alike the two texts'
    /// shingle sets are), containment (how much of the shorter text's shingles the longer
    /// one holds: an article inside a page of other text scores near 1; indexes created
    /// before settings format 4 cannot) or combined (the "improved SimHash" mix of the
    /// distance and Jaccard) [default: the index's, jaccard for a new one]. Containment
    /// takes candidates at any distance from bands of 2 unless --candidate-distance and
    /// --band-rows say otherwise. Implies --verify for a new index.
    #[arg(long, value_enum, help_heading = "Two-stage matching")]
    score: Option<ScoreArg>,
    /// Matching settings from FILE, as `eval --recommend` writes them: the fingerprint
    /// config, distance and two-stage matching of a new index; for an existing one, the
    /// distance and rule of this run (its fingerprint config and signatures must be the
    /// index's). Options given beside it override it.
    #[arg(long, value_name = "FILE", help_heading = "Two-stage matching")]
    settings: Option<PathBuf>,
    /// Weigh the signatures' shingles by how many records of FILE (JSON lines, text or
    /// HTML files, or a folder, read as the inputs are; a sample of the documents to come,
    /// or the input itself) hold them: a report's frame, a site's header and boilerplate
    /// count less than a document's own words and figures. The weights are frozen with the
    /// index: only at creation (an existing index keeps its own; docs/PARAMETERS.md,
    /// "Shingle weights").
    #[arg(
        long,
        value_name = "FILE",
        help_heading = "Two-stage matching",
        conflicts_with = "no_verify"
    )]
    idf_from: Option<PathBuf>,
}

/// A preset of two-stage matching.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum PresetArg {
    /// Precision first: the default.
    News,
    /// Recall first: heavy rewrites.
    Rewrites,
}

impl From<PresetArg> for Preset {
    fn from(arg: PresetArg) -> Preset {
        match arg {
            PresetArg::News => Preset::News,
            PresetArg::Rewrites => Preset::Rewrites,
        }
    }
}

/// How a candidate is scored.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ScoreArg {
    /// The Jaccard estimate of the shingle sets.
    Jaccard,
    /// The overlap coefficient: the share of the smaller set the larger holds.
    Containment,
    /// `mu / (hamming + 1) + (1 - mu) * jaccard`, mu 0.85.
    Combined,
}

/// Parses a threshold in `[0, 1]`.
pub fn threshold(arg: &str) -> Result<f64, String> {
    let value: f64 = arg.parse().map_err(|e| format!("{e}"))?;
    if (0.0..=1.0).contains(&value) {
        Ok(value)
    } else {
        Err(format!("{value} is not in [0, 1]"))
    }
}

impl VerifyOptions {
    /// True when no option was given.
    pub fn is_empty(&self) -> bool {
        !self.has_options() && self.settings.is_none()
    }

    /// True when an option other than --settings was given.
    fn has_options(&self) -> bool {
        self.verify
            || self.no_verify
            || self.candidate_distance.is_some()
            || self.band_rows.is_some()
            || self.threshold.is_some()
            || self.score.is_some()
            || self.preset.is_some()
    }

    /// The sample given with --idf-from, if any.
    pub fn idf_from(&self) -> Option<&std::path::Path> {
        self.idf_from.as_deref()
    }

    /// The file given with --settings, if any.
    pub fn settings_path(&self) -> Option<&std::path::Path> {
        self.settings.as_deref()
    }

    /// The settings file given with --settings, read and checked.
    pub fn settings_file(&self) -> anyhow::Result<Option<MatchingSettings>> {
        let Some(path) = &self.settings else {
            return Ok(None);
        };
        let settings = MatchingSettings::read(path)
            .with_context(|| format!("cannot use the settings file {}", path.display()))?;
        Ok(Some(settings))
    }

    /// `settings` with these options applied, over those of `file` (the --settings file,
    /// read by [`settings_file`](Self::settings_file)): a verification added when asked for
    /// and missing, or removed with --no-verify (which an existing index refuses as a
    /// settings mismatch when it was created otherwise), its candidate stage, candidate
    /// distance and threshold set when given.
    pub fn apply(&self, settings: DedupSettings, file: Option<&MatchingSettings>) -> DedupSettings {
        let settings = match file {
            Some(file) => settings.matching(file.clone()),
            None => settings,
        };
        if !self.has_options() {
            return settings;
        }
        if self.no_verify {
            let matching = settings.get_matching().clone().verification(None);
            return settings.matching(matching);
        }
        let mut verification = settings
            .get_matching()
            .get_verification()
            .cloned()
            .unwrap_or_else(Verification::default);
        if let Some(preset) = self.preset {
            // The preset's rule over the index's signature, which presets do not change.
            let preset = Preset::from(preset).verification();
            verification = verification.with_rule(preset.rule());
        }
        if let Some(k) = self.candidate_distance {
            verification = verification.candidate_distance(k);
        }
        match (
            self.band_rows,
            self.threshold,
            verification.get_candidates(),
        ) {
            (Some(0), _, _) => verification = verification.candidates(CandidateStage::Scan),
            (Some(rows), _, _) => {
                verification = verification.candidates(CandidateStage::Bands { rows })
            }
            // A threshold alone brings the bands its S-curve suits, where bands are used.
            (None, Some(t), CandidateStage::Bands { .. }) => {
                let rows = band_rows_for(t, verification.get_hashes());
                verification = verification.candidates(CandidateStage::Bands { rows });
            }
            (None, _, _) => {}
        }
        if let Some(t) = self.threshold {
            verification = verification.threshold(t);
        }
        if let Some(score) = self.score {
            verification = verification.score(match score {
                ScoreArg::Jaccard => PairScore::Jaccard,
                ScoreArg::Containment => PairScore::Containment,
                ScoreArg::Combined => PairScore::combined(),
            });
        }
        if matches!(self.score, Some(ScoreArg::Containment)) {
            // The candidate stage of `Verification::containment` where none was asked for.
            let preset = Verification::containment();
            if self.candidate_distance.is_none() {
                verification = verification.candidate_distance(preset.get_candidate_distance());
            }
            if self.band_rows.is_none() {
                if let CandidateStage::Bands { .. } = verification.get_candidates() {
                    verification = verification.candidates(preset.get_candidates());
                }
            }
        }
        let matching = settings.get_matching().clone().verification(verification);
        settings.matching(matching)
    }
}
