#!/usr/bin/env python3
"""Combine throughput JSON lines (ours + Python peers) into a Markdown report.

Input: JSON lines as printed by `cargo run --release --example throughput`
("tool": "tantivy-dedup") and by scripts/compare_peers.py, with at least
tool, config, corpus, docs, bytes, seconds, mb_per_s.

Output (stdout): per corpus, every measured row sorted by MB/s, then the
ratios of each tantivy-dedup fingerprinting config's MB/s to each peer
config's, and (where a "jieba-cut-only" row exists) to the segmentation
baseline.

Usage: throughput_table.py [--title T] [--meta KEY=VALUE ...] FILE.jsonl...
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict

OURS = "tantivy-dedup"
BASELINE = "jieba-cut-only"
CORPUS_ORDER = ["english", "chinese"]

NOTES = """"MB/s by CPU time" divides by the process's CPU time instead of wall time, where a tool
reports it: on a machine shared with other work it shows how much of the wall time was
waiting for a core. Ratios use wall time.

Notes on the peers' configs:

- python-simhash `char-4gram`: `simhash.Simhash(text)` with its defaults (lower-cased,
  only `\\w` characters kept, sliding character 4-grams, MD5 per feature, 64 bits).
- gaoya `simhash/word-*`: its built-in word analyzer splits only on ASCII whitespace and
  ASCII punctuation, so on Chinese a "word" is everything up to the next ASCII space or
  punctuation mark (often a whole sentence or line): fast, but not a usable feature set
  for Chinese. `simhash/char-*` are its character n-gram analyzer. Called through
  `doc2signature`, one document at a time, no lower-casing.
- datasketch: `MinHash(num_perm=128)` (default affine32 scheme, SHA-1 per feature),
  built with `MinHash.generator`, which shares the permutations; `word-3shingle` is over
  whitespace-split words, so on Chinese it also sees clauses, not words.
"""


def load(paths):
    rows = []
    for p in paths:
        with open(p, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                line = line.strip()
                if not line.startswith("{"):
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:
                    print(f"warning: {p}:{n}: not JSON, skipped", file=sys.stderr)
                    continue
                if not {"tool", "config", "corpus", "mb_per_s"} <= rec.keys():
                    print(f"warning: {p}:{n}: missing fields, skipped", file=sys.stderr)
                    continue
                rows.append(rec)
    return rows


def fmt(x, digits=2):
    if x is None:
        return "–"
    if isinstance(x, float):
        if x >= 100:
            return f"{x:,.0f}"
        if x >= 10:
            return f"{x:.1f}"
        return f"{x:.{digits}f}"
    return f"{x:,}" if isinstance(x, int) else str(x)


def ratio(a, b):
    if not a or not b:
        return "–"
    r = a / b
    return f"{r:.0f}×" if r >= 100 else (f"{r:.1f}×" if r >= 1 else f"{r:.2f}×")


def table(rows):
    out = []
    by_corpus = defaultdict(list)
    for r in rows:
        by_corpus[r["corpus"]].append(r)
    corpora = [c for c in CORPUS_ORDER if c in by_corpus] + \
              sorted(c for c in by_corpus if c not in CORPUS_ORDER)
    for corpus in corpora:
        rs = by_corpus[corpus]
        docs = max((r.get("docs") or 0) for r in rs)
        mb = max((r.get("bytes") or 0) for r in rs) / 1e6
        out.append(f"### {corpus} ({docs:,} docs, {mb:.1f} MB of UTF-8 text)\n")
        out.append("| tool | config | MB/s | docs/s | seconds (best) | MB/s by CPU time |")
        out.append("|---|---|---:|---:|---:|---:|")
        for r in sorted(rs, key=lambda r: -r["mb_per_s"]):
            docs_s = r.get("docs_per_s")
            if docs_s is None and r.get("seconds"):
                docs_s = r.get("docs", 0) / r["seconds"]
            tool = f"**{r['tool']}**" if r["tool"] == OURS else r["tool"]
            out.append(f"| {tool} | {r['config']} | {fmt(float(r['mb_per_s']))} | "
                       f"{fmt(float(docs_s)) if docs_s else '–'} | "
                       f"{fmt(float(r['seconds']), 3) if r.get('seconds') is not None else '–'} | "
                       f"{fmt(float(r['mb_per_s_cpu'])) if r.get('mb_per_s_cpu') else '–'} |")
        out.append("")

        ours = [r for r in rs if r["tool"] == OURS and r["config"] != BASELINE]
        base = next((r for r in rs if r["tool"] == OURS and r["config"] == BASELINE), None)
        peers = defaultdict(list)
        for r in rs:
            if r["tool"] != OURS:
                peers[r["tool"]].append(r)
        best = {t: max(v, key=lambda r: r["mb_per_s"]) for t, v in peers.items()}
        if not ours:
            out.append("_No tantivy-dedup rows for this corpus: ratios omitted._\n")
            continue
        # One column per peer config, each peer's fastest config first.
        cols = []
        for t in sorted(peers):
            cols += sorted(peers[t], key=lambda r: -r["mb_per_s"])
        head = ["tantivy-dedup config", "MB/s"]
        head += [f"÷ {r['tool']} {r['config']}" + (" (best)" if r is best[r["tool"]] and
                                                    len(peers[r["tool"]]) > 1 else "")
                 for r in cols]
        if base:
            head.append(f"÷ {BASELINE}")
        out.append("Ratios: our MB/s divided by each peer config's MB/s "
                   "(> 1× means tantivy-dedup is faster)"
                   + (f"; the last column divides by jieba segmentation alone "
                      f"({fmt(float(base['mb_per_s']))} MB/s): the share of the cutting speed "
                      f"that survives fingerprinting."
                      if base else "."))
        out.append("")
        out.append("| " + " | ".join(head) + " |")
        out.append("|---|" + "---:|" * (len(head) - 1))
        for r in sorted(ours, key=lambda r: -r["mb_per_s"]):
            cells = [r["config"], fmt(float(r["mb_per_s"]))]
            cells += [ratio(r["mb_per_s"], c["mb_per_s"]) for c in cols]
            if base:
                cells.append(ratio(r["mb_per_s"], base["mb_per_s"]))
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--title", default="Fingerprinting throughput: tantivy-dedup vs Python peers")
    ap.add_argument("--meta", action="append", default=[], metavar="KEY=VALUE")
    args = ap.parse_args()
    rows = load(args.files)
    print(f"## {args.title}\n")
    for m in args.meta:
        k, _, v = m.partition("=")
        print(f"- {k}: {v}")
    if args.meta:
        print()
    if not rows:
        print("_No measurements._")
        return
    print(table(rows))
    print(NOTES)


if __name__ == "__main__":
    main()
