#!/usr/bin/env bash
# Whole-process throughput: `tantivy-dedup fingerprint FILE` (1 thread, 2 threads,
# the default) vs gaoya's word SimHash through par_bulk_doc2signatures, its JSON
# parsing and interpreter start included (scripts/gaoya_process.py), on this
# machine, in one run (issue 19).
#
#   scripts/compare-process.sh
#
# Builds target/release/tantivy-dedup, makes data/throughput/english-x10.jsonl and
# chinese-x10.jsonl (each corpus 10 times, for longer runs), waits for a quiet machine,
# checks the outputs lightly (one JSON line per record, one gaoya signature per
# text), times every command as a whole process, best of RUNS, and prints the
# Markdown table (also written to data/throughput/process.md; every run's times
# go to data/throughput/process.tsv). MB = 10^6 bytes of the input file; wall and
# user seconds from bash's `time`, each the best of the RUNS runs; the runs of
# the commands are interleaved.
#
# Environment:
#   RUNS=5            timed runs of every command and file
#   LOAD_BELOW=0.6    wait until the 1-minute load average is below this...
#   MAX_WAIT=2400     ...polling every 20 s for at most this many seconds (then run anyway)
#   SKIP_BUILD=1      use target/release/tantivy-dedup as it is
#   OURS_ARGS=        extra options for `tantivy-dedup fingerprint` (e.g. "--features words")
#   GAOYA_THREADS=    RAYON_NUM_THREADS for gaoya (unset: rayon's default, one per core)
#   GAOYA_VERSION=0.2.2 NUMPY_VERSION=1.26.4 (venv data/venv, as compare-throughput.sh)
set -euo pipefail

cd "$(dirname "$0")/.."
DATA=${DATA_DIR:-data}
OUT="$DATA/throughput"
VENV="$DATA/venv"
RUNS=${RUNS:-5}
LOAD_BELOW=${LOAD_BELOW:-0.6}
MAX_WAIT=${MAX_WAIT:-2400}
OURS_ARGS=${OURS_ARGS:-}
GAOYA_THREADS=${GAOYA_THREADS:-}
GAOYA_VERSION=${GAOYA_VERSION:-0.2.2}
NUMPY_VERSION=${NUMPY_VERSION:-1.26.4}
PY=${PYTHON:-python3}
BIN=target/release/tantivy-dedup
INPUTS=("$DATA/english.jsonl" "$DATA/chinese.jsonl" "$OUT/english-x10.jsonl" "$OUT/chinese-x10.jsonl")

say() { printf '\n==> %s\n' "$*" >&2; }
run() { printf '  $ %s\n' "$*" >&2; "$@"; }

mkdir -p "$OUT"

# ------------------------------------------------------------------ data ----
for f in "$DATA/english.jsonl" "$DATA/chinese.jsonl"; do
  if [ ! -s "$f" ]; then
    say "$f is missing: running scripts/fetch-corpora.sh"
    run bash scripts/fetch-corpora.sh
    break
  fi
done
for corpus in english chinese; do
  x10="$OUT/$corpus-x10.jsonl"
  want=$(( $(stat -c %s "$DATA/$corpus.jsonl") * 10 ))
  if [ ! -s "$x10" ] || [ "$(stat -c %s "$x10")" != "$want" ]; then
    say "making $x10 ($DATA/$corpus.jsonl 10 times)"
    for _ in 1 2 3 4 5 6 7 8 9 10; do cat "$DATA/$corpus.jsonl"; done > "$x10.tmp"
    mv "$x10.tmp" "$x10"
  fi
done

# ----------------------------------------------------------------- build ----
if [ "${SKIP_BUILD:-0}" = 1 ]; then
  say "SKIP_BUILD=1: using $BIN as it is"
else
  say "building $BIN"
  run cargo build --release >&2
fi
[ -x "$BIN" ] || { echo "$BIN does not exist" >&2; exit 1; }

# ------------------------------------------------------------------ venv ----
if ! "$VENV/bin/python" -c "import sys; from importlib.metadata import version as v
sys.exit(not (v('gaoya') == '$GAOYA_VERSION' and v('numpy') == '$NUMPY_VERSION'))" 2>/dev/null; then
  say "installing gaoya $GAOYA_VERSION and numpy $NUMPY_VERSION in $VENV"
  if [ ! -x "$VENV/bin/python" ]; then
    if ! "$PY" -m venv "$VENV" 2>/dev/null; then
      rm -rf "$VENV"
      run apt-get update -qq
      run apt-get install -y -qq python3-venv
      run "$PY" -m venv "$VENV"
    fi
  fi
  run "$VENV/bin/pip" install --quiet --disable-pip-version-check \
    "gaoya==$GAOYA_VERSION" "numpy==$NUMPY_VERSION"
fi

# ------------------------------------------------------------- commands ----
# name|command line (the file is appended)
# shellcheck disable=SC2206
ours=("$BIN" fingerprint $OURS_ARGS)
gaoya_env=()
[ -n "$GAOYA_THREADS" ] && gaoya_env=(env "RAYON_NUM_THREADS=$GAOYA_THREADS")
NAMES=(ours1 ours2 oursdef gaoya)
cmd_for() {  # name file -> sets CMD
  case $1 in
    ours1) CMD=("${ours[@]}" --threads 1 "$2") ;;
    ours2) CMD=("${ours[@]}" --threads 2 "$2") ;;
    oursdef) CMD=("${ours[@]}" "$2") ;;
    gaoya) CMD=("${gaoya_env[@]}" "$VENV/bin/python" scripts/gaoya_process.py "$2") ;;
  esac
}

# --------------------------------------------------------------- checks ----
say "checking the outputs (untimed)"
for f in "${INPUTS[@]}"; do
  records=$(grep -cv '^[[:space:]]*$' "$f" || true)
  for n in ours1 ours2 oursdef; do
    cmd_for "$n" "$f"
    "${CMD[@]}" > "$OUT/process.check"
    lines=$(wc -l < "$OUT/process.check")
    fps=$(grep -c '"fingerprint":"[0-9a-f]\{16\}"' "$OUT/process.check" || true)
    errs=$(grep -c '"error"' "$OUT/process.check" || true)
    sum=$(md5sum < "$OUT/process.check" | cut -c1-12)
    printf '  %-8s %-28s %6d records, %6d lines, %6d fingerprints, %d errors, md5 %s\n' \
      "$n" "$(basename "$f")" "$records" "$lines" "$fps" "$errs" "$sum" >&2
    [ "$lines" = "$records" ] || { echo "  line count differs from the record count" >&2; exit 1; }
  done
  cmd_for gaoya "$f"
  printf '  %-8s %-28s ' gaoya "$(basename "$f")" >&2
  "${CMD[@]}"
done
rm -f "$OUT/process.check"

# ------------------------------------------------------------ quiet wait ----
source scripts/wait-quiet.sh
wait_for_quiet
say "load average at the start of the timed runs: $LOAD0 (waited $waited s)"

# ---------------------------------------------------------------- timing ----
TIMEFORMAT='%R %U %S'
printf 'file\tcommand\trun\twall\tuser\tsys\n' > "$OUT/process.tsv"
declare -A WALL UTIME
say "timing, best of $RUNS"
for f in "${INPUTS[@]}"; do
  for ((r = 1; r <= RUNS; r++)); do
    for n in "${NAMES[@]}"; do
      cmd_for "$n" "$f"
      t=$( { time "${CMD[@]}" > /dev/null 2> "$OUT/process.err"; } 2>&1 ) || {
        echo "  failed: ${CMD[*]}" >&2; cat "$OUT/process.err" >&2; exit 1; }
      read -r wall user sys <<< "$t"
      printf '%s\t%s\t%d\t%s\t%s\t%s\n' "$(basename "$f")" "$n" "$r" "$wall" "$user" "$sys" \
        >> "$OUT/process.tsv"
      printf '  %-28s %-8s run %d: wall %s s, user %s s, sys %s s\n' \
        "$(basename "$f")" "$n" "$r" "$wall" "$user" "$sys" >&2
      k="$f|$n"
      if [ -z "${WALL[$k]:-}" ] || awk -v a="$wall" -v b="${WALL[$k]}" 'BEGIN{exit !(a < b)}'; then
        WALL[$k]=$wall
      fi
      if [ -z "${UTIME[$k]:-}" ] || awk -v a="$user" -v b="${UTIME[$k]}" 'BEGIN{exit !(a < b)}'; then
        UTIME[$k]=$user
      fi
    done
  done
done
rm -f "$OUT/process.err"
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)

# ----------------------------------------------------------------- table ----
gthreads=${GAOYA_THREADS:-"rayon default, $(nproc)"}
{
  echo "Whole process, best of $RUNS runs: wall seconds (user seconds), MB/s = input file MB / wall seconds."
  echo
  echo "| file | MB | ours 1 thread | ours 2 threads | ours default | gaoya par_bulk | ours 2t / gaoya | ours 2t / ours 1t |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
  for f in "${INPUTS[@]}"; do
    mb=$(awk -v b="$(stat -c %s "$f")" 'BEGIN{printf "%.2f", b / 1e6}')
    row="| $(basename "$f") | $mb"
    for n in "${NAMES[@]}"; do
      row+=$(awk -v w="${WALL[$f|$n]}" -v u="${UTIME[$f|$n]}" -v mb="$mb" \
        'BEGIN{printf " | %.3f s (%.2f) %.1f MB/s", w, u, mb / w}')
    done
    row+=$(awk -v o="${WALL[$f|ours2]}" -v g="${WALL[$f|gaoya]}" -v o1="${WALL[$f|ours1]}" \
      'BEGIN{printf " | %.2f | %.2f |", g / o, o1 / o}')
    echo "$row"
  done
  echo
  echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores, $(uname -sr)"
  echo "- load average at the start of the timed runs: $LOAD0 (quiet: $quiet, waited ${waited} s); at the end: $LOAD1"
  echo "- ours: \`$BIN fingerprint${OURS_ARGS:+ $OURS_ARGS} [--threads N] FILE > /dev/null\` ($(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet HEAD -- src 2>/dev/null || echo ', src modified'))"
  echo "- gaoya $GAOYA_VERSION (numpy $NUMPY_VERSION, python $("$VENV/bin/python" -c 'import platform;print(platform.python_version())')): \`$VENV/bin/python scripts/gaoya_process.py FILE\`, SimHash64StringIntIndex(6, 5, \"word\", False, (1, 1)).par_bulk_doc2signatures(texts), threads: $gthreads"
} > "$OUT/process.md"
say "wrote $OUT/process.md (every run in $OUT/process.tsv)"
cat "$OUT/process.md"
