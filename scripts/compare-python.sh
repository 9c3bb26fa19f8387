#!/usr/bin/env bash
# MinHash signatures from Python: tantivy-dedup's TextMatcher (python/, built by
# maturin) vs rensa and datasketch (both on PyPI), on the same texts, on this
# machine, in one run (issue 23: at least 3x rensa's and 20x datasketch's speed).
#
#   scripts/compare-python.sh
#
# Sets up the venv (idempotent), waits for a quiet machine, runs
# scripts/python_signatures.py on data/english.jsonl and data/chinese.jsonl, writes
# data/python-signatures.md (and .jsonl, the raw rows) and prints the Markdown table.
#
# Environment:
#   VENV=/tmp/pyspeed   the venv (created with python3 -m venv if missing)
#   RUNS=3              best of RUNS runs per configuration ...
#   BUDGET=90           ... stopping early once a configuration's runs took BUDGET s
#   MAX_MB=             only the first MAX_MB MB of each file (quick runs)
#   NO_POOL=1           skip the multiprocessing Pool(2) rows
#   MAX_LOAD=0.6        wait until the 1-minute load average is below this ...
#   WAIT_MINUTES=30     ... polling every 20 s, at most this long (then run anyway, warned)
#   REBUILD=1           reinstall tantivy-dedup from python/ even if installed
#   DATASKETCH_VERSION=2.0.0   (rensa and numpy: the latest from PyPI at install time)
#   The tantivy-dedup build goes to target/python (CARGO_TARGET_DIR), ~4 min the first time.
set -euo pipefail

cd "$(dirname "$0")/.."
DATA=${DATA_DIR:-data}
VENV=${VENV:-/tmp/pyspeed}
RUNS=${RUNS:-3}
BUDGET=${BUDGET:-90}
MAX_MB=${MAX_MB:-}
MAX_LOAD=${MAX_LOAD:-0.6}
WAIT_MINUTES=${WAIT_MINUTES:-30}
DATASKETCH_VERSION=${DATASKETCH_VERSION:-2.0.0}
PY=${PYTHON:-python3}
INPUTS=("$DATA/english.jsonl" "$DATA/chinese.jsonl")

say() { printf '\n==> %s\n' "$*" >&2; }
run() { printf '  $ %s\n' "$*" >&2; "$@"; }

for f in "${INPUTS[@]}"; do
  if [ ! -s "$f" ]; then
    say "$f is missing: run scripts/fetch-corpora.sh first"
    exit 1
  fi
done

# ------------------------------------------------------------------ venv ----
say "setting up $VENV"
[ -x "$VENV/bin/python" ] || run "$PY" -m venv "$VENV"
want="numpy pytest maturin>=1.5,<2 rensa datasketch==$DATASKETCH_VERSION"
if [ "$(cat "$VENV/.peers-installed" 2>/dev/null || true)" != "$want" ]; then
  run "$VENV/bin/pip" install --quiet --disable-pip-version-check numpy pytest "maturin>=1.5,<2" rensa \
    "datasketch==$DATASKETCH_VERSION"
  echo "$want" > "$VENV/.peers-installed"
else
  echo "  already installed: $want" >&2
fi
if [ "${REBUILD:-0}" = 1 ] || ! "$VENV/bin/python" -c 'import tantivy_dedup' 2>/dev/null; then
  say "building and installing tantivy-dedup from python/ (CARGO_TARGET_DIR=target/python)"
  CARGO_TARGET_DIR="$PWD/target/python" run "$VENV/bin/pip" install --quiet --disable-pip-version-check \
    --force-reinstall --no-deps ./python
else
  echo "  tantivy-dedup already installed (REBUILD=1 to rebuild from python/)" >&2
fi

# ------------------------------------------------------------- quiet box ----
say "waiting for the 1-minute load average to fall below $MAX_LOAD (at most $WAIT_MINUTES min)"
deadline=$(( $(date +%s) + WAIT_MINUTES * 60 ))
while :; do
  load=$(cut -d' ' -f1 /proc/loadavg)
  if awk -v l="$load" -v m="$MAX_LOAD" 'BEGIN{exit !(l < m)}'; then
    echo "  load average $load" >&2
    break
  fi
  if [ "$(date +%s)" -ge "$deadline" ]; then
    say "warning: load average still $load after $WAIT_MINUTES min: running anyway, timings will be skewed"
    break
  fi
  echo "  load average $load, waiting 20 s" >&2
  sleep 20
done
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)

# ------------------------------------------------------------------- run ----
args=(--runs "$RUNS" --budget "$BUDGET" --json "$DATA/python-signatures.jsonl")
[ -n "$MAX_MB" ] && args+=(--max-mb "$MAX_MB")
[ "${NO_POOL:-0}" = 1 ] && args+=(--no-pool)
say "measuring (load average at start: $LOAD0)"
run "$VENV/bin/python" scripts/python_signatures.py "${args[@]}" "${INPUTS[@]}" > "$DATA/python-signatures.md.tmp"
cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)
{
  echo "machine: ${cpu:-unknown CPU}, $(nproc) cores, $(uname -sr); $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "load average at start: $LOAD0, at end: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  cat "$DATA/python-signatures.md.tmp"
} > "$DATA/python-signatures.md"
rm -f "$DATA/python-signatures.md.tmp"
say "wrote $DATA/python-signatures.md ($DATA/python-signatures.jsonl holds the raw rows)"
cat "$DATA/python-signatures.md"
