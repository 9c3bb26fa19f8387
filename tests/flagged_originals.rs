//! Flagged copies taken into search (`include_flagged`): an original leads its group
//! whatever the ranking, by score or by a fast field, its copies hidden under it, unless
//! the caller asks for the best-ranked member (`originals_first(false)`). From a downstream
//! crate's point of view: public API only.

use tantivy::query::QueryParser;
use tantivy::schema::{Schema, FAST, STORED};
use tantivy::{doc, Index, Order, Searcher, TantivyDocument};
use tantivy_dedup::plugin::{text_field_options, DedupIndex, DedupSettings, Policy};

const ARTICLE: &str = "The city council met on Tuesday evening to discuss the new budget for \
    public transport. After three hours of debate the members agreed to add two bus lines, to \
    repair the old tram tracks along the river, and to lower the price of a monthly ticket \
    for students and pensioners from next spring.";

fn url_of(searcher: &Searcher, address: tantivy::DocAddress) -> String {
    let document: TantivyDocument = searcher.doc(address).unwrap();
    let url = searcher.schema().get_field("url").unwrap();
    tantivy::schema::Value::as_str(&document.get_first(url).unwrap())
        .unwrap()
        .to_owned()
}

#[test]
fn an_original_leads_its_group_whatever_the_ranking() {
    let settings = DedupSettings::new(["body"]).key_field("url").flagging(true);
    let mut schema = Schema::builder();
    schema.add_text_field("body", text_field_options());
    let published = schema.add_i64_field("published", FAST | STORED);
    settings.add_fields(&mut schema).unwrap();
    let index = DedupIndex::create(Index::create_in_ram(schema.build()), settings).unwrap();
    let schema = index.index().schema();
    let (url, body) = (
        schema.get_field("url").unwrap(),
        schema.get_field("body").unwrap(),
    );
    let writer = index.writer(Policy::Flag, 15_000_000).unwrap();
    // The original first; a copy that says "council" more often (it ranks first by score)
    // and is newer (first by date); another article.
    let copy = format!("{ARTICLE} The council, the council.");
    for (key, text, day) in [
        ("original", ARTICLE.to_owned(), 1_i64),
        ("copy", copy, 2),
        (
            "other",
            "The council of another town voted on parking fees.".to_owned(),
            0,
        ),
    ] {
        let outcome = writer
            .add(doc!(url => key, body => text, published => day))
            .unwrap();
        assert_eq!(
            outcome.duplicate_of().is_some(),
            key == "copy",
            "{key}: {outcome:?}"
        );
    }
    writer.commit().unwrap();
    let searcher = writer.searcher();
    let query = QueryParser::for_index(index.index(), vec![body])
        .parse_query("council")
        .unwrap();
    let collectors = [
        ("by score", index.collector(10).include_flagged()),
        (
            "newest first",
            index
                .collector(10)
                .include_flagged()
                .order_by_fast_field("published", Order::Desc),
        ),
    ];
    for (ranking, collector) in collectors {
        for page in [
            collector.search(&searcher, &*query).unwrap(),
            searcher.search(&*query, &collector).unwrap(),
        ] {
            let groups: Vec<(String, Vec<String>)> = (page.hits.iter())
                .map(|hit| {
                    let hidden = hit.hidden.iter().map(|h| url_of(&searcher, h.address));
                    (url_of(&searcher, hit.address), hidden.collect())
                })
                .collect();
            let at = (groups.iter())
                .position(|(leader, _)| leader == "original")
                .unwrap_or_else(|| panic!("{ranking}: {groups:?}"));
            assert_eq!(groups[at].1, ["copy"], "{ranking}: {groups:?}");
            assert_eq!(groups.len(), 2, "{ranking}: {groups:?}");
            // Reported against the original that leads: the copy's own distance to it.
            let leader = &page.hits[at];
            let expected = index
                .judge(ARTICLE, &format!("{ARTICLE} The council, the council."))
                .distance
                .unwrap();
            assert_eq!(leader.hidden[0].distance, expected);
        }
        // Asked for, the best-ranked member leads: the copy.
        let best_first = collector.clone().originals_first(false);
        let page = best_first.search(&searcher, &*query).unwrap();
        let leaders: Vec<String> = (page.hits.iter())
            .map(|hit| url_of(&searcher, hit.address))
            .collect();
        assert!(
            leaders.contains(&"copy".to_owned()),
            "{ranking}: {leaders:?}"
        );
    }
}
