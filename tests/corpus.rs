//! The command-line tool's index folder through the library (`tantivy_dedup::corpus`), as a
//! program beside the tool uses it: a folder the tool made opens with its fields, and one
//! the library made is what the tool searches and extends; report lines are the tool's.

mod support;

use support::cli::{lines, run, stderr};
use tantivy::collector::Count;
use tantivy::query::AllQuery;
use tantivy_dedup::corpus::{corpus_settings, CorpusIndex, CorpusRecord, PageRequest, ReportLine};
use tantivy_dedup::plugin::Policy;

const PAGE: &str = "the harbour board met on tuesday to approve the new ferry timetable, \
                    which adds two evening crossings and moves the first morning departure";

#[test]
fn the_library_and_the_tool_share_one_folder() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("index");
    let index = CorpusIndex::open_or_create(&folder, corpus_settings).unwrap();
    let writer = index.dedup.writer(Policy::Reject, 50_000_000).unwrap();
    let mut lines_of_library = Vec::new();
    let records = [
        CorpusRecord {
            title: Some("Ferries".into()),
            url: Some("https://example.org/ferry".into()),
            tags: vec!["harbour".into()],
            ..CorpusRecord::new("ferry", PAGE)
        },
        CorpusRecord::new("ferry-mirror", PAGE),
    ];
    for record in &records {
        let outcome = writer.add(index.fields.document(record)).unwrap();
        lines_of_library.push(ReportLine::of_outcome(record.id.clone(), &outcome));
    }
    writer.commit().unwrap();
    drop(writer);
    assert_eq!(lines_of_library[0].status, "added");
    assert_eq!(lines_of_library[1].status, "duplicate");
    assert_eq!(lines_of_library[1].duplicate_of.as_deref(), Some("ferry"));

    // The tool searches the library's folder, and the same copy is a duplicate to it too.
    let folder_arg = folder.to_str().unwrap();
    let search = run(&["search", "--index", folder_arg, "--json", "ferry"], b"");
    assert!(search.status.success(), "{}", stderr(&search));
    let page: serde_json::Value = serde_json::from_slice(&search.stdout).unwrap();
    assert_eq!(page["hits"][0]["id"], "ferry", "{page}");
    let copy = format!(
        "{{\"id\":\"ferry-2\",\"text\":{}}}\n{{\"id\":\"other\",\"text\":\"an unrelated note about bees\"}}\n",
        serde_json::to_string(PAGE).unwrap()
    );
    let ingest = run(
        &["ingest", "--index", folder_arg, "--report", "-", "-"],
        copy.as_bytes(),
    );
    assert!(ingest.status.success(), "{}", stderr(&ingest));
    let report = lines(&ingest);
    // The tool's report lines are the library's, field for field.
    let expected = ReportLine {
        id: "ferry-2".into(),
        ..lines_of_library[1].clone()
    };
    assert_eq!(report[0], serde_json::to_value(&expected).unwrap());
    assert_eq!(report[1]["status"], "added");

    // A flagged copy makes a cluster, and a page that lists it under its original.
    let flagged = copy.replace("ferry-2", "ferry-3");
    let ingest = run(
        &["ingest", "--index", folder_arg, "--policy", "flag", "-"],
        flagged.as_bytes(),
    );
    assert!(ingest.status.success(), "{}", stderr(&ingest));

    // The library opens what the tool extended, with the settings it was created with,
    // and its pages and clusters are the tool's.
    let reopened = CorpusIndex::open(&folder).unwrap();
    let searcher = reopened.dedup.index().reader().unwrap().searcher();
    assert_eq!(searcher.search(&AllQuery, &Count).unwrap(), 3);
    let request = PageRequest {
        limit: 10,
        offset: 0,
        skip_flagged: false,
    };
    let page = reopened.search(&searcher, "ferry", request).unwrap();
    // Same text, same score: either shows, the other hidden under it.
    assert_eq!((page.hits.len(), page.hidden_total), (1, 1), "{page:?}");
    let mut pair = [page.hits[0].id.as_str(), page.hits[0].hidden[0].as_str()];
    pair.sort_unstable();
    assert_eq!(pair, ["ferry", "ferry-3"]);
    let tool_page = run(&["search", "--index", folder_arg, "--json", "ferry"], b"");
    let tool_page: serde_json::Value = serde_json::from_slice(&tool_page.stdout).unwrap();
    // Compared as JSON text read back, as the tool's output is (a score is an f32).
    let page_json: serde_json::Value =
        serde_json::from_str(&serde_json::to_string(&page).unwrap()).unwrap();
    assert_eq!(page_json, tool_page);
    let clusters = reopened.clusters(&searcher).unwrap();
    assert_eq!(clusters, [["ferry", "ferry-3"]]);
    let tool_clusters = run(&["clusters", "--index", folder_arg, "--json"], b"");
    let tool_clusters: serde_json::Value = serde_json::from_slice(&tool_clusters.stdout).unwrap();
    assert_eq!(
        tool_clusters,
        serde_json::json!({ "clusters": [{ "ids": ["ferry", "ferry-3"] }] })
    );
    let error = reopened.search(&searcher, "title:(", request).unwrap_err();
    assert!(error.to_string().contains("query"), "{error}");
}

#[test]
fn a_folder_of_another_index_is_refused_by_name_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let mut schema = tantivy::schema::Schema::builder();
    schema.add_text_field("text", tantivy::schema::TEXT);
    tantivy::Index::create_in_dir(dir.path(), schema.build()).unwrap();
    let files = || -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .filter(|name| name != ".tantivy-dedup-create.lock")
            .collect();
        names.sort();
        names
    };
    let before = files();
    let error = CorpusIndex::open_or_create(dir.path(), corpus_settings).unwrap_err();
    assert!(
        error.to_string().contains("not made by tantivy-dedup"),
        "{error}"
    );
    let after = files();
    assert_eq!(
        before, after,
        "nothing but the creation lock written into the folder"
    );
}
