//! The rule's first stage over reference documents held in lookups: the pairs a
//! [`Matcher`] may judge, from block tables within the distance the tables answer and, when
//! its candidates come from bands, from band tables beyond it. The writer's lookups and
//! `duplicate_groups`' leaders both go through [`find_candidates`].

use super::Matcher;
use crate::fingerprint::{is_empty_set, Fingerprint};
use crate::lookup::{BandIndex, FingerprintIndex, Match};

/// The references `matcher` may judge near-duplicates of a document with `fingerprint` and
/// `signature`, into `found` (cleared first), nearest first, then by id: without `bands`, or
/// when the rule's candidates do not come from bands, every reference of `lookup` within
/// the rule's reach; else those within its distance, and those within its reach that share
/// a band. A band hit counts only while `lookup` holds it. `fingerprint_of` gives a
/// reference's fingerprint; `band_hits` is scratch space kept by the caller.
pub(crate) fn find_candidates(
    (lookup, bands): (&FingerprintIndex, Option<&BandIndex>),
    (fingerprint, signature): (Fingerprint, Option<&[u32]>),
    fingerprint_of: impl Fn(u32) -> Fingerprint,
    matcher: &Matcher,
    (band_hits, found): (&mut Vec<u32>, &mut Vec<Match>),
) {
    let Some(bands) = bands.filter(|_| matcher.bands().is_some()) else {
        lookup.query_into(fingerprint, matcher.reach(), found);
        return;
    };
    lookup.query_into(fingerprint, matcher.distance(), found);
    let Some(signature) = signature.filter(|s| !is_empty_set(s)) else {
        return;
    };
    bands.candidates_into(signature, band_hits);
    for &id in band_hits.iter() {
        if !lookup.contains(id) {
            continue;
        }
        let distance = fingerprint_of(id).distance(fingerprint);
        if distance > matcher.distance() && distance <= matcher.reach() {
            found.push(Match { id, distance });
        }
    }
    band_hits.clear();
    found.sort_unstable_by_key(|m| (m.distance, m.id));
}
