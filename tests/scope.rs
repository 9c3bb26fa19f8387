//! Near-duplicates within a scope (a site here; a language or a tenant alike): the same
//! article on two sites is two documents, a copy on one site is a near-duplicate, at index
//! time (across commits and reopening), at query time and in the batch helpers. From a
//! downstream crate's point of view: public API only.

mod support;

use support::index::stored_str;

use tantivy::query::QueryParser;
use tantivy::schema::{Schema, STORED, STRING};
use tantivy::{doc, DocAddress, Index, Searcher, TantivyDocument};
use tantivy_dedup::plugin::{
    text_field_options, AddOutcome, Check, DedupIndex, DedupSettings, Policy,
};

const MEMORY: usize = 15_000_000;

const ARTICLE: &str = "The city council met on Tuesday evening to discuss the new budget for \
    public transport. After three hours of debate the members agreed to add two bus lines, to \
    repair the old tram tracks along the river, and to lower the price of a monthly ticket \
    for students and pensioners from next spring.";

fn settings() -> DedupSettings {
    DedupSettings::new(["body"])
        .key_field("url")
        .scope_field("site")
}

fn create(dir: &std::path::Path, settings: DedupSettings) -> DedupIndex {
    let mut schema = Schema::builder();
    schema.add_text_field("body", text_field_options());
    schema.add_text_field("site", STRING | STORED);
    settings.add_fields(&mut schema).unwrap();
    let index = Index::create_in_dir(dir, schema.build()).unwrap();
    DedupIndex::create(index, settings).unwrap()
}

fn page(index: &DedupIndex, url: &str, site: Option<&str>, body: &str) -> TantivyDocument {
    let schema = index.index().schema();
    let field = |name| schema.get_field(name).unwrap();
    let mut document = doc!(field("url") => url, field("body") => body);
    if let Some(site) = site {
        document.add_text(field("site"), site);
    }
    document
}

fn copy() -> String {
    ARTICLE.replace("Tuesday", "Monday")
}

fn url_of(searcher: &Searcher, address: DocAddress) -> String {
    stored_str(searcher, address, "url")
}

#[test]
fn the_writer_compares_a_page_with_its_own_scope_only() {
    let dir = tempfile::tempdir().unwrap();
    let index = create(dir.path(), settings());
    {
        let writer = index.writer(Policy::Reject, MEMORY).unwrap();
        let add = |url, site, body: &str| writer.add(page(&index, url, site, body)).unwrap();
        assert!(add("a/1", Some("a.example"), ARTICLE).is_indexed());
        // The same article on another site: another scope, indexed.
        assert!(add("b/1", Some("b.example"), ARTICLE).is_indexed());
        // A copy on the first site: its near-duplicate there, rejected before a commit.
        let rejected = add("a/2", Some("a.example"), &copy());
        match rejected {
            AddOutcome::Rejected { duplicate_of, .. } => {
                assert_eq!(duplicate_of.key.as_deref(), Some("a/1"))
            }
            other => panic!("{other:?}"),
        }
        // Pages without a site share the empty scope.
        assert!(add("x/1", None, ARTICLE).is_indexed());
        assert!(!add("x/2", None, &copy()).is_indexed());
        writer.commit().unwrap();
    }
    // Reopened: the scopes of committed pages are read back from the index.
    let reopened = DedupIndex::open(Index::open_in_dir(dir.path()).unwrap()).unwrap();
    let writer = reopened.writer(Policy::Reject, MEMORY).unwrap();
    let copy_on_b = page(&reopened, "b/2", Some("b.example"), &copy());
    match writer.check(&copy_on_b).unwrap() {
        Check::Duplicate { of, .. } => {
            let keys: Vec<_> = of.iter().map(|d| d.key.as_deref()).collect();
            assert_eq!(keys, [Some("b/1")], "only the page of its own site");
        }
        other => panic!("{other:?}"),
    }
    assert!(!writer.add(copy_on_b).unwrap().is_indexed());
    let new_site = page(&reopened, "c/1", Some("c.example"), &copy());
    assert!(writer.add(new_site).unwrap().is_indexed());
}

#[test]
fn search_and_batch_helpers_keep_scopes_apart() {
    let dir = tempfile::tempdir().unwrap();
    // Flagged copies stay in the index, to be hidden under their originals or not.
    let index = create(dir.path(), settings().flagging(true));
    let writer = index.writer(Policy::Flag, MEMORY).unwrap();
    for (url, site, body) in [
        ("a/1", "a.example", ARTICLE.to_owned()),
        ("b/1", "b.example", copy()),
        ("a/2", "a.example", copy()),
    ] {
        writer.add(page(&index, url, Some(site), &body)).unwrap();
        writer.commit().unwrap();
    }
    let searcher = writer.searcher();
    let body = searcher.schema().get_field("body").unwrap();
    let query = QueryParser::for_index(index.index(), vec![body])
        .parse_query("council")
        .unwrap();
    let page = index
        .collector(10)
        .include_flagged()
        .search(&searcher, &*query)
        .unwrap();
    let shown: Vec<String> = page
        .addresses()
        .iter()
        .map(|&a| url_of(&searcher, a))
        .collect();
    // Near-equal scores: which page of site a ranks first depends on the segments' order.
    let sites: Vec<&str> = shown.iter().map(|url| &url[..1]).collect();
    assert_eq!(sites.len(), 2);
    assert!(
        sites.contains(&"a") && sites.contains(&"b"),
        "one page a site: {shown:?}"
    );
    assert_eq!(page.hidden_total, 1, "the other page of site a");
    let hider = page.hits.iter().find(|hit| !hit.hidden.is_empty()).unwrap();
    assert!(url_of(&searcher, hider.address).starts_with("a/"));
    assert!(url_of(&searcher, hider.hidden[0].address).starts_with("a/"));
    // Through tantivy's entry point, the same page.
    assert_eq!(
        searcher
            .search(&*query, &index.collector(10).include_flagged())
            .unwrap(),
        page
    );

    let groups = index.duplicate_groups(&searcher, index.distance()).unwrap();
    let groups: Vec<(String, Vec<String>)> = groups
        .iter()
        .map(|group| {
            let members = group.members.iter().map(|&m| url_of(&searcher, m));
            (url_of(&searcher, group.leader), members.collect())
        })
        .collect();
    assert_eq!(groups, [("a/1".to_owned(), vec!["a/2".to_owned()])]);

    let near = index
        .near_duplicates_of(&searcher, hider.address, index.distance())
        .unwrap();
    let near: Vec<String> = near.iter().map(|n| url_of(&searcher, n.address)).collect();
    let other_a = url_of(&searcher, hider.hidden[0].address);
    assert_eq!(near, [other_a], "its own site only");
    // A bare text has no scope: every site's pages.
    let of_text = index
        .near_duplicates_of_text(&searcher, ARTICLE, index.distance())
        .unwrap();
    assert_eq!(of_text.len(), 3);
}

#[test]
fn a_facet_scopes_and_a_hand_built_collector_honours_scopes() {
    use tantivy::schema::{Facet, FacetOptions};
    use tantivy_dedup::plugin::{DedupCollector, FINGERPRINT_FIELD};
    let dir = tempfile::tempdir().unwrap();
    let settings = DedupSettings::new(["body"])
        .key_field("url")
        .scope_field("site")
        .flagging(true);
    let mut schema = Schema::builder();
    schema.add_text_field("body", text_field_options());
    let site = schema.add_facet_field("site", FacetOptions::default());
    settings.add_fields(&mut schema).unwrap();
    let index = Index::create_in_dir(dir.path(), schema.build()).unwrap();
    let index = DedupIndex::create(index, settings).unwrap();
    let writer = index.writer(Policy::Flag, MEMORY).unwrap();
    let schema = index.index().schema();
    let field = |name| schema.get_field(name).unwrap();
    for (url, facet, body) in [
        ("a/1", "/site/a.example", ARTICLE.to_owned()),
        ("b/1", "/site/b.example", copy()),
        ("a/2", "/site/a.example", copy()),
    ] {
        let document = doc!(
            field("url") => url,
            field("body") => body,
            site => Facet::from(facet),
        );
        writer.add(document).unwrap();
    }
    writer.commit().unwrap();
    let searcher = writer.searcher();
    let query = QueryParser::for_index(index.index(), vec![field("body")])
        .parse_query("council")
        .unwrap();
    // The writer kept one site's copy apart from the other's: only a/2 is flagged.
    let groups = index.duplicate_groups(&searcher, index.distance()).unwrap();
    assert_eq!(groups.len(), 1);
    assert_eq!(url_of(&searcher, groups[0].leader), "a/1");
    // A collector built by hand, without `.scope(..)`, reads the index's scopes.
    let hand_built = DedupCollector::new(FINGERPRINT_FIELD, 10).distance(index.distance());
    let page = hand_built.search(&searcher, &*query).unwrap();
    assert_eq!(page.hits.len(), 2, "one page a site: {page:?}");
    assert_eq!(page.hidden_total, 1);
    let through_tantivy = searcher.search(&*query, &hand_built).unwrap();
    assert_eq!(through_tantivy, page);
    // Asked to, it lets every site's pages hide each other.
    let unscoped = hand_built
        .without_scopes()
        .search(&searcher, &*query)
        .unwrap();
    assert_eq!(unscoped.hits.len(), 1, "{unscoped:?}");
}
