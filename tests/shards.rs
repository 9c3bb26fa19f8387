//! Several indexes searched as one (`DedupCollector::search_shards`): a crawl split over
//! shards, the same page crawled into two of them, edited mirrors in a third. The page over
//! the shards must be the page of one index holding the same documents, one segment per
//! shard in the same order: the same scores (BM25 statistics summed over the shards), the
//! same hits shown and hidden with the same distances and similarities, on every page and
//! query. Shards on other machines (each sends a `ShardPage`, serialized; a coordinator
//! merges them and asks for more where the walk runs out) give the same page. Public API
//! only, as a downstream crate uses it.

use tantivy::indexer::NoMergePolicy;
use tantivy::query::{Query, QueryParser};
use tantivy::schema::{Field, Schema};
use tantivy::{doc, DocAddress, Index, IndexWriter, Searcher};
use tantivy_dedup::plugin::collector::{ShardMerge, ShardPage, ShardStatistics, ShardedTopDocs};
use tantivy_dedup::plugin::{
    text_field_options, DedupCollector, DedupHit, DedupIndex, DedupSettings, DedupTopDocs,
    HiddenHit, FINGERPRINT_FIELD,
};
use tantivy_dedup::Error;

mod support;

use support::index::random_text;
use support::rng::Rng;

const SHARDS: usize = 3;

/// A dedup index in RAM with the plugin's default settings (two-stage matching).
fn dedup_index() -> (DedupIndex, Field) {
    let settings = DedupSettings::new(["body"]);
    let mut schema = Schema::builder();
    let body = schema.add_text_field("body", text_field_options());
    settings.add_fields(&mut schema).unwrap();
    let index = DedupIndex::create(Index::create_in_ram(schema.build()), settings).unwrap();
    (index, body)
}

/// The texts of each shard: pages of the topic words `alpha`, `beta` (some), with their
/// copies in other shards, verbatim or with a few words replaced.
fn shard_texts(seed: u64) -> Vec<Vec<String>> {
    let mut rng = Rng(seed);
    let mut shards: Vec<Vec<String>> = vec![Vec::new(); SHARDS];
    for page in 0..60u64 {
        let topic = if page % 3 == 0 { "alpha beta" } else { "alpha" };
        let repeats = "alpha ".repeat(1 + (page % 4) as usize);
        let text = format!("{topic} {repeats}{}", random_text(seed * 1_000 + page, 80));
        let home = rng.below(SHARDS as u64) as usize;
        shards[home].push(text.clone());
        if page % 2 == 0 {
            // A copy crawled by another node: verbatim, or edited.
            let other = (home + 1 + rng.below(SHARDS as u64 - 1) as usize) % SHARDS;
            let mut words: Vec<String> = text.split(' ').map(str::to_owned).collect();
            for _ in 0..rng.below(3) {
                let at = 2 + rng.below(words.len() as u64 - 2) as usize;
                words[at] = format!("edit{}", rng.next() % 1_000);
            }
            shards[other].push(words.join(" "));
        }
    }
    shards
}

/// Adds `texts` with their plugin fields through a plain `IndexWriter`, and commits.
fn add(index: &DedupIndex, writer: &mut IndexWriter, body: Field, texts: &[String]) {
    for text in texts {
        let mut document = doc!(body => text.as_str());
        index.fill_document(&mut document);
        writer.add_document(document).unwrap();
    }
    writer.commit().unwrap();
}

fn writer(index: &DedupIndex) -> IndexWriter {
    let writer: IndexWriter = index
        .index()
        .writer_with_num_threads(1, 15_000_000)
        .unwrap();
    writer.set_merge_policy(Box::new(NoMergePolicy));
    writer
}

/// The shards, and one index holding the same documents, each shard a segment of it: the
/// shards in the order of those segments (tantivy's order, not the commits').
fn build(seed: u64) -> (Vec<DedupIndex>, DedupIndex, Field) {
    let texts = shard_texts(seed);
    let (combined, body) = dedup_index();
    let mut combined_writer = writer(&combined);
    let mut shards = Vec::new();
    for texts in &texts {
        let (shard, _) = dedup_index();
        add(&shard, &mut writer(&shard), body, texts);
        add(&combined, &mut combined_writer, body, texts);
        shards.push(shard);
    }
    let fingerprints = |reader: &tantivy::SegmentReader| -> Vec<Option<u64>> {
        let column = reader.fast_fields().u64(FINGERPRINT_FIELD).unwrap();
        (0..reader.max_doc()).map(|doc| column.first(doc)).collect()
    };
    let segments: Vec<Vec<Option<u64>>> = (searcher(&combined).segment_readers().iter())
        .map(fingerprints)
        .collect();
    assert_eq!(segments.len(), SHARDS, "one segment per shard");
    let mut ordered: Vec<Option<DedupIndex>> = vec![None; SHARDS];
    for shard in shards {
        let own = fingerprints(&searcher(&shard).segment_readers()[0]);
        let at = segments
            .iter()
            .position(|s| *s == own)
            .expect("the shard's segment");
        ordered[at] = Some(shard);
    }
    (
        ordered.into_iter().map(Option::unwrap).collect(),
        combined,
        body,
    )
}

fn searcher(index: &DedupIndex) -> Searcher {
    index.index().reader().unwrap().searcher()
}

/// The page of a sharded search, its addresses those of the combined index.
fn as_combined(sharded: &ShardedTopDocs) -> DedupTopDocs {
    let address = |global: DocAddress| {
        let (shard, local) = sharded.locate(global);
        assert_eq!(local.segment_ord, 0, "a shard has one segment");
        DocAddress::new(shard as u32, local.doc_id)
    };
    let hits = (sharded.page.hits.iter())
        .map(|hit| DedupHit {
            address: address(hit.address),
            hidden: (hit.hidden.iter())
                .map(|hidden| HiddenHit {
                    address: address(hidden.address),
                    ..hidden.clone()
                })
                .collect(),
            ..hit.clone()
        })
        .collect();
    DedupTopDocs {
        hits,
        ..sharded.page.clone()
    }
}

#[test]
fn shards_search_as_one_index() {
    let mut hidden_across = 0;
    for seed in 1..=4 {
        let (shards, combined, body) = build(seed);
        let shard_searchers: Vec<Searcher> = shards.iter().map(searcher).collect();
        let combined_searcher = searcher(&combined);
        let parser = QueryParser::for_index(combined.index(), vec![body]);
        for text in ["alpha", "beta", "alpha beta", "beta OR w1"] {
            let query: Box<dyn Query> = parser.parse_query(text).unwrap();
            for (limit, offset) in [(10, 0), (4, 3), (100, 0), (7, 20)] {
                let sharded = (shards[0].collector(limit).offset(offset))
                    .search_shards(&shard_searchers, query.as_ref())
                    .unwrap();
                let expected = (combined.collector(limit).offset(offset))
                    .search(&combined_searcher, query.as_ref())
                    .unwrap();
                let got = as_combined(&sharded);
                assert_eq!(
                    got, expected,
                    "seed {seed}, {text:?}, limit {limit}, offset {offset}"
                );
                hidden_across += (got.hits.iter())
                    .flat_map(|hit| hit.hidden.iter().map(move |h| (hit.address, h.address)))
                    .filter(|(shown, hidden)| shown.segment_ord != hidden.segment_ord)
                    .count();
            }
        }
    }
    assert!(
        hidden_across > 20,
        "copies across shards are hidden: {hidden_across}"
    );
}

#[test]
fn one_shard_is_a_search() {
    let (shards, _, body) = build(9);
    let searcher = searcher(&shards[1]);
    let query = QueryParser::for_index(shards[1].index(), vec![body])
        .parse_query("alpha")
        .unwrap();
    let collector = shards[1].collector(10);
    let sharded = collector
        .search_shards(std::slice::from_ref(&searcher), query.as_ref())
        .unwrap();
    assert_eq!(
        sharded.page,
        collector.search(&searcher, query.as_ref()).unwrap()
    );
    let first = sharded.page.hits[0].address;
    assert_eq!(sharded.locate(first), (0, first));
    let none = collector.search_shards(&[], query.as_ref()).unwrap();
    assert_eq!(none.page, DedupTopDocs::default());
}

#[test]
fn shards_of_other_schemas_are_a_typed_error() {
    let (index, body) = dedup_index();
    let mut schema = Schema::builder();
    schema.add_text_field("title", text_field_options());
    schema.add_text_field("body", text_field_options());
    let settings = DedupSettings::new(["body"]);
    settings.add_fields(&mut schema).unwrap();
    let other = DedupIndex::create(Index::create_in_ram(schema.build()), settings).unwrap();
    let query = QueryParser::for_index(index.index(), vec![body])
        .parse_query("alpha")
        .unwrap();
    let shards = [searcher(&index), searcher(&index), searcher(&other)];
    match index.collector(10).search_shards(&shards, query.as_ref()) {
        Err(Error::ShardSchema { shard: 2 }) => {}
        other => panic!("{other:?}"),
    }
}

/// The coordinator of shards on other machines: pages asked of every shard at `depth`,
/// sent as JSON, merged, and asked again deeper where the merge says so. Returns the page
/// and the number of times a shard was asked again.
fn coordinate(
    collector: &DedupCollector,
    shards: &[Searcher],
    query: &dyn Query,
    mut depth: Vec<usize>,
) -> (ShardedTopDocs, usize) {
    let statistics = ShardStatistics(shards);
    let ask = |shard: usize, depth: usize| -> ShardPage {
        let page = (collector.shard_page(&shards[shard], query, &statistics, depth)).unwrap();
        serde_json::from_str(&serde_json::to_string(&page).unwrap()).unwrap()
    };
    let mut pages: Vec<ShardPage> = (0..shards.len()).map(|s| ask(s, depth[s])).collect();
    let mut again = 0;
    loop {
        match collector.merge_shard_pages(&pages).unwrap() {
            ShardMerge::Page(page) => return (page, again),
            ShardMerge::Deeper(deeper) => {
                assert!(!deeper.is_empty());
                for shard in deeper {
                    again += 1;
                    depth[shard] *= 4;
                    pages[shard] = ask(shard, depth[shard]);
                }
            }
            other => panic!("unexpected {other:?}"),
        }
    }
}

#[test]
fn a_coordinator_merges_shard_pages_as_one_search() {
    let mut asked_again = 0;
    for seed in 1..=3 {
        let (shards, _, body) = build(seed);
        let searchers: Vec<Searcher> = shards.iter().map(searcher).collect();
        let parser = QueryParser::for_index(shards[0].index(), vec![body]);
        for text in ["alpha", "beta", "alpha beta"] {
            let query: Box<dyn Query> = parser.parse_query(text).unwrap();
            for (limit, offset) in [(10, 0), (4, 3), (7, 20)] {
                let collector = shards[0].collector(limit).offset(offset);
                let expected = collector.search_shards(&searchers, query.as_ref()).unwrap();
                let (got, again) =
                    coordinate(&collector, &searchers, query.as_ref(), vec![2; SHARDS]);
                asked_again += again;
                let context = format!("seed {seed}, {text:?}, limit {limit}, offset {offset}");
                assert_eq!(as_combined(&got), as_combined(&expected), "{context}");
            }
        }
    }
    assert!(asked_again > 0, "the coordinator asked some shard for more");
    let (shards, _, body) = build(4);
    let searchers: Vec<Searcher> = shards.iter().map(searcher).collect();
    let query = (QueryParser::for_index(shards[0].index(), vec![body]))
        .parse_query("alpha")
        .unwrap();
    let statistics = ShardStatistics(&searchers);
    let nothing = shards[0]
        .collector(10)
        .shard_page(&searchers[0], query.as_ref(), &statistics, 0);
    assert!(matches!(
        nothing,
        Err(Error::InvalidSetting { name: "depth", .. })
    ));
}
