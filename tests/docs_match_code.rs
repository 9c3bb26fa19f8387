//! The statements of `docs/PARAMETERS.md` and `README.md` that quote the code (defaults,
//! presets, band layouts, limits, format versions) checked against the code, so that a
//! default cannot change without its page.
//!
//! Three kinds of checks:
//! - the page's tables of defaults (`| parameter | default | ...`) and presets
//!   (`| preset | threshold | ...`): each row's first code span against the code's value,
//!   every row known and every parameter present;
//! - its tables computed from the code (the band S-curve, the rows for a threshold);
//! - sentences quoting a value: a fixed phrase, then the value the code gives. The phrase
//!   must be there (a reworded sentence fails too: update the phrase here).
//!
//! A failure names the file, the line, what the page says and what the code says. Items are
//! imported from the modules that define them.

use std::fmt::Display;

use tantivy_dedup::eval::{END_TO_END_CANDIDATES, NEAR_BEST};
use tantivy_dedup::fingerprint::{
    FingerprintConfig, DEFAULT_MAX_TEXT_BYTES, DEFAULT_MU, FINGERPRINT_BITS, MAX_WEIGHTED_SHINGLES,
};
use tantivy_dedup::grouping::{Grouping, STARS_BELOW_THRESHOLD};
use tantivy_dedup::lookup::{
    band_probability, band_rows_for, DEFAULT_MAX_DISTANCE, LOST_PAIR_WEIGHT, MAX_TABLE_DISTANCE,
};
use tantivy_dedup::matching::{
    CandidateStage, MatchingSettings, PairScore, Preset, Verification, DEFAULT_BAND_ROWS,
    DEFAULT_CANDIDATE_DISTANCE, DEFAULT_SIGNATURE_HASHES, DEFAULT_THRESHOLD,
    MAX_SETTINGS_FILE_BYTES, REWRITES_THRESHOLD, SETTINGS_VERSION,
};
use tantivy_dedup::plugin::Policy;
use tantivy_dedup::text::{
    FeatureKind, LENGTH_RELEVANCE_MEAN, LENGTH_RELEVANCE_STD_DEV, MAX_FEATURE_N,
};

/// A Markdown file of the repository. Both files are in the published package (see
/// `Cargo.toml`'s `include`), so the test runs there too.
struct Doc {
    name: &'static str,
    text: &'static str,
}

const PARAMETERS: Doc = Doc {
    name: "docs/PARAMETERS.md",
    text: include_str!("../docs/PARAMETERS.md"),
};

const README: Doc = Doc {
    name: "README.md",
    text: include_str!("../README.md"),
};

/// The mismatches found, each a line of the failure message.
#[derive(Default)]
struct Failures(Vec<String>);

impl Failures {
    fn at(&mut self, doc: &Doc, line: usize, message: impl Display) {
        self.0.push(format!("{}:{line}: {message}", doc.name));
    }

    /// `says` (the page) against `code`.
    fn compare(&mut self, doc: &Doc, line: usize, what: &str, says: &str, code: &str) {
        if says != code {
            self.at(
                doc,
                line,
                format!("{what} is `{says}` here, the code says `{code}`"),
            );
        }
    }

    fn finish(self) {
        assert!(
            self.0.is_empty(),
            "the docs disagree with the code (update the page, or the check in \
             tests/docs_match_code.rs if the statement moved):\n{}",
            self.0.join("\n")
        );
    }
}

/// A row of a Markdown table: its line (1-based) and its cells, trimmed.
struct Row {
    line: usize,
    cells: Vec<String>,
}

/// The rows (after the header and the separator) of the one table of `doc` whose header's
/// first cell is `first`, with the header's cells.
fn table(doc: &Doc, first: &str) -> (Vec<String>, Vec<Row>) {
    let split = |line: &str| -> Vec<String> {
        let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
        inner
            .split('|')
            .map(|cell| cell.trim().to_owned())
            .collect()
    };
    let lines: Vec<&str> = doc.text.lines().collect();
    let starts: Vec<usize> = (0..lines.len())
        .filter(|&i| {
            lines[i].starts_with('|')
                && (i == 0 || !lines[i - 1].starts_with('|'))
                && split(lines[i])[0] == first
        })
        .collect();
    assert_eq!(
        starts.len(),
        1,
        "{}: expected one table whose header starts with `| {first} |`, found {}",
        doc.name,
        starts.len()
    );
    let start = starts[0];
    let header = split(lines[start]);
    let rows = (start + 2..lines.len())
        .take_while(|&i| lines[i].starts_with('|'))
        .map(|i| Row {
            line: i + 1,
            cells: split(lines[i]),
        })
        .collect();
    (header, rows)
}

/// The first `code span` of a cell, or the cell without bold marks.
fn code_span(cell: &str) -> &str {
    let mut parts = cell.splitn(3, '`');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(_), Some(code), Some(_)) => code,
        _ => cell.trim_matches('*'),
    }
}

fn on_off(yes: bool) -> String {
    if yes { "on" } else { "off" }.to_owned()
}

/// A value's serde name, as settings files and the command line spell it.
fn serde_name(value: impl serde::Serialize) -> String {
    match serde_json::to_value(value).unwrap() {
        serde_json::Value::String(name) => name,
        serde_json::Value::Object(map) => map["kind"].as_str().unwrap().to_owned(),
        other => other.to_string(),
    }
}

/// 4000000 as `4,000,000`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn mib(bytes: u64) -> String {
    assert!(bytes.is_multiple_of(1 << 20), "{bytes} is not whole MiB");
    format!("{} MiB", bytes >> 20)
}

fn rows_and_bands(stage: CandidateStage, hashes: usize) -> Option<(usize, usize)> {
    match stage {
        CandidateStage::Bands { rows } => Some((rows, hashes / rows)),
        CandidateStage::Scan => None,
        other => panic!("a candidate stage the docs do not describe: {other:?}"),
    }
}

/// The default matching settings, as `DedupSettings::new` and `MatchingSettings::default`
/// give them.
fn default_verification() -> Verification {
    MatchingSettings::default()
        .get_verification()
        .cloned()
        .expect("verification is on by default")
}

#[test]
fn the_defaults_table_matches_the_code() {
    let settings = MatchingSettings::default();
    let fingerprint: &FingerprintConfig = settings.get_fingerprint();
    let tokenizer = fingerprint.get_tokenizer();
    let verification = default_verification();
    let (rows, bands) = rows_and_bands(verification.get_candidates(), verification.get_hashes())
        .expect("the default candidate stage has bands");
    let preset = Preset::ALL
        .into_iter()
        .find(|preset| preset.verification() == verification)
        .map_or_else(|| "no preset".to_owned(), |preset| preset.name().to_owned());
    let PairScore::Combined { mu } = PairScore::combined() else {
        panic!("PairScore::combined() is the combined score");
    };
    assert_eq!(mu, DEFAULT_MU);
    // Each parameter: the code's value, and text its row must also hold.
    let expected: Vec<(&str, String, Option<String>)> = vec![
        (
            "distance *k*",
            settings.get_distance().to_string(),
            Some(format!("bits of {FINGERPRINT_BITS}")),
        ),
        ("features", fingerprint.get_features().to_string(), None),
        ("weighting", serde_name(fingerprint.get_weighting()), None),
        ("IDF source", fingerprint.get_idf().to_owned(), None),
        ("folding", serde_name(tokenizer.get_folding()), None),
        ("jieba HMM", on_off(tokenizer.get_hmm()), None),
        ("stop words", on_off(tokenizer.get_stop_words()), None),
        (
            "user dictionary",
            tokenizer.get_user_dictionary().unwrap_or("none").to_owned(),
            None,
        ),
        (
            "max text bytes",
            fingerprint.get_max_text_bytes().to_string(),
            Some(format!("({})", mib(DEFAULT_MAX_TEXT_BYTES as u64))),
        ),
        ("seed", fingerprint.get_seed().to_string(), None),
        ("verification", preset, None),
        (
            "signature shingles",
            verification.get_shingles().to_string(),
            None,
        ),
        (
            "signature values",
            verification.get_hashes().to_string(),
            None,
        ),
        ("kept bits", serde_name(verification.get_kept_bits()), None),
        (
            "shingle hashing",
            serde_name(verification.get_shingle_hashing()),
            None,
        ),
        (
            "shingle weights",
            verification.get_weights().unwrap_or("none").to_owned(),
            None,
        ),
        (
            "candidate stage",
            serde_name(verification.get_candidates()),
            None,
        ),
        (
            "rows per band",
            rows.to_string(),
            Some(format!("({bands} bands)")),
        ),
        (
            "candidate distance",
            verification.get_candidate_distance().to_string(),
            None,
        ),
        ("threshold", verification.get_threshold().to_string(), None),
        ("score", serde_name(verification.get_score()), None),
        (
            "mu of the combined score",
            mu.to_string(),
            Some(format!("(mu {mu})")),
        ),
        (
            "signatures decide",
            on_off(verification.get_signatures_decide()),
            None,
        ),
        (
            "policy",
            format!("{:?}", Policy::default()).to_lowercase(),
            None,
        ),
    ];
    // The constants the defaults are made of say the same.
    assert_eq!(settings.get_distance(), DEFAULT_MAX_DISTANCE);
    assert_eq!(verification.get_hashes(), DEFAULT_SIGNATURE_HASHES);
    assert_eq!(rows, DEFAULT_BAND_ROWS);
    assert_eq!(verification.get_threshold(), DEFAULT_THRESHOLD);
    assert_eq!(
        verification.get_candidate_distance(),
        DEFAULT_CANDIDATE_DISTANCE
    );

    let doc = &PARAMETERS;
    let (header, table_rows) = table(doc, "parameter");
    assert_eq!(
        header[1], "default",
        "{}: the defaults table's second column",
        doc.name
    );
    let mut failures = Failures::default();
    for row in &table_rows {
        let name = row.cells[0].as_str();
        let Some((_, code, extra)) = expected.iter().find(|(known, ..)| *known == name) else {
            failures.at(
                doc,
                row.line,
                format!("parameter `{name}` is not checked: add it to the test"),
            );
            continue;
        };
        let cell = &row.cells[1];
        failures.compare(
            doc,
            row.line,
            &format!("the default {name}"),
            code_span(cell),
            code,
        );
        let whole = row.cells.join(" | ");
        if let Some(extra) = extra {
            if !whole.contains(extra.as_str()) {
                failures.at(doc, row.line, format!("the row of {name} lacks `{extra}`"));
            }
        }
    }
    for (name, code, _) in &expected {
        if !table_rows.iter().any(|row| row.cells[0] == *name) {
            failures.at(
                doc,
                0,
                format!("the defaults table has no row `{name}` (the code: `{code}`)"),
            );
        }
    }
    failures.finish();
}

#[test]
fn the_presets_table_matches_the_presets() {
    let doc = &PARAMETERS;
    let (header, rows) = table(doc, "preset");
    let column = |name: &str| {
        header
            .iter()
            .position(|cell| cell == name)
            .unwrap_or_else(|| panic!("{}: the presets table has no column `{name}`", doc.name))
    };
    let (threshold, band_rows, distance, grouping) = (
        column("threshold"),
        column("rows per band"),
        column("candidate distance"),
        column("grouping"),
    );
    let mut failures = Failures::default();
    let mut seen = Vec::new();
    for row in &rows {
        let name = code_span(&row.cells[0]);
        let Ok(preset) = name.parse::<Preset>() else {
            failures.at(doc, row.line, format!("`{name}` is no preset"));
            continue;
        };
        seen.push(preset);
        let v = preset.verification();
        let what = |column: &str| format!("the {column} of `{name}`");
        failures.compare(
            doc,
            row.line,
            &what("threshold"),
            code_span(&row.cells[threshold]),
            &v.get_threshold().to_string(),
        );
        match rows_and_bands(v.get_candidates(), v.get_hashes()) {
            Some((r, b)) => {
                let cell = &row.cells[band_rows];
                failures.compare(
                    doc,
                    row.line,
                    &what("rows per band"),
                    code_span(cell),
                    &r.to_string(),
                );
                if !cell.contains(&format!("({b} bands)")) {
                    failures.at(
                        doc,
                        row.line,
                        format!("{}: `{cell}` lacks `({b} bands)`", what("rows per band")),
                    );
                }
            }
            None => failures.at(
                doc,
                row.line,
                format!("`{name}` has no bands: the table gives rows"),
            ),
        }
        let cell = &row.cells[distance];
        failures.compare(
            doc,
            row.line,
            &what("candidate distance"),
            code_span(cell),
            &v.get_candidate_distance().to_string(),
        );
        if v.get_candidate_distance() == FINGERPRINT_BITS && !cell.contains("any distance") {
            failures.at(
                doc,
                row.line,
                format!(
                    "{}: {FINGERPRINT_BITS} bits is any distance, say so",
                    what("candidate distance")
                ),
            );
        }
        let grouped =
            format!("{:?}", Grouping::for_threshold(Some(v.get_threshold()))).to_lowercase();
        failures.compare(
            doc,
            row.line,
            &what("grouping"),
            code_span(&row.cells[grouping]),
            &grouped,
        );
    }
    for preset in Preset::ALL {
        if !seen.contains(&preset) {
            failures.at(
                doc,
                0,
                format!("the presets table has no row for `{}`", preset.name()),
            );
        }
    }
    assert_eq!(
        Preset::Rewrites.verification().get_threshold(),
        REWRITES_THRESHOLD
    );
    failures.finish();
}

#[test]
fn the_band_tables_are_the_code_s_curves() {
    let doc = &PARAMETERS;
    let hashes = DEFAULT_SIGNATURE_HASHES;
    let mut failures = Failures::default();

    // | rows (bands) | J = 0.1 | ... |: band_probability.
    let (header, rows) = table(doc, "rows (bands)");
    let similarities: Vec<f64> = header[1..]
        .iter()
        .map(|cell| cell.trim_start_matches("J = ").parse().unwrap())
        .collect();
    let layout = |cell: &str| -> (usize, usize) {
        let cell = cell.trim_matches('*');
        let (rows, bands) = cell.split_once(" (").unwrap();
        (
            rows.parse().unwrap(),
            bands.trim_end_matches(')').parse().unwrap(),
        )
    };
    for row in &rows {
        let (r, b) = layout(&row.cells[0]);
        failures.compare(
            doc,
            row.line,
            &format!("the bands of {r} rows"),
            &b.to_string(),
            &(hashes / r).to_string(),
        );
        if row.cells[0].starts_with("**") != (r == DEFAULT_BAND_ROWS) {
            failures.at(
                doc,
                row.line,
                format!("the bold row is the default, {DEFAULT_BAND_ROWS} rows"),
            );
        }
        for (cell, &j) in row.cells[1..].iter().zip(&similarities) {
            let code = format!("{:.3}", band_probability(j, hashes / r, r));
            failures.compare(
                doc,
                row.line,
                &format!("the probability at J = {j}, {r} rows"),
                cell.trim_matches('*'),
                &code,
            );
        }
    }

    // | threshold | 0.15 | ... | and | rows (bands) | 2 (64) | ... |: band_rows_for.
    let (header, rows) = table(doc, "threshold");
    let row = rows
        .iter()
        .find(|row| row.cells[0] == "rows (bands)")
        .expect("a row of rows");
    for (cell, threshold) in row.cells[1..].iter().zip(&header[1..]) {
        let t: f64 = threshold.parse().unwrap();
        let r = band_rows_for(t, hashes);
        failures.compare(
            doc,
            row.line,
            &format!("the rows for the threshold {t}"),
            cell.trim_matches('*'),
            &format!("{r} ({})", hashes / r),
        );
        if cell.starts_with("**") != (t == DEFAULT_THRESHOLD) {
            failures.at(
                doc,
                row.line,
                format!("the bold cell is the default threshold, {DEFAULT_THRESHOLD}"),
            );
        }
    }
    assert_eq!(band_rows_for(DEFAULT_THRESHOLD, hashes), DEFAULT_BAND_ROWS);
    failures.finish();
}

/// A file's text with every run of whitespace as one space (sentences wrap anywhere), and
/// the line of each byte.
struct Flat {
    text: String,
    lines: Vec<usize>,
}

fn flatten(doc: &Doc) -> Flat {
    let (mut text, mut lines, mut line) = (String::new(), Vec::new(), 1);
    for c in doc.text.chars() {
        if c.is_whitespace() {
            if !text.ends_with(' ') {
                text.push(' ');
                lines.push(line);
            }
        } else {
            text.push(c);
            lines.extend(std::iter::repeat_n(line, c.len_utf8()));
        }
        if c == '\n' {
            line += 1;
        }
    }
    Flat { text, lines }
}

/// Checks that every occurrence of `phrase` in `doc` (at least one) is followed by `code`.
fn claim(failures: &mut Failures, doc: &Doc, flat: &Flat, phrase: &str, code: impl Display) {
    let code = code.to_string();
    let found: Vec<usize> = flat.text.match_indices(phrase).map(|(at, _)| at).collect();
    if found.is_empty() {
        failures.at(
            doc,
            0,
            format!("the phrase `{phrase}` is gone (the code says `{code}` after it)"),
        );
    }
    for at in found {
        let after = &flat.text[at + phrase.len()..];
        if !after.starts_with(&code) {
            let says: String = after.chars().take(code.chars().count() + 10).collect();
            failures.at(
                doc,
                flat.lines[at],
                format!("after `{phrase}` the page says `{says}...`, the code says `{code}`"),
            );
        }
    }
}

#[test]
fn the_sentences_quoting_the_code_match_it() {
    let settings = MatchingSettings::default();
    let k = settings.get_distance();
    let v = default_verification();
    let (rows, bands) = rows_and_bands(v.get_candidates(), v.get_hashes()).unwrap();
    let t = v.get_threshold();
    let n = match settings.get_fingerprint().get_features() {
        FeatureKind::CharNgrams { n } => n,
        other => panic!("the page says the default features are character n-grams, not {other}"),
    };

    let doc = &PARAMETERS;
    let flat = flatten(doc);
    let mut f = Failures::default();
    claim(
        &mut f,
        doc,
        &flat,
        "(settings format ",
        format!("{SETTINGS_VERSION};"),
    );
    claim(
        &mut f,
        doc,
        &flat,
        "a file of at most ",
        mib(MAX_SETTINGS_FILE_BYTES),
    );
    claim(
        &mut f,
        doc,
        &flat,
        "**Distance *k*** (default ",
        format!("{k} bits of {FINGERPRINT_BITS})"),
    );
    claim(
        &mut f,
        doc,
        &flat,
        "Block tables serve *k* up to ",
        MAX_TABLE_DISTANCE,
    );
    claim(&mut f, doc, &flat, "the default with *n* = ", n);
    claim(
        &mut f,
        doc,
        &flat,
        "*n* is 1 to ",
        format!("{MAX_FEATURE_N}."),
    );
    claim(
        &mut f,
        doc,
        &flat,
        "Only the first `max_text_bytes` of a text (",
        mib(DEFAULT_MAX_TEXT_BYTES as u64),
    );
    claim(
        &mut f,
        doc,
        &flat,
        "Chinese technical terms (mean ",
        format!(
            "{LENGTH_RELEVANCE_MEAN} characters, standard deviation {LENGTH_RELEVANCE_STD_DEV})"
        ),
    );
    claim(
        &mut f,
        doc,
        &flat,
        "**Shingles** (`Verification::shingles`, default `",
        format!("{}`", v.get_shingles()),
    );
    claim(
        &mut f,
        doc,
        &flat,
        "**Values** (`Verification::hashes`, default ",
        v.get_hashes(),
    );
    claim(
        &mut f,
        doc,
        &flat,
        "**Kept bits** (`Verification::kept_bits`, default `",
        format!("{}`", serde_name(v.get_kept_bits())),
    );
    claim(
        &mut f,
        doc,
        &flat,
        "(b-bit minwise hashing, b = 8), ",
        format!("{} bytes a signature", v.get_hashes()),
    );
    claim(
        &mut f,
        doc,
        &flat,
        "**Shingle hashing** (`Verification::shingle_hashing`, default `",
        format!("{}`", serde_name(v.get_shingle_hashing())),
    );
    claim(
        &mut f,
        doc,
        &flat,
        "the band tables of the segments (",
        format!("{bands} tables"),
    );
    claim(
        &mut f,
        doc,
        &flat,
        "`mu/(hamming+1) + (1-mu)*jaccard`, mu ",
        format!("{DEFAULT_MU} by default"),
    );
    claim(
        &mut f,
        doc,
        &flat,
        "are cut into bands of `rows` consecutive values (",
        format!("{bands} bands of {rows} by default"),
    );
    claim(
        &mut f,
        doc,
        &flat,
        "the candidate distance (",
        format!("{} bits by default)", v.get_candidate_distance()),
    );
    let found = (100.0 * band_probability(t, bands, rows)).round();
    claim(&mut f, doc, &flat, "With the defaults, a pair beyond ", format!("{k} bits whose signatures agree on exactly {t} of their values is found {found} times in 100"));
    claim(
        &mut f,
        doc,
        &flat,
        "a lost pair weighted ",
        LOST_PAIR_WEIGHT,
    );
    claim(
        &mut f,
        doc,
        &flat,
        "so `rewrites` takes ",
        REWRITES_THRESHOLD,
    );
    claim(
        &mut f,
        doc,
        &flat,
        "**centres**, under a rule whose threshold is ",
        format!("{STARS_BELOW_THRESHOLD} or more"),
    );
    claim(
        &mut f,
        doc,
        &flat,
        "**stars**, under a threshold below ",
        STARS_BELOW_THRESHOLD,
    );
    claim(
        &mut f,
        doc,
        &flat,
        "The table keeps the shingles of two or more documents, at most ",
        thousands(MAX_WEIGHTED_SHINGLES),
    );
    claim(
        &mut f,
        doc,
        &flat,
        "`eval::NEAR_BEST` (",
        format!("{NEAR_BEST})"),
    );
    claim(
        &mut f,
        doc,
        &flat,
        "`eval::END_TO_END_CANDIDATES` (",
        format!("{END_TO_END_CANDIDATES})"),
    );
    let policy = format!("{:?}", Policy::default());
    claim(
        &mut f,
        doc,
        &flat,
        &format!("- **{policy}** ("),
        "the default)",
    );
    let folding = serde_name(settings.get_fingerprint().get_tokenizer().get_folding());
    claim(
        &mut f,
        doc,
        &flat,
        &format!("- `{folding}` ("),
        "the default)",
    );

    let doc = &README;
    let flat = flatten(doc);
    claim(
        &mut f,
        doc,
        &flat,
        "differ in at most *k* bits (",
        format!("{k} of {FINGERPRINT_BITS} by default)"),
    );
    claim(
        &mut f,
        doc,
        &flat,
        "default the plugin also keeps a ",
        format!("{}-value MinHash signature", v.get_hashes()),
    );
    claim(
        &mut f,
        doc,
        &flat,
        "a candidate within *k* bits, or within ",
        format!("{} bits", v.get_candidate_distance()),
    );
    claim(
        &mut f,
        doc,
        &flat,
        "is a near-duplicate when the signatures agree on ",
        format!("{}% of their values", (t * 100.0).round()),
    );
    claim(
        &mut f,
        doc,
        &flat,
        "The default is the `",
        format!("{}` preset", Preset::News.name()),
    );
    claim(
        &mut f,
        doc,
        &flat,
        "its fingerprint moved 12 bits, beyond k = ",
        format!("{k};"),
    );
    claim(
        &mut f,
        doc,
        &flat,
        "duplicate.similarity.unwrap() >= ",
        format!("{t});"),
    );
    assert_eq!(
        Preset::News.verification(),
        v,
        "README: the default is the `news` preset"
    );
    f.finish();
}
