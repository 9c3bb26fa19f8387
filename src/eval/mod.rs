//! Measuring detection quality: precision, recall and F1 of "within *k* bits" against
//! labeled pairs, for a grid of fingerprint configs, and a two-stage matcher that verifies
//! SimHash candidates with MinHash.
//!
//! An [`EvalSet`] holds documents and labeled pairs (and a rule for the pairs it does not
//! list, so that "every other pair is distinct" needs no list of millions of pairs).
//! [`count_pairs`] counts the pairs by the distance of their fingerprints into
//! [`DistanceCounts`], which answer for every *k* at once ([`DistanceCounts::sweep`],
//! [`DistanceCounts::roc_auc`]). [`evaluate`] does it for every config of a grid and the
//! two-stage variants; the command-line tool's `eval` command writes the result as JSON,
//! Markdown and an SVG plot.
//!
//! ```
//! use tantivy_dedup::eval::{evaluate, EvalOptions, EvalSetBuilder, GridConfig, Unlisted};
//! use tantivy_dedup::fingerprint::FingerprintConfig;
//!
//! let mut set = EvalSetBuilder::new("tiny", Unlisted::Negative);
//! let text = "the quick brown fox jumps over the lazy dog near the quiet river bank today";
//! set.doc("a", text, Some("fox"), vec![])?;
//! set.doc("a-edited", text.replace("lazy", "sleepy"), Some("fox"), vec![])?;
//! set.doc("b", "an entirely different text about tax forms and filing deadlines", None, vec![])?;
//! set.pair("a", "a-edited", Some(true), Some("substitute"), Some(0.07))?;
//! let set = set.build();
//!
//! let grid = [GridConfig::new("default", FingerprintConfig::default())];
//! let report = evaluate(&set, &grid, &EvalOptions::default())?;
//! let best = &report.configs[0].best;
//! assert_eq!((best.scores.true_positives, best.scores.false_positives), (1, 0));
//! # Ok::<(), tantivy_dedup::Error>(())
//! ```

mod counts;
mod end_to_end;
mod grid;
mod pairs;
mod recommend;
mod report;
mod run;
mod set;
mod verify;

pub use counts::{DistanceCounts, Point, Scores, NO_FINGERPRINT};
pub use end_to_end::{end_to_end, end_to_end_by};
pub use grid::{default_grid, GridConfig};
pub use pairs::{count_pairs, near_pairs, NearPair, PairCounts};
pub use recommend::{
    recommend, recommend_end_to_end, Goal, Recommendation, END_TO_END_CANDIDATES, NEAR_BEST,
};
pub use report::{CategoryResult, ConfigResult, EvalReport, VerifyResult};
pub use run::{evaluate, EvalOptions};
pub use set::{Category, EvalSet, EvalSetBuilder, ListedPair, Unlisted};
pub use verify::{sweep_scores, ScoreHistogram, ScoredPair, ThresholdPoint};
