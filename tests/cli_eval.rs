//! `tantivy-dedup eval`: the report's counts against a brute-force count over the same
//! fingerprints, bad lines reported and left out, the files written, bad options refused.

mod support;

use std::path::Path;

use support::cli::{run, stderr};
use tantivy_dedup::fingerprint::{FingerprintConfig, SimHasher};

const ORIGINALS: [&str; 4] = [
    "The river rose during the night and by morning the lower fields were under water, so the farmers moved their animals to the hill behind the church and waited for the rain to stop.",
    "Our annual report describes the revenue of the company, the costs of the new factory, the salaries of the staff and the plans of the board for the coming two years of growth.",
    "搜索引擎每天抓取大量网页，其中很多网页内容几乎相同，例如镜像站点、转载文章和只改了日期的页面，这些重复页面浪费了存储空间和计算资源。",
    "Please read the installation guide before you start: it explains how to prepare the disk, which packages to select, and how to configure the network and the boot loader.",
];

/// A set: each original, a copy with one word changed (same group, listed positive), and
/// unlisted pairs across groups as negatives; one ignored pair; `extra` lines appended to
/// pairs.jsonl.
fn write_set(dir: &Path, extra: &str) -> Vec<(String, String)> {
    let mut docs = Vec::new();
    let mut pairs = String::new();
    for (i, text) in ORIGINALS.iter().enumerate() {
        let copy = text.replacen("the", "a", 1).replacen("网页", "页面", 1);
        docs.push((format!("o{i}"), text.to_string()));
        docs.push((format!("c{i}"), copy));
        pairs.push_str(&format!(
            "{{\"a\":\"o{i}\",\"b\":\"c{i}\",\"label\":true,\"kind\":\"substitute\",\"rate\":0.03}}\n"
        ));
    }
    pairs.push_str("{\"a\":\"o0\",\"b\":\"o1\",\"label\":null}\n");
    pairs.push_str(extra);
    let mut lines = String::new();
    for (i, (id, text)) in docs.iter().enumerate() {
        let group = i / 2;
        lines.push_str(
            &serde_json::json!({"id": id, "text": text, "group": format!("g{group}")}).to_string(),
        );
        lines.push('\n');
    }
    std::fs::write(dir.join("docs.jsonl"), lines).unwrap();
    std::fs::write(dir.join("pairs.jsonl"), pairs).unwrap();
    std::fs::write(
        dir.join("set.json"),
        r#"{"name":"tiny","unlisted":"negative"}"#,
    )
    .unwrap();
    docs
}

#[test]
fn counts_match_a_brute_force_count_of_the_same_fingerprints() {
    let dir = tempfile::tempdir().unwrap();
    let docs = write_set(dir.path(), "");
    let out = dir.path().join("out");
    let output = run(
        &[
            "eval",
            "--grid",
            "single",
            "--out",
            out.to_str().unwrap(),
            dir.path().to_str().unwrap(),
        ],
        b"",
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("tiny.json")).unwrap()).unwrap();
    assert!(out.join("tiny.md").exists());
    let svg = std::fs::read_to_string(out.join("tiny.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("best k ="));

    let hasher = SimHasher::new(&FingerprintConfig::default()).unwrap();
    let fps: Vec<_> = docs
        .iter()
        .map(|(_, t)| hasher.fingerprint(t).unwrap())
        .collect();
    let (mut positive, mut negative) = (vec![0u64; 66], vec![0u64; 66]);
    for a in 0..docs.len() {
        for b in a + 1..docs.len() {
            let d = fps[a].distance(fps[b]) as usize;
            if a / 2 == b / 2 {
                positive[d] += 1; // listed original-copy pairs
            } else if (a, b) != (0, 2) {
                negative[d] += 1; // across groups, but for the ignored pair o0-o1
            }
        }
    }
    let config = &report["configs"][0];
    let counts = &config["counts"];
    assert_eq!(counts["positive"], serde_json::json!(positive));
    assert_eq!(counts["negative"], serde_json::json!(negative));
    assert_eq!(report["positives"], 4);
    assert_eq!(report["negatives"], 4 * 2 * 6 / 2 - 1);
    let sweep = config["sweep"].as_array().unwrap();
    assert_eq!(sweep.len(), 17);
    let at3 = &sweep[3];
    let tp: u64 = positive[..4].iter().sum();
    let fp: u64 = negative[..4].iter().sum();
    assert_eq!(at3["true_positives"], tp);
    assert_eq!(at3["false_positives"], fp);
    let category = &config["categories"][0];
    assert_eq!(category["kind"], "substitute");
    assert_eq!(category["pairs"], 4);
}

#[test]
fn bad_lines_are_reported_and_left_out() {
    let dir = tempfile::tempdir().unwrap();
    write_set(
        dir.path(),
        "not json\n{\"a\":\"o0\",\"b\":\"nobody\",\"label\":true}\n{\"a\":\"c0\",\"b\":\"o0\",\"label\":false}\n",
    );
    let out = dir.path().join("out");
    let output = run(
        &[
            "eval",
            "--grid",
            "single",
            "--no-verify",
            "--out",
            out.to_str().unwrap(),
            dir.path().to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let messages = stderr(&output);
    assert!(messages.contains("pairs.jsonl:6:"), "{messages}");
    assert!(
        messages.contains("pairs.jsonl:7:") && messages.contains("nobody"),
        "{messages}"
    );
    assert!(
        messages.contains("pairs.jsonl:8:") && messages.contains("twice"),
        "{messages}"
    );
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("tiny.json")).unwrap()).unwrap();
    assert_eq!(report["positives"], 4);
    assert_eq!(report["verify"], serde_json::json!([]));
}

#[test]
fn the_full_grid_and_two_stage_variants_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    write_set(dir.path(), "");
    let out = dir.path().join("out");
    let output = run(
        &[
            "eval",
            "--out",
            out.to_str().unwrap(),
            dir.path().to_str().unwrap(),
        ],
        b"",
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("tiny.json")).unwrap()).unwrap();
    assert_eq!(report["configs"].as_array().unwrap().len(), 18);
    let rows: Vec<(&str, u64, &str)> = report["verify"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["config"].as_str().unwrap(),
                v["loose_k"].as_u64().unwrap(),
                v["method"].as_str().unwrap(),
            )
        })
        .collect();
    // The best config's variants at both loose distances, then the default config's (the
    // one the plugin verifies) when it is another.
    let best = report["configs"][report["best_config"].as_u64().unwrap() as usize]["name"]
        .as_str()
        .unwrap();
    let mut expected = Vec::new();
    for config in [best, "chargrams-3/tf"] {
        if expected.iter().any(|&(c, _, _)| c == config) {
            continue;
        }
        for k in [10, 16] {
            for method in [
                "minhash",
                "combined",
                "containment",
                "plugin",
                "plugin-bands",
                "plugin-containment",
                "plugin-weighted",
                "plugin-weighted-bands",
            ] {
                expected.push((config, k, method));
            }
        }
    }
    assert_eq!(rows, expected);
    for row in report["verify"].as_array().unwrap() {
        let at_default = row["at_default"]["threshold"].as_f64().unwrap();
        assert_eq!(at_default, 0.8, "the plugin's default threshold");
    }
    let markdown = String::from_utf8(output.stdout).unwrap();
    assert!(markdown.contains("## Configs, best F1 first"));
}

#[test]
fn bad_options_and_missing_sets_are_usage_errors() {
    let output = run(&["eval", "--max-k", "65", "nowhere"], b"");
    assert_eq!(output.status.code(), Some(2));
    let output = run(&["eval", "--loose-k", "70", "nowhere"], b"");
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("at most 64"));
    let dir = tempfile::tempdir().unwrap();
    let output = run(
        &[
            "eval",
            "--out",
            dir.path().join("o").to_str().unwrap(),
            dir.path().join("missing").to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("docs.jsonl"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn the_signature_shingles_and_the_reported_threshold_are_options() {
    let dir = tempfile::tempdir().unwrap();
    write_set(dir.path(), "");
    let report = |extra: &[&str]| -> serde_json::Value {
        let out = dir.path().join(format!("out{}", extra.len()));
        let mut args = vec![
            "eval",
            "--grid",
            "single",
            "--loose-k",
            "16",
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        args.push(dir.path().to_str().unwrap());
        let output = run(&args, b"");
        assert!(output.status.success(), "{}", stderr(&output));
        serde_json::from_slice(&std::fs::read(out.join("tiny.json")).unwrap()).unwrap()
    };
    let method = |report: &serde_json::Value, method: &str| -> serde_json::Value {
        report["verify"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["method"] == method)
            .unwrap()
            .clone()
    };
    let plugin = |report: &serde_json::Value| method(report, "plugin");
    let default_report = report(&[]);
    let default = plugin(&default_report);
    let chosen = plugin(&report(&[
        "--signature-features",
        "chargrams-4",
        "--threshold",
        "0.3",
    ]));
    assert_eq!(default["at_default"]["threshold"], 0.8);
    assert_eq!(chosen["at_default"]["threshold"], 0.3);
    // Other shingles, other Jaccard estimates (word pairs lose more to a changed word than
    // character 4-grams do): the sweeps differ somewhere.
    assert_ne!(default["curve"], chosen["curve"]);

    // Bands of one value: every pair sharing any value of its signatures, a superset of
    // the pairs sharing a whole band of nine.
    let candidates = |report: &serde_json::Value| {
        method(report, "plugin-bands")["candidates"]
            .as_u64()
            .unwrap()
    };
    let one_row = report(&["--band-rows", "1"]);
    assert!(candidates(&one_row) >= candidates(&default_report));
    assert_eq!(method(&one_row, "plugin-bands")["band_rows"], 1);
    assert_eq!(method(&default_report, "plugin-bands")["band_rows"], 9);
    assert!(method(&default_report, "plugin").get("band_rows").is_none());
    for rows in ["0", "129"] {
        let output = run(&["eval", "--band-rows", rows, "nowhere"], b"");
        assert_eq!(output.status.code(), Some(2), "--band-rows {rows}");
    }

    let output = run(
        &["eval", "--signature-features", "trigrams", "nowhere"],
        b"",
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("shingles-N"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn the_recommended_settings_are_a_file_ingest_takes() {
    let dir = tempfile::tempdir().unwrap();
    let set = dir.path().join("set");
    std::fs::create_dir(&set).unwrap();
    write_set(&set, "");
    let out = dir.path().join("out");
    let eval = |extra: &[&str]| {
        let mut args = vec![
            "eval",
            "--out",
            out.to_str().unwrap(),
            "--grid",
            "single",
            "--loose-k",
            "16,64",
            "--band-rows",
            "2,4",
        ];
        args.extend_from_slice(extra);
        args.push(set.to_str().unwrap());
        run(&args, b"")
    };
    // Fingerprints alone only at distance 0: the plugin's rule (within 3 bits, or sharing a
    // band) does better.
    let output = eval(&["--recommend", "--max-k", "0"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stderr(&output).contains("tiny: recommended (best F1): plugin-bands"));
    let path = out.join("tiny.settings.json");
    let file: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(file["measured"]["sample"], "tiny");
    assert_eq!(file["measured"]["goal"], "best F1");
    // Measured end to end too (ingest, then clusters), as the report says.
    for name in ["end_to_end_precision", "end_to_end_recall", "end_to_end_f1"] {
        let value = file["measured"][name].as_f64().unwrap_or(-1.0);
        assert!((0.0..=1.0).contains(&value), "{name}: {}", file["measured"]);
    }
    assert!(stderr(&output).contains("end to end (ingest, then clusters)"));
    let markdown = std::fs::read_to_string(out.join("tiny.md")).unwrap();
    assert!(markdown.contains("## Presets end to end"), "{markdown}");
    assert!(markdown.contains("| news |") && markdown.contains("| rewrites |"));
    // What it measured is a point of the report: the best F1 there is.
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("tiny.json")).unwrap()).unwrap();
    assert_eq!(file["verification"]["candidates"]["kind"], "bands");
    let f1s: Vec<f64> = (report["configs"][0]["sweep"].as_array().unwrap().iter())
        .chain(
            (report["verify"].as_array().unwrap().iter())
                .filter(|row| row["method"] == "plugin-bands")
                .flat_map(|row| {
                    row["curve"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .chain([&row["best"]])
                }),
        )
        .map(|point| point["f1"].as_f64().unwrap())
        .collect();
    let measured = file["measured"]["f1"].as_f64().unwrap();
    assert!(f1s.contains(&measured));
    let best = f1s.iter().copied().fold(0.0, f64::max);
    assert!(
        measured >= best - tantivy_dedup::eval::NEAR_BEST,
        "{measured} < {best}"
    );

    // A new index takes the file's settings; options beside it win.
    let stats = |index: &Path| -> serde_json::Value {
        let output = run(
            &["stats", "--index", index.to_str().unwrap(), "--json"],
            b"",
        );
        assert!(output.status.success(), "{}", stderr(&output));
        serde_json::from_slice::<serde_json::Value>(&output.stdout).unwrap()["settings"].clone()
    };
    let docs = set.join("docs.jsonl");
    let ingest = |index: &Path, settings: &Path, extra: &[&str]| {
        let mut args = vec![
            "ingest",
            "--index",
            index.to_str().unwrap(),
            "--settings",
            settings.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        args.push(docs.to_str().unwrap());
        run(&args, b"")
    };
    let index = dir.path().join("index");
    let output = ingest(&index, &path, &[]);
    assert!(output.status.success(), "{}", stderr(&output));
    let settings = stats(&index);
    for name in ["fingerprint", "distance", "verification"] {
        assert_eq!(settings[name], file[name], "{name}");
    }
    let overridden = dir.path().join("overridden");
    let output = ingest(
        &overridden,
        &path,
        &["--threshold", "0.9", "--distance", "7"],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let settings = stats(&overridden);
    assert_eq!(settings["verification"]["threshold"], 0.9);
    assert_eq!(settings["distance"], 7);
    assert_eq!(settings["fingerprint"], file["fingerprint"]);

    // An existing index refuses a file of other fingerprints, naming what differs.
    let mut other = file.clone();
    other["fingerprint"]["features"] = serde_json::json!({"kind": "words"});
    let other_path = dir.path().join("other.json");
    std::fs::write(&other_path, other.to_string()).unwrap();
    let output = ingest(&index, &other_path, &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("fingerprint.features"),
        "{}",
        stderr(&output)
    );
    // A file that is not one says so.
    std::fs::write(&other_path, "{\"distance\": 3}").unwrap();
    let output = ingest(&dir.path().join("fresh"), &other_path, &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("cannot use the settings file"),
        "{}",
        stderr(&output)
    );

    // A precision no setting reaches is an error, not a file.
    std::fs::remove_file(&path).unwrap();
    let output = eval(&["--target-precision", "1"]);
    if !output.status.success() {
        assert!(stderr(&output).contains("no setting measured reaches the goal"));
        assert!(!path.exists());
    }
}
