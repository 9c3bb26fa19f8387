//! The main job on the sample corpus shipped in the repository: fingerprint every document,
//! find every pair within the default distance with the block-table index, group them, and
//! compare the groups with the known near-duplicate groups of `samples/groups.json`.
//!
//! ```sh
//! cargo run --release --example sample_near_duplicates [-- --distance 3 --features words|shingles-N|chargrams-N --weighting tf|tf-idf|tf-idf-length --fold off|characters|regional|regional-any-script]
//! ```

use std::collections::{BTreeMap, BTreeSet, HashSet};

use anyhow::{bail, Context};
use tantivy_dedup::fingerprint::{FingerprintConfig, SimHasher};
use tantivy_dedup::lookup::FingerprintIndex;
use tantivy_dedup::text::{FeatureKind, Weighting};

const CORPUS: &str = include_str!("../samples/corpus.jsonl");
const GROUPS: &str = include_str!("../samples/groups.json");

#[derive(serde::Deserialize)]
struct Document {
    id: String,
    text: String,
}

#[derive(serde::Deserialize)]
struct Groups {
    groups: Vec<Vec<String>>,
}

fn parse_features(value: &str) -> anyhow::Result<FeatureKind> {
    let n = |prefix: &str| value.strip_prefix(prefix).map(str::parse::<usize>);
    Ok(match value {
        "words" => FeatureKind::Words,
        _ if value.starts_with("shingles-") => FeatureKind::WordShingles {
            n: n("shingles-").unwrap()?,
        },
        _ if value.starts_with("chargrams-") => FeatureKind::CharNgrams {
            n: n("chargrams-").unwrap()?,
        },
        _ => bail!("unknown features {value:?}: words, shingles-N or chargrams-N"),
    })
}

/// Groups of ids connected by pairs (union-find with path halving).
fn connected_groups(
    len: usize,
    pairs: impl IntoIterator<Item = (usize, usize)>,
) -> Vec<Vec<usize>> {
    let mut parent: Vec<usize> = (0..len).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for (a, b) in pairs {
        let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
        parent[ra.max(rb)] = ra.min(rb);
    }
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for i in 0..len {
        let r = root(&mut parent, i);
        groups.entry(r).or_default().push(i);
    }
    groups.into_values().filter(|g| g.len() > 1).collect()
}

fn main() -> anyhow::Result<()> {
    let mut config = FingerprintConfig::default();
    let mut distance = 3u32;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args
            .next()
            .with_context(|| format!("{arg} needs a value"))?;
        match arg.as_str() {
            "--distance" => distance = value.parse()?,
            "--features" => config = config.features(parse_features(&value)?),
            "--weighting" => {
                config = config.weighting(serde_json::from_value::<Weighting>(value.into())?)
            }
            "--fold" => {
                let tokenizer = config
                    .get_tokenizer()
                    .clone()
                    .folding(serde_json::from_value(value.into())?);
                config = config.tokenizer(tokenizer);
            }
            _ => bail!("unknown option {arg}"),
        }
    }
    let documents: Vec<Document> = CORPUS
        .lines()
        .enumerate()
        .map(|(i, line)| {
            serde_json::from_str(line).with_context(|| format!("samples/corpus.jsonl:{}", i + 1))
        })
        .collect::<anyhow::Result<_>>()?;
    let hasher = SimHasher::new(&config)?;
    let mut index = FingerprintIndex::new();
    for (i, doc) in documents.iter().enumerate() {
        if let Some(fingerprint) = hasher.fingerprint(&doc.text) {
            index.insert(u32::try_from(i)?, fingerprint);
        }
    }
    let pairs = index.all_pairs(distance);
    let found = connected_groups(
        documents.len(),
        pairs.iter().map(|p| (p.a as usize, p.b as usize)),
    );

    println!(
        "{} documents, features {}, weighting {:?}, distance <= {distance}: {} near-duplicate pairs in {} groups\n",
        documents.len(),
        config.get_features(),
        config.get_weighting(),
        pairs.len(),
        found.len()
    );
    for group in &found {
        let ids: Vec<&str> = group.iter().map(|&i| documents[i].id.as_str()).collect();
        println!("  {}", ids.join("  "));
    }

    // Pairwise precision and recall against the known groups.
    let known: Groups = serde_json::from_str(GROUPS)?;
    let pair_set = |groups: Vec<Vec<String>>| -> HashSet<(String, String)> {
        let mut set = HashSet::new();
        for group in groups {
            let sorted: BTreeSet<String> = group.into_iter().collect();
            let sorted: Vec<String> = sorted.into_iter().collect();
            for (i, a) in sorted.iter().enumerate() {
                for b in &sorted[i + 1..] {
                    set.insert((a.clone(), b.clone()));
                }
            }
        }
        set
    };
    let truth = pair_set(known.groups);
    let predicted = pair_set(
        pairs
            .iter()
            .map(|p| {
                vec![
                    documents[p.a as usize].id.clone(),
                    documents[p.b as usize].id.clone(),
                ]
            })
            .collect(),
    );
    let hits = predicted.intersection(&truth).count();
    println!(
        "\nagainst samples/groups.json: {hits} of {} known pairs found (recall {:.2}), {} of {} reported pairs known (precision {:.2})",
        truth.len(),
        hits as f64 / truth.len().max(1) as f64,
        hits,
        predicted.len(),
        hits as f64 / predicted.len().max(1) as f64
    );
    Ok(())
}
