//! Indexes made before signatures moved to a u64 field keep them in a bytes field, indexes
//! of settings format 4 and earlier one signature value a column value, and those of
//! formats 5 and 6 two, where indexes made now keep eight values of a byte: such an index
//! opens, takes new documents in its own layout, and judges and searches exactly as an
//! index made now keeping the same bits does with the same documents.

mod support;

use support::rng::Rng;
use tantivy::query::QueryParser;
use tantivy::schema::{
    BytesOptions, NumericOptions, Schema, SchemaBuilder, FAST, INDEXED, STORED, STRING,
};
use tantivy::{doc, Index};
use tantivy_dedup::fingerprint::KeptBits;
use tantivy_dedup::matching::MatchingSettings;
use tantivy_dedup::matching::{CandidateStage, Verification};
use tantivy_dedup::plugin::{
    text_field_options, AddOutcome, DedupIndex, DedupSettings, Policy, CONTENT_FIELD,
    FINGERPRINT_FIELD, SEQUENCE_FIELD, SETTINGS_FILE, SIGNATURE_FIELD,
};

const MEMORY: usize = 15_000_000;

/// The settings of the index: two-stage matching at 0.55 with bands of 4, under which the
/// corpus's edited copies are verified near-duplicates (the default 0.8 finds fewer), the
/// signatures keeping `bits`.
fn settings(bits: KeptBits) -> DedupSettings {
    DedupSettings::new(["body"]).key_field("url").matching(
        MatchingSettings::default().verification(
            Verification::default()
                .kept_bits(bits)
                .threshold(0.55)
                .candidates(CandidateStage::Bands { rows: 4 }),
        ),
    )
}

/// The schema an index of [`settings`] was given before the segment component, its
/// signature field added by `signature`.
fn schema_of_before(signature: impl FnOnce(&mut SchemaBuilder)) -> Schema {
    let mut schema = Schema::builder();
    schema.add_text_field("body", text_field_options());
    schema.add_u64_field(
        FINGERPRINT_FIELD,
        NumericOptions::default() | FAST | INDEXED,
    );
    schema.add_u64_field(SEQUENCE_FIELD, FAST);
    schema.add_text_field("url", STRING | STORED | FAST);
    schema.add_u64_field(CONTENT_FIELD, FAST);
    signature(&mut schema);
    schema.build()
}

/// Settings format 1: the signature a bytes field.
fn schema_with_bytes_signatures() -> Schema {
    schema_of_before(|schema| {
        schema.add_bytes_field(SIGNATURE_FIELD, BytesOptions::default() | FAST);
    })
}

/// Settings formats 2 to 9: the signature a u64 field.
fn schema_with_column_signatures() -> Schema {
    schema_of_before(|schema| {
        schema.add_u64_field(SIGNATURE_FIELD, NumericOptions::default() | FAST);
    })
}

/// The schema of today: the signatures in the crate's segment component.
fn schema_of_now() -> Schema {
    let mut schema = Schema::builder();
    schema.add_text_field("body", text_field_options());
    settings(KeptBits::default())
        .add_fields(&mut schema)
        .unwrap();
    schema.build()
}

/// Documents with planted copies: some verbatim, some with one word in `period` replaced
/// (beyond the fingerprint distance, within the candidate distance).
fn corpus() -> Vec<(String, String)> {
    let mut rng = Rng(5);
    let mut originals: Vec<Vec<String>> = Vec::new();
    let mut docs = Vec::new();
    for i in 0..120 {
        let words: Vec<String> = if i % 3 == 2 {
            let source = &originals[(rng.next() % originals.len() as u64) as usize];
            let period = 6 + (rng.next() % 10) as usize;
            source
                .iter()
                .enumerate()
                .map(|(j, w)| {
                    if j % period == 0 {
                        format!("x{}", rng.next() % 5_000)
                    } else {
                        w.clone()
                    }
                })
                .collect()
        } else {
            let words: Vec<String> = (0..80 + rng.next() % 80)
                .map(|_| format!("w{}", rng.next() % 5_000))
                .collect();
            originals.push(words.clone());
            words
        };
        docs.push((format!("u{i}"), words.join(" ")));
    }
    docs
}

/// Ingests the corpus in three commits, reopening the index for each; then indexes every
/// document again with an `IndexWriter` of its own, filled by `fill_document`. Returns every
/// outcome of the first pass, the groups (shown and hidden keys, sorted) of a search, and
/// the count of column values of every document's signature, each count once. The settings
/// file is rewritten as of `format` when one is given (an index made by an older build),
/// the signatures keeping `bits`.
fn run(
    schema: Schema,
    format: Option<u32>,
    bits: KeptBits,
) -> (Vec<String>, Vec<Vec<String>>, Vec<u32>) {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create_in_dir(dir.path(), schema).unwrap();
    DedupIndex::create(index, settings(bits)).unwrap();
    if let Some(format) = format {
        let path = dir.path().join(SETTINGS_FILE);
        let mut json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        json["version"] = format.into();
        std::fs::write(&path, serde_json::to_vec(&json).unwrap()).unwrap();
    }
    let mut outcomes = Vec::new();
    let docs = corpus();
    for (round, chunk) in docs.chunks(40).enumerate() {
        // Reopened for each round: committed signatures are read back from the index.
        let index = DedupIndex::open(Index::open_in_dir(dir.path()).unwrap()).unwrap();
        let schema = index.index().schema();
        let (url, body) = (
            schema.get_field("url").unwrap(),
            schema.get_field("body").unwrap(),
        );
        let writer = index.writer(Policy::Reject, MEMORY).unwrap();
        for (key, text) in chunk {
            let outcome = writer
                .add(doc!(url => key.as_str(), body => text.as_str()))
                .unwrap();
            outcomes.push(match outcome {
                AddOutcome::Added { fingerprint, .. } => format!("{key} added {fingerprint:?}"),
                other => {
                    let duplicate = other.duplicate_of().expect("a duplicate");
                    format!(
                        "{key} {:?} of {:?} at {} ({:?})",
                        std::mem::discriminant(&other),
                        duplicate.key,
                        duplicate.distance,
                        duplicate.similarity
                    )
                }
            });
        }
        writer.commit().unwrap();
        eprintln!("round {round} committed");
    }
    let index = DedupIndex::open(Index::open_in_dir(dir.path()).unwrap()).unwrap();
    let schema = index.index().schema();
    let (url, body) = (
        schema.get_field("url").unwrap(),
        schema.get_field("body").unwrap(),
    );
    let mut writer: tantivy::IndexWriter = index.index().writer(MEMORY).unwrap();
    for (key, text) in &docs {
        let mut document = doc!(url => format!("again-{key}"), body => text.as_str());
        index.fill_document(&mut document);
        writer.add_document(document).unwrap();
    }
    writer.commit().unwrap();
    let searcher = index.index().reader().unwrap().searcher();
    let query = QueryParser::for_index(index.index(), vec![body])
        .parse_query("w1 w2 w3 w4 w5 w6 w7 w8 w9")
        .unwrap();
    let page = index.collector(20).search(&searcher, &query).unwrap();
    let direct = searcher.search(&query, &index.collector(20)).unwrap();
    assert_eq!(page, direct);
    let key = |address| {
        let document: tantivy::TantivyDocument = searcher.doc(address).unwrap();
        tantivy::schema::Value::as_str(&document.get_first(url).unwrap())
            .unwrap()
            .to_owned()
    };
    // Groups, not the order: equal scores rank by address, which differs between indexes.
    let mut groups: Vec<Vec<String>> = page
        .hits
        .iter()
        .map(|hit| {
            let mut group: Vec<String> = hit.hidden.iter().map(|h| key(h.address)).collect();
            group.push(key(hit.address));
            group.sort();
            group
        })
        .collect();
    groups.sort();
    let mut widths = Vec::new();
    for reader in searcher.segment_readers() {
        if let Some(column) = reader
            .fast_fields()
            .column_opt::<u64>(SIGNATURE_FIELD)
            .unwrap()
        {
            for doc in 0..reader.max_doc() {
                widths.push(column.index.value_row_ids(doc).len() as u32);
            }
        }
    }
    widths.sort();
    widths.dedup();
    (outcomes, groups, widths)
}

#[test]
fn indexes_of_earlier_formats_work_as_one_made_now() {
    // Today's indexes keep signatures in the segment component: no column.
    let (byte_outcomes, byte_hits, widths) = run(schema_of_now(), None, KeptBits::LowByte);
    assert_eq!(widths, [] as [u32; 0]);
    // Eight values of a byte a column value, as formats 7 to 9 write: 16 for the default
    // 128, judged alike.
    let (outcomes, hits, widths) = run(schema_with_column_signatures(), Some(9), KeptBits::LowByte);
    assert_eq!(widths, [16]);
    assert_eq!((outcomes, hits), (byte_outcomes.clone(), byte_hits.clone()));
    let (new_outcomes, new_hits, widths) = run(schema_of_now(), None, KeptBits::High);
    assert_eq!(widths, [] as [u32; 0]);
    // Two 32-bit values a column value, as formats 5 and 6 write: 64.
    let (outcomes, hits, widths) = run(schema_with_column_signatures(), Some(6), KeptBits::High);
    assert_eq!(widths, [64]);
    assert_eq!((&outcomes, &hits), (&new_outcomes, &new_hits));
    let (old_outcomes, old_hits, _) = run(schema_with_bytes_signatures(), Some(1), KeptBits::High);
    assert_eq!(old_outcomes, new_outcomes);
    assert_eq!(old_hits, new_hits);
    let (old_outcomes, old_hits, widths) =
        run(schema_with_column_signatures(), Some(4), KeptBits::High);
    assert_eq!(widths, [128]);
    assert_eq!(old_outcomes, new_outcomes);
    assert_eq!(old_hits, new_hits);
    assert!(
        new_hits.iter().filter(|group| group.len() > 1).count() >= 5,
        "the search hides copies: {new_hits:?}"
    );
    // The corpus exercises what it is for: verified near-duplicates, rejected.
    let rejected = new_outcomes.iter().filter(|o| !o.contains("added")).count();
    assert!(rejected >= 20, "{rejected} rejected: {new_outcomes:#?}");
    assert!(
        new_outcomes.iter().any(|o| o.contains("Some(")),
        "some rejected by signature: {new_outcomes:#?}"
    );
    // A byte a value judges as 32 bits do, up to the estimates' noise: the same groups,
    // with at most a pair near the threshold apart.
    let rejected_by_bytes = byte_outcomes
        .iter()
        .filter(|o| !o.contains("added"))
        .count();
    assert!(
        rejected.abs_diff(rejected_by_bytes) <= 1,
        "{rejected} and {rejected_by_bytes}"
    );
    let shared = byte_hits.iter().filter(|g| new_hits.contains(g)).count();
    assert!(
        shared + 1 >= new_hits.len(),
        "{byte_hits:?} against {new_hits:?}"
    );
}
