//! The S-curve of MinHash LSH ([`band_probability`]) and the band layout chosen from it for a
//! threshold ([`band_rows_for`]), as datasketch's `MinHashLSH` chooses its bands and rows.

/// The probability that a pair of Jaccard similarity `jaccard` shares a band of `rows`
/// among `bands`: `1 - (1 - J^rows)^bands`.
pub fn band_probability(jaccard: f64, bands: usize, rows: usize) -> f64 {
    1.0 - (1.0 - jaccard.powi(rows as i32)).powi(bands as i32)
}

/// The weight of a lost pair against a needless candidate in [`band_rows_for`]. A pair that
/// shares no band is lost for good; a candidate that should not be one costs one comparison
/// of signatures, which the threshold then rejects. At 0.9 the curve gives the rows measured
/// best on the evaluation sets: 4 at a threshold of 0.55, 2 at the 0.16 to 0.2 that
/// heavy rewrites need (`docs/PARAMETERS.md`, "Heavy rewrites").
pub const LOST_PAIR_WEIGHT: f64 = 0.9;

/// Values per band for signatures of `hashes` values judged at `threshold`: the rows `r`
/// (with `hashes / r` bands) whose S-curve minimizes the weighted area of false
/// candidates below the threshold and of lost pairs above it, pairs spread evenly over
/// the similarities (datasketch's `_optimal_param`, with every value in some band and
/// lost pairs weighted [`LOST_PAIR_WEIGHT`]).
///
/// ```
/// use tantivy_dedup::lookup::band_rows_for;
/// use tantivy_dedup::matching::{DEFAULT_BAND_ROWS, DEFAULT_SIGNATURE_HASHES, DEFAULT_THRESHOLD};
///
/// assert_eq!(band_rows_for(DEFAULT_THRESHOLD, DEFAULT_SIGNATURE_HASHES), DEFAULT_BAND_ROWS);
/// assert_eq!(band_rows_for(0.2, 128), 2);
/// ```
#[must_use]
pub fn band_rows_for(threshold: f64, hashes: usize) -> usize {
    let threshold = threshold.clamp(0.0, 1.0);
    let hashes = hashes.max(1);
    let error = |rows: usize| {
        let bands = hashes / rows;
        let false_candidates = integral(0.0, threshold, |j| band_probability(j, bands, rows));
        let lost = integral(threshold, 1.0, |j| 1.0 - band_probability(j, bands, rows));
        (1.0 - LOST_PAIR_WEIGHT) * false_candidates + LOST_PAIR_WEIGHT * lost
    };
    (1..=hashes)
        .map(|rows| (error(rows), rows))
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map_or(1, |(_, rows)| rows)
}

/// The integral of `f` over `[from, to]`, by the midpoint rule: the curves are smooth, and
/// a choice between whole numbers of rows needs no more.
fn integral(from: f64, to: f64, f: impl Fn(f64) -> f64) -> f64 {
    const STEPS: usize = 400;
    let step = (to - from) / STEPS as f64;
    (0..STEPS)
        .map(|i| f(from + (i as f64 + 0.5) * step))
        .sum::<f64>()
        * step
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_curve_rises_with_the_similarity() {
        assert_eq!(band_probability(0.0, 32, 4), 0.0);
        assert_eq!(band_probability(1.0, 32, 4), 1.0);
        assert!((band_probability(0.55, 32, 4) - 0.95).abs() < 0.01);
        assert!((band_probability(0.6, 32, 4) - 0.988).abs() < 0.001);
        assert!(band_probability(0.1, 32, 4) < 0.004);
    }

    #[test]
    fn higher_thresholds_take_longer_bands() {
        let rows: Vec<usize> = (1..=19)
            .map(|i| band_rows_for(f64::from(i) * 0.05, 128))
            .collect();
        assert!(rows.windows(2).all(|w| w[0] <= w[1]), "{rows:?}");
        // The table of docs/PARAMETERS.md ("Which bands for a threshold").
        let table = [0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.55, 0.6, 0.7, 0.8, 0.9]
            .map(|threshold| band_rows_for(threshold, 128));
        assert_eq!(table, [2, 2, 2, 2, 3, 4, 4, 5, 6, 9, 16]);
        // Out-of-range inputs still give a layout.
        assert_eq!(band_rows_for(0.5, 1), 1);
        assert!((1..=16).contains(&band_rows_for(2.0, 16)));
    }
}
