//! `repair`: the gaps between a writer's shard and the shared space of `ingest --cluster`
//! found and mended (docs/SCALING.md, "Repair").

use std::collections::HashSet;

use anyhow::{bail, Context};
use clap::Args;
use serde_json::{json, Map, Value};
use tantivy::schema::TantivyDocument;
use tantivy_dedup::corpus::CorpusIndex;
use tantivy_dedup::fingerprint::Fingerprint;
use tantivy_dedup::plugin::{DedupWriter, Policy};
use tantivy_dedup::shared::{SharedDecision, SharedRegistry, SharedState};

use crate::cli::index_dir::{open_existing, IndexArg};
use crate::cli::print;
use crate::cli::shared::{connect, matching_of, ClusterOptions};
use crate::cli::source_index::for_each_stored;

/// Mend the gaps between this writer's shard and the shared space of `ingest --cluster`.
///
/// Two directions, in this order. Every document the shared space says this writer
/// admitted is to be in the shard: one that is not (its writer died between the decision
/// and the commit, and the run was never resumed) is given up, and the records it had
/// rejected are given up with it, so that ingesting them again decides them anew (this
/// waits 26 s, the lease and a failover's retries, for writers that read it just before).
/// Then every document of the shard is to be in the shared space as this writer's: one
/// that is not (indexed before the shard joined, or given up after a failed run) is decided
/// there now, after every document numbered before it; admitted, it stays; rejected as a
/// near-duplicate of another writer's document, or admitted elsewhere under the same id,
/// it is deleted from the shard, as `ingest --cluster` would have left it out.
///
/// A document the space gives to another writer is removed only while that writer runs
/// (or with --remove-elsewhere): one whose writer is not running is kept ("action":"kept")
/// and named on standard error with how to resolve it, since that name may be this
/// shard's own from before it was moved.
///
/// Run it with this shard's ingest stopped (it takes the shard's writer); other writers
/// may go on (stop them all for a repair that leaves nothing behind: docs/SCALING.md). One
/// JSON line per gap on standard output: {"id":..,"gap":"unregistered"|
/// "rejected"|"elsewhere"|"unindexed","action":"registered"|"removed"|"released"|"kept"|null}, with
/// "duplicate_of", "distance" and "similarity" for a document removed as a near-duplicate,
/// "node" for one another writer holds, and "reopened" (the ids to ingest again) for one
/// released. With --check nothing is changed and "action" is null.
#[derive(Args, Debug)]
#[command(
    mut_arg("cluster", |arg| arg.required(true).help(
        "The cluster's seed addresses, comma-separated, as given to `ingest --cluster`"
    )),
    mut_arg("cluster_namespace", |arg| arg.help(
        "The shared space's name, as given to `ingest --cluster-namespace`"
    )),
    mut_arg("node", |arg| arg.help(
        "This writer's name, overriding the shard's own, as `ingest --node` does [default: \
         the name kept in the index folder since the shard first joined]"
    )),
)]
pub struct RepairCommand {
    #[command(flatten)]
    index: IndexArg,
    #[command(flatten)]
    cluster: ClusterOptions,
    /// Only report the gaps: change nothing, in the shard or in the shared space.
    #[arg(long)]
    check: bool,
    /// Remove from the shard the documents the shared space gives to another writer even
    /// when that writer is not running (by default they are kept, "action":"kept": the
    /// name may be this shard's own from before it was moved).
    #[arg(long)]
    remove_elsewhere: bool,
    /// Memory for tantivy's indexing, in megabytes.
    #[arg(long, value_name = "MB", default_value_t = 50, value_parser = clap::value_parser!(u64).range(20..=4000))]
    memory_mb: u64,
}

impl RepairCommand {
    /// Runs the command.
    pub fn run(&self) -> anyhow::Result<bool> {
        let dir = &self.index.index;
        let index = open_existing(dir, &Default::default(), None, &Default::default())?;
        if index.dedup.fields().key.is_none() {
            bail!(
                "{} has no key field: a shared space knows documents by their ids",
                dir.display()
            );
        }
        // The shard's writer first: no ingest adds to the shard while it is compared.
        let writer = if self.check {
            None
        } else {
            let memory = self.memory_mb as usize * 1_000_000;
            let writer = (index.dedup.writer(Policy::Reject, memory)).with_context(|| {
                format!(
                    "cannot write to {} (is an ingest running on it?)",
                    dir.display()
                )
            })?;
            Some(writer)
        };
        let (registry, unwritten) = connect(
            &self.cluster.space.cluster,
            &self.cluster.space.cluster_namespace,
            self.cluster.node.as_deref(),
            &matching_of(&index),
            dir,
            !self.check,
        )?;
        if let Some(identity) = unwritten.filter(|_| !self.check) {
            (identity.write(dir)).with_context(|| {
                format!("cannot keep the shard's identity in {}", dir.display())
            })?;
        }
        let mut gaps = Gaps::default();
        let mut held = HashSet::new();
        for_each_document(&index, |id, _| {
            held.insert(id.to_owned());
            Ok(())
        })?;
        // The space's side first: a document of the shard rejected by an id about to be
        // given up is then decided anew, not deleted.
        self.space_into_shard(&registry, &held, &mut gaps)?;
        self.shard_into_space(&index, &registry, writer.as_ref(), &mut gaps)?;
        if let Some(writer) = writer {
            if gaps.removed > 0 {
                writer
                    .commit()
                    .context("cannot commit the shard's deletions")?;
            }
        }
        if !gaps.kept.is_empty() {
            let mut names = std::mem::take(&mut gaps.kept);
            let count = names.len();
            names.sort_unstable();
            names.dedup();
            note!(
                "repair: kept {count} documents the shared space gives to writers that are not running ({}): \
                 if this shard is one of them under an earlier name (a moved folder of an older build), \
                 run repair again with --node NAME, that name; if they are another shard's, run repair \
                 while that writer runs, or with --remove-elsewhere",
                names.join(", ")
            );
        }
        note!(
            "repair: {} documents in the shard, {} gaps: {} registered, {} removed from the shard, {} released ({} records reopened){}",
            held.len(),
            gaps.found,
            gaps.registered,
            gaps.removed,
            gaps.released,
            gaps.reopened,
            if self.check { " (--check: nothing changed)" } else { "" }
        );
        Ok(true)
    }

    /// Every document of the shard, in index order, decided in the shared space when it
    /// is not there as this writer's.
    fn shard_into_space(
        &self,
        index: &CorpusIndex,
        registry: &SharedRegistry,
        writer: Option<&DedupWriter>,
        gaps: &mut Gaps,
    ) -> anyhow::Result<()> {
        for_each_document(index, |id, document| {
            // A document without features is never a near-duplicate: ingest does not
            // register it either.
            let Some((fingerprint, signature)) = shared_values(index, document) else {
                return Ok(());
            };
            let mut line = Map::new();
            line.insert("id".into(), json!(id));
            let gap = match registry.state(id)? {
                Some(SharedState::Admitted { node }) if node == registry.node() => return Ok(()),
                Some(SharedState::Admitted { node }) => {
                    // Another writer's, by the space: removed only while that writer runs
                    // (or when asked): a name no live writer holds may be this very shard
                    // under the name it had before (a folder of an older build, moved).
                    if !self.check && !self.remove_elsewhere && !registry.writer_running(&node)? {
                        line.insert("node".into(), json!(node));
                        line.insert("gap".into(), json!("elsewhere"));
                        line.insert("action".into(), json!("kept"));
                        gaps.kept.push(node);
                        return gaps.push(line);
                    }
                    line.insert("node".into(), json!(node));
                    "elsewhere"
                }
                Some(SharedState::Rejected { by, .. }) => {
                    line.insert("duplicate_of".into(), json!(by));
                    "rejected"
                }
                // Pending, given up (or a state this tool does not know): not in the space.
                None | Some(_) => "unregistered",
            };
            line.insert("gap".into(), json!(gap));
            let Some(writer) = writer else {
                line.insert("action".into(), Value::Null);
                return gaps.push(line);
            };
            let decision = registry
                .decide(id, fingerprint, signature.as_deref())
                .with_context(|| format!("the shared index cannot decide {id}"))?;
            let action = match decision {
                SharedDecision::Admitted { .. } => {
                    gaps.registered += 1;
                    "registered"
                }
                SharedDecision::Rejected {
                    by,
                    distance,
                    similarity,
                    ..
                } => {
                    line.insert("duplicate_of".into(), json!(by));
                    line.insert("distance".into(), json!(distance));
                    if let Some(similarity) = similarity {
                        line.insert("similarity".into(), json!(similarity));
                    }
                    "removed"
                }
                SharedDecision::Elsewhere { node } => {
                    let kept = !self.remove_elsewhere && !registry.writer_running(&node)?;
                    line.insert("node".into(), json!(node));
                    if kept {
                        gaps.kept.push(node);
                        "kept"
                    } else {
                        "removed"
                    }
                }
                other => bail!("a shared decision this tool does not know: {other:?}"),
            };
            if action == "removed" {
                writer
                    .delete_key(id)
                    .with_context(|| format!("cannot delete {id} from the shard"))?;
                gaps.removed += 1;
            }
            line.insert("action".into(), json!(action));
            gaps.push(line)
        })
    }

    /// Every id the shared space says this writer admitted, given up when the shard does
    /// not hold it.
    fn space_into_shard(
        &self,
        registry: &SharedRegistry,
        held: &HashSet<String>,
        gaps: &mut Gaps,
    ) -> anyhow::Result<()> {
        let missing: Vec<String> = (registry.admitted_ids()?.into_iter())
            .filter(|id| !held.contains(id))
            .collect();
        if self.check {
            for id in missing {
                // The set may name ids given up or rejected since: only those still this
                // writer's admitted ones are gaps.
                let mine = SharedState::Admitted {
                    node: registry.node().to_owned(),
                };
                if registry.state(&id)? != Some(mine) {
                    continue;
                }
                let mut line = Map::new();
                line.insert("id".into(), json!(id));
                line.insert("gap".into(), json!("unindexed"));
                line.insert("action".into(), Value::Null);
                gaps.push(line)?;
            }
            return Ok(());
        }
        for released in registry.release(&missing)? {
            gaps.released += 1;
            gaps.reopened += released.reopened.len();
            let mut line = Map::new();
            line.insert("id".into(), json!(released.id));
            line.insert("gap".into(), json!("unindexed"));
            line.insert("action".into(), json!("released"));
            line.insert("reopened".into(), json!(released.reopened));
            gaps.push(line)?;
        }
        Ok(())
    }
}

/// Calls `visit(id, document)` for every alive document of the shard with a key, in index
/// order (segment, then document).
fn for_each_document(
    index: &CorpusIndex,
    mut visit: impl FnMut(&str, &TantivyDocument) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let searcher = (index.dedup.index().reader())
        .context("cannot read the shard")?
        .searcher();
    for_each_stored(&searcher, |document| {
        let document = document.context("cannot read a stored document of the shard")?;
        match index.dedup.fields().key_of(&document) {
            Some(id) => visit(id, &document),
            None => Ok(()),
        }
    })
}

/// The gaps found, printed as they are.
#[derive(Default)]
struct Gaps {
    found: usize,
    registered: usize,
    removed: usize,
    released: usize,
    reopened: usize,
    /// The writers of the documents kept though the space gives them to another writer
    /// (one a document), none of them running.
    kept: Vec<String>,
}

impl Gaps {
    fn push(&mut self, line: Map<String, Value>) -> anyhow::Result<()> {
        self.found += 1;
        print(&format!("{}\n", Value::Object(line)))
    }
}

/// The plugin's values of `document` (its fingerprint and signature), as the index's writer
/// computes them; `None` for a document without features (never a near-duplicate).
pub fn shared_values(
    index: &CorpusIndex,
    document: &TantivyDocument,
) -> Option<(Fingerprint, Option<Vec<u32>>)> {
    // From the text, not read back from the fields `fill_document` writes, which hold the
    // signature in the index's stored form.
    let (fingerprint, signature) = index.dedup.values_of(document);
    Some((fingerprint?, signature))
}
