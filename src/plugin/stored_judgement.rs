//! The rule's verdict on two documents already in an index, from the fingerprints and
//! signatures stored with them: what [`DedupIndex::judge`] says of two texts, without the
//! texts.

use tantivy::{DocAddress, Searcher};

use crate::error::Result;
use crate::fingerprint::Signature;
use crate::matching::Judgement;
use crate::plugin::columns::stored::{fingerprint_at, signature_at};
use crate::plugin::DedupIndex;

impl DedupIndex {
    /// How this index's rule (the distance and verification in force) judges the stored
    /// documents at `a` and `b` of `searcher`, from their stored fingerprints and
    /// signatures: the same verdict as [`judge`](Self::judge) on their texts, read from the
    /// fast columns instead of computed. A document without a fingerprint gives
    /// [`Reason::NoFingerprint`](crate::matching::Reason::NoFingerprint); one without a
    /// signature is judged by its fingerprint alone, as the writer judges it.
    ///
    /// # Errors
    /// [`Error::Tantivy`](crate::Error::Tantivy) when the columns cannot be read;
    /// [`Error::Decode`](crate::Error::Decode) for a signature of another length.
    pub fn judge_stored(
        &self,
        searcher: &Searcher,
        a: DocAddress,
        b: DocAddress,
    ) -> Result<Judgement> {
        let distance = match (fingerprint_at(searcher, a)?, fingerprint_at(searcher, b)?) {
            (Some(x), Some(y)) => Some(x.distance(y)),
            _ => None,
        };
        let signature = |address| match self.settings().get_matching().get_verification() {
            Some(verification) => signature_at(searcher, address, verification.get_hashes()),
            None => Ok(None),
        };
        let (ours, theirs) = (signature(a)?, signature(b)?);
        Ok(self.matcher(self.distance()).explain(
            distance,
            ours.as_ref().map(Signature::values),
            theirs.as_ref().map(Signature::values),
        ))
    }
}
