//! [`BandFilter`]: which band keys some committed segment may hold, in 8 to 32 bits a key, so
//! that a writer probes the segments' band tables only for the keys of a new document's
//! signature that some segment holds: most documents share no band with any, and a probe
//! of every segment's table costs two cache misses a band and a segment.

use std::collections::HashSet;

use rayon::prelude::*;

use tantivy::index::SegmentId;
use tantivy::SegmentReader;

use crate::plugin::segment_values::SegmentValues;

/// Bits a key a filter is sized for. It is made for twice the keys it holds, a band's
/// region rounded up to a power of two, and made again when they have doubled: between 32
/// and 8 bits a key (14 to 56 bytes a document of 14 bands), so that 3 to 12% of the keys
/// not held pass.
const BITS_PER_KEY: usize = 8;

/// The smallest region of a band (128 bytes).
const MIN_BITS: u32 = 10;

/// A set of (band, key) pairs with false positives and no false negatives: one bit a pair,
/// of the segments it has read (a merged segment's keys are those of its sources, read
/// again: it is not known which segments a merge came from).
///
/// Each band has a region of `2^bits` bits, and a key's bit is its top `bits` bits (band
/// keys are hashes already): a segment's band table, sorted by key, fills its region from
/// start to end, where scattered bits would miss the cache at every key.
#[derive(Clone)]
pub(super) struct BandFilter {
    words: Vec<u64>,
    bits: u32,
    /// The keys a band it was sized for: beyond as many, it is made again.
    sized_for: usize,
    /// The segments whose keys it holds.
    covered: HashSet<SegmentId>,
}

impl BandFilter {
    /// An empty filter of `bands` bands for `keys` keys a band.
    fn with_capacity(bands: usize, keys: usize) -> BandFilter {
        let wanted = keys.max(1).saturating_mul(BITS_PER_KEY);
        let bits = (usize::BITS - (wanted - 1).leading_zeros()).clamp(MIN_BITS, 32);
        BandFilter {
            words: vec![0; bands.max(1) << (bits - 6)],
            bits,
            sized_for: keys,
            covered: HashSet::new(),
        }
    }

    /// The filter of the keys of `segments`, from `previous` when it still fits them (the
    /// segments it read before are not read again).
    pub fn of(
        segments: &[(&SegmentReader, &SegmentValues)],
        previous: Option<BandFilter>,
    ) -> BandFilter {
        let tables = || segments.iter().filter_map(|(_, values)| values.tables());
        let bands = tables()
            .map(|tables| tables.shape().bands)
            .max()
            .unwrap_or(0);
        let keys: usize = tables().map(|tables| tables.banded()).sum();
        let mut filter = match previous {
            Some(filter) if keys <= filter.sized_for && filter.bands() >= bands => filter,
            _ => BandFilter::with_capacity(bands, 2 * keys),
        };
        let unread: Vec<&SegmentValues> = (segments.iter())
            .filter(|(reader, _)| !filter.covered.contains(&reader.segment_id()))
            .map(|(_, values)| *values)
            .collect();
        // A band's region is its own words: the bands are filled on rayon's threads, each
        // from every unread segment's sorted table of that band. Every open reads them all,
        // 14 keys a document.
        let bits = filter.bits;
        let region = 1 << (bits - 6);
        (filter.words.par_chunks_mut(region).enumerate()).for_each(|(band, words)| {
            for values in &unread {
                if let Some(tables) = values.tables() {
                    tables.for_each_key_of_band(values.bytes(), band, |key| {
                        let at = (u64::from(key) >> (32 - bits)) as usize;
                        words[at / 64] |= 1 << (at % 64);
                    });
                }
            }
        });
        filter.covered = segments
            .iter()
            .map(|(reader, _)| reader.segment_id())
            .collect();
        filter
    }

    /// The number of bands it has regions for.
    fn bands(&self) -> usize {
        (self.words.len() << 6) >> self.bits
    }

    #[inline]
    fn position(&self, band: usize, key: u32) -> usize {
        band << self.bits | (u64::from(key) >> (32 - self.bits)) as usize
    }

    #[cfg(test)]
    fn insert(&mut self, band: usize, key: u32) {
        let at = self.position(band, key);
        self.words[at / 64] |= 1 << (at % 64);
    }

    /// Whether some segment read may hold `key` in `band`.
    #[inline]
    pub fn may_hold(&self, band: usize, key: u32) -> bool {
        let at = self.position(band, key);
        (self.words.get(at / 64)).is_some_and(|word| word >> (at % 64) & 1 == 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inserted_keys_are_held_and_few_others_pass() {
        let mut filter = BandFilter::with_capacity(14, 10_000 / 14);
        for key in 0..10_000u32 {
            filter.insert((key % 14) as usize, key.wrapping_mul(2_654_435_761));
        }
        for key in 0..10_000u32 {
            assert!(filter.may_hold((key % 14) as usize, key.wrapping_mul(2_654_435_761)));
        }
        let passed = (10_000..110_000u32)
            .filter(|&key| filter.may_hold((key % 14) as usize, key.wrapping_mul(2_654_435_761)))
            .count();
        assert!(passed < 10_000, "{passed} of 100,000 absent keys passed");
    }
}
