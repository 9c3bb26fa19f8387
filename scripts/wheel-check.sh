#!/usr/bin/env bash
# The Python package as users get it: a release wheel built by maturin, installed with pip
# into a fresh virtual environment (a binary wheel: nothing is compiled at install time),
# then the Python tests and doctests run against that installation from outside the source
# tree, so that python/tantivy_dedup cannot shadow the installed package.
#
#   bash scripts/wheel-check.sh [PYTEST ARGS...]
#
# PYVENV names the environment maturin runs from (default target/pyvenv, the one .ci/run
# makes). The Rust build reuses target/python (the Python crate's own cargo target dir), the
# wheel goes to target/wheels, and the test environment target/wheel-venv is made anew on
# every run. The Spark tests need Java 17 or later (.ci/run installs it); tests that run the
# command-line tool use target/debug/tantivy-dedup, or one on PATH, and are skipped without.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$(pwd)"

PYVENV="${PYVENV:-target/pyvenv}"
if [ ! -x "$PYVENV/bin/python" ]; then
  if ! python3 -c "import venv, ensurepip" >/dev/null 2>&1; then
    apt-get install -y -q python3-venv >/dev/null
  fi
  python3 -m venv "$PYVENV"
fi
if ! "$PYVENV/bin/python" -c "import maturin" >/dev/null 2>&1; then
  "$PYVENV/bin/pip" install -q "maturin>=1.5,<2"
fi

echo "== maturin build --release (python/)"
WHEELS="$ROOT/target/wheels"
rm -f "$WHEELS"/tantivy_dedup-*.whl
CARGO_TARGET_DIR="$ROOT/target/python" "$PYVENV/bin/maturin" build --release --locked \
  --manifest-path python/Cargo.toml --interpreter "$PYVENV/bin/python" --out "$WHEELS"
wheels=("$WHEELS"/tantivy_dedup-*.whl)
if [ "${#wheels[@]}" -ne 1 ] || [ ! -f "${wheels[0]}" ]; then
  echo "expected one wheel in $WHEELS, found: ${wheels[*]}" >&2
  exit 1
fi
WHEEL="${wheels[0]}"
echo "built $(basename "$WHEEL") ($(du -h "$WHEEL" | cut -f1))"

# What the wheel must hold: the package, its type stubs and marker, and the extension.
"$PYVENV/bin/python" - "$WHEEL" <<'EOF'
import sys, zipfile

names = zipfile.ZipFile(sys.argv[1]).namelist()
required = ["tantivy_dedup/__init__.py", "tantivy_dedup/__init__.pyi", "tantivy_dedup/py.typed",
            "tantivy_dedup/spark.py"]
missing = [name for name in required if name not in names]
if not any(name.startswith("tantivy_dedup/_native.") and name.endswith(".so") for name in names):
    missing.append("tantivy_dedup/_native.*.so")
if missing:
    sys.exit(f"the wheel lacks {', '.join(missing)}; it holds {names}")
print("wheel holds:", ", ".join(sorted(name for name in names if not name.endswith("/RECORD"))))
EOF

echo "== a fresh environment: pip install the wheel"
TESTVENV="$ROOT/target/wheel-venv"
rm -rf "$TESTVENV"
"$PYVENV/bin/python" -m venv "$TESTVENV"
# Binary packages only: the wheel and its dependencies (numpy) install without compiling.
"$TESTVENV/bin/pip" install -q --only-binary :all: "$WHEEL"
# The tests' own needs. The Spark job's tests: PySpark in local mode (pandas below 3, which
# PySpark 4 supports) on Java 17 or later.
"$TESTVENV/bin/pip" install -q pytest "pyspark>=4,<5" pyarrow "pandas>=2,<3"

# Run from an empty folder: neither the working directory nor pytest's paths hold
# python/tantivy_dedup, so the tests import the installed package.
RUNDIR="$(mktemp -d)"
trap 'rm -rf "$RUNDIR"' EXIT
cd "$RUNDIR"
"$TESTVENV/bin/python" - "$TESTVENV" <<'EOF'
import os, sys
import tantivy_dedup

venv = os.path.realpath(sys.argv[1])
package = os.path.dirname(os.path.realpath(tantivy_dedup.__file__))
if not package.startswith(venv + os.sep):
    sys.exit(f"tantivy_dedup was imported from {package}, not from the wheel installed in {venv}")
print("tantivy_dedup imported from", package)
EOF

echo "== the type stubs against the installed module (mypy's stubtest)"
# pyarrow has no type information and the extension no stub of its own: both are skipped.
printf '[mypy]\nignore_missing_imports = True\n' >mypy.ini
"$TESTVENV/bin/pip" install -q "mypy>=2,<3"
"$TESTVENV/bin/python" -m mypy.stubtest --mypy-config-file mypy.ini tantivy_dedup

echo "== pytest python/tests and the doctests, against the installed wheel"
"$TESTVENV/bin/python" -m pytest -q -p no:cacheprovider "$ROOT/python/tests" "$@"
"$TESTVENV/bin/python" -m pytest -q -p no:cacheprovider --doctest-modules --pyargs tantivy_dedup
