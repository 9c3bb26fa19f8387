//! An application that indexes with its own `IndexWriter`, as a tantivy user already does:
//! `DedupIndex::fill_document` gives its documents what a `DedupWriter` would, and documents
//! that lack their signatures are judged by their fingerprints, counted in each page and
//! found for mending, not a reason for search to fail. From a downstream crate's point of
//! view: public API only.

use tantivy::collector::Count;
use tantivy::query::QueryParser;
use tantivy::schema::{Schema, FAST, INDEXED, STORED, STRING, TEXT};
use tantivy::{doc, Index, IndexWriter, TantivyDocument, TantivyError};
use tantivy_dedup::plugin::{
    text_field_options, AddOutcome, DedupIndex, DedupSettings, Policy, SEQUENCE_FIELD,
};
use tantivy_dedup::Error;

const REPORT: &str = "The city council met on Tuesday evening to discuss the new budget for \
    public transport. After three hours of debate the members agreed to add two bus lines, to \
    repair the old tram tracks along the river, and to lower the price of a monthly ticket \
    for students and pensioners from next spring.";

/// The report with three words changed: its fingerprint moves beyond k = 3, and only the
/// signatures find it.
fn edited() -> String {
    REPORT
        .replace("Tuesday", "Monday")
        .replace("three", "four")
        .replace("river", "harbour")
}

/// The application's schema (its own date field beside the plugin's), and a dedup index.
fn index() -> (DedupIndex, Schema) {
    let settings = DedupSettings::new(["body"]).key_field("url");
    let mut schema = Schema::builder();
    schema.add_text_field("body", text_field_options());
    schema.add_date_field("crawled", FAST | INDEXED | STORED);
    settings.add_fields(&mut schema).unwrap();
    let schema = schema.build();
    let index = DedupIndex::create(Index::create_in_ram(schema.clone()), settings).unwrap();
    (index, schema)
}

fn page(schema: &Schema, url: &str, body: &str) -> TantivyDocument {
    let url_field = schema.get_field("url").unwrap();
    let body_field = schema.get_field("body").unwrap();
    doc!(url_field => url, body_field => body)
}

#[test]
fn filled_documents_are_judged_as_the_writer_judges_them() -> tantivy::Result<()> {
    let (index, schema) = index();
    let mut writer: IndexWriter = index.index().writer_with_num_threads(1, 15_000_000)?;
    for (url, body) in [("a", REPORT.to_owned()), ("b", edited())] {
        let mut document = page(&schema, url, &body);
        assert!(index.fill_document(&mut document).is_some());
        writer.add_document(document)?;
    }
    writer.commit()?;
    let searcher = index.index().reader()?.searcher();
    let body = schema.get_field("body").unwrap();
    let query = QueryParser::for_index(index.index(), vec![body]).parse_query("council")?;
    let top = index.collector(10).search(&searcher, &*query).unwrap();
    assert_eq!(top.hits.len(), 1);
    assert_eq!(
        top.hidden_total, 1,
        "the edited copy, found by its signature"
    );
    // tantivy's own entry point, in a tuple with a count, agrees.
    let (count, page) = searcher.search(&*query, &(Count, index.collector(10)))?;
    assert_eq!((count, page), (2, top));
    Ok(())
}

/// An index made before the segment component (settings formats 2 to 9): the signatures
/// in a u64 column, which only the writer and `fill_document` fill.
fn index_with_signature_column() -> (DedupIndex, Schema) {
    let settings = DedupSettings::new(["body"]).key_field("url");
    let mut schema = Schema::builder();
    schema.add_text_field("body", text_field_options());
    schema.add_date_field("crawled", FAST | INDEXED | STORED);
    schema.add_u64_field("dedup_fingerprint", FAST | INDEXED);
    schema.add_u64_field(SEQUENCE_FIELD, FAST);
    schema.add_text_field("url", STRING | STORED | FAST);
    schema.add_u64_field("dedup_signature", FAST);
    let schema = schema.build();
    let index = DedupIndex::create(Index::create_in_ram(schema.clone()), settings).unwrap();
    (index, schema)
}

/// The report twice and its edited copy, each added with its fingerprint alone (what an
/// application could do before `fill_document`), uncommitted.
fn add_with_fingerprints_alone(
    index: &DedupIndex,
    schema: &Schema,
) -> tantivy::Result<IndexWriter> {
    let fingerprint_field = schema.get_field("dedup_fingerprint").unwrap();
    let writer: IndexWriter = index.index().writer_with_num_threads(1, 15_000_000)?;
    for (url, body) in [
        ("a", REPORT.to_owned()),
        ("b", REPORT.to_owned()),
        ("c", edited()),
    ] {
        let mut document = page(schema, url, &body);
        let fingerprint = index.fingerprint_of(&document).unwrap();
        document.add_u64(fingerprint_field, fingerprint.bits());
        writer.add_document(document)?;
    }
    Ok(writer)
}

/// In today's indexes the segment component signs what an application's own writer adds:
/// a document given its fingerprint alone is judged as the writer judges.
#[test]
fn the_segment_component_signs_documents_given_a_fingerprint_alone() -> tantivy::Result<()> {
    let (index, schema) = index();
    let mut writer = add_with_fingerprints_alone(&index, &schema)?;
    writer.commit()?;
    let searcher = index.index().reader()?.searcher();
    let body = schema.get_field("body").unwrap();
    let query = QueryParser::for_index(index.index(), vec![body]).parse_query("council")?;
    let top = index
        .collector(10)
        .require_signatures(true)
        .search(&searcher, &*query)
        .unwrap();
    assert_eq!(
        (top.hits.len(), top.hidden_total, top.unverified),
        (1, 2, 0),
        "{top:?}"
    );
    assert!(index.unsigned_documents(&searcher).unwrap().is_empty());
    Ok(())
}

#[test]
fn documents_without_signatures_are_judged_counted_and_found() -> tantivy::Result<()> {
    let (index, schema) = index_with_signature_column();
    let mut writer = add_with_fingerprints_alone(&index, &schema)?;
    // One filled document beside them: search goes on over both kinds.
    let mut filled = page(
        &schema,
        "d",
        "An unrelated note about the weather and the harvest.",
    );
    index.fill_document(&mut filled);
    writer.add_document(filled)?;
    writer.commit()?;
    let searcher = index.index().reader()?.searcher();
    let body = schema.get_field("body").unwrap();
    let query = QueryParser::for_index(index.index(), vec![body]).parse_query("council")?;
    // Judged as well as they can be: the exact copy by its fingerprint, the edited one
    // (beyond k) not at all; each counted.
    let top = index.collector(10).search(&searcher, &*query).unwrap();
    assert_eq!(top.hits.len(), 2, "{top:?}");
    assert_eq!(top.hidden_total, 1, "the exact copy, within k");
    assert!(top.unverified >= 2, "{top:?}");
    let direct = searcher.search(&*query, &index.collector(10))?;
    assert_eq!(direct, top, "tantivy's entry point searches too");
    // Found, to be mended.
    let unsigned = index.unsigned_documents(&searcher).unwrap();
    assert_eq!(unsigned.len(), 3);
    // Asked for, the strict collector refuses them.
    match index
        .collector(10)
        .require_signatures(true)
        .search(&searcher, &*query)
    {
        Err(error @ Error::MissingSignatures { documents: 3, .. }) => {
            assert!(error.to_string().contains("fill_document"), "{error}")
        }
        other => panic!("expected MissingSignatures, got {other:?}"),
    }
    match searcher.search(&*query, &index.collector(10).require_signatures(true)) {
        Err(TantivyError::DataCorruption(corruption)) => {
            let message = format!("{corruption:?}");
            assert!(message.contains("no signature"), "{message}");
        }
        other => panic!("expected the refusal, got {other:?}"),
    }
    Ok(())
}

#[test]
fn bulk_imported_documents_are_what_the_writer_would_have_written() -> tantivy::Result<()> {
    let (index, schema) = index();
    let texts: Vec<(String, String)> = (0..50)
        .map(|i| {
            (
                format!("u{i}"),
                format!("{REPORT} Item {i} of the list, number {}.", i * 7919),
            )
        })
        .collect();
    {
        let mut writer: IndexWriter = index.index().writer_with_num_threads(1, 15_000_000)?;
        for (url, body) in &texts {
            let mut document = page(&schema, url, body);
            index.fill_document(&mut document);
            writer.add_document(document)?;
        }
        writer.commit()?;
    }
    // A resumed crawl through a DedupWriter finds every document there, as it was.
    let writer = index.writer(Policy::Reject, 15_000_000).unwrap();
    for (url, body) in &texts {
        let outcome = writer.add(page(&schema, url, body)).unwrap();
        assert!(
            matches!(outcome, AddOutcome::Exists { .. }),
            "{url}: {outcome:?}"
        );
    }
    // New documents go on after the imported ones in the add order.
    let outcome = writer
        .add(page(
            &schema,
            "new",
            "A new page about something else entirely, at length.",
        ))
        .unwrap();
    assert!(matches!(outcome, AddOutcome::Added { .. }), "{outcome:?}");
    writer.commit().unwrap();
    let searcher = index.index().reader()?.searcher();
    let mut sequences = Vec::new();
    for reader in searcher.segment_readers() {
        let column = reader.fast_fields().u64(SEQUENCE_FIELD)?;
        for doc in 0..reader.max_doc() {
            sequences.push(column.first(doc).expect("every document has its place"));
        }
    }
    sequences.sort_unstable();
    assert_eq!(sequences, (0..51).collect::<Vec<u64>>());
    Ok(())
}

#[test]
fn a_busy_writer_lock_says_so() {
    let (index, _) = index();
    let _writer = index
        .writer(tantivy_dedup::plugin::Policy::Reject, 15_000_000)
        .unwrap();
    let error = index
        .writer(tantivy_dedup::plugin::Policy::Reject, 15_000_000)
        .unwrap_err();
    let message = error.to_string();
    assert!(message.contains("Lock"), "tantivy's own words: {message}");
    assert!(matches!(
        error,
        Error::Tantivy(TantivyError::LockFailure(..))
    ));
}

/// An application's schema that declares the key field itself, as a crawler's schema has
/// its url: `add_fields` keeps it (made FAST and STORED), where it used to panic.
#[test]
fn add_fields_takes_a_schema_that_has_the_key_field() {
    let settings = DedupSettings::new(["body"]).key_field("url");
    let mut schema = Schema::builder();
    let url = schema.add_text_field("url", STRING);
    settings.add_fields(&mut schema).unwrap();
    // Twice is the same; the text field may come after.
    settings.add_fields(&mut schema).unwrap();
    let body = schema.add_text_field("body", text_field_options());
    let schema = schema.build();
    assert_eq!(
        schema.get_field("url").unwrap(),
        url,
        "the field keeps its number"
    );
    let entry = schema.get_field_entry(url);
    assert!(entry.is_fast() && entry.is_stored(), "{entry:?}");
    let index = DedupIndex::create(Index::create_in_ram(schema), settings).unwrap();
    let writer = index
        .writer(tantivy_dedup::plugin::Policy::Reject, 15_000_000)
        .unwrap();
    let outcome = writer.add(doc!(url => "a", body => REPORT)).unwrap();
    assert!(outcome.is_indexed());
    let again = writer.add(doc!(url => "a", body => REPORT)).unwrap();
    assert!(
        !again.is_indexed(),
        "the key field works as a key: {again:?}"
    );
}

#[test]
fn add_fields_refuses_an_unfit_field_and_leaves_the_schema_as_it_was() {
    let settings = DedupSettings::new(["body"]).key_field("url");
    for (name, unfit) in [
        ("url", "a tokenized key"),
        ("dedup_fingerprint", "a plugin field of another type"),
        (
            "body",
            "a text field named by the settings that is not text",
        ),
    ] {
        let mut schema = Schema::builder();
        if name == "url" {
            schema.add_text_field("url", TEXT);
        } else if name == "body" {
            schema.add_u64_field("body", INDEXED);
        } else {
            schema.add_text_field(name, STRING);
        }
        match settings.add_fields(&mut schema) {
            Err(Error::Schema { field, .. }) => assert_eq!(field, name, "{unfit}"),
            other => panic!("{unfit}: {other:?}"),
        }
        let names: Vec<String> = (schema.build().fields())
            .map(|(_, entry)| entry.name().to_owned())
            .collect();
        assert_eq!(names, [name], "{unfit}: nothing added");
    }
}
