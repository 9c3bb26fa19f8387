#!/usr/bin/env bash
# Side-by-side fingerprinting throughput: tantivy-dedup vs the Python peers
# (simhash, gaoya, datasketch), on the same texts, on this machine, in one run.
#
#   scripts/compare-throughput.sh
#
# Writes data/throughput/{ours,peers,all}.jsonl and data/throughput.md, and
# prints the Markdown table. Needs data/english.jsonl and data/chinese.jsonl
# (fetched by scripts/fetch-corpora.sh, which is run if they are missing).
#
# Environment:
#   RUNS=3            best of at least RUNS runs for the Python peers (fast configs
#                     repeat until MIN_SECONDS of runs, at most 20: robust to a busy machine)
#   MIN_SECONDS=5
#   MAX_MB=           only the first MAX_MB MB of each file for the peers (quick runs)
#   PEERS=python-simhash,gaoya,datasketch
#   SKIP_OURS=1       do not run the cargo example
#   SKIP_PEERS=1      reuse data/throughput/peers.jsonl from an earlier run
#   OURS_THREADS=1    RAYON_NUM_THREADS for the cargo example (peers are single-threaded)
#   SIMHASH_VERSION=2.1.2 GAOYA_VERSION=0.2.2 DATASKETCH_VERSION=2.0.0 NUMPY_VERSION=1.26.4
#   (simhash 2.1.2 overflows a uint8 under numpy 2 as soon as a feature occurs
#   more than 255 times in a document: upstream issue 1e0ng/simhash#74, so the
#   venv keeps numpy 1.26.4, the pin proposed in the fix 1e0ng/simhash#75)
set -euo pipefail

cd "$(dirname "$0")/.."
DATA=${DATA_DIR:-data}
OUT="$DATA/throughput"
VENV="$DATA/venv"
RUNS=${RUNS:-3}
MIN_SECONDS=${MIN_SECONDS:-5}
MAX_MB=${MAX_MB:-}
PEERS=${PEERS:-python-simhash,gaoya,datasketch}
OURS_THREADS=${OURS_THREADS:-1}
SIMHASH_VERSION=${SIMHASH_VERSION:-2.1.2}
GAOYA_VERSION=${GAOYA_VERSION:-0.2.2}
DATASKETCH_VERSION=${DATASKETCH_VERSION:-2.0.0}
NUMPY_VERSION=${NUMPY_VERSION:-1.26.4}
PY=${PYTHON:-python3}
INPUTS=("$DATA/english.jsonl" "$DATA/chinese.jsonl")

say() { printf '\n==> %s\n' "$*" >&2; }
run() { printf '  $ %s\n' "$*" >&2; "$@"; }

mkdir -p "$OUT"
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
if awk -v l="${LOAD0%% *}" -v n="$(nproc)" 'BEGIN{exit !(l > n * 0.75)}'; then
  say "warning: load average is $LOAD0 on $(nproc) cores: other work will skew the timings"
fi

# ------------------------------------------------------------------ data ----
for f in "${INPUTS[@]}"; do
  if [ ! -s "$f" ]; then
    say "$f is missing: running scripts/fetch-corpora.sh"
    run bash scripts/fetch-corpora.sh
    break
  fi
done

# ------------------------------------------------------------------ ours ----
status=0
: > "$OUT/ours.jsonl"
if [ "${SKIP_OURS:-0}" = 1 ]; then
  say "SKIP_OURS=1: not running the tantivy-dedup example"
elif [ ! -f examples/throughput.rs ] && [ ! -f examples/throughput/main.rs ]; then
  say "examples/throughput.rs does not exist yet: skipping tantivy-dedup" \
      "(the Python side still runs; re-run this script once the example exists)"
else
  say "building and running the tantivy-dedup throughput example (RAYON_NUM_THREADS=$OURS_THREADS)"
  # Build first so that compile time never overlaps the measurement; a failed
  # build or run is reported, the Python side still runs, and the script exits
  # non-zero at the end.
  if ! run cargo build --release --example throughput >&2; then
    status=1
    echo "  building the throughput example failed; continuing with the Python side" >&2
  elif RAYON_NUM_THREADS=$OURS_THREADS run cargo run --release --quiet --example throughput -- \
      "${INPUTS[@]}" > "$OUT/ours.raw"; then
    grep '^{' "$OUT/ours.raw" > "$OUT/ours.jsonl" || true
    echo "  $(wc -l < "$OUT/ours.jsonl") result lines from the example" >&2
  else
    status=$?
    echo "  the throughput example failed (exit $status); continuing with the Python side" >&2
    grep '^{' "$OUT/ours.raw" > "$OUT/ours.jsonl" || true
  fi
fi

# ----------------------------------------------------------------- peers ----
if [ "${SKIP_PEERS:-0}" = 1 ] && [ -s "$OUT/peers.jsonl" ]; then
  say "SKIP_PEERS=1: reusing $OUT/peers.jsonl"
else
  say "setting up the Python peers in $VENV"
  if [ ! -x "$VENV/bin/python" ]; then
    if ! "$PY" -m venv "$VENV" 2>/dev/null; then
      # Debian's python3 needs python3-venv for `-m venv`.
      rm -rf "$VENV"
      run apt-get update -qq
      run apt-get install -y -qq python3-venv
      run "$PY" -m venv "$VENV"
    fi
  fi
  want="simhash==$SIMHASH_VERSION gaoya==$GAOYA_VERSION datasketch==$DATASKETCH_VERSION numpy==$NUMPY_VERSION"
  if [ "$(cat "$VENV/.installed" 2>/dev/null || true)" != "$want" ]; then
    # shellcheck disable=SC2086
    run "$VENV/bin/pip" install --quiet --disable-pip-version-check $want
    echo "$want" > "$VENV/.installed"
  else
    echo "  already installed: $want" >&2
  fi
  say "measuring the peers (single-threaded, best of $RUNS${MAX_MB:+, first $MAX_MB MB})"
  args=(--runs "$RUNS" --min-seconds "$MIN_SECONDS" --peers "$PEERS")
  [ -n "$MAX_MB" ] && args+=(--max-mb "$MAX_MB")
  run "$VENV/bin/python" scripts/compare_peers.py "${args[@]}" "${INPUTS[@]}" > "$OUT/peers.jsonl.tmp"
  mv "$OUT/peers.jsonl.tmp" "$OUT/peers.jsonl"
fi

# ----------------------------------------------------------------- table ----
cat "$OUT/ours.jsonl" "$OUT/peers.jsonl" > "$OUT/all.jsonl"
cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)
meta=(--meta "machine=${cpu:-unknown CPU}, $(nproc) cores, $(uname -sr)"
      --meta "date=$(date -u +%Y-%m-%dT%H:%MZ); load average before the run: $LOAD0, after: $(cut -d' ' -f1-3 /proc/loadavg)"
      --meta "python=$("$VENV/bin/python" -c 'import platform;print(platform.python_version())' 2>/dev/null || echo '?'); peers: simhash $SIMHASH_VERSION, gaoya $GAOYA_VERSION, datasketch $DATASKETCH_VERSION, numpy $NUMPY_VERSION"
      --meta "rust=$(rustc --version 2>/dev/null || echo '?'); tantivy-dedup run with RAYON_NUM_THREADS=$OURS_THREADS"
      --meta "method=fingerprinting only (files loaded before timing), single-threaded, MB = 10^6 bytes of UTF-8 text; peers best of >= $RUNS runs (fast configs: until $MIN_SECONDS s of runs, at most 20)")
"$PY" scripts/throughput_table.py "${meta[@]}" "$OUT/all.jsonl" > "$DATA/throughput.md"
say "wrote $DATA/throughput.md ($OUT/all.jsonl holds the raw lines)"
cat "$DATA/throughput.md"
if [ ! -s "$OUT/ours.jsonl" ]; then
  echo >&2
  echo "note: no tantivy-dedup rows yet (examples/throughput.rs missing, skipped or failed)." >&2
fi
exit "$status"
