//! Batch work over an existing index: the near-duplicates of one text or document, and every
//! group of near-duplicates, by the rule [`DedupWriter`](super::DedupWriter) applies.

use std::collections::HashMap;

use serde::Serialize;
use tantivy::{DocAddress, Searcher};

use crate::error::Result;
use crate::fingerprint::{is_empty_set, Fingerprint, Signature};
use crate::lookup::{BandIndex, FingerprintIndex, LookupOptions, Match, MAX_TABLE_DISTANCE};
use crate::matching::{find_candidates, Matcher};
use crate::plugin::columns::stored::{
    fingerprint_at, scope_at, segment_signatures, signature_at, stored_fingerprints,
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
    /// index order); a document within `k` bits of an earlier leader (or verified near it)
    /// joins the nearest such leader (the earliest among equals), and any other becomes a
    /// leader. Documents without a fingerprint belong to no group.
    ///
    /// Each document is looked up among the leaders so far, as the writer looks up what it
    /// kept: memory is linear in the documents (under 1 KiB each, whatever the number of
    /// near pairs; signatures are read from the index as pairs need them), and time is one
    /// lookup a document.
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
        let hashes = self
            .settings()
            .get_verification()
            .map_or(0, |verification| verification.get_hashes());
        let signatures = if hashes == 0 {
            Vec::new()
        } else {
            (searcher.segment_readers().iter())
                .map(|reader| segment_signatures(reader, hashes))
                .collect::<Result<Vec<_>>>()?
        };
        let mut read = |at: usize, buffer: &mut Vec<u32>| -> Result<bool> {
            let address = docs[at].address;
            match signatures.get(address.segment_ord as usize) {
                Some(segment) => segment.read(address.doc_id, hashes, buffer),
                None => Ok(false),
            }
        };
        let matcher = self.matcher(k);
        let scopes: Vec<Option<u64>> = docs.iter().map(|doc| doc.scope).collect();
        let fingerprints: Vec<Fingerprint> = docs.iter().map(|doc| doc.fingerprint).collect();
        Ok(leader_groups(&fingerprints, &scopes, &mut read, &matcher)?
            .into_iter()
            .map(|(leader, members)| DuplicateGroup {
                leader: docs[leader].address,
                members: members.into_iter().map(|i| docs[i].address).collect(),
            })
            .collect())
    }

    /// The alive documents of `searcher` that have a fingerprint and no signature although
    /// the index verifies, in index order: documents an `IndexWriter` added without
    /// [`fill_document`](Self::fill_document) (or with the fingerprint alone). Searches and
    /// the writer judge them by their fingerprints alone
    /// ([`DedupTopDocs::unverified`](crate::plugin::DedupTopDocs::unverified) counts them
    /// in a page); to mend them, delete each and add its text again through a
    /// [`DedupWriter`](crate::plugin::DedupWriter) or `fill_document`. Empty for an index
    /// without verification.
    ///
    /// # Errors
    /// [`Error::Tantivy`](crate::Error::Tantivy) when the index cannot be read;
    /// [`Error::Decode`](crate::Error::Decode) for a signature of another length.
    pub fn unsigned_documents(&self, searcher: &Searcher) -> Result<Vec<DocAddress>> {
        let Some(verification) = self.settings().get_verification() else {
            return Ok(Vec::new());
        };
        let hashes = verification.get_hashes();
        let signatures = (searcher.segment_readers().iter())
            .map(|reader| segment_signatures(reader, hashes))
            .collect::<Result<Vec<_>>>()?;
        let mut buffer = Vec::with_capacity(hashes);
        let mut unsigned = Vec::new();
        for doc in stored_fingerprints(searcher, self.settings())? {
            let address = doc.address;
            if !signatures[address.segment_ord as usize].read(
                address.doc_id,
                hashes,
                &mut buffer,
            )? {
                unsigned.push(address);
            }
        }
        unsigned.sort_unstable();
        Ok(unsigned)
    }
}

/// Leader clustering of documents in their order, by `matcher`: a document that is a
/// near-duplicate of an earlier leader of its scope joins the nearest such leader (the
/// earliest among equals), and any other becomes a leader, as the writer keeps or rejects
/// them. `read(at, buffer)` reads the signature of the document at `at` into `buffer` (false
/// when it has none). `(leader, members)` by position, for leaders with members.
///
/// Each document is looked up among the leaders only, in block tables and band tables that
/// grow as leaders come: memory is linear in the documents (their fingerprints and scopes,
/// the leaders' table entries, the members' positions), whatever the number of near pairs
/// (20,000 copies of one page make one leader and one lookup hit a copy, where a list of
/// pairs would hold 200 million).
fn leader_groups(
    fingerprints: &[Fingerprint],
    scopes: &[Option<u64>],
    read: &mut dyn FnMut(usize, &mut Vec<u32>) -> Result<bool>,
    matcher: &Matcher,
) -> Result<Vec<(usize, Vec<usize>)>> {
    let table_distance = matcher.table_distance();
    let mut leaders = FingerprintIndex::with_options(
        LookupOptions::new().max_distance(table_distance.min(MAX_TABLE_DISTANCE)),
    )?;
    let mut bands = match matcher.bands() {
        Some((bands, rows)) => Some(BandIndex::new(bands, rows)?),
        None => None,
    };
    let mut members: Vec<(usize, Vec<usize>)> = Vec::new();
    // A leader's place in `members`, by position.
    let mut group_of: HashMap<usize, usize> = HashMap::new();
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    let mut found: Vec<Match> = Vec::new();
    let mut band_hits: Vec<u32> = Vec::new();
    for (at, &fingerprint) in fingerprints.iter().enumerate() {
        let has_signature = matcher.verifies() && read(at, &mut ours)?;
        let signature = has_signature.then_some(ours.as_slice());
        find_candidates(
            (&leaders, bands.as_ref()),
            (fingerprint, signature),
            |id| fingerprints[id as usize],
            matcher,
            (&mut band_hits, &mut found),
        );
        let mut leader = None;
        for candidate in &found {
            let other = candidate.id as usize;
            if scopes[other] != scopes[at] {
                continue;
            }
            let their_signature = if matcher.needs_signatures(candidate.distance) {
                read(other, &mut theirs)?.then_some(theirs.as_slice())
            } else {
                None
            };
            if matcher
                .judge(candidate.distance, signature, their_signature)
                .is_some()
            {
                leader = Some(other);
                break;
            }
        }
        match leader {
            Some(leader) => {
                let group = *group_of.entry(leader).or_insert_with(|| {
                    members.push((leader, Vec::new()));
                    members.len() - 1
                });
                members[group].1.push(at);
            }
            None => {
                let id = u32::try_from(at).expect("document positions fit in u32");
                leaders.insert(id, fingerprint);
                if let (Some(bands), Some(signature)) = (&mut bands, signature) {
                    if !is_empty_set(signature) {
                        bands.insert(id, signature);
                    }
                }
            }
        }
    }
    members.sort_unstable_by_key(|(leader, _)| *leader);
    Ok(members)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Leader groups of `fingerprints`, every pair within `k` matching.
    fn groups(fingerprints: &[u64], k: u32) -> Vec<(usize, Vec<usize>)> {
        let fingerprints: Vec<Fingerprint> =
            fingerprints.iter().map(|&fp| Fingerprint(fp)).collect();
        let scopes = vec![None; fingerprints.len()];
        let matcher = Matcher::new(k, None);
        leader_groups(&fingerprints, &scopes, &mut |_, _| Ok(false), &matcher).unwrap()
    }

    #[test]
    fn a_chain_is_cut_where_the_writer_would_cut_it() {
        // 0 ~ 1 (2 bits), 1 ~ 2 (2 bits), 0 !~ 2 (4 bits): 2 starts a group of its own,
        // as the writer would have kept it after rejecting 1.
        let groups = groups(&[0b0000, 0b0011, 0b1111, 0b1110], 2);
        assert_eq!(groups, [(0, vec![1]), (2, vec![3])]);
    }

    /// The reference: every earlier leader judged by the rule, the nearest (then the
    /// earliest) taken.
    fn brute_force(
        fingerprints: &[Fingerprint],
        scopes: &[Option<u64>],
        signatures: &[Vec<u32>],
        matcher: &Matcher,
    ) -> Vec<(usize, Vec<usize>)> {
        let mut leaders: Vec<usize> = Vec::new();
        let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
        for at in 0..fingerprints.len() {
            let nearest = leaders
                .iter()
                .filter(|&&leader| scopes[leader] == scopes[at])
                .map(|&leader| (fingerprints[leader].distance(fingerprints[at]), leader))
                .filter(|&(distance, leader)| {
                    let (ours, theirs) = (&signatures[at], &signatures[leader]);
                    matcher.judge(distance, Some(ours), Some(theirs)).is_some()
                })
                .min();
            match nearest {
                Some((_, leader)) => match groups.iter_mut().find(|(l, _)| *l == leader) {
                    Some((_, members)) => members.push(at),
                    None => groups.push((leader, vec![at])),
                },
                None => leaders.push(at),
            }
        }
        groups.sort_unstable();
        groups
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        /// The lookup among leaders (block tables within the distance, band tables beyond)
        /// finds the leader the brute force finds, on clustered fingerprints and signatures.
        #[test]
        fn leader_lookup_matches_the_brute_force(
            docs in proptest::collection::vec(
                (0usize..4, any_bits(), 0u8..3, proptest::collection::vec(0u32..3, 8)),
                1..80,
            ),
            k in 0u32..5,
            candidate_distance in 5u32..24,
            threshold in 0.2f64..0.9,
            bands in proptest::bool::ANY,
        ) {
            let centers = [0u64, u64::MAX, 0x0F0F_0F0F_0F0F_0F0F, 0x1234_5678_9ABC_DEF0];
            let fingerprints: Vec<Fingerprint> = docs
                .iter()
                .map(|&(center, flips, _, _)| Fingerprint(centers[center] ^ flips))
                .collect();
            let scopes: Vec<Option<u64>> =
                docs.iter().map(|&(_, _, scope, _)| (scope > 0).then_some(u64::from(scope))).collect();
            let signatures: Vec<Vec<u32>> = docs.iter().map(|(_, _, _, s)| s.clone()).collect();
            let verification = crate::matching::Verification::default()
                .hashes(8)
                .candidate_distance(candidate_distance)
                .threshold(threshold)
                .candidates(if bands {
                    crate::matching::CandidateStage::Bands { rows: 2 }
                } else {
                    crate::matching::CandidateStage::Scan
                });
            let matcher = Matcher::new(k, Some(&verification));
            let mut read = |at: usize, buffer: &mut Vec<u32>| {
                buffer.clear();
                buffer.extend_from_slice(&signatures[at]);
                Ok(true)
            };
            let got = leader_groups(&fingerprints, &scopes, &mut read, &matcher).unwrap();
            let expected = brute_force(&fingerprints, &scopes, &signatures, &matcher);
            proptest::prop_assert_eq!(got, expected);
        }
    }

    /// A few bits flipped, most of the time; any bits now and then.
    fn any_bits() -> impl proptest::strategy::Strategy<Value = u64> {
        use proptest::prelude::*;
        prop_oneof![
            4 => proptest::collection::vec(0u32..64, 0..14)
                .prop_map(|bits| bits.into_iter().fold(0u64, |acc, bit| acc ^ (1 << bit))),
            1 => any::<u64>(),
        ]
    }

    #[test]
    fn a_document_joins_its_nearest_leader() {
        // 2 is 1 bit from leader 1 and 2 bits from leader 0.
        let groups = groups(&[0b0000_0000, 0b1110_0000, 0b1100_0000], 2);
        assert_eq!(groups, [(1, vec![2])]);
    }
}
