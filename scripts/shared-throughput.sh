#!/usr/bin/env bash
# The shared index's cost against a local-only ingest (docs/BENCHMARKS.md, "Shared index in
# Redis Cluster"), in one run on a throw-away cluster (scripts/redis-cluster.sh: 3 masters,
# 3 replicas on loopback): one `ingest` of INPUT local-only, then one `ingest --cluster` of
# it into a new shard; prints both rates and their ratio, the commands a document the
# masters served (INFO commandstats: the calls a script makes are counted as commands too,
# and the scripts themselves apart), and the masters' used_memory a document (with and
# without the growth of their replication backlogs, a fixed megabyte a master once full).
#
#   INPUT=/tmp/reuters4k.jsonl scripts/shared-throughput.sh
#
# Environment: INPUT (JSON lines, required), BIN (default target/release/tantivy-dedup,
# built with --features cluster), WORK (default target/shared-throughput; removed first),
# REDIS_CLUSTER_PORT (default 32101).
set -euo pipefail
cd "$(dirname "$0")/.."
INPUT=${INPUT:?INPUT: a JSON-lines file}
BIN=${BIN:-target/release/tantivy-dedup}
WORK=${WORK:-target/shared-throughput}
export REDIS_CLUSTER_PORT=${REDIS_CLUSTER_PORT:-32101}
rm -rf "$WORK" && mkdir -p "$WORK"
docs=$(wc -l <"$INPUT")
cluster="$WORK/cluster"
# The cluster, its masters and `used`.
source scripts/redis-masters.sh
seconds() { echo "$(date +%s.%N) - $1" | bc; }

start=$(date +%s.%N)
"$BIN" ingest --index "$WORK/local" "$INPUT" 2>"$WORK/local.log"
local_s=$(seconds "$start")
for port in "${masters[@]}"; do redis-cli -p "$port" config resetstat >/dev/null; done
before=$(used)
backlog_before=$(backlog)
start=$(date +%s.%N)
"$BIN" ingest --index "$WORK/shared" --report "$WORK/report.jsonl" \
  --cluster "$seeds" --cluster-namespace bench "$INPUT" 2>"$WORK/shared.log"
shared_s=$(seconds "$start")
after=$(used)
backlog_after=$(backlog)
echo "documents: $docs ($(grep -c '"status":"added"' "$WORK/report.jsonl") added)"
echo "local-only: ${local_s} s ($(echo "$docs / $local_s" | bc) a second)"
echo "--cluster:  ${shared_s} s ($(echo "$docs / $shared_s" | bc) a second)"
echo "ratio: $(echo "scale=3; $local_s / $shared_s" | bc)"
echo "masters' used_memory: $(((after - before) / docs)) bytes a document," \
  "$(((backlog_after - backlog_before) / docs)) of them the replication backlogs' growth" \
  "(fixed once full): $(((after - before - backlog_after + backlog_before) / docs)) without it"
for port in "${masters[@]}"; do redis-cli -p "$port" info commandstats | tr -d '\r'; done |
  sed -n 's/^cmdstat_\([a-z|]*\):calls=\([0-9]*\),.*/\1 \2/p' | grep -v '^config\|^info' |
  awk -v docs="$docs" '{c[$1]+=$2; t+=$2} END {
    printf "commands a document (script calls included): %.1f\n", t / docs
    for (k in c) if (c[k] > docs / 100) printf "  %s %.1f\n", k, c[k] / docs }'
