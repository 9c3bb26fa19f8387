//! "Newest first, near-duplicates collapsed": a dedup index whose schema has the
//! application's own date field, ranked by it in either order through every tantivy entry
//! point, and a ranking the application made itself (by a string field) deduped by the
//! index's rule. From a downstream crate's point of view: public API only.

mod support;

use support::index::stored_str;

use tantivy::collector::{Count, TopDocs};
use tantivy::query::{AllQuery, QueryParser};
use tantivy::schema::{Schema, FAST, INDEXED, STORED, STRING};
use tantivy::{doc, DateTime, DocAddress, Index, Order, Searcher, TantivyDocument};
use tantivy_dedup::plugin::{text_field_options, DedupIndex, DedupSettings, DedupTopDocs, Policy};

const MEMORY: usize = 15_000_000;

/// Three stories; two of them come twice, the copy a few words off.
const BUDGET: &str = "The city council met on Tuesday evening to discuss the new budget for \
    public transport. After three hours of debate the members agreed to add two bus lines, to \
    repair the old tram tracks along the river, and to lower the price of a monthly ticket \
    for students and pensioners from next spring.";
const HARVEST: &str = "Farmers in the northern valleys began the grape harvest two weeks \
    earlier than usual this year. A dry summer and a warm September ripened the fruit fast, \
    and the cooperative expects a smaller but sweeter vintage, with prices for the best \
    plots already above those of last autumn.";
const MUSEUM: &str = "The natural history museum reopens its whale hall on Saturday after a \
    renovation of four years. The skeleton of a blue whale found on the coast in the last \
    century hangs again from the ceiling, lit from below, beside new rooms on the deep sea \
    and on the birds that follow the fishing boats.";

/// (url, site, day, text): the budget story on day 1 and its copy on day 5, the museum
/// story on day 4 and its copy on day 2, the harvest story alone on day 3.
fn pages() -> Vec<(&'static str, &'static str, i64, String)> {
    vec![
        ("budget", "c.example", 1, BUDGET.to_owned()),
        ("harvest", "a.example", 3, HARVEST.to_owned()),
        ("museum", "b.example", 4, MUSEUM.to_owned()),
        (
            "museum-copy",
            "a.example",
            2,
            MUSEUM.replace("Saturday", "Sunday"),
        ),
        (
            "budget-copy",
            "b.example",
            5,
            BUDGET.replace("Tuesday", "Monday"),
        ),
    ]
}

/// The index, copies flagged at ingest (so both members of a group are searchable).
fn index() -> DedupIndex {
    let settings = DedupSettings::new(["body"]).key_field("url").flagging(true);
    let mut schema = Schema::builder();
    let body = schema.add_text_field("body", text_field_options());
    let site = schema.add_text_field("site", STRING | FAST | STORED);
    let published = schema.add_date_field("published", FAST | INDEXED | STORED);
    settings.add_fields(&mut schema).unwrap();
    let schema = schema.build();
    let url = schema.get_field("url").unwrap();
    let index = DedupIndex::create(Index::create_in_ram(schema), settings).unwrap();
    let writer = index.writer(Policy::Flag, MEMORY).unwrap();
    for (key, host, day, text) in pages() {
        let day = DateTime::from_timestamp_secs(day * 86_400);
        let page: TantivyDocument = doc!(url => key, site => host, published => day, body => text);
        writer.add(page).unwrap();
        // One segment per page: the ranking crosses segments.
        writer.commit().unwrap();
    }
    index
}

fn url_of(searcher: &Searcher, address: DocAddress) -> String {
    stored_str(searcher, address, "url")
}

/// Each shown hit's url with the urls it hid.
fn groups(searcher: &Searcher, page: &DedupTopDocs) -> Vec<(String, Vec<String>)> {
    page.hits
        .iter()
        .map(|hit| {
            let hidden = hit.hidden.iter().map(|h| url_of(searcher, h.address));
            (url_of(searcher, hit.address), hidden.collect())
        })
        .collect()
}

fn owned(groups: &[(&str, &[&str])]) -> Vec<(String, Vec<String>)> {
    groups
        .iter()
        .map(|(url, hidden)| {
            let hidden = hidden.iter().map(|h| (*h).to_owned()).collect();
            ((*url).to_owned(), hidden)
        })
        .collect()
}

#[test]
fn newest_and_oldest_first_with_near_duplicates_collapsed() {
    let index = index();
    let searcher = index.index().reader().unwrap().searcher();
    // The best-ranked member of each group shows (`originals_first(false)`).
    let collector = index.collector(10).include_flagged().originals_first(false);
    let originals_first = index.collector(10).include_flagged();
    for (order, expected) in [
        (
            Order::Desc,
            owned(&[
                ("budget-copy", &["budget"]),
                ("museum", &["museum-copy"]),
                ("harvest", &[]),
            ]),
        ),
        (
            Order::Asc,
            owned(&[
                ("budget", &["budget-copy"]),
                ("museum-copy", &["museum"]),
                ("harvest", &[]),
            ]),
        ),
    ] {
        // By default the originals lead their groups, at the groups' places.
        let led = originals_first
            .clone()
            .order_by_fast_field("published", order)
            .search(&searcher, &AllQuery)
            .unwrap();
        let originals = owned(&[
            ("budget", &["budget-copy"]),
            ("museum", &["museum-copy"]),
            ("harvest", &[]),
        ]);
        assert_eq!(groups(&searcher, &led), originals, "{order:?}");
        let by_date = collector.clone().order_by_fast_field("published", order);
        let page = by_date.search(&searcher, &AllQuery).unwrap();
        assert_eq!(groups(&searcher, &page), expected, "{order:?}");
        let days: Vec<i64> = page
            .hits
            .iter()
            .map(|hit| match hit.sort_value_as::<DateTime>() {
                Some(date) => date.into_timestamp_secs() / 86_400,
                None => panic!("{:?}", hit.sort_value),
            })
            .collect();
        let mut sorted = days.clone();
        sorted.sort_unstable();
        if order == Order::Desc {
            sorted.reverse();
        }
        assert_eq!(days, sorted, "{order:?}");
        // tantivy's entry point and a tuple with a count give the same page.
        assert_eq!(searcher.search(&AllQuery, &by_date).unwrap(), page);
        let (count, fed) = searcher.search(&AllQuery, &(Count, by_date)).unwrap();
        assert_eq!((count, fed), (5, page));
    }
}

#[test]
fn a_query_ranked_by_date_keeps_only_its_matches() {
    let index = index();
    let searcher = index.index().reader().unwrap().searcher();
    let body = searcher.schema().get_field("body").unwrap();
    let query = QueryParser::for_index(index.index(), vec![body])
        .parse_query("whale")
        .unwrap();
    let page = index
        .collector(10)
        .include_flagged()
        .order_by_fast_field("published", Order::Desc)
        .search(&searcher, &*query)
        .unwrap();
    assert_eq!(
        groups(&searcher, &page),
        owned(&[("museum", &["museum-copy"])])
    );
    assert_eq!(page.hits[0].score, 0.0, "ranked by date: not scored");
}

#[test]
fn a_ranking_of_the_applications_own_is_deduped_by_the_index_rule() {
    let index = index();
    let searcher = index.index().reader().unwrap().searcher();
    // By site, then url: a string fast field, which the collector does not rank by.
    let by_site = TopDocs::with_limit(100).order_by_string_fast_field("site", Order::Asc);
    let mut ranked = searcher.search(&AllQuery, &by_site).unwrap();
    ranked.sort_by_key(|(site, address)| (site.clone(), url_of(&searcher, *address)));
    let listed: Vec<String> = ranked.iter().map(|(_, a)| url_of(&searcher, *a)).collect();
    assert_eq!(
        listed,
        ["harvest", "museum-copy", "budget-copy", "museum", "budget"]
    );
    let collector = index.collector(10).include_flagged();
    let page = collector
        .dedupe(&searcher, ranked.iter().map(|(_, address)| (1.0, *address)))
        .unwrap();
    // Each group at the place of its best-ranked member, led by its original.
    assert_eq!(
        groups(&searcher, &page),
        owned(&[
            ("harvest", &[]),
            ("museum", &["museum-copy"]),
            ("budget", &["budget-copy"]),
        ])
    );
    assert!(page.hits.iter().all(|hit| hit.score == 1.0));
    assert!(page.hits[1].hidden[0].distance > 0, "a copy, not identical");
    // The index's collector skips flagged copies by default: then they are not listed.
    let skipping = index
        .collector(10)
        .dedupe(&searcher, ranked.iter().map(|(_, address)| (1.0, *address)))
        .unwrap();
    assert_eq!(
        groups(&searcher, &skipping),
        owned(&[("harvest", &[]), ("museum", &[]), ("budget", &[])])
    );
}

#[test]
fn a_field_that_cannot_rank_is_refused() {
    let index = index();
    let searcher = index.index().reader().unwrap().searcher();
    for field in ["site", "body", "missing"] {
        let collector = index.collector(10).order_by_fast_field(field, Order::Desc);
        let error = collector.search(&searcher, &AllQuery).unwrap_err();
        assert!(matches!(error, tantivy_dedup::Error::Tantivy(_)), "{error}");
    }
}
