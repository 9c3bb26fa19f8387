//! `ingest --cluster`: every document decided against the documents of every writer that
//! shares a Redis Cluster, before the index's own writer takes it
//! (`tantivy_dedup::shared::SharedRegistry`, docs/SCALING.md).

use std::path::Path;

use crate::cli::ingest::WindowRecord;

use anyhow::{bail, Context};
use clap::Args;
use tantivy_dedup::corpus::{CorpusIndex, ReportLine};
use tantivy_dedup::matching::MatchingSettings;
use tantivy_dedup::plugin::AddOutcome;
use tantivy_dedup::shared::{ShardIdentity, SharedDecision, SharedRegistry, WindowDocument};

/// `--cluster` and `--cluster-namespace`, the shared space a command works with: declared
/// once for `ingest` (whose help they carry here), `search` and `repair` (which word their
/// help for what they do with the space, `mut_arg` on their command).
#[derive(Args, Debug)]
pub struct SpaceArgs {
    /// Decide every document against the documents of every writer sharing this Redis
    /// Cluster (its seed addresses, comma-separated: redis://127.0.0.1:30001,...): a
    /// near-duplicate of a document any writer admitted is "duplicate" with "shared":true,
    /// a record another writer admitted under the same id "exists" with "shared":"<that
    /// writer>". Only with --policy reject.
    #[arg(long, value_name = "URLS", value_delimiter = ',')]
    pub cluster: Vec<String>,
    /// The shared space's name: every writer of one corpus gives the same.
    #[arg(
        long,
        value_name = "NAME",
        default_value = "tantivy-dedup",
        requires = "cluster"
    )]
    pub cluster_namespace: String,
}

/// The shared index's options of `ingest` and `repair`: the space, and this writer's name
/// in it.
#[derive(Args, Debug)]
pub struct ClusterOptions {
    #[command(flatten)]
    pub space: SpaceArgs,
    /// This writer's name in the shared space, overriding the shard's own [default: the
    /// name kept in the index folder (.tantivy-dedup-shared.json) since the shard first
    /// joined, which a moved or copied folder keeps; a new shard takes the host's name and
    /// a random suffix, an index made before it joined the host's name and its path].
    #[arg(long, value_name = "NAME", requires = "cluster")]
    pub node: Option<String>,
}

/// The shared space, when the command line asks for one.
pub struct SharedCheck {
    registry: SharedRegistry,
    /// The shard's identity, to write into its folder once the index is there (a shard
    /// that joins for the first time).
    unwritten: Option<ShardIdentity>,
}

impl ClusterOptions {
    /// Whether the command line asks for a shared space.
    pub fn is_set(&self) -> bool {
        !self.space.cluster.is_empty()
    }

    /// Joins the shared space of `--cluster` as the shard in `dir` (which may not exist
    /// yet), judging by `matching`; `None` without `--cluster`.
    pub fn connect(
        &self,
        matching: &MatchingSettings,
        dir: &Path,
        reject: bool,
    ) -> anyhow::Result<Option<SharedCheck>> {
        if !self.is_set() {
            return Ok(None);
        }
        if !reject {
            bail!("--cluster decides documents under --policy reject only");
        }
        let (registry, unwritten) = connect(
            &self.space.cluster,
            &self.space.cluster_namespace,
            self.node.as_deref(),
            matching,
            dir,
            true,
        )?;
        Ok(Some(SharedCheck {
            registry,
            unwritten,
        }))
    }
}

/// The rule and fingerprints of `index`, as a writer of a shared space judges by them
/// (its distance for this run).
pub fn matching_of(index: &CorpusIndex) -> MatchingSettings {
    (index.dedup.settings().get_matching().clone()).distance(index.dedup.distance())
}

/// The identity of the shard in `dir` in shared spaces, `node` overriding its name; and
/// whether it is new (not in the folder yet). A shard that never joined one gets a new
/// token, under the name older builds gave it (the host's name and the folder's path)
/// when the folder holds an index already, else the host's name and a random suffix.
pub fn identity(dir: &Path, node: Option<&str>) -> anyhow::Result<(ShardIdentity, bool)> {
    if let Some(mut identity) = ShardIdentity::read(dir)? {
        if let Some(node) = node {
            node.clone_into(&mut identity.node);
        }
        return Ok((identity, false));
    }
    let host = std::fs::read_to_string("/etc/hostname").unwrap_or_default();
    let host = host.trim();
    let mut identity = ShardIdentity::new("");
    identity.node = match node {
        Some(node) => node.to_owned(),
        None if CorpusIndex::exists(dir) => {
            let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_owned());
            format!("{host}:{}", dir.display())
        }
        None => format!("{host}-{}", &identity.shard[..12]),
    };
    Ok((identity, true))
}

/// Joins the shared space `namespace` of the cluster at `urls` as the shard in `dir`
/// (under the name `node`, or the shard's own: [`identity`]), judging by `matching`; only
/// connects, without taking the name, unless `join` (to read, changing nothing).
/// Returns the registry, and the shard's identity when it is to be written into `dir`.
pub fn connect(
    urls: &[String],
    namespace: &str,
    node: Option<&str>,
    matching: &MatchingSettings,
    dir: &Path,
    join: bool,
) -> anyhow::Result<(SharedRegistry, Option<ShardIdentity>)> {
    let (identity, new) = identity(dir, node)?;
    let registry = SharedRegistry::connect(urls, namespace, &identity.node, matching)
        .and_then(|registry| match join {
            true => registry.join(&identity.shard),
            false => Ok(registry),
        })
        .context("cannot use the shared index (--cluster)")?;
    Ok((registry, new.then_some(identity)))
}

impl SharedCheck {
    /// Writes the shard's identity into its folder `dir` if it joined for the first time:
    /// once the index is there.
    pub fn joined(&mut self, dir: &Path) -> anyhow::Result<()> {
        if let Some(identity) = self.unwritten.take() {
            identity.write(dir).with_context(|| {
                format!("cannot keep the shard's identity in {}", dir.display())
            })?;
        }
        Ok(())
    }

    /// Decides a window of records at once (`(id, fingerprint, signature)`, as the index's
    /// writer prepared them), in the shared space's few pipelined steps for the whole
    /// window; for each, in the same order, `Ok(fresh)` when the space admits it (the
    /// index's writer takes it next; `fresh` when it was admitted now, not before), else
    /// its report line.
    pub fn check_window(
        &self,
        window: &[WindowRecord<'_>],
    ) -> anyhow::Result<Vec<Result<bool, ReportLine>>> {
        let decided: Vec<WindowDocument<'_>> = (window.iter())
            .filter_map(|&(id, fingerprint, signature)| Some((id, fingerprint?, signature)))
            .collect();
        let decisions = (self.registry.decide_window(&decided))
            .context("the shared index cannot decide a window of documents")?;
        let mut decisions = decided.iter().zip(decisions);
        let mut answers = Vec::with_capacity(window.len());
        for &(_, fingerprint, _) in window {
            // No features: never a near-duplicate, here as in the index.
            if fingerprint.is_none() {
                answers.push(Ok(false));
                continue;
            }
            let (&(id, fingerprint, _), decision) = decisions.next().expect("one a document");
            let decision =
                decision.with_context(|| format!("the shared index cannot decide {id}"))?;
            let fresh = matches!(decision, SharedDecision::Admitted { again: false, .. });
            answers.push(
                match ReportLine::of_shared(id.to_owned(), Some(fingerprint), &decision) {
                    Some(line) => Err(line),
                    None => Ok(fresh),
                },
            );
        }
        Ok(answers)
    }

    /// Gives up `id` in the shared space when it was admitted there now (`fresh`) and the
    /// index did not take it after all (a near-duplicate of a document of this index alone,
    /// or an error): it must not keep other writers' documents out. An id admitted before
    /// (a new version of a document the shard holds) stays this writer's.
    pub fn settle(
        &self,
        id: &str,
        fresh: bool,
        outcome: Option<&AddOutcome>,
    ) -> anyhow::Result<()> {
        match outcome {
            _ if !fresh => Ok(()),
            Some(
                AddOutcome::Added { .. } | AddOutcome::Updated { .. } | AddOutcome::Exists { .. },
            ) => Ok(()),
            _ => (self.registry.abort(id))
                .map(drop)
                .with_context(|| format!("the shared index cannot give {id} up")),
        }
    }
}
