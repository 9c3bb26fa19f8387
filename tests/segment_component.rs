//! The plugin inside tantivy: each document's values in a segment component of the crate's
//! own, written by tantivy's indexing threads, merged and committed with the segments. A
//! document an application's own `IndexWriter` adds as it comes is fingerprinted there and
//! judged as any other. From a downstream crate's point of view: public API only.

use tantivy::collector::TopDocs;
use tantivy::indexer::NoMergePolicy;
use tantivy::query::{AllQuery, TermQuery};
use tantivy::schema::{IndexRecordOption, Schema};
use tantivy::{doc, Index, IndexWriter, TantivyError, Term};
use tantivy_dedup::plugin::{
    register_tokenizer, text_field_options, AddOutcome, DedupIndex, DedupSettings, Policy,
    VALUES_FIELD,
};
use tantivy_dedup::text::MixedTokenizer;
use tantivy_dedup::Error;

const REPORT: &str = "The city council met on Tuesday evening to discuss the new budget for \
    public transport. After three hours of debate the members agreed to add two bus lines, to \
    repair the old tram tracks along the river, and to lower the price of a monthly ticket \
    for students and pensioners from next spring.";

const OTHER: &str = "A storm closed the mountain pass for two days; trucks waited in the \
    valley while crews cleared fallen trees and repaired a bridge washed out by the river.";

fn settings() -> DedupSettings {
    DedupSettings::new(["body"]).key_field("url")
}

fn schema(settings: &DedupSettings) -> Schema {
    let mut schema = Schema::builder();
    schema.add_text_field("body", text_field_options());
    settings.add_fields(&mut schema).unwrap();
    schema.build()
}

fn shown_and_hidden(index: &DedupIndex) -> (usize, usize) {
    let searcher = index.index().reader().unwrap().searcher();
    let top = index.collector(10).search(&searcher, &AllQuery).unwrap();
    (top.hits.len(), top.hidden_total)
}

/// A new index in a folder of its own, holding the report under key `a`, added and
/// committed by a `DedupWriter`.
fn index_on_disk_holding_the_report(
) -> Result<(tempfile::TempDir, DedupIndex, Schema), Box<dyn std::error::Error>> {
    let settings = settings();
    let schema = schema(&settings);
    let dir = tempfile::tempdir()?;
    let index = DedupIndex::create(Index::create_in_dir(dir.path(), schema.clone())?, settings)?;
    let (body, url) = (schema.get_field("body")?, schema.get_field("url")?);
    let writer = index.writer_with_num_threads(Policy::Reject, 1, 15_000_000)?;
    writer.add(doc!(url => "a", body => REPORT))?;
    writer.commit()?;
    Ok((dir, index, schema))
}

#[test]
fn a_document_of_the_applications_own_writer_is_fingerprinted_hidden_and_found(
) -> Result<(), Box<dyn std::error::Error>> {
    let (dir, index, schema) = index_on_disk_holding_the_report()?;
    let (body, url) = (schema.get_field("body")?, schema.get_field("url")?);

    // The application's own writer, on the same index: no fill_document.
    let mut own: IndexWriter = index.index().writer_with_num_threads(1, 15_000_000)?;
    own.add_document(doc!(url => "b", body => REPORT))?;
    own.add_document(doc!(url => "c", body => OTHER))?;
    own.commit()?;
    drop(own);
    assert_eq!(shown_and_hidden(&index), (2, 1), "b hidden under a");

    // A DedupWriter finds b: delete a, and a third copy is still a duplicate.
    let writer = index.writer_with_num_threads(Policy::Reject, 1, 15_000_000)?;
    writer.delete_key("a")?;
    writer.commit()?;
    let outcome = writer.add(doc!(url => "d", body => REPORT))?;
    match outcome {
        AddOutcome::Rejected { duplicate_of, .. } => {
            assert_eq!(duplicate_of.key.as_deref(), Some("b"))
        }
        other => panic!("expected a rejection against b, got {other:?}"),
    }
    writer.commit()?;
    drop(writer);

    // Merged, reopened from disk: the values went with the documents.
    let reopened = DedupIndex::open(Index::open_in_dir(dir.path())?)?;
    let mut own: IndexWriter = reopened.index().writer_with_num_threads(1, 15_000_000)?;
    own.add_document(doc!(url => "e", body => OTHER))?;
    own.commit()?;
    let segments = reopened.index().searchable_segment_ids()?;
    own.merge(&segments).wait()?;
    own.wait_merging_threads()?;
    let reopened = DedupIndex::open(Index::open_in_dir(dir.path())?)?;
    let searcher = reopened.index().reader()?.searcher();
    assert_eq!(searcher.segment_readers().len(), 1);
    assert_eq!(searcher.num_docs(), 3, "b, c, e");
    assert_eq!(shown_and_hidden(&reopened), (2, 1), "e hidden under c");
    let c = searcher.search(
        &TermQuery::new(Term::from_field_text(url, "c"), IndexRecordOption::Basic),
        &TopDocs::with_limit(1).order_by_score(),
    )?;
    assert_eq!(c.len(), 1);

    // Without the component registered, tantivy refuses to write rather than lose values.
    let bare = Index::open_in_dir(dir.path())?;
    let refused = bare.writer_with_num_threads::<tantivy::TantivyDocument>(1, 15_000_000);
    assert!(matches!(refused, Err(TantivyError::MissingPlugin(_))));
    Ok(())
}

#[test]
fn an_index_built_by_hand_registers_the_component() -> Result<(), Box<dyn std::error::Error>> {
    let settings = settings();
    let schema = schema(&settings);
    let index = Index::builder()
        .schema(schema.clone())
        .register_plugin(settings.segment_plugin()?)
        .create_in_ram()?;
    // Taken as it is: the component registered once.
    let index = DedupIndex::create(index, settings)?;
    let mut own: IndexWriter = index.index().writer_with_num_threads(1, 15_000_000)?;
    own.set_merge_policy(Box::new(NoMergePolicy));
    let (body, url) = (schema.get_field("body")?, schema.get_field("url")?);
    own.add_document(doc!(url => "a", body => REPORT))?;
    own.commit()?;
    own.add_document(doc!(url => "b", body => REPORT))?;
    own.commit()?;
    drop(own);
    assert_eq!(shown_and_hidden(&index), (1, 1), "across segments");
    Ok(())
}

#[test]
fn an_index_committed_without_the_component_is_refused_with_the_way_out() {
    let settings = settings();
    let schema = schema(&settings);
    let index = Index::create_in_ram(schema.clone());
    register_tokenizer(&index, MixedTokenizer::default());
    let mut own: IndexWriter = index.writer_with_num_threads(1, 15_000_000).unwrap();
    own.add_document(doc!(schema.get_field("body").unwrap() => REPORT))
        .unwrap();
    own.commit().unwrap();
    drop(own);
    match DedupIndex::create(index, settings) {
        Err(Error::Schema { field, reason }) => {
            assert_eq!(field, VALUES_FIELD);
            assert!(reason.contains("segment_plugin"), "{reason}");
        }
        other => panic!("expected a schema error, got {other:?}"),
    }
}

#[test]
fn a_segment_without_its_values_file_is_an_error_not_a_wait(
) -> Result<(), Box<dyn std::error::Error>> {
    let (dir, _, _) = index_on_disk_holding_the_report()?;
    let mut removed = 0;
    for entry in std::fs::read_dir(dir.path())? {
        let path = entry?.path();
        if path.extension().is_some_and(|ext| ext == "dedup") {
            std::fs::remove_file(path)?;
            removed += 1;
        }
    }
    assert_eq!(removed, 1);
    let reopened = DedupIndex::open(Index::open_in_dir(dir.path())?)?;
    let refused = reopened.writer_with_num_threads(Policy::Reject, 1, 15_000_000);
    let Err(error) = refused else {
        panic!("a writer on a damaged index is refused");
    };
    assert!(format!("{error:?}").contains(".dedup"), "{error:?}");
    let searcher = reopened.index().reader()?.searcher();
    assert!(reopened.collector(10).search(&searcher, &AllQuery).is_err());
    Ok(())
}
