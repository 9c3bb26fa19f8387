//! `DedupWriter`'s deletes, as tantivy's `IndexWriter` has them: by term (by key when the
//! term is of the key field) and all documents. From a downstream crate's point of view:
//! public API only.

use tantivy::collector::Count;
use tantivy::query::AllQuery;
use tantivy::schema::{Schema, STRING};
use tantivy::{doc, Index, Term};
use tantivy_dedup::plugin::{text_field_options, AddOutcome, DedupIndex, DedupSettings, Policy};

const PAGE: &str = "The city council met on Tuesday evening to discuss the new budget for public \
    transport, and agreed to add two bus lines and to repair the old tram tracks.";

#[test]
fn deletes_by_term_and_of_everything() {
    let settings = DedupSettings::new(["body"]).key_field("url");
    let mut schema = Schema::builder();
    schema.add_text_field("body", text_field_options());
    let site = schema.add_text_field("site", STRING);
    settings.add_fields(&mut schema).unwrap();
    let index = DedupIndex::create(Index::create_in_ram(schema.build()), settings).unwrap();
    let schema = index.index().schema();
    let (url, body) = (
        schema.get_field("url").unwrap(),
        schema.get_field("body").unwrap(),
    );
    let writer = index
        .writer_with_num_threads(Policy::Reject, 1, 15_000_000)
        .unwrap();
    let add = |key: &str, at: &str| {
        writer
            .add(doc!(url => key, body => PAGE, site => at))
            .unwrap()
    };
    assert!(matches!(add("a", "one"), AddOutcome::Added { .. }));
    // By a term of the key field: forgotten at once, so a copy goes in now.
    writer.delete_term(Term::from_field_text(url, "a")).unwrap();
    assert!(matches!(add("b", "two"), AddOutcome::Added { .. }));
    writer.commit().unwrap();
    let count = || writer.searcher().search(&AllQuery, &Count).unwrap();
    assert_eq!(count(), 1);
    // By a term of another field: gone once committed.
    writer
        .delete_term(Term::from_field_text(site, "two"))
        .unwrap();
    writer.commit().unwrap();
    assert_eq!(count(), 0);
    assert!(matches!(add("c", "one"), AddOutcome::Added { .. }));
    writer.commit().unwrap();
    // Everything: gone once committed, and nothing is compared with it after.
    writer.delete_all_documents().unwrap();
    writer.commit().unwrap();
    assert_eq!(count(), 0);
    assert!(matches!(add("d", "one"), AddOutcome::Added { .. }));
}
