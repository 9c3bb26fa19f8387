//! `--idf-from FILE`: the shingle weights of a new index, learned from a sample of
//! records.

use std::path::Path;
use std::sync::Arc;

use anyhow::{bail, Context};
use rayon::prelude::*;
use tantivy_dedup::fingerprint::{ShingleWeights, ShingleWeightsBuilder, MAX_WEIGHTED_SHINGLES};
use tantivy_dedup::matching::TextMatcher;
use tantivy_dedup::plugin::DedupSettings;

use crate::cli::input::{read_inputs, ReadOptions};

/// Texts hashed at once, on every core: the sample is read once and never held whole.
const BATCH: usize = 4096;

/// The weights of the shingles of `settings`' signatures in the records of `sample` (JSON
/// lines, text or HTML files, or a folder of them, read as `ingest` reads its inputs): the
/// more of its records a shingle is in, the less it counts. Records that cannot be read
/// are left out, and said.
///
/// # Errors
/// When the settings have no signatures, or the sample is missing or holds no record.
pub fn learn(sample: &Path, settings: &DedupSettings) -> anyhow::Result<Arc<ShingleWeights>> {
    if settings.get_matching().get_verification().is_none() {
        bail!(
            "--idf-from weighs the signatures' shingles, and --no-verify makes an index \
             without signatures"
        );
    }
    if !sample.exists() {
        bail!("--idf-from {}: no such file or folder", sample.display());
    }
    let matcher = TextMatcher::new(settings.get_matching())
        .context("cannot learn shingle weights with these settings")?;
    let mut counts = ShingleWeightsBuilder::new();
    let count = |counts: &mut ShingleWeightsBuilder, texts: &mut Vec<String>| {
        let hashes: Vec<Vec<u64>> = (texts.par_iter())
            .map(|text| matcher.shingle_hashes(text).expect("the settings verify"))
            .collect();
        hashes.into_iter().for_each(|h| counts.add_document(h));
        texts.clear();
    };
    let (mut texts, mut bad, mut first_bad) = (Vec::new(), 0usize, None);
    read_inputs(
        std::slice::from_ref(&sample.to_path_buf()),
        &ReadOptions::default(),
        &mut |record| match record {
            Ok(document) => {
                texts.push(document.text);
                if texts.len() == BATCH {
                    count(&mut counts, &mut texts);
                }
            }
            Err(error) => {
                bad += 1;
                first_bad.get_or_insert(format!("{}: {}", error.place, error.reason));
            }
        },
    );
    count(&mut counts, &mut texts);
    if let Some(first) = first_bad {
        eprintln!(
            "--idf-from: {bad} records of {} could not be read and are left out of the \
             weights (the first: {first})",
            sample.display()
        );
    }
    if counts.documents() < 2 {
        bail!(
            "--idf-from {}: {} to learn shingle weights from; a weight says in how many \
             records of the sample a shingle is, so it takes two at least (a few thousand \
             of the corpus make good weights)",
            sample.display(),
            match counts.documents() {
                0 => "no record".to_owned(),
                n => format!("{n} record"),
            }
        );
    }
    let weights = counts.build();
    let capped = match weights.len() >= MAX_WEIGHTED_SHINGLES {
        true => " (the most a table keeps: the commonest)",
        false => "",
    };
    eprintln!(
        "shingle weights learned from {} records of {}: {} shingles are in two or more{capped}",
        weights.documents(),
        sample.display(),
        weights.len()
    );
    Ok(Arc::new(weights))
}
