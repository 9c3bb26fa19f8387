#!/usr/bin/env bash
# Redis memory of a shared near-duplicate space per document (docs/SCALING.md),
# on a throw-away Redis Cluster (scripts/redis-cluster.sh: 3 masters, 3 replicas). Prints
# INFO memory of the masters before and after, the keys, the commands a document, sampled
# MEMORY USAGE, and the time.
#
#   SOURCE=synthetic DOCS=1000000 scripts/redis-memory.sh   # examples/shared_memory.rs
#   SOURCE=corpus DOCS=30000 scripts/redis-memory.sh        # ingest --cluster, 3 processes
#
# SOURCE=synthetic: three writers (threads) decide DOCS documents of random fingerprints
# and signatures, one in ten a near copy. SOURCE=corpus: data/english.jsonl grown to DOCS
# documents as scripts/spark_bench.py grows it (one in ten a near copy, the others drawn
# from one pool of sentences, so that their fingerprints crowd together: a harsh case for
# candidates) split in three, ingested at once by three `ingest --cluster` processes into
# their own shards.
#
# Environment: SOURCE (default synthetic), DOCS (default 1000000), BIN (a tantivy-dedup
# built with --features cluster; default: this checkout's, built), WORK (default target/redis-memory: the corpus, the
# shards and the cluster's nodes; removed first), REDIS_CLUSTER_PORT (default 32001).
set -euo pipefail
cd "$(dirname "$0")/.."
SOURCE=${SOURCE:-synthetic}
DOCS=${DOCS:-1000000}
WORK=${WORK:-target/redis-memory}
export REDIS_CLUSTER_PORT=${REDIS_CLUSTER_PORT:-32001}

rm -rf "$WORK" && mkdir -p "$WORK"
case $SOURCE in
  synthetic)
    cargo build --release --quiet --features cluster --example shared_memory ;;
  corpus)
    [ -s data/english.jsonl ] || { echo "run scripts/fetch-corpora.sh first" >&2; exit 1; }
    [ -n "${BIN:-}" ] || cargo build --release --quiet --features cluster --bin tantivy-dedup
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
    ;;
  *) echo "SOURCE is synthetic or corpus" >&2; exit 2 ;;
esac
bin=${BIN:-target/release/tantivy-dedup}

cluster="$WORK/cluster"
# The cluster, its masters and `used`.
source scripts/redis-masters.sh
before=$(used)
start=$(date +%s.%N)
if [ "$SOURCE" = synthetic ]; then
  target/release/examples/shared_memory "$seeds" "$DOCS" 3 memory
else
  for i in 0 1 2; do
    "$bin" ingest --report "$WORK/report$i.jsonl" --index "$WORK/shard$i" --commit-every 10000 \
      --cluster "$seeds" --cluster-namespace memory --node "w$i" "$WORK/part$i.jsonl" &
  done
  wait
  echo "admitted: $(cat "$WORK"/report*.jsonl | grep -c '"status":"added"' || true)"
fi
seconds=$(echo "$(date +%s.%N) - $start" | bc)
after=$(used)
keys=0
for port in "${masters[@]}"; do keys=$((keys + $(redis-cli -p "$port" dbsize))); done
echo "documents: $DOCS in ${seconds} s ($(echo "$DOCS / $seconds" | bc) a second, 3 writers)"
echo "masters' used_memory: before $before, after $after: $(( (after - before) / DOCS )) bytes a document"
echo "keys on the masters: $keys"
echo "commands a document on the masters (calls, microseconds a call):"
for port in "${masters[@]}"; do redis-cli -p "$port" info commandstats | tr -d '\r'; done |
  sed -n 's/^cmdstat_\([a-z]*\):calls=\([0-9]*\),usec=\([0-9]*\),.*/\1 \2 \3/p' |
  awk -v docs="$DOCS" '{c[$1]+=$2; u[$1]+=$3} END {for (k in c) if (c[k] > docs / 100)
    printf "  %s %.1f (%.1f us)\n", k, c[k] / docs, u[k] / c[k]}' | sort -k2 -rn
echo "MEMORY USAGE of sampled keys (bytes; encoding; entries):"
port=${masters[0]}
for pattern in '{memory/*}:d' '{memory/*}:l:*'; do
  key=$(redis-cli -p "$port" --scan --pattern "$pattern" | head -1 || true)
  [ -n "$key" ] || continue
  entries=$(redis-cli -p "$port" hlen "$key")
  echo "  $key: $(redis-cli -p "$port" memory usage "$key" | tr -d '\r');" \
    "$(redis-cli -p "$port" object encoding "$key" | tr -d '\r'); $entries"
done
