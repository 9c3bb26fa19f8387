//! The shared text pairs (`tests/data/pairs.json`) checked against the tokenizer and the
//! fingerprints under every feature kind and weighting.

use serde::Deserialize;
use tantivy_dedup::fingerprint::{FingerprintConfig, SimHasher};
use tantivy_dedup::text::{FeatureKind, MixedTokenizer, Weighting};

#[derive(Deserialize)]
struct Pairs {
    pairs: Vec<Pair>,
}

#[derive(Deserialize)]
struct Pair {
    name: String,
    relation: Relation,
    a: String,
    b: String,
}

#[derive(Deserialize, PartialEq, Eq, Clone, Copy, Debug)]
#[serde(rename_all = "lowercase")]
enum Relation {
    Same,
    Near,
    Different,
}

fn pairs() -> Vec<Pair> {
    let json = include_str!("data/pairs.json");
    serde_json::from_str::<Pairs>(json)
        .expect("pairs.json parses")
        .pairs
}

fn configs() -> Vec<FingerprintConfig> {
    let kinds = [
        FeatureKind::Words,
        FeatureKind::WordShingles { n: 2 },
        FeatureKind::WordShingles { n: 3 },
        FeatureKind::CharNgrams { n: 3 },
        FeatureKind::CharNgrams { n: 4 },
    ];
    let weightings = [Weighting::Tf, Weighting::TfIdf, Weighting::TfIdfLength];
    kinds
        .iter()
        .flat_map(|&kind| {
            weightings
                .iter()
                .map(move |&w| FingerprintConfig::default().features(kind).weighting(w))
        })
        .collect()
}

fn tokens(text: &str) -> Vec<String> {
    let tokenizer = MixedTokenizer::new();
    let mut out = Vec::new();
    tokenizer.for_each_token(text, |word, _| out.push(word.to_owned()));
    out
}

#[test]
fn same_pairs_have_equal_tokens() {
    for pair in pairs().iter().filter(|p| p.relation == Relation::Same) {
        assert_eq!(tokens(&pair.a), tokens(&pair.b), "{}", pair.name);
    }
}

#[test]
fn same_pairs_have_equal_fingerprints_under_every_config() {
    for config in configs() {
        let hasher = SimHasher::new(&config).unwrap();
        for pair in pairs().iter().filter(|p| p.relation == Relation::Same) {
            let a = hasher.fingerprint(&pair.a).unwrap();
            let b = hasher.fingerprint(&pair.b).unwrap();
            assert_eq!(a, b, "{} under {config:?}", pair.name);
        }
    }
}

#[test]
fn near_pairs_are_closer_than_different_pairs() {
    for config in configs() {
        let hasher = SimHasher::new(&config).unwrap();
        let distance = |p: &Pair| {
            let a = hasher.fingerprint(&p.a).unwrap();
            a.distance(hasher.fingerprint(&p.b).unwrap())
        };
        let all = pairs();
        let nearest_different = all
            .iter()
            .filter(|p| p.relation == Relation::Different)
            .map(distance)
            .min()
            .unwrap();
        for pair in all.iter().filter(|p| p.relation == Relation::Near) {
            let d = distance(pair);
            assert!(
                d < nearest_different,
                "{}: {d} >= {nearest_different} under {config:?}",
                pair.name
            );
        }
    }
}
