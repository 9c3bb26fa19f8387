//! `DedupHit::sort_value` is typed by the field the collector ranks by, as
//! `TopDocs::order_by_fast_field::<T>` types its values: u64, i64, f64 and dates read back
//! as the same Rust values `TopDocs` gives. From a downstream crate's point of view: public
//! API only.

use tantivy::collector::TopDocs;
use tantivy::fastfield::FastValue;
use tantivy::query::AllQuery;
use tantivy::schema::{Schema, FAST, INDEXED};
use tantivy::{doc, DateTime, DocAddress, Index, Order, Searcher};
use tantivy_dedup::plugin::{DedupCollector, DedupTopDocs, SortValue};

/// Documents far apart (no near-duplicates), each with a value in every sort field.
fn searcher() -> Searcher {
    let mut schema = Schema::builder();
    let fingerprint = schema.add_u64_field("fingerprint", FAST | INDEXED);
    let count = schema.add_u64_field("count", FAST);
    let delta = schema.add_i64_field("delta", FAST);
    let ratio = schema.add_f64_field("ratio", FAST);
    let published = schema.add_date_field("published", FAST);
    let index = Index::create_in_ram(schema.build());
    let mut writer = index.writer_with_num_threads(1, 15_000_000).unwrap();
    for i in 0..6u64 {
        let sign = if i % 2 == 0 { -1 } else { 1 };
        writer
            .add_document(doc!(
                fingerprint => 0x0F0F_u64 << (i * 8),
                count => i * 7 % 5,
                delta => sign * i as i64,
                ratio => sign as f64 * (i as f64 + 0.25),
                published => DateTime::from_timestamp_secs(1_700_000_000 + sign * i as i64 * 86_400),
            ))
            .unwrap();
    }
    writer.commit().unwrap();
    index.reader().unwrap().searcher()
}

fn page(searcher: &Searcher, field: &str) -> DedupTopDocs {
    DedupCollector::new("fingerprint", 10)
        .order_by_fast_field(field, Order::Desc)
        .search(searcher, &AllQuery)
        .unwrap()
}

/// The page's values as `T`, as `TopDocs::order_by_fast_field::<T>` gives them.
fn ours<T: FastValue>(searcher: &Searcher, field: &str) -> Vec<(Option<T>, DocAddress)> {
    (page(searcher, field).hits.iter())
        .map(|hit| (hit.sort_value_as::<T>(), hit.address))
        .collect()
}

#[test]
fn values_read_back_as_top_docs_gives_them() {
    let searcher = searcher();
    let top = || TopDocs::with_limit(10);
    let theirs = (searcher.search(
        &AllQuery,
        &top().order_by_fast_field::<u64>("count", Order::Desc),
    ))
    .unwrap();
    assert_eq!(ours::<u64>(&searcher, "count"), theirs);
    let theirs = (searcher.search(
        &AllQuery,
        &top().order_by_fast_field::<i64>("delta", Order::Desc),
    ))
    .unwrap();
    assert_eq!(ours::<i64>(&searcher, "delta"), theirs);
    let theirs = (searcher.search(
        &AllQuery,
        &top().order_by_fast_field::<f64>("ratio", Order::Desc),
    ))
    .unwrap();
    assert_eq!(ours::<f64>(&searcher, "ratio"), theirs);
    let by_date = top().order_by_fast_field::<DateTime>("published", Order::Desc);
    let theirs = searcher.search(&AllQuery, &by_date).unwrap();
    assert_eq!(ours::<DateTime>(&searcher, "published"), theirs);
    assert!(theirs.iter().all(|(value, _)| value.is_some()));
}

#[test]
fn the_enum_names_the_type_and_another_type_reads_nothing() {
    let searcher = searcher();
    let delta = page(&searcher, "delta");
    let first = &delta.hits[0];
    assert_eq!(first.sort_value, Some(SortValue::I64(5)));
    assert_eq!(
        first.sort_value_as::<u64>(),
        None,
        "an i64 is not read as a u64"
    );
    let published = page(&searcher, "published");
    assert!(matches!(
        published.hits[0].sort_value,
        Some(SortValue::Date(_))
    ));
    assert_eq!(published.hits[0].sort_value_as::<i64>(), None);
    // Ranked by score: no value.
    let by_score = DedupCollector::new("fingerprint", 10)
        .search(&searcher, &AllQuery)
        .unwrap();
    assert!(by_score.hits.iter().all(|hit| hit.sort_value.is_none()));
    assert_eq!(by_score.hits[0].sort_value_as::<u64>(), None);
}
