//! `DedupWriter::prepare_commit`, tantivy's two-phase commit: the writer's view of the index
//! follows the prepared commit's end (committed, aborted, or left for the next commit). From
//! a downstream crate's point of view: public API only.

use tantivy::{doc, Index};
use tantivy_dedup::plugin::{
    text_field_options, AddOutcome, DedupIndex, DedupSettings, DedupWriter, Policy,
};

const PAGE: &str = "The city council met on Tuesday evening to discuss the new budget for public \
    transport, and agreed to add two bus lines and to repair the old tram tracks.";

fn index_and_writer() -> (DedupIndex, DedupWriter) {
    let settings = DedupSettings::new(["body"]).key_field("url");
    let mut schema = tantivy::schema::Schema::builder();
    schema.add_text_field("body", text_field_options());
    settings.add_fields(&mut schema).unwrap();
    let index = DedupIndex::create(Index::create_in_ram(schema.build()), settings).unwrap();
    let writer = index
        .writer_with_num_threads(Policy::Reject, 1, 15_000_000)
        .unwrap();
    (index, writer)
}

fn add(writer: &DedupWriter, key: &str, text: &str) -> AddOutcome {
    let schema = writer.index().index().schema();
    let (url, body) = (
        schema.get_field("url").unwrap(),
        schema.get_field("body").unwrap(),
    );
    writer.add(doc!(url => key, body => text)).unwrap()
}

/// Documents of the last commit, as a new reader of the index sees them.
fn visible(index: &DedupIndex) -> u64 {
    index.index().reader().unwrap().searcher().num_docs()
}

#[test]
fn abort_drops_the_documents_from_the_index_and_the_writer() {
    let (index, mut writer) = index_and_writer();
    assert!(matches!(add(&writer, "a", PAGE), AddOutcome::Added { .. }));
    assert_eq!(writer.references(), 1);
    let prepared = writer.prepare_commit().unwrap();
    prepared.abort().unwrap();
    assert_eq!(visible(&index), 0);
    // The writer is as before the add: nothing to compare with, so the same document and
    // a copy under another key are new, once each.
    assert_eq!(writer.references(), 0);
    assert!(matches!(add(&writer, "a", PAGE), AddOutcome::Added { .. }));
    assert!(matches!(
        add(&writer, "b", PAGE),
        AddOutcome::Rejected { .. }
    ));
}

#[test]
fn commit_makes_them_visible_with_the_payload_and_known_to_the_writer() {
    let (index, mut writer) = index_and_writer();
    add(&writer, "a", PAGE);
    let mut prepared = writer.prepare_commit().unwrap();
    let opstamp = prepared.opstamp();
    prepared.set_payload("crawl 7");
    assert_eq!(prepared.commit().unwrap(), opstamp);
    assert_eq!(visible(&index), 1);
    assert_eq!(writer.searcher().num_docs(), 1);
    let metas = index.index().load_metas().unwrap();
    assert_eq!(metas.payload.as_deref(), Some("crawl 7"));
    assert_eq!(metas.opstamp, opstamp);
    assert!(matches!(add(&writer, "a", PAGE), AddOutcome::Exists { .. }));
    // A rollback now goes back to the prepared commit, not before it.
    writer.rollback().unwrap();
    assert!(matches!(add(&writer, "a", PAGE), AddOutcome::Exists { .. }));
}

#[test]
fn a_commit_after_a_delete_of_everything_forgets_the_documents() {
    let (index, mut writer) = index_and_writer();
    add(&writer, "a", PAGE);
    writer.commit().unwrap();
    writer.delete_all_documents().unwrap();
    writer.prepare_commit().unwrap().commit().unwrap();
    assert_eq!(visible(&index), 0);
    assert_eq!(writer.references(), 0);
    assert!(matches!(add(&writer, "b", PAGE), AddOutcome::Added { .. }));
}

#[test]
fn a_prepared_commit_dropped_leaves_the_documents_to_the_next_commit() {
    let (index, mut writer) = index_and_writer();
    add(&writer, "a", PAGE);
    drop(writer.prepare_commit().unwrap());
    assert_eq!(visible(&index), 0);
    assert!(matches!(add(&writer, "a", PAGE), AddOutcome::Exists { .. }));
    writer.commit().unwrap();
    assert_eq!(visible(&index), 1);
}
