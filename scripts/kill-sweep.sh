#!/usr/bin/env bash
# The kill harness's full sweep (tests/kill_points.rs): `ingest` killed with SIGKILL before
# each file event in the index folder, first runs and update runs under each policy, then
# run again to the end. Prints a line a run kind: kill points tried, file events, records
# lost in the uninterrupted run. Needs cc (the LD_PRELOAD shim is built by the test).
#
#   bash scripts/kill-sweep.sh            every kill point of every run (about 1.5 h on 2 cores)
#   bash scripts/kill-sweep.sh update 1   every kill point of the update runs
#   bash scripts/kill-sweep.sh first 5    every 5th kill point of the first runs
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-}"
every="${2:-all}"
[ "$every" = 1 ] && every=all
# The binary under test is a copy: a rebuild during the sweep does not change it.
cargo build --locked --quiet --bin tantivy-dedup
bin="$(mktemp -d)/tantivy-dedup"
cp target/debug/tantivy-dedup "$bin"
KILL_BIN="$bin" KILL_RUNS="$runs" KILL_POINTS="$every" \
  cargo test --locked --test kill_points -- --nocapture 2>&1 | grep -E -A4 'kill points|test result|panicked'
