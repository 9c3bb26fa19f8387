//! Settings of a [`FingerprintIndex`]: every default in one place, checked in one place.

use super::index::FingerprintIndex;
use crate::error::{Error, Result};
use crate::fingerprint::{Fingerprint, FINGERPRINT_BITS};

/// Default [`LookupOptions::max_distance`]: Manku et al.'s k = 3 for 64-bit SimHash.
pub const DEFAULT_MAX_DISTANCE: u32 = 3;

/// Default [`LookupOptions::mu`], the overflow factor of re-bucketing (not the weight of
/// [`combined_similarity`](crate::fingerprint::combined_similarity), whose default is
/// [`fingerprint::DEFAULT_MU`](crate::fingerprint::DEFAULT_MU)).
pub const DEFAULT_OVERFLOW_MU: f64 = 0.85;

/// Default [`LookupOptions::split_min`]. A split replaces the scan of a bucket's windows
/// (about 1 ns each) by `k + 1` probes of a child node (a few cache misses) and stores the
/// bucket's entries `k + 1` times. Measured at 10M (k = 3, queries aimed at one skewed
/// bucket): below about 2,000 entries the two are within the noise of a shared 2-core
/// machine (±1 µs), at 4,096 the split halves the query, at 16,384 it is 5 to 7 times faster.
pub const DEFAULT_SPLIT_MIN: usize = 1024;

/// Default [`LookupOptions::buffer_len`]. Measured with 1M single inserts and a half-full
/// buffer: inserts cost about 2 µs whatever the buffer (merges dominate), queries 3.0, 2.9,
/// 4.5 and 15.9 µs with buffers of 256, 1,024, 4,096 and 16,384.
pub const DEFAULT_BUFFER_LEN: usize = 1024;

/// Largest `max_distance` for which block tables are built. Beyond it the `k + 1` blocks
/// are 6 bits or narrower, each probe reads a sixteenth of the index or more, and a
/// plain scan of the fingerprints is as fast and uses a quarter of the memory.
pub const MAX_TABLE_DISTANCE: u32 = 8;

/// [`TablePlan::Auto`] picks [`TablePlan::TwoLevel`] for a run whose flat tables would
/// average more entries per bucket than this. Measured at 10M (2 cores): flat tables cost
/// about 5 ns per bucket entry a query scans (k = 4, 1,200 a bucket: 9 µs; k = 5, 6,800:
/// 34 µs), the two-level plan 8 to 18 µs whatever the bucket size (its cost is `(k + 1)^2`
/// random probes); they cross near 3,000, and the margin pays for the two-level plan's
/// 3 to 5 times the memory. For k = 3 that is 268M fingerprints; for k = 5, 4M.
pub const AUTO_TWO_LEVEL_BUCKET: usize = 4096;

/// How the block tables of a [`FingerprintIndex`] are laid out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TablePlan {
    /// Chosen per run from `k` and the run's size: [`Flat`](TablePlan::Flat) unless its
    /// buckets would average more than [`AUTO_TWO_LEVEL_BUCKET`] entries, then
    /// [`TwoLevel`](TablePlan::TwoLevel). For k = 3 that means flat up to 268M
    /// fingerprints; see the [module docs](super) for the measurements.
    #[default]
    Auto,
    /// `k + 1` tables, one per block, each bucket split again only when it overflows.
    /// About 44 bytes per fingerprint.
    Flat,
    /// Manku et al.'s permuted tables: `(k + 1)^2` tables (16 for k = 3), each keyed by one
    /// first-level block plus one of the `k + 1` sub-blocks of the remaining bits. Fewer
    /// candidates per query but `(k + 1)^2` random probes, and `k + 1` times the table
    /// memory (143 bytes per fingerprint at k = 3, against 44).
    TwoLevel,
}

impl TablePlan {
    /// True when a run of `len` fingerprints with tables for `k` uses the two-level plan.
    pub(crate) fn two_level(self, len: usize, k: u32) -> bool {
        match self {
            TablePlan::Flat => false,
            TablePlan::TwoLevel => true,
            TablePlan::Auto => {
                // The narrowest of the k + 1 blocks sets the smallest directory.
                let narrowest = FINGERPRINT_BITS / (k + 1);
                len.checked_shr(narrowest).unwrap_or(0) > AUTO_TWO_LEVEL_BUCKET
            }
        }
    }
}

/// Settings of a [`FingerprintIndex`], config-plus-builder style: start from
/// [`LookupOptions::new`] (the defaults), change what you need with the by-value setters,
/// then [`build`](Self::build) as many indexes as you like.
///
/// | setting | default | accepted |
/// |---|---|---|
/// | [`max_distance`](Self::max_distance) | [`DEFAULT_MAX_DISTANCE`] = 3 | `0..=64` |
/// | [`expected_len`](Self::expected_len) | 0 (unknown) | any |
/// | [`mu`](Self::mu) | [`DEFAULT_OVERFLOW_MU`] = 0.85 | finite, `>= 0` |
/// | [`split_min`](Self::split_min) | [`DEFAULT_SPLIT_MIN`] = 1024 | `>= 1` |
/// | [`buffer_len`](Self::buffer_len) | [`DEFAULT_BUFFER_LEN`] = 1024 | `1..=1048576` |
/// | [`plan`](Self::plan) | [`TablePlan::Auto`] | any |
///
/// ```
/// use tantivy_dedup::lookup::LookupOptions;
///
/// let index = LookupOptions::new().max_distance(4).build()?;
/// assert_eq!(index.max_distance(), 4);
/// assert!(LookupOptions::new().max_distance(65).build().is_err());
/// # Ok::<(), tantivy_dedup::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct LookupOptions {
    max_distance: u32,
    expected_len: usize,
    mu: f64,
    split_min: usize,
    buffer_len: usize,
    plan: TablePlan,
}

impl Default for LookupOptions {
    fn default() -> Self {
        LookupOptions {
            max_distance: DEFAULT_MAX_DISTANCE,
            expected_len: 0,
            mu: DEFAULT_OVERFLOW_MU,
            split_min: DEFAULT_SPLIT_MIN,
            buffer_len: DEFAULT_BUFFER_LEN,
            plan: TablePlan::Auto,
        }
    }
}

impl LookupOptions {
    /// The defaults (see the table above).
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The largest Hamming distance the tables are built for: `k + 1` blocks, so that two
    /// fingerprints within `k` bits agree exactly on at least one block. Queries with a
    /// larger `k` are still exact but scan every fingerprint. Above
    /// [`MAX_TABLE_DISTANCE`] no tables are built and every query scans.
    #[must_use]
    pub fn max_distance(mut self, k: u32) -> Self {
        self.max_distance = k;
        self
    }

    /// How many fingerprints the index is expected to hold. A hint only: memory for the
    /// first bulk [`extend`](FingerprintIndex::extend) is reserved from it. Table sizes
    /// always follow the real number of fingerprints, which a hint cannot get wrong.
    #[must_use]
    pub fn expected_len(mut self, len: usize) -> Self {
        self.expected_len = len;
        self
    }

    /// The overflow factor of re-bucketing (Wang and Wang 2019): a bucket holding more than
    /// `(1 + mu)` times the average bucket population of its table, and more than
    /// [`split_min`](Self::split_min) entries, is split again on further bits.
    #[must_use]
    pub fn mu(mut self, mu: f64) -> Self {
        self.mu = mu;
        self
    }

    /// The smallest bucket that may be split, whatever `mu` says: below it a scan of the
    /// bucket is cheaper than probing sub-tables. Lower it to exercise re-bucketing on
    /// small sets, as the tests do.
    #[must_use]
    pub fn split_min(mut self, entries: usize) -> Self {
        self.split_min = entries;
        self
    }

    /// Inserted fingerprints are kept in a buffer that queries scan; when it holds this
    /// many they become an immutable run with its own block tables. Larger buffers make
    /// inserts cheaper and queries slower.
    #[must_use]
    pub fn buffer_len(mut self, entries: usize) -> Self {
        self.buffer_len = entries;
        self
    }

    /// The table layout; see [`TablePlan`].
    #[must_use]
    pub fn plan(mut self, plan: TablePlan) -> Self {
        self.plan = plan;
        self
    }

    /// The configured [`max_distance`](Self::max_distance).
    #[must_use]
    pub fn get_max_distance(&self) -> u32 {
        self.max_distance
    }

    /// The configured [`expected_len`](Self::expected_len).
    #[must_use]
    pub fn get_expected_len(&self) -> usize {
        self.expected_len
    }

    /// The configured [`mu`](Self::mu).
    #[must_use]
    pub fn get_mu(&self) -> f64 {
        self.mu
    }

    /// The configured [`split_min`](Self::split_min).
    #[must_use]
    pub fn get_split_min(&self) -> usize {
        self.split_min
    }

    /// The configured [`buffer_len`](Self::buffer_len).
    #[must_use]
    pub fn get_buffer_len(&self) -> usize {
        self.buffer_len
    }

    /// The configured [`plan`](Self::plan).
    #[must_use]
    pub fn get_plan(&self) -> TablePlan {
        self.plan
    }

    /// Checks every setting; the error names the first one out of range.
    pub fn validate(&self) -> Result<()> {
        if self.max_distance > FINGERPRINT_BITS {
            return Err(invalid(
                "max_distance",
                format!(
                    "{} is more than the {FINGERPRINT_BITS} bits of a fingerprint",
                    self.max_distance
                ),
            ));
        }
        if !self.mu.is_finite() || self.mu < 0.0 {
            return Err(invalid(
                "mu",
                format!("{} must be a finite number >= 0", self.mu),
            ));
        }
        if self.split_min == 0 {
            return Err(invalid("split_min", "must be at least 1".to_owned()));
        }
        if self.buffer_len == 0 || self.buffer_len > 1 << 20 {
            return Err(invalid(
                "buffer_len",
                format!("{} must be in 1..=1048576", self.buffer_len),
            ));
        }
        Ok(())
    }

    /// An empty index with these settings.
    pub fn build(&self) -> Result<FingerprintIndex> {
        FingerprintIndex::with_options(self.clone())
    }

    /// An index with these settings holding `entries`, built in bulk (see
    /// [`FingerprintIndex::extend`]).
    pub fn build_from<I>(&self, entries: I) -> Result<FingerprintIndex>
    where
        I: IntoIterator<Item = (u32, Fingerprint)>,
    {
        let mut index = self.build()?;
        index.extend(entries);
        Ok(index)
    }

    /// True when these settings build block tables (else every query scans).
    pub(crate) fn uses_tables(&self) -> bool {
        self.max_distance <= MAX_TABLE_DISTANCE
    }
}

fn invalid(name: &'static str, reason: String) -> Error {
    Error::InvalidSetting { name, reason }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_range_settings_are_errors_not_panics() {
        let bad = [
            LookupOptions::new().max_distance(65),
            LookupOptions::new().mu(-1.0),
            LookupOptions::new().mu(f64::NAN),
            LookupOptions::new().split_min(0),
            LookupOptions::new().buffer_len(0),
            LookupOptions::new().buffer_len((1 << 20) + 1),
        ];
        for options in bad {
            assert!(
                matches!(options.build(), Err(Error::InvalidSetting { .. })),
                "{options:?}"
            );
        }
        assert!(LookupOptions::new().max_distance(64).build().is_ok());
    }

    #[test]
    fn auto_plan_turns_two_level_only_for_huge_buckets() {
        assert!(!TablePlan::Auto.two_level(10_000_000, 3));
        assert!(!TablePlan::Auto.two_level(usize::MAX, 0));
        assert!(TablePlan::Auto.two_level(300_000_000, 3));
        assert!(TablePlan::Auto.two_level(10_000_000, 5));
        assert!(!TablePlan::Auto.two_level(1_000_000, 5));
        assert!(TablePlan::TwoLevel.two_level(10, 3));
    }

    #[test]
    fn setters_change_one_setting_each() {
        let options = LookupOptions::new().mu(2.0).split_min(7);
        assert_eq!(options.get_mu(), 2.0);
        assert_eq!(options.get_split_min(), 7);
        assert_eq!(options.get_max_distance(), DEFAULT_MAX_DISTANCE);
        assert_eq!(options.get_buffer_len(), DEFAULT_BUFFER_LEN);
    }
}
