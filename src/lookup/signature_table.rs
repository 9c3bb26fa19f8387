//! `SignatureTable`: the MinHash signatures of numbered documents, one flat array.

use crate::fingerprint::{Signature, EMPTY};

/// The signatures of numbered documents, one after the other: `hashes` values each, none
/// when the index does not verify.
#[derive(Clone, Debug, Default)]
pub(crate) struct SignatureTable {
    hashes: usize,
    values: Vec<u32>,
}

impl SignatureTable {
    /// The number of values of each signature.
    pub fn hashes(&self) -> usize {
        self.hashes
    }

    /// An empty table of signatures of `hashes` values (0: no signatures).
    pub fn new(hashes: usize) -> SignatureTable {
        SignatureTable {
            hashes,
            values: Vec::new(),
        }
    }

    /// The table of `values`, `hashes` per document.
    pub fn from_values(hashes: usize, values: Vec<u32>) -> SignatureTable {
        debug_assert!(hashes == 0 && values.is_empty() || values.len().is_multiple_of(hashes));
        SignatureTable { hashes, values }
    }

    /// Appends the next document's signature (an empty set's when it has none).
    pub fn push(&mut self, signature: Option<&Signature>) {
        if self.hashes == 0 {
            return;
        }
        match signature {
            Some(signature) => self.values.extend_from_slice(signature.values()),
            None => self.values.extend(std::iter::repeat_n(EMPTY, self.hashes)),
        }
    }

    /// The signature of document `i`; `None` when the table holds none.
    #[inline]
    pub fn get(&self, i: u32) -> Option<&[u32]> {
        (self.hashes > 0).then(|| {
            let start = i as usize * self.hashes;
            &self.values[start..start + self.hashes]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_without_a_signature_read_as_the_empty_set() {
        let mut table = SignatureTable::new(4);
        table.push(Some(&Signature::from_values(vec![1, 2, 3, 4])));
        table.push(None);
        assert_eq!(table.get(0), Some(&[1, 2, 3, 4][..]));
        assert_eq!(table.get(1), Some(&[EMPTY; 4][..]));
        assert_eq!(SignatureTable::new(0).get(0), None);
    }
}
