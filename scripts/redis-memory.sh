#!/usr/bin/env bash
# Redis memory of a shared near-duplicate space per document (issue 22, docs/SCALING.md):
# DOCS documents (data/english.jsonl grown as scripts/spark_bench.py grows it: one in ten a
# near copy) split in three, ingested at once by three `ingest --cluster` processes into
# their own shards, on a throw-away Redis Cluster (scripts/redis-cluster.sh: 3 masters, 3
# replicas). Prints INFO memory of the masters before and after, the keys, sampled
# MEMORY USAGE, and the time.
#
#   DOCS=1000000 scripts/redis-memory.sh
#
# Environment: DOCS (default 1000000), BIN (a tantivy-dedup built with --features cluster;
# default: this checkout's, built), WORK (default target/redis-memory: the corpus, the
# shards and the cluster's nodes; removed first), REDIS_CLUSTER_PORT (default 32001).
set -euo pipefail
cd "$(dirname "$0")/.."
DOCS=${DOCS:-1000000}
WORK=${WORK:-target/redis-memory}
export REDIS_CLUSTER_PORT=${REDIS_CLUSTER_PORT:-32001}

[ -s data/english.jsonl ] || { echo "run scripts/fetch-corpora.sh first" >&2; exit 1; }
if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet --features cluster --bin tantivy-dedup
fi
bin=${BIN:-target/release/tantivy-dedup}
rm -rf "$WORK" && mkdir -p "$WORK"

python3 - "$DOCS" "$WORK" <<'PY'
import json, sys
sys.path.insert(0, "scripts")
from spark_bench import grow, load
n, work = int(sys.argv[1]), sys.argv[2]
docs, _ = load(__import__("pathlib").Path("data/english.jsonl"))
parts = [open(f"{work}/part{i}.jsonl", "w", encoding="utf-8") for i in range(3)]
for i, doc in enumerate(grow(docs, n)):
    parts[i % 3].write(json.dumps(doc, ensure_ascii=False) + "\n")
PY

cluster="$WORK/cluster"
trap 'bash scripts/redis-cluster.sh stop "$cluster" >/dev/null 2>&1 || true' EXIT
seeds="$(bash scripts/redis-cluster.sh start "$cluster" 2>/dev/null | paste -sd, -)"
masters=()
for url in ${seeds//,/ }; do
  port=${url##*:}
  if redis-cli -p "$port" role | head -1 | grep -q master; then masters+=("$port"); fi
done
used() {
  local total=0 port
  for port in "${masters[@]}"; do
    total=$((total + $(redis-cli -p "$port" info memory | tr -d '\r' | sed -n 's/^used_memory://p')))
  done
  echo "$total"
}
before=$(used)
start=$(date +%s.%N)
for i in 0 1 2; do
  "$bin" ingest --report "$WORK/report$i.jsonl" --index "$WORK/shard$i" --commit-every 10000 \
    --cluster "$seeds" --cluster-namespace memory --node "w$i" "$WORK/part$i.jsonl" &
done
wait
seconds=$(echo "$(date +%s.%N) - $start" | bc)
after=$(used)
keys=0
for port in "${masters[@]}"; do keys=$((keys + $(redis-cli -p "$port" dbsize))); done
admitted=$(cat "$WORK"/report*.jsonl | grep -c '"status":"added"' || true)
echo "documents: $DOCS in ${seconds} s ($(echo "$DOCS / $seconds" | bc) a second, 3 processes); admitted $admitted"
echo "masters' used_memory: before $before, after $after: $(( (after - before) / DOCS )) bytes a document"
echo "keys on the masters: $keys"
echo "MEMORY USAGE of sampled keys (bytes; encoding; entries):"
port=${masters[0]}
for pattern in 'memory:d:*' 'memory:b:*' 'memory:s:*' 'memory:n:*'; do
  key=$(redis-cli -p "$port" --scan --pattern "$pattern" | head -1 || true)
  [ -n "$key" ] || continue
  case $pattern in
    *:b:*|*:n:*) entries=$(redis-cli -p "$port" scard "$key") ;;
    *) entries=$(redis-cli -p "$port" hlen "$key") ;;
  esac
  echo "  $key: $(redis-cli -p "$port" memory usage "$key" | tr -d '\r');" \
    "$(redis-cli -p "$port" object encoding "$key" | tr -d '\r'); $entries"
done
