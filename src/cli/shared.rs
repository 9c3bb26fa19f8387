//! `ingest --cluster`: every document decided against the documents of every writer that
//! shares a Redis Cluster, before the index's own writer takes it
//! (`tantivy_dedup::shared::SharedRegistry`, docs/SCALING.md).

use anyhow::{bail, Context};
use clap::Args;
use tantivy_dedup::corpus::{CorpusIndex, ReportLine};
use tantivy_dedup::plugin::AddOutcome;
use tantivy_dedup::shared::{SharedDecision, SharedRegistry};
use tantivy_dedup::Fingerprint;

/// The shared index's options of `ingest`.
#[derive(Args, Debug)]
pub struct ClusterOptions {
    /// Decide every document against the documents of every writer sharing this Redis
    /// Cluster (its seed addresses, comma-separated: redis://127.0.0.1:30001,...): a
    /// near-duplicate of a document any writer admitted is "duplicate" with "shared":true,
    /// a record another writer admitted under the same id "exists" with "shared":"<that
    /// writer>". Only with --policy reject.
    #[arg(long, value_name = "URLS", value_delimiter = ',')]
    cluster: Vec<String>,
    /// The shared space's name: every writer of one corpus gives the same.
    #[arg(
        long,
        value_name = "NAME",
        default_value = "tantivy-dedup",
        requires = "cluster"
    )]
    cluster_namespace: String,
    /// This writer's name in the shared space, the same when it runs again [default: the
    /// host's name and the index folder's path].
    #[arg(long, value_name = "NAME", requires = "cluster")]
    node: Option<String>,
}

/// The shared space, when the command line asks for one.
pub struct SharedCheck {
    registry: SharedRegistry,
}

impl ClusterOptions {
    /// Connects to the shared space of `--cluster`, for `index` (whose rule it judges by)
    /// in `dir`; `None` without `--cluster`.
    pub fn connect(
        &self,
        index: &CorpusIndex,
        dir: &std::path::Path,
        reject: bool,
    ) -> anyhow::Result<Option<SharedCheck>> {
        if self.cluster.is_empty() {
            return Ok(None);
        }
        if !reject {
            bail!("--cluster decides documents under --policy reject only");
        }
        let registry = connect(
            &self.cluster,
            &self.cluster_namespace,
            self.node.as_deref(),
            index,
            dir,
        )?;
        Ok(Some(SharedCheck { registry }))
    }
}

/// Connects to the shared space `namespace` of the cluster at `urls` as the writer `node`
/// (by default the host's name and the index folder's path) of `index` in `dir`, judging
/// by the index's rule.
pub fn connect(
    urls: &[String],
    namespace: &str,
    node: Option<&str>,
    index: &CorpusIndex,
    dir: &std::path::Path,
) -> anyhow::Result<SharedRegistry> {
    let node = match node {
        Some(node) => node.to_owned(),
        None => {
            let host = std::fs::read_to_string("/etc/hostname").unwrap_or_default();
            let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_owned());
            format!("{}:{}", host.trim(), dir.display())
        }
    };
    let settings = index.dedup.settings();
    SharedRegistry::connect(
        urls,
        namespace,
        &node,
        index.dedup.distance(),
        settings.get_verification(),
    )
    .context("cannot use the shared index (--cluster)")
}

impl SharedCheck {
    /// Decides the record `id` whose document has `fingerprint` and `signature` (as the
    /// index's writer prepared it): `Ok(fresh)` when the shared space admits it (the
    /// index's writer takes it next; `fresh` when it was admitted now, not before), else
    /// its report line.
    pub fn check(
        &self,
        id: &str,
        fingerprint: Option<Fingerprint>,
        signature: Option<&[u32]>,
    ) -> anyhow::Result<Result<bool, ReportLine>> {
        let Some(fingerprint) = fingerprint else {
            // No features: never a near-duplicate, here as in the index.
            return Ok(Ok(false));
        };
        let decision = self
            .registry
            .decide(id, fingerprint, signature)
            .with_context(|| format!("the shared index cannot decide {id}"))?;
        let fresh = matches!(decision, SharedDecision::Admitted { again: false, .. });
        match ReportLine::of_shared(id.to_owned(), Some(fingerprint), &decision) {
            Some(line) => Ok(Err(line)),
            None => Ok(Ok(fresh)),
        }
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
