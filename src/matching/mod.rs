//! The matching rule: when two documents are near-duplicates, from their 64-bit SimHash
//! fingerprints and, in two-stage matching, their MinHash signatures. Knows nothing of
//! tantivy: the plugin's writer, collector and batch helpers and the `eval` command all
//! judge pairs here, so that they judge alike.
//!
//! * [`MatchRule`]: what may change at every open of an index: the distance *k* (3 of 64
//!   bits by default, Manku et al.'s choice for web pages) and the [`VerifyRule`] of the
//!   second stage ([`CandidateStage`], candidate distance, threshold, [`PairScore`]).
//! * [`Verification`]: the second stage as an index is set up with it: the signature it
//!   stores (shingles, number of values) and the rule it is judged by.
//! * [`Judgement`]: the rule's verdict on one pair, with its [`Reason`].
//! * [`TextMatcher`]: the rule applied to texts without an index (fingerprints, signatures,
//!   verdicts), as an index with the same settings computes them.
//! * [`Preset`]: named verifications for a kind of corpus (`news`, the default;
//!   `rewrites`).
//! * [`MatchingSettings`]: the fingerprint config, the distance and the verification, as a
//!   file of their own (the one `eval --recommend` writes), in settings format
//!   [`SETTINGS_VERSION`].
//!
//! Two documents are near-duplicates when their fingerprints differ in at most *k* bits,
//! **or**, with a verification, when they differ in at most its candidate distance, the
//! score of their signatures reaches its threshold and (with the default
//! [`CandidateStage::Bands`]) their signatures agree on a whole band.

mod candidates;
mod judgement;
mod matcher;
mod matching_settings;
mod preset;
mod rule;
mod settings_version;
mod text_matcher;
mod verification;

pub(crate) use candidates::find_candidates;
pub use judgement::{Judgement, Reason};
pub(crate) use matcher::{Matcher, Separation};
pub use matching_settings::{MatchingSettings, Measured, MAX_SETTINGS_FILE_BYTES};
pub use preset::{Preset, REWRITES_BAND_ROWS, REWRITES_THRESHOLD};
pub use rule::{
    check_distance, CandidateStage, MatchRule, PairScore, VerifyRule, DEFAULT_BAND_ROWS,
    DEFAULT_CANDIDATE_DISTANCE, DEFAULT_THRESHOLD,
};
pub use settings_version::SETTINGS_VERSION;
pub(crate) use settings_version::{check_version, check_version_of};
pub use text_matcher::TextMatcher;
pub(crate) use verification::check_shingle_weights;
pub use verification::{Verification, DEFAULT_SHINGLES, DEFAULT_SIGNATURE_HASHES, MIN_BYTE_HASHES};
