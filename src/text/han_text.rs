//! [`HanText`]: the Han runs of a text, taken apart while the text is normalized.

use std::ops::Range;

/// The Han text of a text: the normalized characters of its Han runs, in order, as UTF-8,
/// and where each run is in the text. A script shingle signature takes n-grams of the first
/// and words of what lies between the second; one pass that normalizes the text for a
/// fingerprint fills both.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct HanText {
    /// The normalized characters of the Han runs, one run after the other.
    pub(crate) chars: Vec<u8>,
    /// The byte range of each Han run in the text, in order.
    runs: Vec<Range<usize>>,
}

impl HanText {
    /// Adds the Han run at `at` in the text, whose normalized characters are `normalized`.
    #[inline]
    pub(crate) fn push_run(&mut self, at: Range<usize>, normalized: &[u8]) {
        self.chars.extend_from_slice(normalized);
        self.runs.push(at);
    }

    /// The byte ranges between the Han runs of a text of `len` bytes, in order, empty ones
    /// left out: its runs of other scripts.
    pub(crate) fn other_runs(&self, len: usize) -> impl Iterator<Item = Range<usize>> + '_ {
        let starts = std::iter::once(0).chain(self.runs.iter().map(|run| run.end));
        let ends = self
            .runs
            .iter()
            .map(|run| run.start)
            .chain(std::iter::once(len));
        starts
            .zip(ends)
            .filter(|(start, end)| start < end)
            .map(|(start, end)| start..end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn other_runs(han: &HanText, len: usize) -> Vec<(usize, usize)> {
        han.other_runs(len)
            .map(|run| (run.start, run.end))
            .collect()
    }

    #[test]
    fn other_runs_are_what_lies_between_the_han_runs() {
        let mut han = HanText::default();
        assert_eq!(other_runs(&han, 5), [(0, 5)]);
        assert_eq!(other_runs(&han, 0), []);
        han.push_run(0..3, "中".as_bytes());
        han.push_run(5..8, "文".as_bytes());
        assert_eq!(other_runs(&han, 8), [(3, 5)]);
        assert_eq!(other_runs(&han, 10), [(3, 5), (8, 10)]);
        assert_eq!(han.chars, "中文".as_bytes());
    }
}
