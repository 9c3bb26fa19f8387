//! [`Preset`]: named two-stage matching settings for a kind of corpus, each chosen by
//! measurement on the repository's labeled sets (`docs/PARAMETERS.md`, "Presets").

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::rule::CandidateStage;
use super::verification::Verification;
use crate::error::{Error, Result};
use crate::fingerprint::FINGERPRINT_BITS;

/// Threshold of [`Preset::Rewrites`]: where the F1 of the heavy-rewrite sets peaks (0.16 in
/// English, 0.18 in Chinese; the higher keeps precision on Chinese template pages).
pub const REWRITES_THRESHOLD: f64 = 0.18;

/// Values per band of [`Preset::Rewrites`]: 64 bands of 2 values, which a pair of Jaccard
/// similarity 0.18 shares with probability 0.88, and 0.3 with 0.998.
pub const REWRITES_BAND_ROWS: usize = 2;

/// Named matching settings. Each is a [`Verification`] over the default signature (word
/// 2-shingles outside Han text, character 3-grams inside, 128 values), so the presets
/// differ only in the rule, which may change at every open: an index created under one
/// can be searched or ingested into under another.
///
/// ```
/// use tantivy_dedup::matching::{MatchingSettings, Preset};
///
/// let settings = MatchingSettings::default().preset(Preset::Rewrites);
/// let verification = settings.get_verification().unwrap();
/// assert_eq!(verification.get_threshold(), 0.18);
/// assert_eq!("rewrites".parse::<Preset>().unwrap(), Preset::Rewrites);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Preset {
    /// Precision first, the default: a crawl of news, reports of one frame with other
    /// figures, a site's pages under one template. A pair is near when its shingle sets
    /// agree on at least the default threshold of their signatures; reposts, corrections
    /// and edits of a few percent are found.
    News,
    /// Recall first: plagiarism, textbook editions, paraphrase, an article inside a page of
    /// other text. Candidates at any fingerprint distance from 64 bands of 2 values,
    /// near from a Jaccard estimate of [`REWRITES_THRESHOLD`]: texts that share a fifth of
    /// their shingles, so template pages of one site are near too.
    Rewrites,
}

impl Preset {
    /// Every preset, in the order the docs list them.
    pub const ALL: [Preset; 2] = [Preset::News, Preset::Rewrites];

    /// The preset's two-stage matching.
    pub fn verification(self) -> Verification {
        match self {
            Preset::News => Verification::default(),
            Preset::Rewrites => Verification::default()
                .candidates(CandidateStage::Bands {
                    rows: REWRITES_BAND_ROWS,
                })
                .candidate_distance(FINGERPRINT_BITS)
                .threshold(REWRITES_THRESHOLD),
        }
    }

    /// The preset's name, as `--preset` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Preset::News => "news",
            Preset::Rewrites => "rewrites",
        }
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Preset {
    type Err = Error;

    fn from_str(name: &str) -> Result<Preset> {
        Preset::ALL
            .into_iter()
            .find(|preset| preset.name() == name)
            .ok_or_else(|| Error::InvalidSetting {
                name: "preset",
                reason: format!(
                    "{name:?} is no preset; the presets are {}",
                    Preset::ALL.map(Preset::name).join(", ")
                ),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_are_valid_and_named_both_ways() {
        for preset in Preset::ALL {
            preset.verification().validate().unwrap();
            assert_eq!(preset.name().parse::<Preset>().unwrap(), preset);
            assert_eq!(
                serde_json::to_value(preset).unwrap(),
                serde_json::Value::from(preset.name())
            );
        }
        assert_eq!(Preset::News.verification(), Verification::default());
        match "typo".parse::<Preset>() {
            Err(Error::InvalidSetting { name, reason }) => {
                assert_eq!(name, "preset");
                assert!(reason.contains("news, rewrites"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn presets_share_the_signature() {
        let news = Preset::News.verification();
        for preset in Preset::ALL {
            let v = preset.verification();
            assert_eq!(
                (v.get_shingles(), v.get_hashes(), v.get_kept_bits()),
                (news.get_shingles(), news.get_hashes(), news.get_kept_bits())
            );
        }
    }
}
