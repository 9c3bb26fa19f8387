//! Batch work over an existing index: the near-duplicates of one text or document, and every
//! group of near-duplicates, by the rule [`DedupWriter`](super::DedupWriter) applies.

use serde::Serialize;
use tantivy::{DocAddress, Searcher};

use crate::error::Result;
use crate::fingerprint::Fingerprint;
use crate::fingerprint::Signature;
use crate::lookup::SignatureTable;
use crate::lookup::{LookupOptions, Pair, MAX_TABLE_DISTANCE};
use crate::matching::Matcher;
use crate::plugin::columns::stored::{
    fingerprint_at, scope_at, signature_at, stored_fingerprints, stored_signatures,
    StoredFingerprint,
};
use crate::plugin::DedupIndex;

/// A document found near a probe.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct NearDuplicate {
    /// Its address in the searcher searched.
    #[serde(skip)]
    pub address: DocAddress,
    /// Its fingerprint.
    pub fingerprint: Fingerprint,
    /// Its Hamming distance to the probe.
    pub distance: u32,
    /// The [verification](super::Verification)'s score of the pair, when the index
    /// verifies candidates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub similarity: Option<f64>,
}

/// What [`DedupIndex::near_fingerprint`] looks near.
#[derive(Clone, Copy)]
enum Probe {
    /// A text: documents of every scope.
    Text,
    /// A document: the others of its scope (`None` when the index has no scopes).
    Document {
        address: DocAddress,
        scope: Option<Option<u64>>,
    },
}

/// A group of near-duplicates: its first document in the writer's add order, and the
/// documents within the distance of it that no earlier leader claimed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DuplicateGroup {
    /// The document the others duplicate: the one the writer would have kept.
    pub leader: DocAddress,
    /// The others, in add order.
    pub members: Vec<DocAddress>,
}

impl DedupIndex {
    /// Every alive document of `searcher` within `k` bits of `text`'s fingerprint, nearest
    /// first (then in add order); empty when the text has no features. A popcount scan of
    /// the fingerprint columns. With a
    /// [verification](super::Verification), also those within its candidate distance whose
    /// signatures agree, as the writer decides. A text has no scope: documents of every
    /// [scope](super::DedupSettings::scope_field) are looked at.
    ///
    /// # Errors
    /// [`Error::Tantivy`](crate::Error::Tantivy) when the index cannot be read.
    pub fn near_duplicates_of_text(
        &self,
        searcher: &Searcher,
        text: &str,
        k: u32,
    ) -> Result<Vec<NearDuplicate>> {
        match self.fingerprint_and_signature(text) {
            (Some(fingerprint), signature) => {
                self.near_fingerprint(searcher, (fingerprint, signature), k, Probe::Text)
            }
            (None, _) => Ok(Vec::new()),
        }
    }

    /// Every other alive document of `searcher` near the document at `address`, by the
    /// rule of [`near_duplicates_of_text`](Self::near_duplicates_of_text), nearest first;
    /// empty when it has no fingerprint.
    ///
    /// # Errors
    /// [`Error::Tantivy`](crate::Error::Tantivy) when the index cannot be read.
    pub fn near_duplicates_of(
        &self,
        searcher: &Searcher,
        address: DocAddress,
        k: u32,
    ) -> Result<Vec<NearDuplicate>> {
        let Some(fingerprint) = fingerprint_at(searcher, address)? else {
            return Ok(Vec::new());
        };
        let signature = self.signature_at(searcher, address)?;
        let scope = match self.settings().get_scope_field() {
            Some(_) => Some(scope_at(searcher, address)?),
            None => None,
        };
        let probe = Probe::Document { address, scope };
        self.near_fingerprint(searcher, (fingerprint, signature), k, probe)
    }

    fn signature_at(&self, searcher: &Searcher, address: DocAddress) -> Result<Option<Signature>> {
        match self.settings().get_verification() {
            Some(verification) => signature_at(searcher, address, verification.get_hashes()),
            None => Ok(None),
        }
    }

    fn near_fingerprint(
        &self,
        searcher: &Searcher,
        (probe, signature): (Fingerprint, Option<Signature>),
        k: u32,
        of: Probe,
    ) -> Result<Vec<NearDuplicate>> {
        let matcher = self.matcher(k);
        let mut found = Vec::new();
        for doc in stored_fingerprints(searcher, self.settings())? {
            let distance = doc.fingerprint.distance(probe);
            if distance > matcher.reach() {
                continue;
            }
            if let Probe::Document { address, scope } = of {
                let other_scope = scope.is_some_and(|scope| scope != doc.scope);
                if doc.address == address || other_scope {
                    continue;
                }
            }
            // Signatures are read for the candidates only.
            let theirs = if matcher.verifies() {
                self.signature_at(searcher, doc.address)?
            } else {
                None
            };
            let judged = matcher.judge(
                distance,
                signature.as_ref().map(Signature::values),
                theirs.as_ref().map(Signature::values),
            );
            if let Some(near) = judged {
                found.push(NearDuplicate {
                    address: doc.address,
                    fingerprint: doc.fingerprint,
                    distance,
                    similarity: near.similarity,
                });
            }
        }
        found.sort_by_key(|near| (near.distance, near.address));
        Ok(found)
    }

    /// Every group of two or more near-duplicates among the alive documents of `searcher`,
    /// by the writer's rule: documents are taken in the order the writer added them
    /// ([`SEQUENCE_FIELD`](super::SEQUENCE_FIELD); documents added without it come last, in
    /// index order); a document within `k` bits of an earlier leader joins the nearest such leader (the
    /// earliest among equals), and any other becomes a leader. Documents without a
    /// fingerprint belong to no group. The pairs within `k` are found in parallel (rayon).
    ///
    /// On an index written with [`Policy::Reject`](super::Policy::Reject) there are no
    /// groups; with [`Policy::Flag`](super::Policy::Flag) the groups are the originals and
    /// the documents flagged against them (unless documents were deleted since, or another
    /// distance is asked for).
    ///
    /// # Errors
    /// [`Error::Tantivy`](crate::Error::Tantivy) when the index cannot be read.
    pub fn duplicate_groups(&self, searcher: &Searcher, k: u32) -> Result<Vec<DuplicateGroup>> {
        let docs = stored_fingerprints(searcher, self.settings())?;
        let signatures = stored_signatures(searcher, &docs, self.settings())?;
        let matcher = self.matcher(k);
        // Documents of two scopes are never near-duplicates (all share one without scopes).
        let matches = |a: u32, b: u32, distance: u32| {
            docs[a as usize].scope == docs[b as usize].scope
                && matcher
                    .judge(distance, signatures.get(a), signatures.get(b))
                    .is_some()
        };
        let pairs = candidate_pairs(&docs, &signatures, &matcher)?;
        Ok(leader_groups(docs.len(), pairs, matches)
            .into_iter()
            .map(|(leader, members)| DuplicateGroup {
                leader: docs[leader].address,
                members: members.into_iter().map(|i| docs[i].address).collect(),
            })
            .collect())
    }
}

/// The pairs of `docs` (by position) that `matcher` may judge near-duplicates: those within
/// its reach, or, when its candidates come from bands, those within its distance and those
/// within its reach that share a band. Each pair once, `a < b`.
fn candidate_pairs(
    docs: &[StoredFingerprint],
    signatures: &SignatureTable,
    matcher: &Matcher,
) -> Result<Vec<Pair>> {
    let table_distance = matcher.table_distance();
    let lookup = LookupOptions::new()
        .max_distance(table_distance.min(MAX_TABLE_DISTANCE))
        .build_from(
            docs.iter()
                .enumerate()
                .map(|(i, doc)| (i as u32, doc.fingerprint)),
        )?;
    let mut pairs = lookup.all_pairs(table_distance);
    if let Some((bands, rows)) = matcher.bands() {
        let index = signatures.band_index(bands, rows)?;
        let distance = |a: u32, b: u32| {
            docs[a as usize]
                .fingerprint
                .distance(docs[b as usize].fingerprint)
        };
        // Near-identical documents share every band, and the tables paired them already.
        let beyond = |a, b| (table_distance + 1..=matcher.reach()).contains(&distance(a, b));
        for (a, b) in index.pairs_where(beyond) {
            pairs.push(Pair {
                a,
                b,
                distance: distance(a, b),
            });
        }
    }
    Ok(pairs)
}

/// Leader clustering of `len` documents (in their order): the `pairs` for which
/// `matches(a, b, distance)` holds are near-duplicates. `(leader, members)` by position, for
/// leaders with members.
fn leader_groups(
    len: usize,
    pairs: Vec<Pair>,
    matches: impl Fn(u32, u32, u32) -> bool,
) -> Vec<(usize, Vec<usize>)> {
    // For each document, its nearest earlier neighbour of each distance comes first.
    let mut earlier: Vec<Vec<(u32, u32)>> = vec![Vec::new(); len];
    for pair in pairs {
        if matches(pair.a, pair.b, pair.distance) {
            earlier[pair.b as usize].push((pair.distance, pair.a));
        }
    }
    let mut leader_of: Vec<Option<usize>> = vec![None; len];
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); len];
    for (i, neighbours) in earlier.iter_mut().enumerate() {
        neighbours.sort_unstable();
        let leader = neighbours
            .iter()
            .map(|&(_, a)| a as usize)
            .find(|&a| leader_of[a] == Some(a));
        match leader {
            Some(leader) => {
                leader_of[i] = Some(leader);
                members[leader].push(i);
            }
            None => leader_of[i] = Some(i),
        }
    }
    members
        .into_iter()
        .enumerate()
        .filter(|(_, members)| !members.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Leader groups of `fingerprints`, every pair within `k` matching.
    fn groups(fingerprints: &[u64], k: u32) -> Vec<(usize, Vec<usize>)> {
        let docs: Vec<StoredFingerprint> = fingerprints
            .iter()
            .enumerate()
            .map(|(i, &fp)| StoredFingerprint {
                address: DocAddress::new(0, i as u32),
                fingerprint: Fingerprint(fp),
                key_hash: 0,
                flagged: false,
                scope: None,
                sequence: i as u64,
            })
            .collect();
        let matcher = Matcher::new(k, None);
        let pairs = candidate_pairs(&docs, &SignatureTable::new(0), &matcher).unwrap();
        leader_groups(docs.len(), pairs, |_, _, _| true)
    }

    #[test]
    fn a_chain_is_cut_where_the_writer_would_cut_it() {
        // 0 ~ 1 (2 bits), 1 ~ 2 (2 bits), 0 !~ 2 (4 bits): 2 starts a group of its own,
        // as the writer would have kept it after rejecting 1.
        let groups = groups(&[0b0000, 0b0011, 0b1111, 0b1110], 2);
        assert_eq!(groups, [(0, vec![1]), (2, vec![3])]);
    }

    #[test]
    fn a_document_joins_its_nearest_leader() {
        // 2 is 1 bit from leader 1 and 2 bits from leader 0.
        let groups = groups(&[0b0000_0000, 0b1110_0000, 0b1100_0000], 2);
        assert_eq!(groups, [(1, vec![2])]);
    }
}
