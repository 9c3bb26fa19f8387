//! An application that indexes with its own `IndexWriter`, as a tantivy user already does:
//! `DedupIndex::fill_document` gives its documents what a `DedupWriter` would, and an index
//! whose documents lack their signatures is refused by the index's collector instead of
//! being searched with weaker deduplication. From a downstream crate's point of view:
//! public API only.

use tantivy::collector::Count;
use tantivy::query::QueryParser;
use tantivy::schema::{Schema, FAST, INDEXED, STORED, STRING, TEXT};
use tantivy::{doc, Index, IndexWriter, TantivyDocument, TantivyError};
use tantivy_dedup::plugin::{text_field_options, DedupIndex, DedupSettings};
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

#[test]
fn documents_without_signatures_are_refused_not_searched_weaker() -> tantivy::Result<()> {
    let (index, schema) = index();
    let fingerprint_field = schema.get_field("dedup_fingerprint").unwrap();
    let mut writer: IndexWriter = index.index().writer_with_num_threads(1, 15_000_000)?;
    for (url, body) in [("a", REPORT.to_owned()), ("b", edited())] {
        // What an application could do before `fill_document`: the fingerprint alone.
        let mut document = page(&schema, url, &body);
        let fingerprint = index.fingerprint_of(&document).unwrap();
        document.add_u64(fingerprint_field, fingerprint.bits());
        writer.add_document(document)?;
    }
    writer.commit()?;
    let searcher = index.index().reader()?.searcher();
    let body = schema.get_field("body").unwrap();
    let query = QueryParser::for_index(index.index(), vec![body]).parse_query("council")?;
    match index.collector(10).search(&searcher, &*query) {
        Err(error @ Error::MissingSignatures { documents: 2, .. }) => {
            assert!(error.to_string().contains("fill_document"), "{error}")
        }
        other => panic!("expected MissingSignatures, got {other:?}"),
    }
    match searcher.search(&*query, &index.collector(10)) {
        Err(TantivyError::DataCorruption(corruption)) => {
            let message = format!("{corruption:?}");
            assert!(message.contains("no signature"), "{message}");
        }
        other => panic!("expected the refusal, got {other:?}"),
    }
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
