//! An index made with tantivy alone, as an application has it, taken over by the plugin:
//! its schema extended, its documents copied through the writer, its near-duplicates
//! handled by the policy and hidden in search.

use tantivy::collector::Count;
use tantivy::query::{AllQuery, QueryParser};
use tantivy::schema::{Schema, FAST, INDEXED, STORED, STRING, TEXT};
use tantivy::{doc, DateTime, Index, IndexWriter, Term};
use tantivy_dedup::matching::MatchingSettings;
use tantivy_dedup::plugin::{
    reindex, DedupIndex, DedupSettings, Policy, ReindexReport, FINGERPRINT_FIELD,
};
use tantivy_dedup::Error;

const MEMORY: usize = 50_000_000;

fn page(topic: usize, variant: usize) -> String {
    let mut words: Vec<String> = (0..120)
        .map(|i| format!("t{topic}w{}", (i * 7 + topic) % 97))
        .collect();
    // A variant differs in one word of 40: a near-duplicate of the others.
    for (i, word) in words.iter_mut().enumerate() {
        if variant > 0 && i % 40 == variant {
            *word = format!("edit{variant}");
        }
    }
    words.join(" ")
}

/// 30 topics, each as 1 to 3 pages (the same text edited), under distinct URLs; one
/// deleted. The date is FAST only (not stored).
fn application_index() -> (Index, usize, usize) {
    let mut schema = Schema::builder();
    let url = schema.add_text_field("url", STRING | STORED);
    let title = schema.add_text_field("title", TEXT | STORED);
    let body = schema.add_text_field("body", TEXT | STORED);
    let date = schema.add_date_field("date", FAST | INDEXED);
    let index = Index::create_in_ram(schema.build());
    let mut writer: IndexWriter = index.writer_with_num_threads(1, MEMORY).unwrap();
    let (mut pages, mut copies) = (0, 0);
    for topic in 0..30 {
        for variant in 0..=topic % 3 {
            writer
                .add_document(doc!(
                    url => format!("https://site{variant}.example/{topic}"),
                    title => format!("Topic {topic}"),
                    body => page(topic, variant),
                    date => DateTime::from_timestamp_secs(1_700_000_000 + topic as i64),
                ))
                .unwrap();
            pages += 1;
            copies += usize::from(variant > 0);
        }
        if topic % 10 == 9 {
            writer.commit().unwrap();
        }
    }
    writer.delete_term(Term::from_field_text(url, "https://site0.example/0"));
    writer.commit().unwrap();
    (index, pages - 1, copies)
}

fn take_over(source: &Index, policy: Policy) -> (DedupIndex, ReindexReport) {
    let settings = DedupSettings::new(["title", "body"])
        .key_field("url")
        .flagging(policy == Policy::Flag);
    let schema = settings.extend_schema(&source.schema()).unwrap();
    let target = DedupIndex::create(Index::create_in_ram(schema), settings).unwrap();
    let report = reindex(source, &target, policy, MEMORY).unwrap();
    (target, report)
}

#[test]
fn a_plain_index_is_taken_over_with_its_near_duplicates_handled() {
    let (source, alive, copies) = application_index();
    let (target, report) = take_over(&source, Policy::Reject);
    assert_eq!(report.documents as usize, alive);
    assert_eq!(report.duplicates as usize, copies, "{report:?}");
    assert_eq!(report.added as usize, alive - copies);
    // The date is FAST only: read back from its column, not lost.
    assert!(report.unstored_fields.is_empty(), "{report:?}");
    assert_eq!(report.fast_only_fields, ["date"]);
    // Every near-duplicate named, with its key and the document it duplicates.
    assert_eq!(report.duplicate_outcomes.len(), copies);
    for duplicate in &report.duplicate_outcomes {
        let key = duplicate
            .key
            .as_deref()
            .expect("the target has a key field");
        let of = duplicate
            .outcome
            .duplicate_of()
            .expect("a duplicate's outcome");
        let original = of.key.as_deref().expect("originals have keys");
        // Same topic (the path), another mirror: site0 is every topic's first page.
        assert_eq!(
            key.rsplit('/').next(),
            original.rsplit('/').next(),
            "{key} of {original}"
        );
        assert!(original.contains("site0."), "{original}");
    }
    let searcher = target.index().reader().unwrap().searcher();
    assert_eq!(searcher.search(&AllQuery, &Count).unwrap(), alive - copies);
    // The key field became FAST for the writer, and the copies kept their stored fields.
    let schema = target.index().schema();
    let url = schema.get_field("url").unwrap();
    assert!(schema.get_field_entry(url).is_fast());
    assert!(schema.get_field(FINGERPRINT_FIELD).is_ok());
    let body = schema.get_field("body").unwrap();
    let query = QueryParser::for_index(target.index(), vec![body])
        .parse_query("t4w8")
        .unwrap();
    let page = target.collector(10).search(&searcher, &query).unwrap();
    assert_eq!(page.hits.len(), 1, "one page of topic 4 kept");

    // Flagged instead: every page copied, the copies hidden under their originals.
    let (flagged, report) = take_over(&source, Policy::Flag);
    assert_eq!(report.duplicates as usize, copies);
    let searcher = flagged.index().reader().unwrap().searcher();
    assert_eq!(searcher.search(&AllQuery, &Count).unwrap(), alive);
    let page = flagged
        .collector(10)
        .include_flagged()
        .search(&searcher, &query)
        .unwrap();
    assert_eq!(page.hits.len(), 1);
    assert_eq!(page.hidden_total, 1, "topic 4 has two pages");

    // Reindexing into the same index again finds every document there.
    let again = reindex(&source, &target, Policy::Reject, MEMORY).unwrap();
    assert_eq!(again.exists as usize, alive - copies);
    assert_eq!(again.duplicates as usize, copies);
}

#[test]
fn a_dedup_index_is_reindexed_with_other_settings() {
    let (source, alive, copies) = application_index();
    let (first, _) = take_over(&source, Policy::Flag);
    // Reindex the dedup index itself without verification, at distance 0: its own fields
    // are computed again, not copied.
    let settings = DedupSettings::new(["title", "body"])
        .key_field("url")
        .matching(MatchingSettings::default().distance(0).verification(None));
    let schema = settings.extend_schema(&first.index().schema()).unwrap();
    let second = DedupIndex::create(Index::create_in_ram(schema), settings).unwrap();
    let report = reindex(first.index(), &second, Policy::Reject, MEMORY).unwrap();
    assert_eq!(report.documents as usize, alive);
    assert!(
        (report.duplicates as usize) < copies,
        "fewer near-duplicates at distance 0: {report:?}"
    );
}

#[test]
fn unfit_schemas_are_typed_errors() {
    let mut schema = Schema::builder();
    schema.add_text_field("url", TEXT | STORED); // tokenized: no key
    schema.add_text_field("body", TEXT); // not stored
    let schema = schema.build();
    let keyed = DedupSettings::new(["body"]).key_field("url");
    assert!(matches!(
        keyed.extend_schema(&schema),
        Err(Error::Schema { field, .. }) if field == "url"
    ));
    let settings = DedupSettings::new(["body"]);
    let extended = settings.extend_schema(&schema).unwrap();
    let source = Index::create_in_ram(schema);
    let target = DedupIndex::create(Index::create_in_ram(extended), settings).unwrap();
    assert!(matches!(
        reindex(&source, &target, Policy::Reject, MEMORY),
        Err(Error::Schema { field, .. }) if field == "body"
    ));
}

#[test]
fn fast_only_values_survive_and_the_winner_is_the_same_every_run() {
    use tantivy::collector::TopDocs;
    use tantivy::Order;
    use tantivy_dedup::plugin::{reindex_with, ReindexOptions};
    let (source, alive, copies) = application_index();
    let mut kept_keys = None;
    for threads in [1, 2, 4] {
        let settings = DedupSettings::new(["title", "body"]).key_field("url");
        let schema = settings.extend_schema(&source.schema()).unwrap();
        let target = DedupIndex::create(Index::create_in_ram(schema), settings).unwrap();
        let options =
            ReindexOptions::new(Policy::Reject, threads * 15_000_000).indexing_threads(threads);
        let report = reindex_with(&source, &target, &options).unwrap();
        assert_eq!(report.documents as usize, alive);
        assert_eq!(report.duplicates as usize, copies);
        let mut keys: Vec<String> = report
            .duplicate_outcomes
            .iter()
            .filter_map(|d| d.key.clone())
            .collect();
        keys.sort();
        match &kept_keys {
            None => kept_keys = Some(keys),
            Some(first) => assert_eq!(&keys, first, "{threads} threads"),
        }
        // Newest first by the FAST-only date: every copy has its value.
        let searcher = target.index().reader().unwrap().searcher();
        let newest = searcher
            .search(
                &AllQuery,
                &TopDocs::with_limit(100).order_by_fast_field::<DateTime>("date", Order::Desc),
            )
            .unwrap();
        assert_eq!(newest.len(), alive - copies);
        let first = newest[0].0;
        assert_eq!(
            first,
            Some(DateTime::from_timestamp_secs(1_700_000_000 + 29))
        );
    }
}
