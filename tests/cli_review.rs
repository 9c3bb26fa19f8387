//! `tantivy-dedup review` end to end: the pages it writes for an index and for an ingest
//! report, its JSON lines, the order, and `--id`.

mod support;

use std::path::Path;

use serde_json::Value;
use support::cli::{lines, run, stderr};

/// Records of which `b` and `d` are planted near-duplicates of `a` and `c`, `e` alone.
fn corpus(dir: &Path) -> std::path::PathBuf {
    let long = "The committee met on Monday to discuss the annual budget for the city's \
                public libraries, parks and roads, and it agreed to publish the full minutes \
                of the meeting online before the end of the month for every resident to read.";
    let records = [
        ("a", long.to_owned()),
        ("b", long.replace("Monday", "Tuesday")),
        ("c", "北京市政府今天发布了新的交通管理办法，要求所有车辆在高峰时段按照单双号限行，违反规定的司机将被处以罚款，办法自下个月一日起施行。".to_owned()),
        ("d", "北京市政府今天发布了新的交通管理办法，要求所有车辆在高峰时段按照单双号限行，违反规定的司机将被处以罚款，办法自下个月五日起施行。".to_owned()),
        ("e", "An unrelated note about gardening: tomatoes need sun, water and patience.".to_owned()),
    ];
    let path = dir.join("input.jsonl");
    let text: String = records
        .iter()
        .map(|(id, text)| format!("{}\n", serde_json::json!({"id": id, "text": text})))
        .collect();
    std::fs::write(&path, text).unwrap();
    path
}

fn ingest(dir: &Path, policy: &str) -> (String, String, String) {
    let input = corpus(dir);
    let index = dir.join(format!("index-{policy}"));
    let report = dir.join(format!("report-{policy}.jsonl"));
    let output = run(
        &[
            "ingest",
            "--index",
            index.to_str().unwrap(),
            "--policy",
            policy,
            "--report",
            report.to_str().unwrap(),
            input.to_str().unwrap(),
        ],
        b"",
    );
    assert!(output.status.success(), "{}", stderr(&output));
    (
        index.to_str().unwrap().to_owned(),
        report.to_str().unwrap().to_owned(),
        input.to_str().unwrap().to_owned(),
    )
}

fn changed<'a>(spans: &'a Value, change: &str) -> Vec<&'a str> {
    (spans.as_array().unwrap().iter())
        .filter(|span| span["change"] == change)
        .map(|span| span["text"].as_str().unwrap())
        .collect()
}

#[test]
fn review_of_a_flagging_index_writes_a_page_and_json_lines() {
    let dir = tempfile::tempdir().unwrap();
    let (index, _, _) = ingest(dir.path(), "flag");
    let out = dir.path().join("pages").join("review.html");
    std::fs::create_dir(dir.path().join("pages")).unwrap();
    let output = run(
        &["review", "--index", &index, "--out", out.to_str().unwrap()],
        b"",
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        out.to_str().unwrap()
    );
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert_eq!(html.matches("<article class=\"decision\"").count(), 2);
    assert!(html.contains("on <del>Monday</del> to"), "{html}");
    assert!(html.contains("on <ins>Tuesday</ins> to"), "{html}");

    let output = run(&["review", "--index", &index, "--json"], b"");
    let decisions = lines(&output);
    assert_eq!(decisions.len(), 2);
    let pairs: Vec<(&str, &str)> = (decisions.iter())
        .map(|d| {
            (
                d["kept"]["id"].as_str().unwrap(),
                d["other"]["id"].as_str().unwrap(),
            )
        })
        .collect();
    assert!(
        pairs.contains(&("a", "b")) && pairs.contains(&("c", "d")),
        "{pairs:?}"
    );
    let similarity: Vec<f64> = decisions
        .iter()
        .map(|d| d["similarity"].as_f64().unwrap())
        .collect();
    assert!(
        similarity[0] <= similarity[1],
        "least similar first: {similarity:?}"
    );
    for decision in &decisions {
        assert_eq!(decision["action"], "flagged");
        assert_eq!(decision["near"], true);
        assert!(decision["rule"]["distance"].is_u64());
        assert!(decision["reason"]["kind"].is_string());
        assert_eq!(
            decision["rank"].as_u64().unwrap() as usize,
            1 + decisions.iter().position(|d| d == decision).unwrap()
        );
    }
    let chinese = decisions.iter().find(|d| d["kept"]["id"] == "c").unwrap();
    assert_eq!(changed(&chinese["diff"]["kept"], "removed"), ["一"]);
    assert_eq!(changed(&chinese["diff"]["other"], "added"), ["五"]);
}

#[test]
fn review_of_a_report_shows_rejected_texts_from_the_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let (index, report, input) = ingest(dir.path(), "reject");
    let json = |extra: &[&str]| {
        let mut args = vec!["review", "--index", &index, "--report", &report, "--json"];
        args.extend_from_slice(extra);
        let output = run(&args, b"");
        assert!(output.status.success(), "{}", stderr(&output));
        lines(&output)
    };
    let without = json(&[]);
    assert_eq!(without.len(), 2);
    for decision in &without {
        assert_eq!(decision["action"], "rejected");
        assert_eq!(decision["other"]["text_known"], false);
        assert_eq!(decision["reason"]["kind"], "reported");
        assert!(decision["distance"].is_u64());
    }
    let with = json(&["--input", &input]);
    let english = with.iter().find(|d| d["other"]["id"] == "b").unwrap();
    assert_eq!(english["other"]["text_known"], true);
    assert_eq!(changed(&english["diff"]["other"], "added"), ["Tuesday"]);
    assert_eq!(english["near"], true);

    let out = dir.path().join("review.html");
    let at = run(
        &[
            "review",
            "--index",
            &index,
            "--report",
            &report,
            "--input",
            &input,
            "--out",
            out.to_str().unwrap(),
            "--id",
            "d",
        ],
        b"",
    );
    assert!(at.status.success(), "{}", stderr(&at));
    assert_eq!(
        String::from_utf8_lossy(&at.stdout).trim(),
        format!("{}#r-d", out.display())
    );
    assert!(std::fs::read_to_string(&out)
        .unwrap()
        .contains("id=\"r-d\""));
    let missing = run(
        &["review", "--index", &index, "--id", "nobody", "--json"],
        b"",
    );
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        stderr(&missing).contains("no decision names the record"),
        "{}",
        stderr(&missing)
    );
}

#[test]
fn an_id_writes_its_page_alone() {
    // 1,010 originals each flagged with a copy: 1,010 decisions, two pages.
    let dir = tempfile::tempdir().unwrap();
    let mut rng = support::rng::Rng(3);
    let words = [
        "river", "stone", "market", "harbour", "winter", "signal", "copper", "orchard",
    ];
    let mut lines_of_input = String::new();
    for i in 0..1_010 {
        let text: Vec<String> = (0..40)
            .map(|_| format!("{}{}", words[rng.below(8) as usize], rng.below(1000)))
            .collect();
        let text = text.join(" ");
        for (id, text) in [(format!("o{i}"), text.clone()), (format!("c{i}"), text)] {
            lines_of_input.push_str(&format!(
                "{}\n",
                serde_json::json!({"id": id, "text": text})
            ));
        }
    }
    let input = dir.path().join("input.jsonl");
    std::fs::write(&input, lines_of_input).unwrap();
    let index = dir.path().join("index");
    let index = index.to_str().unwrap();
    let ingested = run(
        &[
            "ingest",
            "--index",
            index,
            "--policy",
            "flag",
            input.to_str().unwrap(),
        ],
        b"",
    );
    assert!(ingested.status.success(), "{}", stderr(&ingested));
    let out = dir.path().join("review.html");
    let out_arg = out.to_str().unwrap();
    let all = run(&["review", "--index", index, "--json"], b"");
    let decisions = lines(&all);
    assert_eq!(decisions.len(), 1_010);
    // The last decision is on the second page: that page alone is written.
    let last = decisions.last().unwrap()["other"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let at = run(
        &["review", "--index", index, "--out", out_arg, "--id", &last],
        b"",
    );
    assert!(at.status.success(), "{}", stderr(&at));
    let second = dir.path().join("review-2.html");
    assert_eq!(
        String::from_utf8_lossy(&at.stdout).trim(),
        format!(
            "{}#{}",
            second.display(),
            tantivy_dedup::review::anchor_of(&last)
        )
    );
    assert!(second.is_file());
    assert!(
        !out.exists(),
        "the first page is not written for a decision of the second"
    );
    assert!(
        stderr(&at).contains("wrote page 2 of 2 alone"),
        "{}",
        stderr(&at)
    );
}

#[test]
fn an_out_over_the_report_an_input_or_in_the_index_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let (index, report, input) = ingest(dir.path(), "reject");
    let before = (
        std::fs::read(&report).unwrap(),
        std::fs::read(&input).unwrap(),
    );
    let later_page = dir.path().join("report-reject-2.jsonl");
    std::fs::copy(&input, &later_page).unwrap();
    let inside = format!("{index}/review.html");
    for out in [report.as_str(), input.as_str(), inside.as_str()] {
        let output = run(
            &[
                "review", "--index", &index, "--report", &report, "--input", &input, "--out", out,
            ],
            b"",
        );
        assert_eq!(output.status.code(), Some(2), "{out}: {}", stderr(&output));
        assert!(stderr(&output).contains("--out"), "{}", stderr(&output));
    }
    // A source named as a later page of `--out` (written beside it).
    let out = dir.path().join("report-reject.jsonl");
    let output = run(
        &[
            "review",
            "--index",
            &index,
            "--report",
            &report,
            "--input",
            later_page.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert_eq!(
        (
            std::fs::read(&report).unwrap(),
            std::fs::read(&input).unwrap()
        ),
        before,
        "untouched"
    );
    assert!(!Path::new(&inside).exists());
}

#[test]
fn an_endless_report_or_input_is_a_clear_error_not_an_allocation() {
    let dir = tempfile::tempdir().unwrap();
    let (index, report, _) = ingest(dir.path(), "reject");
    let out = dir.path().join("review.html");
    let output = run(
        &[
            "review",
            "--index",
            &index,
            "--report",
            "/dev/zero",
            "--out",
            out.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("longer than 16 MiB"),
        "{}",
        stderr(&output)
    );
    // An input that is one endless line is skipped (no record there), and said.
    let output = run(
        &[
            "review",
            "--index",
            &index,
            "--report",
            &report,
            "--input",
            "/dev/zero",
            "--json",
        ],
        b"",
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("not in the --input files"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_report_of_another_index_or_unreadable_inputs_are_warned_of() {
    let dir = tempfile::tempdir().unwrap();
    let (_, report, input) = ingest(dir.path(), "reject");
    // Another index, holding none of the report's documents.
    let other = dir.path().join("other");
    let note = dir.path().join("note.txt");
    std::fs::write(&note, "A page about something else entirely, kept alone.").unwrap();
    let output = run(
        &[
            "ingest",
            "--index",
            other.to_str().unwrap(),
            note.to_str().unwrap(),
        ],
        b"",
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let output = run(
        &[
            "review",
            "--index",
            other.to_str().unwrap(),
            "--report",
            &report,
            "--input",
            &input,
            "--json",
        ],
        b"",
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("report of another index"),
        "{}",
        stderr(&output)
    );
    // Inputs of invalid UTF-8: the rejected texts cannot be read from them.
    std::fs::create_dir(dir.path().join("again")).unwrap();
    let (index, report, _) = ingest(&dir.path().join("again"), "reject");
    let latin1 = dir.path().join("latin1.jsonl");
    let mut bytes = std::fs::read(corpus(dir.path())).unwrap();
    bytes
        .iter_mut()
        .filter(|b| **b == b'e')
        .for_each(|b| *b = 0xe9);
    std::fs::write(&latin1, bytes).unwrap();
    let output = run(
        &[
            "review",
            "--index",
            &index,
            "--report",
            &report,
            "--input",
            latin1.to_str().unwrap(),
            "--json",
        ],
        b"",
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let said = stderr(&output);
    assert!(
        said.contains("not in the --input files") && said.contains("invalid UTF-8"),
        "{said}"
    );
}
