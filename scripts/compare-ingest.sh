#!/usr/bin/env bash
# Ingest side by side on one file of news-like documents with planted near copies
# (scripts/planted_news.py): our deduplicating ingest, a plain tantivy index of the same
# documents, and rensa's inline deduplication, one run each, as whole processes.
#
#   scripts/compare-ingest.sh              # DOCS=100000
#   DOCS=1000000 scripts/compare-ingest.sh
#
# The commands, in this order, each measured once by /usr/bin/time -v (user + system CPU,
# peak resident memory of the process) and bash's clock (wall); ours writes its report
# (one JSON line a record) inside the timing, rensa its list of left-out ids:
#   ours   target/release/tantivy-dedup ingest --commit-every 10000 --policy reject
#          --report R --index I FILE (a new index, the default settings)
#   plain  target/release/examples/plain_ingest I FILE 10000: the same documents, schema,
#          tokenizer and memory budget (200 MiB) through a plain tantivy IndexWriter,
#          a commit every 10,000 documents, no deduplication
#   rensa  scripts/rensa_dedup.py FILE (rensa's RMinHashDeduplicator: word 2-shingles,
#          128 permutations, LSH, threshold 0.8), deduplication only: nothing indexed
# then, for ours, `tantivy-dedup search --index I cocoa` (opening the index and one query)
# and `ingest --policy reject --index I EMPTY_FILE` (a writer opened on
# the finished index, nothing added). Recall and precision against the planted copies come from ours' report and
# rensa's list of left-out ids (scripts/planted_score.py). Prints the Markdown table with
# the ratios ours / plain and ours / rensa, and writes it to data/bench/ingest-DOCS.md;
# the run's other files (reports, /usr/bin/time's output) stay in data/bench/ingest-DOCS/,
# the two indexes are removed.
#
# Environment:
#   DOCS=100000       documents of the generated file (data/bench/news-DOCS.jsonl, made
#                     when missing: about 1.1 KB a document)
#   SEED=1            seed of scripts/planted_news.py
#   LOAD_BELOW=0.6    wait until the 1-minute load average is below this...
#   MAX_WAIT=300      ...polling every 20 s for at most this many seconds (then run anyway)
#   SKIP_BUILD=1      use target/release/tantivy-dedup and examples/plain_ingest as they are
#   RENSA_VERSION=0.5.0  (venv data/venv-rensa, pip install from PyPI)
#   CARGO_TARGET_DIR=target  where the release builds are (as cargo takes it)
#   DATA_DIR=data     PYTHON=python3 (generator and scoring; standard library only)
set -euo pipefail

cd "$(dirname "$0")/.."
DATA=${DATA_DIR:-data}
DOCS=${DOCS:-100000}
SEED=${SEED:-1}
LOAD_BELOW=${LOAD_BELOW:-0.6}
MAX_WAIT=${MAX_WAIT:-300}
RENSA_VERSION=${RENSA_VERSION:-0.5.0}
PY=${PYTHON:-python3}
VENV="$DATA/venv-rensa"
TARGET=${CARGO_TARGET_DIR:-target}
BIN="$TARGET/release/tantivy-dedup"
PLAIN="$TARGET/release/examples/plain_ingest"
FILE="$DATA/bench/news-$DOCS.jsonl"
TRUTH="$DATA/bench/news-$DOCS.truth.tsv"
if [ "$SEED" != 1 ]; then
  FILE="$DATA/bench/news-$DOCS-seed$SEED.jsonl"
  TRUTH="$DATA/bench/news-$DOCS-seed$SEED.truth.tsv"
fi
RUN="$DATA/bench/ingest-$DOCS"
OUT="$DATA/bench/ingest-$DOCS.md"

say() { printf '\n==> %s\n' "$*" >&2; }
run() { printf '  $ %s\n' "$*" >&2; "$@"; }

[ -x /usr/bin/time ] || { echo "/usr/bin/time is missing (Debian: apt-get install time)" >&2; exit 1; }

# ------------------------------------------------------------------ data ----
if [ ! -s "$DATA/reuters.jsonl" ]; then
  say "$DATA/reuters.jsonl is missing: running scripts/fetch-corpora.sh"
  run bash scripts/fetch-corpora.sh
fi
if [ ! -s "$FILE" ] || [ ! -s "$TRUTH" ]; then
  say "making $FILE"
  run "$PY" scripts/planted_news.py --docs "$DOCS" --seed "$SEED" --source "$DATA/reuters.jsonl" \
    --out "$FILE" --truth "$TRUTH"
fi

# ----------------------------------------------------------------- build ----
if [ "${SKIP_BUILD:-0}" = 1 ]; then
  say "SKIP_BUILD=1: using $BIN and $PLAIN as they are"
else
  say "building $BIN and $PLAIN"
  run cargo build --release --bin tantivy-dedup --example plain_ingest >&2
fi
for b in "$BIN" "$PLAIN"; do
  [ -x "$b" ] || { echo "$b does not exist" >&2; exit 1; }
done

# ------------------------------------------------------------------ venv ----
if ! "$VENV/bin/python" -c "import sys; from importlib.metadata import version as v
sys.exit(v('rensa') != '$RENSA_VERSION')" 2>/dev/null; then
  say "installing rensa $RENSA_VERSION in $VENV"
  [ -x "$VENV/bin/python" ] || run "$PY" -m venv "$VENV"
  run "$VENV/bin/pip" install --quiet --disable-pip-version-check "rensa==$RENSA_VERSION"
fi

# ------------------------------------------------------------ quiet wait ----
source scripts/wait-quiet.sh
wait_for_quiet

# ---------------------------------------------------------------- timing ----
rm -rf "$RUN"
mkdir -p "$RUN"
declare -A WALL CPU PEAK ANON
# The largest anonymous resident set (heap and stacks, not the index files a process maps)
# of the child of process $1, sampled every 0.2 s until $1 exits; in MiB.
peak_anon() {
  local parent=$1 child="" top=0 kib
  while kill -0 "$parent" 2> /dev/null; do
    [ -n "$child" ] || child=$(pgrep -P "$parent" | head -1)
    if [ -n "$child" ]; then
      kib=$(awk '/^RssAnon:/ { print $2 }' "/proc/$child/status" 2> /dev/null || true)
      [ -n "$kib" ] && [ "$kib" -gt "$top" ] && top=$kib
    fi
    sleep 0.2
  done
  awk -v k="$top" 'BEGIN { printf "%.1f\n", k / 1024 }'
}
measure() {  # name command... : one run under /usr/bin/time -v, its output in $RUN/name.out
  local name=$1
  shift
  printf '  $ %s\n' "$*" >&2
  local start=$EPOCHREALTIME
  /usr/bin/time -v -o "$RUN/$name.time" "$@" > "$RUN/$name.out" 2> "$RUN/$name.err" &
  local pid=$!
  peak_anon "$pid" > "$RUN/$name.anon" &
  local sampler=$!
  wait "$pid" || { echo "  failed: $*" >&2; tail -5 "$RUN/$name.err" >&2; exit 1; }
  local end=$EPOCHREALTIME
  wait "$sampler"
  ANON[$name]=$(cat "$RUN/$name.anon")
  # Wall from bash's clock (/usr/bin/time's has 1/100 s); CPU and peak from /usr/bin/time.
  read -r WALL[$name] CPU[$name] PEAK[$name] < <(awk -F': ' -v a="$start" -v b="$end" '
    /User time/ { u = $2 } /System time/ { s = $2 } /Maximum resident/ { m = $2 }
    END { printf "%.3f %.2f %.1f\n", b - a, u + s, m / 1024 }' "$RUN/$name.time")
  printf '  %-12s wall %s s, CPU %s s, peak %s MiB (anonymous %s MiB)\n' "$name" \
    "${WALL[$name]}" "${CPU[$name]}" "${PEAK[$name]}" "${ANON[$name]}" >&2
}
say "one run each on $FILE (load average $LOAD0)"
measure ours "$BIN" ingest --commit-every 10000 --policy reject --report "$RUN/ours.report" \
  --index "$RUN/ours.index" "$FILE"
measure plain "$PLAIN" "$RUN/plain.index" "$FILE" 10000
measure rensa "$VENV/bin/python" scripts/rensa_dedup.py "$FILE" "$RUN/rensa.rejected"
measure ours_open "$BIN" search --index "$RUN/ours.index" cocoa
# A writer opened on the finished index, no record added: what a crawler's next run pays.
: > "$RUN/empty.jsonl"
measure ours_writer "$BIN" ingest --policy reject --index "$RUN/ours.index" "$RUN/empty.jsonl"
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)

# ---------------------------------------------------------------- scores ----
"$PY" scripts/planted_score.py "$TRUTH" --report "$RUN/ours.report" > "$RUN/ours.score"
"$PY" scripts/planted_score.py "$TRUTH" --ids "$RUN/rensa.rejected" > "$RUN/rensa.score"
field() {  # score-file key
  "$PY" -c 'import json,sys; v = json.load(open(sys.argv[1]))[sys.argv[2]]; print(v if isinstance(v, int) else f"{v:.4f}")' "$1" "$2"
}
mib() {  # the files of the segments meta.json lists (a merge cut short at exit leaves others)
  "$PY" -c 'import json, os, sys
d = sys.argv[1]
live = {s["segment_id"].replace("-", "") for s in json.load(open(os.path.join(d, "meta.json")))["segments"]}
size = sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d) if f.split(".")[0] in live)
print("%.1f" % (size / 2**20))' "$1"
}
INDEX_OURS=$(mib "$RUN/ours.index")
INDEX_PLAIN=$(mib "$RUN/plain.index")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b > 0) printf "%.2f", a / b; else printf "-" }'; }
MB=$(awk -v b="$(stat -c %s "$FILE")" 'BEGIN{printf "%.1f", b / 1e6}')
PLANTED=$(field "$RUN/ours.score" planted)

# ----------------------------------------------------------------- table ----
{
  echo "$DOCS documents ($MB MB, $PLANTED planted near copies) of \`$FILE\`, one run of each command; peak = largest resident set (MiB); index = the files of the index's segments (MiB) after the run."
  echo
  echo "| command | wall s | CPU s | peak MiB | index MiB | open + search s | rejected | recall | precision |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  echo "| ours: \`ingest --policy reject\` | ${WALL[ours]} | ${CPU[ours]} | ${PEAK[ours]} | $INDEX_OURS | ${WALL[ours_open]} | $(field "$RUN/ours.score" rejected) | $(field "$RUN/ours.score" recall) | $(field "$RUN/ours.score" precision) |"
  echo "| plain tantivy \`IndexWriter\` | ${WALL[plain]} | ${CPU[plain]} | ${PEAK[plain]} | $INDEX_PLAIN | - | - | - | - |"
  echo "| rensa \`RMinHashDeduplicator\` (no index) | ${WALL[rensa]} | ${CPU[rensa]} | ${PEAK[rensa]} | - | - | $(field "$RUN/rensa.score" rejected) | $(field "$RUN/rensa.score" recall) | $(field "$RUN/rensa.score" precision) |"
  echo "| **ours / plain** | $(ratio "${WALL[ours]}" "${WALL[plain]}") | $(ratio "${CPU[ours]}" "${CPU[plain]}") | $(ratio "${PEAK[ours]}" "${PEAK[plain]}") | $(ratio "$INDEX_OURS" "$INDEX_PLAIN") | | | | |"
  echo "| **ours / rensa** | $(ratio "${WALL[ours]}" "${WALL[rensa]}") | $(ratio "${CPU[ours]}" "${CPU[rensa]}") | $(ratio "${PEAK[ours]}" "${PEAK[rensa]}") | | | | | |"
  echo
  echo "- a writer opened on ours' finished index (\`ingest --policy reject --index I EMPTY_FILE\`): wall ${WALL[ours_writer]} s, CPU ${CPU[ours_writer]} s, peak ${PEAK[ours_writer]} MiB"
  echo "- peak anonymous memory (heap and stacks, sampled every 0.2 s; the peak column also counts mapped index files): ours ${ANON[ours]} MiB, plain ${ANON[plain]} MiB, rensa ${ANON[rensa]} MiB; ours beyond plain: $(awk -v a="${ANON[ours]}" -v b="${ANON[plain]}" -v n="$DOCS" 'BEGIN { printf "%.0f", (a - b) * 1048576 / n }') bytes a document; the writer opened on the finished index: ${ANON[ours_writer]} MiB"
  echo "- ours rejected $(field "$RUN/ours.score" true_rejected) planted copies, $(field "$RUN/ours.score" pair_right) of them as near-duplicates of their planted original"
  echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores, $(uname -sr)"
  echo "- load average before the runs: $LOAD0 (quiet: $quiet, waited ${waited} s); after: $LOAD1"
  echo "- ours: \`$BIN ingest --commit-every 10000 --policy reject --report R --index I FILE\` ($(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet HEAD -- src 2>/dev/null || echo ', src modified'))"
  echo "- plain: \`$PLAIN I FILE 10000\`"
  echo "- rensa $RENSA_VERSION (python $("$VENV/bin/python" -c 'import platform;print(platform.python_version())')): \`$VENV/bin/python scripts/rensa_dedup.py FILE IDS\`"
  echo "- open + search: \`$BIN search --index I cocoa\`"
  echo "- made by: \`DOCS=$DOCS$([ "$SEED" = 1 ] || echo " SEED=$SEED") scripts/compare-ingest.sh\`"
} > "$OUT"
rm -rf "$RUN/ours.index" "$RUN/plain.index"
say "wrote $OUT (the run's files in $RUN)"
cat "$OUT"
