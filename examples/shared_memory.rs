//! Writers deciding synthetic documents in one shared space, for Redis's memory and the
//! rate of decisions without a corpus's candidates (`scripts/redis-memory.sh` runs it
//! with `SOURCE=synthetic` and reads `INFO memory` before and after).
//!
//! ```sh
//! cargo run --release --features cluster --example shared_memory -- \
//!     redis://127.0.0.1:30001,... DOCUMENTS [WRITERS] [NAMESPACE]
//! ```
//!
//! Each document has a random fingerprint and a random 128-value signature (a byte a value,
//! as an index keeps them by default), except one in ten: a near copy of an earlier
//! document (2 bits of its fingerprint and 8 of its signature's values changed), so that
//! band values are shared as they are in a corpus. Ids are `doc-<n>`. The writers
//! (threads, each with its own connection) take the documents in turn, a window of 512 at
//! a time, as `ingest --cluster` decides them.

use std::time::Instant;

use anyhow::{bail, Context};
use tantivy_dedup::fingerprint::Fingerprint;
use tantivy_dedup::matching::{MatchingSettings, Verification};
use tantivy_dedup::shared::{SharedDecision, SharedRegistry, WindowDocument};

/// The documents a writer decides at once, as `ingest --cluster` does.
const WINDOW: usize = 512;

/// SplitMix64: a document's values from its number alone, whichever writer makes them.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// The fingerprint and signature of document `n`.
fn document(n: u64, hashes: usize) -> (Fingerprint, Vec<u32>) {
    let original = |n: u64| {
        let signature = (0..hashes as u64)
            .map(|i| mix(n << 8 | i) as u32 & 0xFF)
            .collect();
        (Fingerprint(mix(n ^ 0xF1F1)), signature)
    };
    let draw = mix(n ^ 0xABCD);
    if n == 0 || !draw.is_multiple_of(10) {
        return original(n);
    }
    let (fingerprint, mut signature) = original(draw % n);
    for i in 0..8 {
        let at = mix(n + i) as usize % hashes;
        signature[at] = mix(n << 16 | i) as u32 & 0xFF;
    }
    let bits = (1u64 << ((draw >> 8) % 64)) | (1u64 << ((draw >> 16) % 64));
    (Fingerprint(fingerprint.bits() ^ bits), signature)
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [seeds, documents, rest @ ..] = args.as_slice() else {
        bail!("usage: shared_memory SEEDS DOCUMENTS [WRITERS] [NAMESPACE]");
    };
    let seeds: Vec<String> = seeds.split(',').map(str::to_owned).collect();
    let documents: u64 = documents.parse().context("DOCUMENTS")?;
    let writers: u64 = rest
        .first()
        .map_or(Ok(3), |w| w.parse())
        .context("WRITERS")?;
    let namespace = rest.get(1).map_or("synthetic", String::as_str);
    let verification = Verification::default();
    let hashes = verification.get_hashes();
    let start = Instant::now();
    let rejected: u64 = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..writers)
            .map(|writer| {
                let (seeds, verification) = (&seeds, &verification);
                scope.spawn(move || -> anyhow::Result<u64> {
                    let node = format!("w{writer}");
                    let matching = MatchingSettings::default()
                        .distance(3)
                        .verification(Some(verification.clone()));
                    let registry = SharedRegistry::connect(seeds, namespace, &node, &matching)?;
                    let mut rejected = 0;
                    let mine: Vec<u64> = (writer..documents).step_by(writers as usize).collect();
                    for window in mine.chunks(WINDOW) {
                        let made: Vec<(String, Fingerprint, Vec<u32>)> = (window.iter())
                            .map(|&n| {
                                let (fingerprint, signature) = document(n, hashes);
                                (format!("doc-{n}"), fingerprint, signature)
                            })
                            .collect();
                        let documents: Vec<WindowDocument<'_>> = (made.iter())
                            .map(|(id, fingerprint, signature)| {
                                (id.as_str(), *fingerprint, Some(signature.as_slice()))
                            })
                            .collect();
                        for decision in registry.decide_window(&documents)? {
                            if let SharedDecision::Rejected { .. } = decision? {
                                rejected += 1;
                            }
                        }
                    }
                    Ok(rejected)
                })
            })
            .collect();
        threads
            .into_iter()
            .map(|thread| thread.join().expect("a writer panicked"))
            .sum::<anyhow::Result<u64>>()
    })?;
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "{documents} documents decided by {writers} writers in {seconds:.1} s \
         ({:.0} a second); {rejected} rejected",
        documents as f64 / seconds
    );
    Ok(())
}
