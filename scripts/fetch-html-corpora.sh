#!/usr/bin/env bash
# Fetch real HTML pages with known content from Debian, for the HTML extraction
# measurements (examples/html_extraction.rs). Everything goes to data/ (gitignored;
# never commit it).
#
#   scripts/fetch-html-corpora.sh       # fetch what is missing (idempotent)
#
# Sources (see docs/DATA.md, "HTML pages", for versions and licenses):
#   Debian: python3.11-doc   -> data/cache/deb/python3.11-doc/root/usr/share/doc/python3.11/html
#           every page beside its reStructuredText source (_sources/*.rst.txt)
#   Debian: debian-handbook  -> data/cache/deb/debian-handbook/root/usr/share/doc/debian-handbook/html
#           127 pages in each of 26 languages (partly untranslated)
#
# Environment: DATA_DIR (default data).
set -euo pipefail

cd "$(dirname "$0")/.."
DATA=${DATA_DIR:-data}
CACHE="$DATA/cache"
DEB_PKGS=(python3.11-doc debian-handbook)

say() { printf '\n==> %s\n' "$*"; }
run() { printf '  $ %s\n' "$*"; "$@"; }
die() { printf 'fetch-html-corpora: error: %s\n' "$*" >&2; exit 1; }

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

say "checking tools"
command -v apt-get >/dev/null || die "apt-get not found: the pages come from Debian packages"
command -v dpkg-deb >/dev/null || die "dpkg-deb not found"
mkdir -p "$CACHE/deb" "$CACHE/licenses"

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

PY_HTML="$CACHE/deb/python3.11-doc/root/usr/share/doc/python3.11/html"
HB_HTML="$CACHE/deb/debian-handbook/root/usr/share/doc/debian-handbook/html"
[ -d "$PY_HTML/_sources" ] || die "unexpected layout in python3.11-doc (no $PY_HTML/_sources)"
[ -d "$HB_HTML/en-US" ] || die "unexpected layout in debian-handbook (no $HB_HTML/en-US)"

say "pages"
printf '  python3.11-doc %s: %s HTML pages, %s .rst.txt sources\n' \
  "$(cat "$CACHE/deb/python3.11-doc/.version")" \
  "$(find "$PY_HTML" -name '*.html' -not -path '*/_*' | wc -l)" \
  "$(find "$PY_HTML/_sources" -name '*.rst.txt' | wc -l)"
printf '  debian-handbook %s: %s HTML pages in %s languages\n' \
  "$(cat "$CACHE/deb/debian-handbook/.version")" \
  "$(find "$HB_HTML" -name '*.html' | wc -l)" \
  "$(find "$HB_HTML" -mindepth 1 -maxdepth 1 -type d | wc -l)"
echo "  run: cargo run --release --features html-compare --example html_extraction"
