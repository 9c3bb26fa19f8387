//! `DedupCollector` against a brute-force reference: every matching document with its score
//! (from `TopDocs` with a limit above the index size), sorted by score (or by a fast field,
//! ascending or descending) then address, walked greedily, cut to the page. And
//! `DedupCollector::dedupe` against the same walk over a list in any order.
//!
//! Indexes are small and in RAM, but have several segments (no merges) and deletes that hit
//! earlier segments, so that segments are cut, collected again and merged in every way;
//! fingerprints are clustered and chained around a few bases, with docs without fingerprint
//! and flagged docs; texts repeat few words, so that scores tie often. Signatures are short
//! (8 values from an alphabet of 3, so that their Jaccard estimates spread over 0 to 1),
//! some missing or of the wrong length, for the collectors that verify.

use proptest::prelude::*;
use tantivy::collector::{Count, TopDocs};
use tantivy::columnar::Column;
use tantivy::indexer::NoMergePolicy;
use tantivy::query::{AllQuery, BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Schema, FAST, INDEXED, TEXT};
use tantivy::{DocAddress, Index, Order, Score, Searcher, TantivyDocument, TantivyError, Term};
use tantivy_dedup::fingerprint::Fingerprint;
use tantivy_dedup::fingerprint::KeptBits;
use tantivy_dedup::matching::{CandidateStage, PairScore, Verification};
use tantivy_dedup::plugin::collector::ColumnCache;
use tantivy_dedup::plugin::{DedupCollector, DedupHit, DedupTopDocs, HiddenHit, SortValue};
use tantivy_dedup::Error;

/// One document to index.
#[derive(Debug, Clone)]
struct Doc {
    /// Occurrences of "alpha" and "beta".
    alpha: usize,
    beta: usize,
    /// Filler words, which change the length and so the BM25 score.
    filler: usize,
    fingerprint: Option<u64>,
    /// `None`: no value in the flag column.
    flag: Option<u64>,
    /// Signature values (`SIGNATURE_VALUES` of them, or a wrong number).
    signature: Option<Vec<u32>>,
    /// The value of the i64 fast field `date`, which collectors may rank by.
    date: Option<i64>,
    /// The value of the u64 fast field `scope`: scoped collectors hide hits only under
    /// shown hits of the same value (or both without one).
    scope: Option<u64>,
}

impl Doc {
    /// A document with a fingerprint and nothing else of the plugin's.
    fn plain(alpha: usize, beta: usize, filler: usize, fingerprint: u64) -> Doc {
        Doc {
            alpha,
            beta,
            filler,
            fingerprint: Some(fingerprint),
            flag: None,
            signature: None,
            date: None,
            scope: None,
        }
    }
}

/// Values per signature of the verifying collectors.
const SIGNATURE_VALUES: usize = 8;

/// An index to build: documents in commit order, the commit boundaries, and which documents
/// a later commit deletes.
#[derive(Debug, Clone)]
struct Corpus {
    docs: Vec<Doc>,
    /// Documents per segment (the last segment takes the rest).
    segment_sizes: Vec<usize>,
    deleted: Vec<bool>,
    /// Signatures in a multi-valued u64 field (as indexes made now keep them), or in a bytes
    /// field of 4 bytes a value (as older ones do).
    u64_signatures: bool,
}

struct Fields {
    body: Field,
    id: Field,
    fingerprint: Field,
    flag: Field,
    signature: Field,
    date: Field,
    scope: Field,
}

fn build(corpus: &Corpus) -> (Index, Fields) {
    let mut schema = Schema::builder();
    let fields = Fields {
        body: schema.add_text_field("body", TEXT),
        id: schema.add_u64_field("id", INDEXED),
        fingerprint: schema.add_u64_field("fingerprint", FAST | INDEXED),
        flag: schema.add_u64_field("flag", FAST),
        signature: if corpus.u64_signatures {
            schema.add_u64_field("signature", FAST)
        } else {
            schema.add_bytes_field("signature", FAST)
        },
        date: schema.add_i64_field("date", FAST),
        scope: schema.add_u64_field("scope", FAST),
    };
    let index = Index::create_in_ram(schema.build());
    let mut writer = index
        .writer_with_num_threads::<TantivyDocument>(1, 15_000_000)
        .unwrap();
    writer.set_merge_policy(Box::new(NoMergePolicy));
    let mut next = 0;
    let mut sizes = corpus.segment_sizes.iter().copied();
    while next < corpus.docs.len() {
        let rest = corpus.docs.len() - next;
        let size = sizes.next().unwrap_or(rest).clamp(1, rest);
        for (id, doc) in corpus.docs.iter().enumerate().skip(next).take(size) {
            let mut words = vec!["alpha"; doc.alpha];
            words.extend(std::iter::repeat_n("beta", doc.beta));
            words.extend(std::iter::repeat_n("filler", doc.filler));
            let mut document = TantivyDocument::default();
            document.add_text(fields.body, words.join(" "));
            document.add_u64(fields.id, id as u64);
            if let Some(fp) = doc.fingerprint {
                document.add_u64(fields.fingerprint, fp);
            }
            if let Some(flag) = doc.flag {
                document.add_u64(fields.flag, flag);
            }
            if let Some(date) = doc.date {
                document.add_i64(fields.date, date);
            }
            if let Some(scope) = doc.scope {
                document.add_u64(fields.scope, scope);
            }
            match &doc.signature {
                Some(values) if corpus.u64_signatures => {
                    for &value in values {
                        document.add_u64(fields.signature, u64::from(value));
                    }
                }
                Some(values) => {
                    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
                    document.add_bytes(fields.signature, &bytes);
                }
                None => {}
            }
            writer.add_document(document).unwrap();
        }
        writer.commit().unwrap();
        next += size;
    }
    for (id, _) in corpus.deleted.iter().enumerate().filter(|(_, &d)| d) {
        writer.delete_term(Term::from_field_u64(fields.id, id as u64));
    }
    writer.commit().unwrap();
    (index, fields)
}

/// The query kinds: one term, constant scores (all ties), a two-term OR. (Two terms: the
/// sum of two scores does not depend on the order block-WAND adds them in.)
fn query(kind: u8, fields: &Fields) -> Box<dyn Query> {
    let term = |word: &str| -> Box<dyn Query> {
        Box::new(TermQuery::new(
            Term::from_field_text(fields.body, word),
            IndexRecordOption::WithFreqs,
        ))
    };
    match kind {
        0 => term("alpha"),
        1 => Box::new(AllQuery),
        2 => Box::new(BooleanQuery::new(vec![
            (Occur::Should, term("alpha")),
            (Occur::Should, term("beta")),
        ])),
        _ => term("filler"),
    }
}

fn column(searcher: &Searcher, segment_ord: u32, name: &str) -> Option<Column<u64>> {
    let reader = searcher.segment_reader(segment_ord);
    reader.fast_fields().column_opt::<u64>(name).unwrap()
}

/// A ranked hit of the reference: score, address, and value in the sort field.
type Ranked = (Score, DocAddress, Option<i64>);

/// The whole ranking: every matching document by score, or by `date` in `settings.sort`
/// (documents without one last), ties by address.
fn ranking(searcher: &Searcher, query: &dyn Query, settings: &Settings) -> Vec<Ranked> {
    let everything = (searcher.num_docs() as usize).max(1);
    let scored: Vec<(Score, DocAddress)> = searcher
        .search(query, &TopDocs::with_limit(everything).order_by_score())
        .unwrap();
    let date = |address: DocAddress| {
        let reader = searcher.segment_reader(address.segment_ord);
        let column = reader.fast_fields().column_opt::<i64>("date").unwrap()?;
        column.first(address.doc_id)
    };
    let mut ranked: Vec<Ranked> = scored
        .into_iter()
        .map(|(score, address)| (score, address, date(address)))
        .collect();
    match settings.sort {
        None => ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1))),
        Some(order) => {
            for hit in &mut ranked {
                hit.0 = 0.0;
            }
            ranked.sort_by(|a, b| {
                let by_value = match (a.2, b.2, order) {
                    (Some(x), Some(y), Order::Desc) => y.cmp(&x),
                    (Some(x), Some(y), Order::Asc) => x.cmp(&y),
                    // Without a value: last in both orders.
                    (x, y, _) => y.is_some().cmp(&x.is_some()),
                };
                by_value.then(a.1.cmp(&b.1))
            });
        }
    }
    ranked
}

/// The reference: the whole ranking, walked greedily, cut to `offset..offset + limit`.
fn reference(searcher: &Searcher, query: &dyn Query, settings: &Settings) -> DedupTopDocs {
    let ranked = ranking(searcher, query, settings);
    let sort_values = settings.sort.is_some();
    walk(searcher, ranked, settings, sort_values)
}

/// The greedy walk down `ranked`, flagged documents left out if `settings` skips them;
/// with `sort_values`, each hit reports its `date`.
fn walk(
    searcher: &Searcher,
    ranked: Vec<Ranked>,
    settings: &Settings,
    sort_values: bool,
) -> DedupTopDocs {
    let value = |address: DocAddress, name| {
        column(searcher, address.segment_ord, name)?.first(address.doc_id)
    };
    let ranked: Vec<(Score, DocAddress, Option<u64>, Option<i64>)> = ranked
        .into_iter()
        .filter(|&(_, address, _)| {
            !(settings.skip_flagged && value(address, "flag").is_some_and(|flag| flag != 0))
        })
        .map(|(score, address, date)| (score, address, value(address, "fingerprint"), date))
        .collect();
    // Two hits are near-duplicates within k bits, or, verifying, within the candidate
    // distance when both have a signature, the fraction of equal values reaches the
    // threshold and (with bands) they agree on every value of a band. Where the signatures
    // decide, two hits within k bits that both have one are near only when it reaches the
    // threshold too (no band needed).
    let near = |a: (DocAddress, u64), b: (DocAddress, u64)| {
        if settings.scoped && value(a.0, "scope") != value(b.0, "scope") {
            return false;
        }
        let distance = Fingerprint(a.1).distance(Fingerprint(b.1));
        let Some((candidate_distance, threshold, rows, containment, decide)) = settings.verify
        else {
            return distance <= settings.k;
        };
        match (signature(searcher, a.0), signature(searcher, b.0)) {
            (Some(x), Some(y)) => {
                let equal = x.iter().zip(&y).filter(|(u, v)| u == v).count();
                let band = rows.is_none_or(|rows| {
                    x.chunks_exact(rows)
                        .zip(y.chunks_exact(rows))
                        .any(|(u, v)| u == v)
                });
                let score = if containment {
                    tantivy_dedup::fingerprint::overlap(&x, &y)
                } else {
                    equal as f64 / SIGNATURE_VALUES as f64
                };
                if distance <= settings.k {
                    !decide || score >= threshold
                } else {
                    distance <= candidate_distance && score >= threshold && band
                }
            }
            _ => distance <= settings.k,
        }
    };
    let end = settings.offset + settings.limit;
    // All shown hits, each with what it hid, up to the first one after the page.
    let mut shown: Vec<DedupHit> = Vec::new();
    let mut has_more = false;
    for (score, address, fp, date) in ranked {
        let owner = fp.and_then(|fp| {
            shown.iter().position(|s| {
                s.fingerprint
                    .is_some_and(|other| near((s.address, other.bits()), (address, fp)))
            })
        });
        match owner {
            Some(owner) => {
                let shown_hit = &mut shown[owner];
                let other = shown_hit
                    .fingerprint
                    .expect("only hits with a fingerprint hide");
                let jaccard = settings.verify.and_then(|_| {
                    let x = signature(searcher, shown_hit.address)?;
                    let y = signature(searcher, address)?;
                    let equal = x.iter().zip(&y).filter(|(u, v)| u == v).count();
                    Some(equal as f64 / SIGNATURE_VALUES as f64)
                });
                shown_hit.hidden.push(HiddenHit {
                    address,
                    distance: other.distance(Fingerprint(fp.expect("a hidden hit has one"))),
                    jaccard,
                });
            }
            None if shown.len() == end => {
                has_more = true;
                break;
            }
            None => shown.push(DedupHit {
                score,
                sort_value: date.filter(|_| sort_values).map(SortValue::I64),
                address,
                fingerprint: fp.map(Fingerprint),
                hidden: Vec::new(),
            }),
        }
    }
    let hits: Vec<DedupHit> = shown.into_iter().skip(settings.offset).collect();
    let hidden_total = hits.iter().map(|h| h.hidden.len()).sum();
    // The page's hits with a fingerprint and no signature, when the collector verifies.
    let unverified = match settings.verify {
        Some(_) => (hits.iter())
            .filter(|hit| hit.fingerprint.is_some())
            .map(|hit| hit.address)
            .chain(
                hits.iter()
                    .flat_map(|hit| hit.hidden.iter().map(|h| h.address)),
            )
            .filter(|&address| signature(searcher, address).is_none())
            .count(),
        None => 0,
    };
    DedupTopDocs {
        hits,
        hidden_total,
        has_more,
        unverified,
    }
}

/// The signature of the document at `address`: its values when it has
/// [`SIGNATURE_VALUES`] of them.
fn signature(searcher: &Searcher, address: DocAddress) -> Option<Vec<u32>> {
    let reader = searcher.segment_reader(address.segment_ord);
    if let Ok(Some(column)) = reader.fast_fields().column_opt::<u64>("signature") {
        let values: Vec<u32> = column
            .values_for_doc(address.doc_id)
            .map(|v| v as u32)
            .collect();
        return (values.len() == SIGNATURE_VALUES).then_some(values);
    }
    let column = reader.fast_fields().bytes("signature").ok()??;
    let ord = column.ords().first(address.doc_id)?;
    let mut bytes = Vec::new();
    column.ord_to_bytes(ord, &mut bytes).unwrap();
    (bytes.len() == 4 * SIGNATURE_VALUES).then(|| {
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    })
}

#[derive(Debug, Clone)]
struct Settings {
    limit: usize,
    offset: usize,
    k: u32,
    skip_flagged: bool,
    /// Candidate distance, threshold, band rows (none: every candidate), whether the
    /// score is containment (else Jaccard) and whether the signatures decide within `k`
    /// too, of a verifying collector.
    verify: Option<(u32, f64, Option<usize>, bool, bool)>,
    /// Ranked by `date` in this order, or by score.
    sort: Option<Order>,
    /// Hits hide only hits of their own scope.
    scoped: bool,
}

impl Settings {
    /// By score, within `k` bits, no verification, flags or scopes.
    fn plain(limit: usize, offset: usize, k: u32) -> Settings {
        Settings {
            limit,
            offset,
            k,
            skip_flagged: false,
            verify: None,
            sort: None,
            scoped: false,
        }
    }

    fn collector(&self) -> DedupCollector {
        let mut collector = DedupCollector::new("fingerprint", self.limit)
            .offset(self.offset)
            .distance(self.k);
        if let Some((candidate_distance, threshold, rows, containment, decide)) = self.verify {
            collector = collector.verification(
                "signature",
                // 32-bit values, as the reference compares them.
                Verification::default()
                    .kept_bits(KeptBits::High)
                    .hashes(SIGNATURE_VALUES)
                    .candidates(match rows {
                        Some(rows) => CandidateStage::Bands { rows },
                        None => CandidateStage::Scan,
                    })
                    .candidate_distance(candidate_distance)
                    .threshold(threshold)
                    .score(if containment {
                        PairScore::Containment
                    } else {
                        PairScore::Jaccard
                    })
                    .signatures_decide(decide),
            );
        }
        if let Some(order) = self.sort {
            collector = collector.order_by_fast_field("date", order);
        }
        if self.scoped {
            collector = collector.scope("scope");
        }
        if self.skip_flagged {
            collector.skip_flagged("flag")
        } else {
            collector
        }
    }
}

/// Fingerprints around a few bases: 0, a chain 0 ~ 0b111 ~ 0b111111 (3 bits apart
/// in turn), all-ones, and random ones, each with up to 3 bits flipped; or none.
fn fingerprint() -> impl Strategy<Value = Option<u64>> {
    let base = prop_oneof![
        Just(0u64),
        Just(0b111),
        Just(0b111_111),
        Just(0b111_111_111),
        Just(u64::MAX),
        any::<u64>(),
    ];
    // Mostly within a few bits of a base; sometimes 6 to 20 bits away, between k and twice
    // the candidate distance, where verified collectors tell hits apart by signature.
    let flips = prop_oneof![
        3 => prop::collection::vec(0u32..64, 0..4),
        1 => prop::collection::vec(0u32..64, 6..20),
    ];
    let near = (base, flips)
        .prop_map(|(base, flips)| flips.into_iter().fold(base, |fp, bit| fp ^ (1 << bit)));
    prop_oneof![
        1 => Just(None),
        8 => near.prop_map(Some),
        1 => any::<u64>().prop_map(Some),
    ]
}

fn doc() -> impl Strategy<Value = Doc> {
    (
        0usize..3,
        0usize..3,
        0usize..3,
        fingerprint(),
        prop_oneof![4 => Just(None), 2 => Just(Some(0u64)), 1 => Just(Some(1u64))],
        prop_oneof![
            1 => Just(None),
            8 => prop::collection::vec(0u32..3, SIGNATURE_VALUES).prop_map(Some),
            1 => prop::collection::vec(0u32..3, SIGNATURE_VALUES - 1).prop_map(Some),
        ],
        // Few values, so that ties are common; some documents without one.
        prop_oneof![1 => Just(None), 4 => (-2i64..3).prop_map(Some)],
        prop_oneof![1 => Just(None), 3 => Just(Some(1u64)), 1 => Just(Some(2u64))],
    )
        .prop_map(
            |(alpha, beta, filler, fingerprint, flag, signature, date, scope)| Doc {
                alpha,
                beta,
                filler,
                fingerprint,
                flag,
                signature,
                date,
                scope,
            },
        )
}

fn corpus() -> impl Strategy<Value = Corpus> {
    prop::collection::vec(doc(), 0..120).prop_flat_map(|docs| {
        let n = docs.len();
        (
            Just(docs),
            prop::collection::vec(1usize..50, 1..5),
            prop::collection::vec(prop::bool::weighted(0.15), n),
            any::<bool>(),
        )
            .prop_map(|(docs, segment_sizes, deleted, u64_signatures)| Corpus {
                docs,
                segment_sizes,
                deleted,
                u64_signatures,
            })
    })
}

fn settings() -> impl Strategy<Value = Settings> {
    (
        1usize..6,
        prop_oneof![3 => 0usize..4, 1 => 0usize..60],
        prop_oneof![8 => 0u32..8, 1 => Just(64u32)],
        any::<bool>(),
        prop_oneof![
            1 => Just(None),
            1 => (
                0u32..24,
                prop::sample::select(vec![0.0, 0.25, 0.5, 0.75, 1.0]),
                prop::sample::select(vec![None, Some(1), Some(2), Some(3)]),
                prop_oneof![3 => Just(false), 1 => Just(true)],
                any::<bool>(),
            )
                .prop_map(Some),
        ],
        prop_oneof![
            2 => Just(None),
            1 => Just(Some(Order::Asc)),
            1 => Just(Some(Order::Desc)),
        ],
        any::<bool>(),
    )
        .prop_map(
            |(limit, offset, k, skip_flagged, verify, sort, scoped)| Settings {
                limit,
                offset,
                k,
                skip_flagged,
                verify,
                sort,
                scoped,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(30))]

    #[test]
    fn collector_matches_the_reference(
        corpus in corpus(),
        settings in prop::collection::vec(settings(), 2..6),
        shuffle in any::<u64>(),
    ) {
        let (index, fields) = build(&corpus);
        let searcher = index.reader().unwrap().searcher();
        // One cache for every collector, with and without the flag field, as
        // `DedupIndex::collector` shares its own.
        let cache = ColumnCache::new();
        for kind in 0..4 {
            let query = query(kind, &fields);
            for settings in &settings {
                let expected = reference(&searcher, query.as_ref(), settings);
                let collector = settings.collector();
                let got = collector.search(&searcher, query.as_ref()).unwrap();
                prop_assert_eq!(&got, &expected, "query {} {:?}", kind, settings);
                let cached = collector.clone().column_cache(cache.clone());
                for _ in 0..2 {
                    let got = cached.search(&searcher, query.as_ref()).unwrap();
                    prop_assert_eq!(&got, &expected, "cached: query {} {:?}", kind, settings);
                }
                // tantivy's entry point: per-segment proofs only (`search` proves a verified
                // page on the merged ranking instead). Small segments give all their hits;
                // with that off, every segment proves its prefix by a packing.
                for whole in [256, 0] {
                    let collector = collector.clone().whole_segment_hits(whole);
                    let direct = searcher.search(query.as_ref(), &collector).unwrap();
                    prop_assert_eq!(&direct, &expected, "direct, whole {}: query {} {:?}", whole, kind, settings);
                    // Inside a tuple, tantivy feeds every document to the segment collector.
                    let (_, fed) = searcher.search(query.as_ref(), &(Count, collector)).unwrap();
                    prop_assert_eq!(&fed, &expected, "in a tuple, whole {}: query {} {:?}", whole, kind, settings);
                }
                // A list in any order, some addresses repeated, deduped as given.
                let list = shuffled(ranking(&searcher, query.as_ref(), settings), shuffle);
                let given: Vec<(Score, DocAddress)> =
                    list.iter().map(|&(score, address, _)| (score, address)).collect();
                let expected = walk(&searcher, first_occurrences(list), settings, false);
                let got = collector.dedupe(&searcher, given).unwrap();
                prop_assert_eq!(&got, &expected, "dedupe: query {} {:?}", kind, settings);
            }
        }
    }
}

/// `ranked` in an order drawn from `seed`, with a few addresses repeated.
fn shuffled(mut ranked: Vec<Ranked>, seed: u64) -> Vec<Ranked> {
    let mut state = seed | 1;
    let mut next = || {
        // xorshift64
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for i in (1..ranked.len()).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        ranked.swap(i, j);
    }
    let repeats = ranked.len().min((seed % 4) as usize);
    for at in 0..repeats {
        let hit = ranked[at];
        let position = (next() % (ranked.len() as u64 + 1)) as usize;
        ranked.insert(position.max(at + 1), hit);
    }
    ranked
}

/// `ranked` without repeated addresses, each where it first appears.
fn first_occurrences(ranked: Vec<Ranked>) -> Vec<Ranked> {
    let mut seen = std::collections::HashSet::new();
    ranked
        .into_iter()
        .filter(|&(_, address, _)| seen.insert(address))
        .collect()
}

/// A corpus where one segment's top hits are all near-duplicates of hits in another, so the
/// first candidates are not enough and segments collect again.
#[test]
fn segments_full_of_duplicates_collect_again() {
    let mut docs = Vec::new();
    for i in 0..200u64 {
        // Half the corpus is one cluster; the rest are far apart.
        let fingerprint = if i % 2 == 0 {
            i % 4
        } else {
            i.wrapping_mul(0x9E37_79B9_7F4A_7C15)
        };
        docs.push(Doc::plain(
            1 + (i % 3) as usize,
            0,
            (i % 5) as usize,
            fingerprint,
        ));
    }
    let corpus = Corpus {
        u64_signatures: true,
        deleted: (0..docs.len()).map(|i| i % 7 == 0).collect(),
        docs,
        segment_sizes: vec![60, 70, 70],
    };
    let (index, fields) = build(&corpus);
    let searcher = index.reader().unwrap().searcher();
    for kind in 0..4 {
        let query = query(kind, &fields);
        for (limit, offset, k) in [(10, 0, 3), (3, 20, 3), (5, 0, 64), (1, 99, 0)] {
            let settings = Settings::plain(limit, offset, k);
            let expected = reference(&searcher, query.as_ref(), &settings);
            let got = settings
                .collector()
                .search(&searcher, query.as_ref())
                .unwrap();
            assert_eq!(got, expected, "query {kind} {settings:?}");
        }
    }
}

/// Under `Searcher::search` a segment cut at a packing sets a score floor for the segments
/// collected after it in the same search: one collector reused for several queries, on the
/// default executor and on a thread pool (where segments run in any order), gives the
/// reference's page every time.
#[test]
fn floors_carried_between_segments_hold_on_every_executor() {
    let docs: Vec<Doc> = (0..600u64)
        .map(|i| {
            // A third of the corpus in small clusters, the rest far apart.
            let fingerprint = if i % 3 == 0 {
                i % 12
            } else {
                i.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            };
            Doc::plain(
                1 + (i % 4) as usize,
                (i % 3) as usize,
                (i % 5) as usize,
                fingerprint,
            )
        })
        .collect();
    let corpus = Corpus {
        u64_signatures: true,
        deleted: (0..docs.len()).map(|i| i % 11 == 0).collect(),
        docs,
        segment_sizes: vec![100; 6],
    };
    let (mut index, fields) = build(&corpus);
    for threads in [None, Some(2)] {
        if let Some(threads) = threads {
            index.set_multithread_executor(threads).unwrap();
        }
        let searcher = index.reader().unwrap().searcher();
        for (limit, offset, k) in [(10, 0, 3), (3, 7, 3), (5, 0, 64)] {
            let settings = Settings::plain(limit, offset, k);
            // Segments cut however few their hits, so that floors are set.
            let collector = settings.collector().whole_segment_hits(0);
            for kind in 0..4 {
                let query = query(kind, &fields);
                let expected = reference(&searcher, query.as_ref(), &settings);
                let got = searcher.search(query.as_ref(), &collector).unwrap();
                assert_eq!(
                    got, expected,
                    "{threads:?} threads, query {kind} {settings:?}"
                );
            }
        }
    }
}

fn tiny_index() -> (Index, Fields) {
    let docs = vec![
        Doc {
            alpha: 1,
            beta: 0,
            filler: 0,
            fingerprint: Some(1),
            flag: Some(0),
            signature: None,
            date: None,
            scope: None,
        };
        3
    ];
    build(&Corpus {
        u64_signatures: true,
        docs,
        segment_sizes: vec![2],
        deleted: vec![false; 3],
    })
}

#[test]
fn invalid_settings_are_typed_errors() {
    let (index, _) = tiny_index();
    let searcher = index.reader().unwrap().searcher();
    let zero = DedupCollector::new("fingerprint", 0);
    assert!(matches!(
        zero.search(&searcher, &AllQuery),
        Err(Error::InvalidSetting { name: "limit", .. })
    ));
    let far = DedupCollector::new("fingerprint", 10).distance(65);
    assert!(matches!(
        far.validate(),
        Err(Error::InvalidSetting {
            name: "distance",
            ..
        })
    ));
    assert!(DedupCollector::new("fingerprint", 1)
        .distance(64)
        .validate()
        .is_ok());
    let bad_verification = DedupCollector::new("fingerprint", 10)
        .verification("signature", Verification::default().threshold(1.5));
    assert!(matches!(
        bad_verification.search(&searcher, &AllQuery),
        Err(Error::InvalidSetting {
            name: "verification.threshold",
            ..
        })
    ));
    // Through tantivy's own entry point, the same message in tantivy's error type.
    assert!(matches!(
        searcher.search(&AllQuery, &far),
        Err(TantivyError::InvalidArgument(message)) if message.contains("distance")
    ));
}

#[test]
fn fields_must_be_u64_fast_fields() {
    let (index, _) = tiny_index();
    let searcher = index.reader().unwrap().searcher();
    for collector in [
        DedupCollector::new("missing", 10),
        DedupCollector::new("id", 10), // indexed, not fast
        DedupCollector::new("body", 10),
        DedupCollector::new("fingerprint", 10).skip_flagged("id"),
        // Signatures are a u64 (or bytes) fast field.
        DedupCollector::new("fingerprint", 10).verification("id", Verification::default()),
        DedupCollector::new("fingerprint", 10).verification("body", Verification::default()),
        DedupCollector::new("fingerprint", 10).verification("missing", Verification::default()),
    ] {
        assert!(
            matches!(
                collector.search(&searcher, &AllQuery),
                Err(Error::Tantivy(_))
            ),
            "{collector:?}"
        );
    }
}

#[test]
fn skipped_flagged_and_deleted_documents_are_neither_shown_nor_hidden() {
    let doc = |fingerprint, flag| Doc {
        alpha: 1,
        beta: 0,
        filler: 0,
        fingerprint: Some(fingerprint),
        flag: Some(flag),
        signature: None,
        date: None,
        scope: None,
    };
    // Equal scores: ranked by address. 0 is flagged, 1 deleted, 2 and 3 near-duplicates.
    let corpus = Corpus {
        u64_signatures: true,
        docs: vec![doc(0, 1), doc(0, 0), doc(1, 0), doc(3, 0)],
        segment_sizes: vec![4],
        deleted: vec![false, true, false, false],
    };
    let (index, _) = build(&corpus);
    let searcher = index.reader().unwrap().searcher();
    let top = DedupCollector::new("fingerprint", 10)
        .skip_flagged("flag")
        .search(&searcher, &AllQuery)
        .unwrap();
    assert_eq!(top.addresses(), [DocAddress::new(0, 2)]);
    assert_eq!(top.hits[0].hidden_addresses(), [DocAddress::new(0, 3)]);
    assert_eq!(top.hits[0].hidden[0].distance, 1);
    assert_eq!(top.hits[0].fingerprint, Some(Fingerprint(1)));
    // Without skipping, the flagged document leads and hides the others.
    let top = DedupCollector::new("fingerprint", 10)
        .search(&searcher, &AllQuery)
        .unwrap();
    assert_eq!(top.addresses(), [DocAddress::new(0, 0)]);
    assert_eq!(top.hidden_total, 2);
    // `include_flagged` undoes `skip_flagged` (as on a `DedupIndex` collector), and the
    // group is led by its best-ranked original, the flagged copy hidden under it.
    let included = DedupCollector::new("fingerprint", 10)
        .skip_flagged("flag")
        .include_flagged();
    let led = included.search(&searcher, &AllQuery).unwrap();
    assert_eq!(led.addresses(), [DocAddress::new(0, 2)]);
    assert_eq!(
        led.hits[0].hidden_addresses(),
        [DocAddress::new(0, 0), DocAddress::new(0, 3)]
    );
    let distances: Vec<u32> = led.hits[0].hidden.iter().map(|h| h.distance).collect();
    assert_eq!(distances, [1, 1], "against the original that leads");
    assert_eq!(searcher.search(&AllQuery, &included).unwrap(), led);
    // Asked for the best-ranked member, as without flags.
    let best_first = included.originals_first(false);
    assert_eq!(best_first.search(&searcher, &AllQuery).unwrap(), top);
}

/// A cache filled before a merge serves the merged index exactly, and keeps no columns of
/// the segments merged away.
#[test]
fn column_cache_follows_merges() {
    let docs = (0..40)
        .map(|i| Doc {
            alpha: 1 + i % 3,
            beta: i % 2,
            filler: i % 5,
            fingerprint: Some(if i % 4 == 0 { 0 } else { (i as u64) << 20 }),
            flag: None,
            signature: None,
            date: None,
            scope: None,
        })
        .collect();
    let (index, fields) = build(&Corpus {
        u64_signatures: true,
        docs,
        segment_sizes: vec![10, 10, 10, 10],
        deleted: (0..40).map(|i| i % 7 == 0).collect(),
    });
    let reader = index
        .reader_builder()
        .reload_policy(tantivy::ReloadPolicy::Manual)
        .try_into()
        .unwrap();
    let settings = Settings {
        limit: 5,
        offset: 0,
        k: 3,
        skip_flagged: false,
        verify: None,
        sort: None,
        scoped: false,
    };
    let cache = ColumnCache::new();
    let cached = settings.collector().column_cache(cache.clone());
    let query = query(0, &fields);
    let before = reader.searcher();
    assert_eq!(
        cached.search(&before, query.as_ref()).unwrap(),
        reference(&before, query.as_ref(), &settings)
    );

    let mut writer = index
        .writer_with_num_threads::<TantivyDocument>(1, 15_000_000)
        .unwrap();
    let segments = index.searchable_segment_ids().unwrap();
    writer.merge(&segments).wait().unwrap();
    writer.wait_merging_threads().unwrap();
    reader.reload().unwrap();
    let after = reader.searcher();
    assert_eq!(after.segment_readers().len(), 1);
    assert_eq!(
        cached.search(&after, query.as_ref()).unwrap(),
        reference(&after, query.as_ref(), &settings)
    );
    assert_eq!(format!("{cache:?}"), "ColumnCache { segments: 1 }");
}

/// Two hits of one segment whose fingerprints are too far apart for one hit to hide both by
/// distance alone, but whose signatures agree: a verified hit of another segment, ranked
/// above, hides both. The segment must keep enough hits behind them to fill the page, on
/// every path (the packing tells such a pair apart by signature only where it may).
#[test]
fn hits_hidden_by_signature_across_segments_leave_the_page_full() {
    let doc = |alpha, fingerprint, signature: Option<u32>| Doc {
        alpha,
        beta: 0,
        filler: 0,
        fingerprint: Some(fingerprint),
        flag: None,
        signature: signature.map(|value| vec![value; SIGNATURE_VALUES]),
        date: None,
        scope: None,
    };
    // h: 0; p and q 12 bits from h on either side, 24 from each other; the rest far. Scores
    // fall in that order, h alone in its segment.
    let mut docs = vec![
        doc(3, 0, Some(7)),
        doc(2, 0xFFF, Some(7)),
        doc(2, 0xFF_F000, Some(7)),
    ];
    for i in 1..6u64 {
        docs.push(doc(
            1,
            i.wrapping_mul(0x9E37_79B9_7F4A_7C15),
            Some(i as u32),
        ));
    }
    for (u64_signatures, limit) in [false, true]
        .into_iter()
        .flat_map(|u| (1..5).map(move |l| (u, l)))
    {
        let (index, fields) = build(&Corpus {
            docs: docs.clone(),
            segment_sizes: vec![1],
            deleted: vec![false; 8],
            u64_signatures,
        });
        let searcher = index.reader().unwrap().searcher();
        let query = query(0, &fields);
        let settings = Settings {
            limit,
            offset: 0,
            k: 3,
            skip_flagged: false,
            verify: Some((16, 0.5, None, false, true)),
            sort: None,
            scoped: false,
        };
        let expected = reference(&searcher, query.as_ref(), &settings);
        assert_eq!(
            expected.hits[0].hidden.len(),
            2,
            "h hides p and q: {expected:?}"
        );
        let collector = settings.collector();
        let got = collector.search(&searcher, query.as_ref()).unwrap();
        assert_eq!(got, expected, "limit {limit}");
        // Every segment proves its prefix by a packing, however few its hits.
        let collector = collector.whole_segment_hits(0);
        let direct = searcher.search(query.as_ref(), &collector).unwrap();
        assert_eq!(direct, expected, "direct: limit {limit}");
        let (_, fed) = searcher
            .search(query.as_ref(), &(Count, collector))
            .unwrap();
        assert_eq!(fed, expected, "in a tuple: limit {limit}");
    }
}
