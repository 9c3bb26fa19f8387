//! How much each feature counts: term count, TF-IDF, and the length-relevance weight.
//!
//! SimHash adds a feature's weight to every bit its hash sets and compares each bit's total
//! with half of all weights, so a weight only matters relative to the others: term counts
//! need no division by the document length.

use serde::{Deserialize, Serialize};

/// Mean of the normal curve of [`length_relevance`]: the average length in characters of the
/// 10,000 CSSCI Chinese keywords measured by the "improved SimHash" paper (王诚, 王宇成 2019).
pub const LENGTH_RELEVANCE_MEAN: f32 = 4.51;

/// Standard deviation of the normal curve of [`length_relevance`], from the same measurement.
pub const LENGTH_RELEVANCE_STD_DEV: f32 = 2.207;

/// How the features of a text are weighted.
///
/// Every occurrence of a feature adds its weight, so a feature's total is its count times its
/// weight: term frequency is built in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Weighting {
    /// Term count: every occurrence weighs 1.
    Tf,
    /// Term count times inverse document frequency: words common everywhere count little.
    TfIdf,
    /// TF-IDF times the [`length_relevance`] of the feature's words, as the "improved SimHash"
    /// paper proposes: words near the typical length of a Chinese technical term weigh more.
    TfIdfLength,
}

impl Weighting {
    /// True when this weighting needs an [`IdfSource`](crate::text::IdfSource).
    #[must_use]
    pub fn uses_idf(self) -> bool {
        !matches!(self, Weighting::Tf)
    }

    /// True when this weighting multiplies by the [`length_relevance`].
    #[must_use]
    pub fn uses_length(self) -> bool {
        matches!(self, Weighting::TfIdfLength)
    }
}

/// The length-relevance weight of a word of `chars` characters: a normal curve with mean
/// [`LENGTH_RELEVANCE_MEAN`] and standard deviation [`LENGTH_RELEVANCE_STD_DEV`], scaled so
/// that its peak (at the mean) is 1. Long tokens (URLs, base64) get ~0, which is what the
/// curve means.
#[must_use]
pub fn length_relevance(chars: usize) -> f32 {
    // Words are short: their weights come from a table, filled once from the formula.
    static TABLE: std::sync::LazyLock<[f32; 64]> =
        std::sync::LazyLock::new(|| std::array::from_fn(length_relevance_formula));
    TABLE
        .get(chars)
        .copied()
        .unwrap_or_else(|| length_relevance_formula(chars))
}

fn length_relevance_formula(chars: usize) -> f32 {
    let z = (chars as f32 - LENGTH_RELEVANCE_MEAN) / LENGTH_RELEVANCE_STD_DEV;
    (-0.5 * z * z).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn length_relevance_peaks_near_the_mean() {
        let at = |n| length_relevance(n);
        assert!(at(4) > 0.97 && at(5) > 0.97);
        assert!(at(4) < 1.0);
        assert!(at(1) < at(2) && at(2) < at(3) && at(3) < at(4));
        assert!(at(6) > at(7) && at(7) > at(10));
        assert!(at(30) < 1e-10);
        assert_eq!(at(100), length_relevance_formula(100));
        assert_eq!(at(63), length_relevance_formula(63));
        let z = |n: usize| (n as f32 - LENGTH_RELEVANCE_MEAN) / LENGTH_RELEVANCE_STD_DEV;
        assert!((at(7) - (-0.5 * z(7) * z(7)).exp()).abs() < 1e-6);
        // 7 characters is 1.13 standard deviations above the mean: just under exp(-1/2).
        assert!(at(7) < (-0.5f32).exp() && at(7) > 0.5);
    }

    #[test]
    fn serde_names_are_kebab_case() {
        assert_eq!(
            serde_json::to_string(&Weighting::TfIdfLength).unwrap(),
            "\"tf-idf-length\""
        );
        assert!(Weighting::TfIdf.uses_idf() && !Weighting::Tf.uses_idf());
    }
}
