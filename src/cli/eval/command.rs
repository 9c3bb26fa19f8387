//! `tantivy-dedup eval`: precision, recall and F1 of every config of a grid on labeled
//! sets, written as JSON, Markdown and an SVG plot per set.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, ValueEnum};
use tantivy_dedup::eval::{
    default_grid, end_to_end_by, evaluate, recommend_end_to_end, EvalOptions, EvalSet, Goal,
    GridConfig,
};
use tantivy_dedup::grouping::Grouping;
use tantivy_dedup::matching::{MatchingSettings, Preset};
use tantivy_dedup::text::FeatureKind;

use super::markdown::markdown;
use super::outputs::{output, stems};
use super::plot::plot;
use super::set_files::read_set;
use crate::cli::options::FingerprintOptions;
use crate::cli::print;

/// How the end-to-end figures group an index.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum GroupingArg {
    /// Leaders by what the documents near them weigh (near the most, and the nearest),
    /// each document in the nearest leader's group that it is near every document of.
    Centres,
    /// Leaders as for centres, each document in the group of the nearest leader it is
    /// near.
    Stars,
    /// The connected components of the near pairs.
    Components,
}

impl From<GroupingArg> for Grouping {
    fn from(arg: GroupingArg) -> Grouping {
        match arg {
            GroupingArg::Centres => Grouping::Centres,
            GroupingArg::Stars => Grouping::Stars,
            GroupingArg::Components => Grouping::Components,
        }
    }
}

/// Which configs to compare.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Grid {
    /// Words, word 2- and 3-shingles, character 3-, 4- and 5-grams, each with TF, TF-IDF and
    /// TF-IDF x length relevance: 18 configs.
    Full,
    /// Only the config the fingerprint options give.
    Single,
}

/// Measure detection quality on labeled evaluation sets.
///
/// Each SET is a directory with docs.jsonl ({"id","text","group"?,"meta"?}), pairs.jsonl
/// ({"a","b","label":true|false|null,"kind"?,"rate"?}) and set.json ({"name","unlisted":
/// "negative"|"ignore"|"group"}): see docs/DATA.md. For every config, fingerprints are
/// computed once (in parallel) and every counted pair is scored by distance: precision,
/// recall and F1 for k = 0..=--max-k, the best k, and the ROC AUC of the distance. Then the
/// best config's candidates within --loose-k are verified with MinHash (two-stage matching).
///
/// Writes OUT/SET.json (everything), OUT/SET.md (tables) and OUT/SET.svg (distance
/// distributions of near-duplicate and distinct pairs, best k marked), and prints the
/// Markdown, and the presets' scores end to end (each ingested, then grouped as `clusters`
/// groups). With --recommend or --target-precision, also OUT/SET.settings.json: the
/// settings that best meet the goal on the set, for `ingest --settings`: of the settings
/// within 0.005 of the best pairwise score, the cheapest few are measured end to end and the
/// best end to end is written, with both figures. SET is the set's
/// name with characters other than letters, digits, `-`, `_` and `.` made `_`: two sets
/// that would write the same files, or a file over a set's own, are refused before anything
/// is written. Bad lines are
/// reported as FILE:LINE and left out (exit code 1).
#[derive(Args, Debug)]
pub struct EvalCommand {
    /// Evaluation set directories.
    #[arg(required = true)]
    sets: Vec<PathBuf>,
    /// Where the reports go.
    #[arg(long, default_value = "eval-report")]
    out: PathBuf,
    /// The configs compared: the full grid over the fingerprint options' tokenizer, or just
    /// the fingerprint options' config.
    #[arg(long, value_enum, default_value = "full")]
    grid: Grid,
    /// The largest distance swept, 0 to 64.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(0..=64))]
    max_k: u32,
    /// The distance per-category figures are also given at, 0 to 64.
    #[arg(long, default_value_t = tantivy_dedup::lookup::DEFAULT_MAX_DISTANCE, value_parser = clap::value_parser!(u32).range(0..=64))]
    distance: u32,
    /// Candidate distances of the two-stage matchers (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "10,16")]
    loose_k: Vec<u32>,
    /// Skip the two-stage matchers.
    #[arg(long)]
    no_verify: bool,
    /// The shingles of the two-stage signatures: words, shingles-N, chargrams-N or
    /// scripts-W-C (W-word shingles outside Han text, C-character n-grams inside).
    #[arg(long, value_name = "KIND", default_value_t = tantivy_dedup::matching::DEFAULT_SHINGLES)]
    signature_features: FeatureKind,
    /// Values per band of the plugin-bands rows, 1 to 128, comma-separated for a row each:
    /// fewer rows find pairs of lower similarity among more candidates [default: the
    /// plugin's, 9].
    #[arg(long, value_name = "R", value_delimiter = ',', value_parser = clap::value_parser!(u64).range(1..=128))]
    band_rows: Vec<u64>,
    /// The threshold the two-stage tables are also given at, 0 to 1 [default: the plugin's].
    #[arg(long, value_name = "T", value_parser = crate::cli::options::threshold)]
    threshold: Option<f64>,
    /// Recommend the plugin settings of highest F1 on each set, among those measured (the
    /// plugin-bands rows, the plugin rows within 8 bits, SimHash alone at each distance),
    /// and write them to OUT/SET.settings.json, a file `ingest --settings` reads.
    #[arg(long)]
    recommend: bool,
    /// Recommend, as --recommend does, the settings of highest recall whose precision on
    /// the set reaches P (0 to 1).
    #[arg(long, value_name = "P", value_parser = crate::cli::options::threshold, conflicts_with = "no_verify")]
    target_precision: Option<f64>,
    /// How the presets' end-to-end figures group the index [default: as `clusters` does,
    /// by the preset's rule: stars for `rewrites`, centres for `news`].
    #[arg(long, value_enum)]
    grouping: Option<GroupingArg>,
    #[command(flatten)]
    options: FingerprintOptions,
}

impl EvalCommand {
    /// Runs the command; `Ok(false)` when some line of a set was an error.
    pub fn run(&self) -> anyhow::Result<bool> {
        if let Some(k) = self.loose_k.iter().find(|&&k| k > 64) {
            anyhow::bail!("--loose-k {k}: a distance is at most 64 bits");
        }
        let base = self.options.config();
        let grid = match self.grid {
            Grid::Full => default_grid(&base),
            Grid::Single => vec![GridConfig::variant(
                &base,
                base.get_features(),
                base.get_weighting(),
            )],
        };
        let options = EvalOptions {
            max_k: self.max_k,
            default_k: self.distance,
            loose_ks: if self.no_verify {
                Vec::new()
            } else {
                self.loose_k.clone()
            },
            shingles: self.signature_features,
            threshold: self
                .threshold
                .unwrap_or(tantivy_dedup::matching::DEFAULT_THRESHOLD),
            band_rows: if self.band_rows.is_empty() {
                vec![tantivy_dedup::matching::DEFAULT_BAND_ROWS]
            } else {
                self.band_rows.iter().map(|&rows| rows as usize).collect()
            },
            ..EvalOptions::default()
        };
        // Before anything is written: every set's files named, apart from each other and
        // from the sets' own files.
        let stems = stems(&self.sets, &self.out)?;
        std::fs::create_dir_all(&self.out)
            .with_context(|| format!("cannot create {}", self.out.display()))?;
        let mut clean = true;
        for (dir, stem) in self.sets.iter().zip(stems) {
            let (set, errors) = read_set(dir)?;
            clean &= errors == 0;
            note!(
                "{}: {} documents, {} listed pairs; {} configs",
                set.name(),
                set.len(),
                set.listed().len(),
                grid.len()
            );
            let started = std::time::Instant::now();
            let report = evaluate(&set, &grid, &options)
                .with_context(|| format!("cannot evaluate {}", dir.display()))?;
            note!(
                "{}: done in {:.1} s",
                set.name(),
                started.elapsed().as_secs_f64()
            );
            let json = output(&stem, "json");
            std::fs::write(&json, serde_json::to_string_pretty(&report)?)
                .with_context(|| format!("cannot write {}", json.display()))?;
            let mut text = markdown(&report, &base);
            text.push_str(&presets_end_to_end(
                &set,
                self.grouping.map(Grouping::from),
            )?);
            let md = output(&stem, "md");
            std::fs::write(&md, &text).with_context(|| format!("cannot write {}", md.display()))?;
            let svg = output(&stem, "svg");
            plot(&report, &svg).with_context(|| format!("cannot write {}", svg.display()))?;
            print(&format!("{text}\n"))?;
            if let Some(goal) = self.goal() {
                let chosen = recommend_end_to_end(&set, &report, &options, goal)
                    .with_context(|| format!("cannot measure {} end to end", dir.display()))?;
                let Some(chosen) = chosen else {
                    anyhow::bail!(
                        "{}: no setting measured reaches the goal ({goal}): try other --loose-k, --band-rows or --grid",
                        report.set
                    );
                };
                let path = output(&stem, "settings.json");
                chosen.settings.write(&path)?;
                let s = &chosen.scores;
                let e = chosen.end_to_end.expect("measured end to end");
                note!(
                    "{}: recommended ({goal}): {}; pair by pair precision {:.3}, recall {:.3}, F1 {:.3}; end to end (ingest, then clusters) precision {:.3}, recall {:.3}, F1 {:.3}; written to {}",
                    report.set,
                    chosen.summary,
                    s.precision,
                    s.recall,
                    s.f1,
                    e.precision,
                    e.recall,
                    e.f1,
                    path.display()
                );
            }
        }
        Ok(clean)
    }
}

impl EvalCommand {
    /// What to recommend settings for, if anything.
    fn goal(&self) -> Option<Goal> {
        match (self.target_precision, self.recommend) {
            (Some(p), _) => Some(Goal::Precision(p)),
            (None, true) => Some(Goal::BestF1),
            (None, false) => None,
        }
    }
}

/// The Markdown section of the presets' scores end to end on `set`: what `ingest --preset`
/// then `clusters` give, or, with a `grouping`, the index grouped by it.
fn presets_end_to_end(set: &EvalSet, grouping: Option<Grouping>) -> anyhow::Result<String> {
    let how = match grouping {
        None => "as `clusters` groups it",
        Some(Grouping::Centres) => "around leaders, each document in a group it is near all of",
        Some(Grouping::Stars) => "around leaders, each document in its nearest leader's group",
        Some(Grouping::Components) => "by the connected components of the near pairs",
        Some(_) => "by the chosen grouping",
    };
    let mut text = format!(
        "\n## Presets end to end\n\nThe set ingested in order with each preset (flagging), \
         then grouped {how}: every pair of a group is called near.\n\n\
         | preset | precision | recall | F1 |\n|---|---:|---:|---:|\n",
    );
    for (name, preset) in [("news", Preset::News), ("rewrites", Preset::Rewrites)] {
        let settings = MatchingSettings::default().preset(preset);
        let grouping = grouping.unwrap_or_else(|| Grouping::for_settings(&settings));
        let s = end_to_end_by(set, &settings, grouping)
            .with_context(|| format!("cannot measure the {name} preset end to end"))?;
        text.push_str(&format!(
            "| {name} | {:.3} | {:.3} | {:.3} |\n",
            s.precision, s.recall, s.f1
        ));
    }
    Ok(text)
}
