//! IDF from a tantivy index: the document frequencies of a field tokenized by
//! `MixedTokenizer`, frozen into a table that fingerprints can be computed with.

use std::sync::Arc;

use tantivy::schema::{IndexRecordOption, Schema, TextFieldIndexing, TextOptions};
use tantivy::{doc, Index};
use tantivy_dedup::fingerprint::{FingerprintConfig, SimHasher};
use tantivy_dedup::text::{IdfSource, IdfTable, MixedTokenizer, Weighting, TOKENIZER_NAME};

#[test]
fn searcher_document_frequencies_become_a_frozen_table() -> tantivy::Result<()> {
    let mut schema = Schema::builder();
    let indexing = TextFieldIndexing::default()
        .set_tokenizer(TOKENIZER_NAME)
        .set_index_option(IndexRecordOption::WithFreqs);
    let body = schema.add_text_field(
        "body",
        TextOptions::default().set_indexing_options(indexing),
    );
    let index = Index::create_in_ram(schema.build());
    index
        .tokenizers()
        .register(TOKENIZER_NAME, MixedTokenizer::new());
    let mut writer = index.writer_with_num_threads(1, 15_000_000)?;
    writer.add_document(doc!(body => "北京 天安门 the the"))?;
    writer.add_document(doc!(body => "北京 故宫 the"))?;
    writer.commit()?;
    // A second segment: frequencies add up across segments.
    writer.add_document(doc!(body => "上海 the 北京"))?;
    writer.commit()?;

    let searcher = index.reader()?.searcher();
    assert_eq!(searcher.segment_readers().len(), 2);
    let table = IdfTable::from_searcher(&searcher, body).expect("readable term dictionary");
    assert_eq!(table.documents(), 3);
    let idf = |unit: &str| table.idf(unit).unwrap();
    // the, 北京: in 3 of 3 documents; 天安门: in 1.
    assert!((idf("the") - 1.0).abs() < 1e-6);
    assert!((idf("北京") - idf("the")).abs() < 1e-6);
    assert!(idf("天安门") > idf("北京"));
    assert_eq!(table.idf("伦敦"), None);
    assert!(table.default_idf() > idf("天安门"));

    // The table is an IDF source for fingerprints, named in the config by its identity.
    let table: Arc<dyn IdfSource> = Arc::new(table);
    let config = FingerprintConfig::default()
        .weighting(Weighting::TfIdf)
        .idf(table.identity());
    let hasher = SimHasher::builder(config)
        .idf(table)
        .build()
        .expect("identity matches");
    assert!(hasher.fingerprint("北京 天安门").is_some());
    Ok(())
}
