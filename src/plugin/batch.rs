//! Batch work over an existing index: the near-duplicates of one text or document, by the
//! rule [`DedupWriter`](super::DedupWriter) applies, and every group of near-duplicates, by
//! the near pairs ([`crate::grouping`]).

use std::collections::HashMap;

use serde::Serialize;
use tantivy::{DocAddress, Searcher};

use crate::error::Result;
use crate::fingerprint::{is_empty_set, Fingerprint, Signature};
use crate::grouping::{group_classes, Class, Grouping};
use crate::lookup::{BandIndex, FingerprintIndex, LookupOptions, MAX_TABLE_DISTANCE};
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
    /// The [verification](crate::matching::Verification)'s score of the pair, when the index
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

/// A group of near-duplicates, as [`DedupIndex::duplicate_groups`] forms it: a leader and
/// the documents near it that joined it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DuplicateGroup {
    /// The document the others are near: of the group's documents, the one near the most
    /// documents, and the nearest ([`crate::grouping`] weighs them); not necessarily the
    /// first added, nor the one the writer kept.
    pub leader: DocAddress,
    /// The others, in add order.
    pub members: Vec<DocAddress>,
}

impl DedupIndex {
    /// Every alive document of `searcher` within `k` bits of `text`'s fingerprint, nearest
    /// first (then in add order); empty when the text has no features. A popcount scan of
    /// the fingerprint columns. With a
    /// [verification](crate::matching::Verification), also those within its candidate distance whose
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
        match self.settings().get_matching().get_verification() {
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
    /// formed from all the near pairs (within `k` bits, or verified near, in one scope),
    /// whatever order the documents were added in (see [`crate::grouping`]): the document
    /// near the most others, and the nearest, leads, and each other joins the nearest
    /// leader it may join, or leads. Under a rule whose signatures decide at a threshold of
    /// [`STARS_BELOW_THRESHOLD`](crate::grouping::STARS_BELOW_THRESHOLD) or more (the
    /// `news` preset), or by fingerprints alone, a document joins a group only when it is
    /// near every document of it ([`Grouping::Centres`]): every two documents of a group
    /// are near. Below (the `rewrites` preset), near the leader is enough
    /// ([`Grouping::Stars`]): a source leads the texts derived from it, which are seldom
    /// near each other. Exact copies (same scope, fingerprint and signature) are judged
    /// once. Groups come by their leader's place in the writer's add order
    /// ([`SEQUENCE_FIELD`](super::SEQUENCE_FIELD); documents added without it come last,
    /// in index order), members in that order. Documents without a fingerprint belong to
    /// no group.
    ///
    /// The groups are not the writer's decisions: the writer decides in arrival order, so
    /// a document flagged against an earlier one may be grouped with another, or with none
    /// (near two documents that are apart), and on an index written with
    /// [`Policy::Reject`](super::Policy::Reject) documents the writer kept may still be
    /// near.
    ///
    /// Memory is linear in the documents (under 1 KiB each, whatever the number of near
    /// pairs: the pairs are weighed as they are found, never held; signatures are read
    /// from the index as pairs need them); time is two lookups of each class of copies
    /// among all of them, and grows with the near pairs.
    ///
    /// # Errors
    /// [`Error::Tantivy`](crate::Error::Tantivy) when the index cannot be read.
    pub fn duplicate_groups(&self, searcher: &Searcher, k: u32) -> Result<Vec<DuplicateGroup>> {
        let grouping = Grouping::for_threshold(self.matcher(k).threshold());
        self.duplicate_groups_by(searcher, k, grouping)
    }

    /// [`duplicate_groups`](Self::duplicate_groups) by another [`Grouping`] (the connected
    /// components of the near pairs, as other tools give them).
    ///
    /// # Errors
    /// As [`duplicate_groups`](Self::duplicate_groups).
    pub fn duplicate_groups_by(
        &self,
        searcher: &Searcher,
        k: u32,
        grouping: Grouping,
    ) -> Result<Vec<DuplicateGroup>> {
        let docs = stored_fingerprints(searcher, self.settings())?;
        let hashes = self
            .settings()
            .get_matching()
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
        Ok(
            grouped(&fingerprints, &scopes, &mut read, &matcher, grouping)?
                .into_iter()
                .map(|(leader, members)| DuplicateGroup {
                    leader: docs[leader].address,
                    members: members.into_iter().map(|i| docs[i].address).collect(),
                })
                .collect(),
        )
    }

    /// The alive documents of `searcher` that have a fingerprint and no signature although
    /// the index verifies, in index order: in an index of settings format 9 or earlier,
    /// documents an `IndexWriter` added without [`fill_document`](Self::fill_document) (or
    /// with the fingerprint alone); later indexes' segment plugin signs every document. Searches and
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
        let Some(verification) = self.settings().get_matching().get_verification() else {
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

/// The groups of the documents by `grouping`, by position: `(leader, members)` for groups of
/// two or more, members in order, groups by leader. Exact copies (same scope, fingerprint,
/// and signature or none) make one class, whose first document stands for it; the near
/// pairs of classes are found by `matcher` in block tables and band tables of the classes
/// (each class asked for twice, as [`group_classes`] asks), and never held. `read(at,
/// buffer)` reads the signature of the document at `at` into `buffer` (false when it has
/// none).
fn grouped(
    fingerprints: &[Fingerprint],
    scopes: &[Option<u64>],
    read: &mut dyn FnMut(usize, &mut Vec<u32>) -> Result<bool>,
    matcher: &Matcher,
    grouping: Grouping,
) -> Result<Vec<(usize, Vec<usize>)>> {
    let (firsts, class_of) = copy_classes(fingerprints, scopes, read, matcher)?;
    let mut lookup = FingerprintIndex::with_options(
        LookupOptions::new().max_distance(matcher.table_distance().min(MAX_TABLE_DISTANCE)),
    )?;
    let mut bands = match matcher.bands() {
        Some((bands, rows)) => Some(BandIndex::new(bands, rows)?),
        None => None,
    };
    let mut ours = Vec::new();
    for (c, &first) in firsts.iter().enumerate() {
        let id = u32::try_from(c).expect("document positions fit in u32");
        lookup.insert(id, fingerprints[first]);
        if let Some(bands) = &mut bands {
            if matcher.verifies() && read(first, &mut ours)? && !is_empty_set(&ours) {
                bands.insert(id, &ours);
            }
        }
    }
    let mut sizes = vec![0u32; firsts.len()];
    for &c in &class_of {
        sizes[c as usize] += 1;
    }
    let classes: Vec<Class> = (firsts.iter().zip(&sizes))
        .map(|(&first, &size)| Class {
            size,
            fingerprint: fingerprints[first].0,
        })
        .collect();
    let (mut theirs, mut found, mut band_hits) = (Vec::new(), Vec::new(), Vec::new());
    let near = |c: usize, out: &mut Vec<(usize, u32)>| -> Result<()> {
        let first = firsts[c];
        let has_signature = matcher.verifies() && read(first, &mut ours)?;
        let signature = has_signature.then_some(ours.as_slice());
        find_candidates(
            (&lookup, bands.as_ref()),
            (fingerprints[first], signature),
            |id| fingerprints[firsts[id as usize]],
            matcher,
            (&mut band_hits, &mut found),
        );
        for candidate in &found {
            let other = candidate.id as usize;
            if other == c || scopes[firsts[other]] != scopes[first] {
                continue;
            }
            let their_signature = if matcher.needs_signatures(candidate.distance) {
                read(firsts[other], &mut theirs)?.then_some(theirs.as_slice())
            } else {
                None
            };
            if (matcher.judge(candidate.distance, signature, their_signature)).is_some() {
                out.push((other, candidate.distance));
            }
        }
        Ok(())
    };
    let leaders = group_classes(&classes, grouping, near)?;
    // A group by its leading class, in the order of the documents.
    let mut group_of: HashMap<usize, usize> = HashMap::new();
    let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
    for (at, &c) in class_of.iter().enumerate() {
        let leader = leaders[c as usize];
        let g = *group_of.entry(leader).or_insert_with(|| {
            groups.push((firsts[leader], Vec::new()));
            groups.len() - 1
        });
        if at != firsts[leader] {
            groups[g].1.push(at);
        }
    }
    groups.retain(|(_, members)| !members.is_empty());
    groups.sort_unstable_by_key(|(leader, _)| *leader);
    Ok(groups)
}

/// The classes of exact copies among the documents, by position: the first document of
/// each class in order, and each document's class. Copies share their scope, fingerprint,
/// and signature (or have none, or the matcher reads none); signatures are compared by a
/// hash, and a hash met twice is checked against the class's first, so memory is a few
/// words a document.
fn copy_classes(
    fingerprints: &[Fingerprint],
    scopes: &[Option<u64>],
    read: &mut dyn FnMut(usize, &mut Vec<u32>) -> Result<bool>,
    matcher: &Matcher,
) -> Result<(Vec<usize>, Vec<u32>)> {
    type Key = (Option<u64>, u64, Option<u64>);
    let mut classes_of: HashMap<Key, Vec<u32>> = HashMap::new();
    let mut firsts: Vec<usize> = Vec::new();
    let mut class_of: Vec<u32> = Vec::with_capacity(fingerprints.len());
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for at in 0..fingerprints.len() {
        let has_signature = matcher.verifies() && read(at, &mut ours)?;
        let hash = has_signature.then(|| signature_hash(&ours));
        let candidates = classes_of
            .entry((scopes[at], fingerprints[at].0, hash))
            .or_default();
        let mut class = None;
        for &c in candidates.iter() {
            // Equal hashes: the signatures are compared, in case they only collide.
            if !has_signature || (read(firsts[c as usize], &mut theirs)? && theirs == ours) {
                class = Some(c);
                break;
            }
        }
        let class = match class {
            Some(class) => class,
            None => {
                let class = u32::try_from(firsts.len()).expect("document positions fit in u32");
                firsts.push(at);
                candidates.push(class);
                class
            }
        };
        class_of.push(class);
    }
    Ok((firsts, class_of))
}

/// A 64-bit hash of a signature's values.
fn signature_hash(values: &[u32]) -> u64 {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    xxhash_rust::xxh3::xxh3_64(&bytes)
}

#[cfg(test)]
mod tests {
    use std::cmp::Reverse;
    use std::collections::BTreeSet;

    use super::*;

    /// Groups of `fingerprints` by the lookups, every pair within `k` matching.
    fn groups(fingerprints: &[u64], k: u32, grouping: Grouping) -> Vec<(usize, Vec<usize>)> {
        let fingerprints: Vec<Fingerprint> =
            fingerprints.iter().map(|&fp| Fingerprint(fp)).collect();
        let scopes = vec![None; fingerprints.len()];
        let matcher = Matcher::new(k, None);
        grouped(
            &fingerprints,
            &scopes,
            &mut |_, _| Ok(false),
            &matcher,
            grouping,
        )
        .unwrap()
    }

    #[test]
    fn a_chain_is_cut_by_centres_and_stars_and_kept_whole_by_components() {
        // 0 ~ 1 ~ 2 ~ 3 (2 bits each), 0 !~ 2, 1 !~ 3: 1 and 2 weigh the most, 1 has the
        // lesser fingerprint and leads.
        let chain = [0b0011_0000, 0b0000_0000, 0b0000_0011, 0b0000_1111];
        // 2 joins 1; 0 is apart from 2, 3 near no leader.
        assert_eq!(groups(&chain, 2, Grouping::Centres), [(1, vec![2])]);
        assert_eq!(groups(&chain, 2, Grouping::Stars), [(1, vec![0, 2])]);
        assert_eq!(
            groups(&chain, 2, Grouping::Components),
            [(1, vec![0, 2, 3])]
        );
    }

    #[test]
    fn a_source_after_its_copies_leads_them() {
        // The copies (1 or 2 bits from the source, 3 or 4 from each other) come first.
        let source = 0u64;
        let copies = [0b1, 0b110, 0b1_1000, 0b110_0000];
        let mut docs = copies.to_vec();
        docs.push(source);
        assert_eq!(groups(&docs, 2, Grouping::Stars), [(4, vec![0, 1, 2, 3])]);
        // Under centres, the nearest copy only: the others are apart from it.
        assert_eq!(groups(&docs, 2, Grouping::Centres), [(4, vec![0])]);
    }

    #[test]
    fn exact_copies_are_one_group_led_by_the_first() {
        let docs = [7u64, 7, 7, 7 ^ 0b1000, 7];
        assert_eq!(groups(&docs, 0, Grouping::Centres), [(0, vec![1, 2, 4])]);
        // The copies outweigh the other: they share all 64 bits with each other.
        assert_eq!(groups(&docs, 1, Grouping::Centres), [(0, vec![1, 2, 3, 4])]);
    }

    /// The reference: every pair of documents judged by the rule, exact copies made one
    /// class, then the classes grouped as `crate::grouping` says, all by brute force.
    fn brute_force(
        fingerprints: &[Fingerprint],
        scopes: &[Option<u64>],
        signatures: &[Option<Vec<u32>>],
        matcher: &Matcher,
        grouping: Grouping,
    ) -> Vec<(usize, Vec<usize>)> {
        let n = fingerprints.len();
        let mut firsts: Vec<usize> = Vec::new();
        let mut class_of = Vec::new();
        for at in 0..n {
            let same = |other: usize| {
                (scopes[other], fingerprints[other], &signatures[other])
                    == (scopes[at], fingerprints[at], &signatures[at])
            };
            match firsts.iter().position(|&first| same(first)) {
                Some(c) => class_of.push(c),
                None => {
                    class_of.push(firsts.len());
                    firsts.push(at);
                }
            }
        }
        let classes = firsts.len();
        let size = |c: usize| class_of.iter().filter(|&&of| of == c).count() as u64;
        let near = |c: usize, d: usize| -> Option<u32> {
            let (a, b) = (firsts[c], firsts[d]);
            let distance = fingerprints[a].distance(fingerprints[b]);
            let judged =
                matcher.judge(distance, signatures[a].as_deref(), signatures[b].as_deref());
            (c != d && scopes[a] == scopes[b] && judged.is_some()).then_some(distance)
        };
        // What the documents near a class weigh: the bits they share with it.
        let weight = |c: usize| {
            64 * (size(c) - 1)
                + (0..classes)
                    .filter_map(|d| near(c, d).map(|distance| size(d) * u64::from(64 - distance)))
                    .sum::<u64>()
        };
        let mut order: Vec<usize> = (0..classes).collect();
        order.sort_by_key(|&c| (Reverse(weight(c)), fingerprints[firsts[c]].0, c));
        let mut leaders = vec![usize::MAX; classes];
        match grouping {
            Grouping::Centres | Grouping::Stars => {
                for (r, &c) in order.iter().enumerate() {
                    // Under centres, near every class of the group so far.
                    let joins = |d: usize| {
                        grouping == Grouping::Stars
                            || (0..classes).all(|e| leaders[e] != d || near(c, e).is_some())
                    };
                    let nearest = order[..r]
                        .iter()
                        .enumerate()
                        .filter(|&(_, &d)| leaders[d] == d && joins(d))
                        .filter_map(|(rank, &d)| near(c, d).map(|distance| (distance, rank, d)))
                        .min();
                    leaders[c] = nearest.map_or(c, |(_, _, d)| d);
                }
            }
            Grouping::Components => {
                for &c in &order {
                    if leaders[c] != usize::MAX {
                        continue;
                    }
                    let mut stack = vec![c];
                    leaders[c] = c;
                    while let Some(x) = stack.pop() {
                        let joining: Vec<usize> = (0..classes)
                            .filter(|&y| leaders[y] == usize::MAX && near(x, y).is_some())
                            .collect();
                        for y in joining {
                            leaders[y] = c;
                            stack.push(y);
                        }
                    }
                }
            }
        }
        let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
        for c in 0..classes {
            if leaders[c] == c {
                let lead = firsts[c];
                let members: Vec<usize> = (0..n)
                    .filter(|&at| at != lead && leaders[class_of[at]] == c)
                    .collect();
                if !members.is_empty() {
                    groups.push((lead, members));
                }
            }
        }
        groups.sort_unstable();
        groups
    }

    /// Documents by position: fingerprints, scopes and signatures.
    type Docs = (Vec<Fingerprint>, Vec<Option<u64>>, Vec<Option<Vec<u32>>>);

    /// Documents of every shape the rule meets: clustered around a few centres, chains one
    /// bit a step (within `k`, a chain of any length), random bits, and exact copies of
    /// earlier documents; a scope and a signature each (none now and then).
    fn documents() -> impl proptest::strategy::Strategy<Value = Docs> {
        use proptest::prelude::*;
        let centres = [0u64, u64::MAX, 0x0F0F_0F0F_0F0F_0F0F, 0x1234_5678_9ABC_DEF0];
        let doc = (
            0u8..4,
            0usize..64,
            any_bits(),
            0u8..3,
            proptest::option::weighted(0.9, proptest::collection::vec(0u32..3, 8)),
        );
        proptest::collection::vec(doc, 1..80).prop_map(move |docs| {
            let (mut fingerprints, mut scopes, mut signatures) =
                (Vec::new(), Vec::new(), Vec::new());
            for (at, (kind, param, bits, scope, signature)) in docs.into_iter().enumerate() {
                if kind == 3 && at > 0 {
                    // An exact copy of an earlier document.
                    let of = param % at;
                    fingerprints.push(fingerprints[of]);
                    scopes.push(scopes[of]);
                    signatures.push(Clone::clone(&signatures[of]));
                    continue;
                }
                let fingerprint = match kind {
                    0 => centres[param % 4] ^ bits,
                    // A chain: the lowest `param` bits set.
                    1 => u64::MAX.checked_shr(64 - param as u32).unwrap_or(0),
                    _ => bits.rotate_left(param as u32) ^ 0xAAAA_0000_5555,
                };
                fingerprints.push(Fingerprint(fingerprint));
                scopes.push((scope > 0).then_some(u64::from(scope)));
                signatures.push(signature);
            }
            (fingerprints, scopes, signatures)
        })
    }

    /// A matcher within `k`, verifying with 8 values (bands of 2, or a scan).
    fn matcher(k: u32, candidate_distance: u32, threshold: f64, bands: bool) -> Matcher {
        let verification = crate::matching::Verification::default()
            .hashes(8)
            .candidate_distance(candidate_distance)
            .threshold(threshold)
            .candidates(if bands {
                crate::matching::CandidateStage::Bands { rows: 2 }
            } else {
                crate::matching::CandidateStage::Scan
            });
        Matcher::new(k, Some(&verification))
    }

    fn grouped_by_lookup(
        (fingerprints, scopes, signatures): &Docs,
        matcher: &Matcher,
        grouping: Grouping,
    ) -> Vec<(usize, Vec<usize>)> {
        let mut read = |at: usize, buffer: &mut Vec<u32>| {
            buffer.clear();
            buffer.extend(signatures[at].iter().flatten());
            Ok(signatures[at].is_some())
        };
        grouped(fingerprints, scopes, &mut read, matcher, grouping).unwrap()
    }

    /// The partition of `groups` as sets of what the documents are (`name(position)`).
    fn partition<T: Ord + Clone>(
        groups: &[(usize, Vec<usize>)],
        name: impl Fn(usize) -> T,
    ) -> BTreeSet<BTreeSet<T>> {
        (groups.iter())
            .map(|(leader, members)| {
                std::iter::once(leader)
                    .chain(members)
                    .map(|&at| name(at))
                    .collect()
            })
            .collect()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        /// The lookups (block tables within the distance, band tables beyond, the classes
        /// of copies) find the groups the brute force finds, by both groupings.
        #[test]
        fn groups_match_the_brute_force(
            docs in documents(),
            k in 0u32..5,
            candidate_distance in 5u32..24,
            threshold in 0.2f64..0.9,
            bands in proptest::bool::ANY,
            verify in proptest::bool::ANY,
        ) {
            let matcher = if verify {
                matcher(k, candidate_distance, threshold, bands)
            } else {
                Matcher::new(k, None)
            };
            let signatures: Vec<Option<Vec<u32>>> = if verify {
                docs.2.clone()
            } else {
                vec![None; docs.0.len()]
            };
            let docs = (docs.0, docs.1, signatures);
            for grouping in [Grouping::Centres, Grouping::Stars, Grouping::Components] {
                let got = grouped_by_lookup(&docs, &matcher, grouping);
                let expected = brute_force(&docs.0, &docs.1, &docs.2, &matcher, grouping);
                proptest::prop_assert_eq!(got, expected, "{:?}", grouping);
            }
        }

        /// The same documents in another order make the same groups, when no two
        /// documents that are not copies share a fingerprint (the last tie-break is the
        /// order).
        #[test]
        fn groups_do_not_depend_on_the_order(
            docs in documents(),
            k in 0u32..5,
            keys in proptest::collection::vec(proptest::prelude::any::<u64>(), 80),
        ) {
            // Documents that share a fingerprint, copies or not, are made copies.
            let (fingerprints, scopes, signatures) = docs;
            let mut first_of: HashMap<Fingerprint, usize> = HashMap::new();
            let mut docs = (Vec::new(), Vec::new(), Vec::new());
            for at in 0..fingerprints.len() {
                let of = *first_of.entry(fingerprints[at]).or_insert(at);
                docs.0.push(fingerprints[of]);
                docs.1.push(scopes[of]);
                docs.2.push(signatures[of].clone());
            }
            let mut order: Vec<usize> = (0..docs.0.len()).collect();
            order.sort_by_key(|&i| keys[i]);
            let shuffled = (
                order.iter().map(|&i| docs.0[i]).collect(),
                order.iter().map(|&i| docs.1[i]).collect(),
                order.iter().map(|&i| docs.2[i].clone()).collect(),
            );
            let matcher = matcher(k, 12, 0.5, true);
            for grouping in [Grouping::Centres, Grouping::Stars, Grouping::Components] {
                // A document is named by its place before the shuffle; copies by their
                // first, as nothing else tells them apart.
                let before = grouped_by_lookup(&docs, &matcher, grouping);
                let after = grouped_by_lookup(&shuffled, &matcher, grouping);
                let before = partition(&before, |at| first_of[&docs.0[at]]);
                let after = partition(&after, |at| first_of[&shuffled.0[at]]);
                proptest::prop_assert_eq!(before, after, "{:?}", grouping);
            }
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
}
