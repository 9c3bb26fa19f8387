#!/usr/bin/env bash
# The review pages in a real browser: Chromium from Debian driven by Playwright (PyPI),
# headless, offline. Installs what is missing (idempotent: a second run installs nothing),
# builds the tool, runs tests/browser, and leaves the README's screenshot in
# docs/img/review.png.
#
#   bash scripts/browser-tests.sh [PYTEST ARGS...]
#
# PYVENV names the Python environment (default target/pyvenv, the one .ci/run makes);
# CHROMIUM the browser (default /usr/bin/chromium). Playwright's own browser downloads are
# never used.
set -euo pipefail
cd "$(dirname "$0")/.."

CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$CHROMIUM" ]; then
  apt-get install -y -q chromium >/dev/null
fi
# A font with Han characters, for the screenshot's Chinese text.
if command -v fc-list >/dev/null 2>&1 && [ -z "$(fc-list :lang=zh 2>/dev/null)" ]; then
  apt-get install -y -q fonts-wqy-zenhei >/dev/null
fi
PYVENV="${PYVENV:-target/pyvenv}"
if [ ! -x "$PYVENV/bin/python" ]; then
  if ! python3 -c "import venv, ensurepip" >/dev/null 2>&1; then
    apt-get install -y -q python3-venv >/dev/null
  fi
  python3 -m venv "$PYVENV"
fi
if ! "$PYVENV/bin/python" -c "import playwright, pytest" >/dev/null 2>&1; then
  "$PYVENV/bin/pip" install -q playwright pytest
fi

cargo build --locked --quiet --bin tantivy-dedup
TARGET="${CARGO_TARGET_DIR:-target}"
export TANTIVY_DEDUP_BIN="$(cd "$TARGET" && pwd)/debug/tantivy-dedup"
export CHROMIUM
export BROWSER_TESTS_OUT="$TARGET/browser"
export REVIEW_SCREENSHOT="docs/img/review.png"
"$PYVENV/bin/python" -m pytest -q tests/browser "$@"
echo "render of a page of 1,000 decisions (ms, three loads): $(cat "$BROWSER_TESTS_OUT/render-ms.txt")"
