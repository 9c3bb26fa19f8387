#!/usr/bin/env bash
# Corpus-scale clusters side by side, one run: the Spark job (tantivy_dedup.spark, local
# mode on 2 cores), the CLI (ingest --policy flag, then clusters) and datasketch's
# MinHashLSH, on the labeled sets (quality) and on data/english.jsonl grown to DOCS
# documents (time, shuffle bytes). Issue 23.
#
#   scripts/compare-spark.sh
#
# Environment:
#   VENV=/tmp/pyspark-venv   the venv (made if missing: pyspark, pyarrow, pandas<3,
#                            datasketch, and this package from python/)
#   DOCS=100000              size of the grown corpus (0: skip it)
#   SETS="edits-en spam rewrites-en"   labeled sets of data/eval/
#   OUT=data/spark-bench.jsonl         the rows (appended)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-/tmp/pyspark-venv}
DOCS=${DOCS:-100000}
SETS=${SETS:-"edits-en spam rewrites-en"}
OUT=${OUT:-data/spark-bench.jsonl}

[ -s data/english.jsonl ] || { echo "run scripts/fetch-corpora.sh and scripts/eval_sets.py first" >&2; exit 1; }
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install -q "pyspark>=4,<5" pyarrow "pandas>=2,<3" "datasketch==2.0.0" "maturin>=1.5,<2" numpy
CARGO_TARGET_DIR="$PWD/target/python" "$VENV/bin/pip" install -q ./python
cargo build --release --quiet --bin tantivy-dedup
export PYSPARK_PYTHON="$VENV/bin/python"
sets=()
for set in $SETS; do sets+=("data/eval/$set"); done
"$VENV/bin/python" scripts/spark_bench.py --cli target/release/tantivy-dedup --json "$OUT" "${sets[@]}"
if [ "$DOCS" != 0 ]; then
  "$VENV/bin/python" scripts/spark_bench.py --cli target/release/tantivy-dedup --json "$OUT" \
    --docs "$DOCS" data/english.jsonl
fi
