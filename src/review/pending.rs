//! A decision before it is shown: where its two documents are and what is known of it,
//! a few dozen bytes whatever the texts, so that a review of millions of documents holds
//! them all to sort them and reads the texts one page at a time.

use std::cmp::Ordering;

use tantivy::DocAddress;

use super::decision::Action;
use crate::matching::Judgement;

/// Where a document of a decision is.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Doc {
    /// In the index, at this address.
    At(DocAddress),
    /// In the index under this id, if it is still there.
    Id(String),
    /// Not in the index (rejected or replaced): its text is known only from the inputs.
    Gone(String),
}

/// A decision to show.
#[derive(Clone, Debug)]
pub(crate) struct Pending {
    pub kept: Doc,
    pub other: Doc,
    pub action: Action,
    /// The distance, as judged or reported.
    pub distance: Option<u32>,
    /// The similarity, as judged (Jaccard) or reported (the verification's score).
    pub similarity: Option<f64>,
    /// The verdict, when it was worked out from the index.
    pub judgement: Option<Judgement>,
    /// Its place among the decisions read, to keep the order stable.
    pub read: usize,
}

impl Pending {
    /// How similar the pair is, for the order: the similarity, else the share of equal
    /// fingerprint bits; unknown pairs last.
    fn likeness(&self) -> f64 {
        match (self.similarity, self.distance) {
            (Some(similarity), _) => similarity,
            (None, Some(distance)) => 1.0 - f64::from(distance) / 64.0,
            (None, None) => f64::INFINITY,
        }
    }
}

/// The review's order, the decisions most likely wrong first: the least similar (nearest
/// the threshold) first, then the furthest apart in bits, then as read.
pub(crate) fn review_order(a: &Pending, b: &Pending) -> Ordering {
    (a.likeness().total_cmp(&b.likeness()))
        .then_with(|| b.distance.cmp(&a.distance))
        .then_with(|| a.read.cmp(&b.read))
}
