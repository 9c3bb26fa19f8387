#!/usr/bin/env python3
"""Detection quality of the Python peers on the evaluation sets, beside tantivy-dedup's.

For every set in data/eval/ (format: docs/DATA.md, "Evaluation sets: format"), with the
same pair semantics as `tantivy-dedup eval` (listed pairs by their label; unlisted pairs of
different groups distinct, of one group left out, or near-duplicates under "group"):

  python-simhash  simhash.Simhash(text).value: its default features (character 4-grams of
                  the lowercased \\w characters), 64 bits. Every pair's distance (numpy,
                  all pairs); precision, recall, F1 for k = 0..16; the best k; ROC AUC.
  gaoya           SimHash64StringIntIndex.doc2signature with the word 1-gram, word 3-gram,
                  char 3-gram and char 4-gram analyzers; the same sweep.
  datasketch      MinHash (128 permutations) of word 3-shingles and of character 5-grams,
                  MinHashLSH at thresholds 0.3 to 0.9 (the LSH's predicted pairs: a pair is
                  called a near-duplicate when the index returns it); the best threshold.

Prints one JSON object per set x peer x config (fields: set, tool, config, kind, sweep,
best, roc_auc, seconds) to --out, and a Markdown table to --markdown that puts each peer's
best beside tantivy-dedup's (read from --ours, the `eval` command's output directory), and
a second table with one setting for every set: tantivy-dedup's defaults (the plugin's rule
with its candidate bands, at the default threshold) beside each peer config at the one
setting of highest mean F1 over the sets, the fairest single setting a peer can be given.

Usage: compare_quality.py [--sets data/eval] [--ours data/eval-report]
                          [--out data/quality/peers.jsonl] [--markdown data/quality/quality.md]
                          [--reuse]   (read the peers' rows from --out instead of running them)
       compare_quality.py --self-test
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

POPCOUNT = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)
MAX_K = 16
NONE = 65  # the distance bucket of a pair where a document has no fingerprint


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# -------------------------------------------------------------- sets ----

class EvalSet:
    def __init__(self, directory: Path):
        header = json.loads((directory / "set.json").read_text()) if (directory / "set.json").exists() else {}
        self.name = header.get("name", directory.name)
        self.unlisted = header.get("unlisted", "negative")
        self.ids, self.texts, groups = [], [], []
        with (directory / "docs.jsonl").open(encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    d = json.loads(line)
                    self.ids.append(d["id"])
                    self.texts.append(d.get("text", d.get("body", "")))
                    groups.append(d.get("group"))
        names: dict[str, int] = {}
        self.groups = np.array([names.setdefault(g, len(names)) if g is not None
                                else -(i + 1) for i, g in enumerate(groups)], dtype=np.int64)
        index = {d: i for i, d in enumerate(self.ids)}
        self.listed: dict[tuple[int, int], tuple[bool | None, str | None, float | None]] = {}
        pairs = directory / "pairs.jsonl"
        if pairs.exists():
            with pairs.open(encoding="utf-8") as f:
                for line in f:
                    if line.strip():
                        p = json.loads(line)
                        a, b = index[p["a"]], index[p["b"]]
                        self.listed[(min(a, b), max(a, b))] = (p["label"], p.get("kind"), p.get("rate"))

    def unlisted_label(self, same_group: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Masks (positive, negative) of unlisted pairs from their same-group mask."""
        if self.unlisted == "ignore":
            z = np.zeros_like(same_group)
            return z, z
        if self.unlisted == "group":
            return same_group, ~same_group
        return np.zeros_like(same_group), ~same_group

    def label(self, a: int, b: int) -> bool | None:
        key = (min(a, b), max(a, b))
        if key in self.listed:
            return self.listed[key][0]
        same = self.groups[a] == self.groups[b]
        if self.unlisted == "ignore" or (self.unlisted == "negative" and same):
            return None
        return bool(same) if self.unlisted == "group" else False

    def totals(self) -> tuple[int, int]:
        """(near-duplicate pairs, distinct pairs) counted."""
        n = len(self.ids)
        _, counts = np.unique(self.groups, return_counts=True)
        same = int((counts * (counts - 1) // 2).sum())
        pos, neg = {"ignore": (0, 0), "group": (same, n * (n - 1) // 2 - same),
                    "negative": (0, n * (n - 1) // 2 - same)}[self.unlisted]
        for (a, b), (label, _, _) in self.listed.items():
            old = self.label_unlisted(a, b)
            pos -= old is True
            neg -= old is False
            pos += label is True
            neg += label is False
        return pos, neg

    def label_unlisted(self, a: int, b: int) -> bool | None:
        same = self.groups[a] == self.groups[b]
        if self.unlisted == "ignore" or (self.unlisted == "negative" and same):
            return None
        return bool(same) if self.unlisted == "group" else False


# ---------------------------------------------------------- counting ----

def distance_counts(s: EvalSet, fps: list[int | None]) -> tuple[np.ndarray, np.ndarray]:
    """Counted pairs by distance (0..64, 65 = no fingerprint): (positive, negative)."""
    n = len(fps)
    have = np.array([f is not None for f in fps])
    values = np.array([f if f is not None else 0 for f in fps], dtype=np.uint64)
    pos = np.zeros(NONE + 1, dtype=np.int64)
    neg = np.zeros(NONE + 1, dtype=np.int64)
    block = max(1, 4_000_000 // max(n, 1))
    for start in range(0, n, block):
        rows = np.arange(start, min(n, start + block))
        x = values[rows][:, None] ^ values[None, :]
        d = POPCOUNT[x.view(np.uint8)].reshape(len(rows), n, 8).sum(axis=2).astype(np.int64)
        d[~(have[rows][:, None] & have[None, :])] = NONE
        upper = np.arange(n)[None, :] > rows[:, None]
        same = s.groups[rows][:, None] == s.groups[None, :]
        p_mask, n_mask = s.unlisted_label(same)
        pos += np.bincount(d[upper & p_mask], minlength=NONE + 1)
        neg += np.bincount(d[upper & n_mask], minlength=NONE + 1)
    for (a, b), (label, _, _) in s.listed.items():
        d = NONE if fps[a] is None or fps[b] is None else bin(fps[a] ^ fps[b]).count("1")
        old = s.label_unlisted(a, b)
        if old is True:
            pos[d] -= 1
        elif old is False:
            neg[d] -= 1
        if label is True:
            pos[d] += 1
        elif label is False:
            neg[d] += 1
    return pos, neg


def point(threshold, tp: int, fp: int, positives: int) -> dict:
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / positives if positives else 1.0
    f1 = 2 * precision * recall / (precision + recall) if tp else 0.0
    return {"threshold": threshold, "true_positives": int(tp), "false_positives": int(fp),
            "false_negatives": int(positives - tp), "precision": precision,
            "recall": recall, "f1": f1}


def sweep(pos: np.ndarray, neg: np.ndarray) -> tuple[list[dict], dict, float | None]:
    positives = int(pos.sum())
    points = [point(k, pos[:k + 1].sum(), neg[:k + 1].sum(), positives) for k in range(MAX_K + 1)]
    best = max(points, key=lambda p: (p["f1"], -p["threshold"]))
    p_total, n_total = pos.sum(), neg.sum()
    auc = None
    if p_total and n_total:
        farther = n_total - np.cumsum(neg)  # negatives strictly farther than distance d
        auc = float((pos * (farther + neg / 2)).sum() / (p_total * n_total))
    return points, best, auc


# ------------------------------------------------------------- peers ----

def python_simhash(texts):
    from simhash import Simhash
    return [Simhash(t).value if t.strip() else None for t in texts]


def gaoya(analyzer: str, ngram: tuple[int, int]):
    def run(texts):
        from gaoya.gaoya import simhash as gs
        sig = gs.SimHash64StringIntIndex(6, 5, analyzer, False, ngram).doc2signature
        out = []
        for t in texts:
            try:
                out.append(int(sig(t)) & (2**64 - 1))
            except Exception:
                out.append(None)  # too short for the analyzer: no fingerprint
        return out
    return run


def features(kind: str, text: str) -> list[bytes]:
    if kind == "word-3shingle":
        w = text.lower().split()
        grams = [" ".join(w[i:i + 3]) for i in range(len(w) - 2)] or [" ".join(w)]
    else:
        t = "".join(text.lower().split())
        grams = [t[i:i + 5] for i in range(len(t) - 4)] or [t]
    return [g.encode("utf-8") for g in grams if g]


def datasketch_lsh(s: EvalSet, kind: str, positives: int) -> tuple[list[dict], dict, float]:
    from datasketch import MinHash, MinHashLSH
    started = time.perf_counter()
    feats = [features(kind, t) for t in s.texts]
    hashes = list(MinHash.generator((f or [b""] for f in feats), num_perm=128))
    points = []
    for threshold in [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]:
        lsh = MinHashLSH(threshold=threshold, num_perm=128)
        for i, m in enumerate(hashes):
            if feats[i]:
                lsh.insert(i, m)
        predicted = set()
        for i, m in enumerate(hashes):
            if feats[i]:
                for j in lsh.query(m):
                    if j != i:
                        predicted.add((min(i, j), max(i, j)))
        tp = fp = 0
        for a, b in predicted:
            label = s.label(a, b)
            tp += label is True
            fp += label is False
        points.append(point(threshold, tp, fp, positives))
    best = max(points, key=lambda p: (p["f1"], p["threshold"]))
    return points, best, time.perf_counter() - started


def run_set(s: EvalSet) -> list[dict]:
    positives, negatives = s.totals()
    log(f"{s.name}: {len(s.ids)} documents, {positives} near-duplicate and {negatives} "
        "distinct pairs")
    rows = []
    simhashes = [("python-simhash", "char-4gram (default)", python_simhash)] + [
        ("gaoya", f"simhash/{a}-{n[0]}gram", gaoya(a, n))
        for a, n in (("word", (1, 1)), ("word", (3, 3)), ("char", (3, 3)), ("char", (4, 4)))]
    for tool, config, fingerprint in simhashes:
        started = time.perf_counter()
        fps = fingerprint(s.texts)
        seconds = time.perf_counter() - started
        pos, neg = distance_counts(s, fps)
        assert pos.sum() == positives and neg.sum() == negatives, (pos.sum(), neg.sum())
        points, best, auc = sweep(pos, neg)
        rows.append({"set": s.name, "tool": tool, "config": config, "kind": "simhash",
                     "sweep": points, "best": best, "roc_auc": auc, "seconds": seconds})
        log(f"  {tool} {config}: best k {best['threshold']} F1 {best['f1']:.3f} ({seconds:.1f} s)")
    for kind in ("word-3shingle", "char-5gram"):
        points, best, seconds = datasketch_lsh(s, kind, positives)
        rows.append({"set": s.name, "tool": "datasketch", "config": f"minhash-lsh-128/{kind}",
                     "kind": "minhash-lsh", "sweep": points, "best": best, "roc_auc": None,
                     "seconds": seconds})
        log(f"  datasketch {kind}: best threshold {best['threshold']} F1 {best['f1']:.3f} "
            f"({seconds:.1f} s)")
    return rows


# ------------------------------------------------------------ report ----

def markdown(rows: list[dict], ours_dir: Path) -> str:
    out = ["| set | tool | config | setting | precision | recall | F1 |",
           "|---|---|---|---|---:|---:|---:|"]
    for name in dict.fromkeys(r["set"] for r in rows):
        ours = ours_dir / f"{name}.json"
        if ours.exists():
            report = json.loads(ours.read_text())
            best = report["configs"][report["best_config"]]
            b = best["best"]
            out.append(f"| {name} | **tantivy-dedup** | {best['name']} | k = {b['k']} | "
                       f"{b['precision']:.4f} | {b['recall']:.4f} | {b['f1']:.4f} |")
            if report["verify"]:
                v = max(report["verify"], key=lambda v: v["best"]["f1"])
                vb = v["best"]
                out.append(f"| {name} | **tantivy-dedup two-stage** | {v['config']} + {v['method']} | "
                           f"k = {v['loose_k']}, score >= {vb['threshold']:.3f} | "
                           f"{vb['precision']:.4f} | {vb['recall']:.4f} | {vb['f1']:.4f} |")
        for r in rows:
            if r["set"] != name:
                continue
            b = r["best"]
            setting = (f"k = {b['threshold']}" if r["kind"] == "simhash"
                       else f"threshold {b['threshold']}")
            out.append(f"| {name} | {r['tool']} | {r['config']} | {setting} | "
                       f"{b['precision']:.4f} | {b['recall']:.4f} | {b['f1']:.4f} |")
    return "\n".join(out) + "\n" + one_setting(rows, ours_dir)


DEFAULT_CONFIG = "chargrams-3/tf"


def one_setting(rows: list[dict], ours_dir: Path) -> str:
    """Every tool at one setting for all sets: ours at its defaults, each peer config at
    the setting of highest mean F1 over the sets (its sweep's points)."""
    sets = list(dict.fromkeys(r["set"] for r in rows))
    head = "| tool | config | setting | " + " | ".join(f"F1 {s}" for s in sets) + " |"
    out = ["", "One setting for every set:", "", head,
           "|---|---|---|" + "---:|" * len(sets)]
    ours = []
    for name in sets:
        path = ours_dir / f"{name}.json"
        if not path.exists():
            break
        rows_v = [v for v in json.loads(path.read_text())["verify"]
                  if v["method"] == "plugin-bands" and v["config"] == DEFAULT_CONFIG
                  and v["loose_k"] == 16]
        if not rows_v:
            break
        ours.append(rows_v[0]["at_default"])
    if len(ours) == len(sets):
        out.append(f"| **tantivy-dedup** | {DEFAULT_CONFIG} + verification (defaults) | "
                   f"k = 3, or bands + Jaccard >= {ours[0]['threshold']:.2f} | "
                   + " | ".join(f"{p['f1']:.4f}" for p in ours) + " |")
    configs = dict.fromkeys((r["tool"], r["config"], r["kind"]) for r in rows)
    for tool, config, kind in configs:
        by_setting: dict = {}
        for r in rows:
            if (r["tool"], r["config"]) == (tool, config):
                for p in r["sweep"]:
                    by_setting.setdefault(p["threshold"], {})[r["set"]] = p["f1"]
        complete = {t: v for t, v in by_setting.items() if all(s in v for s in sets)}
        if not complete:
            continue
        t, f1s = max(complete.items(), key=lambda tv: sum(tv[1].values()))
        setting = f"k = {t}" if kind == "simhash" else f"threshold {t}"
        out.append(f"| {tool} | {config} | {setting} | "
                   + " | ".join(f"{f1s[s]:.4f}" for s in sets) + " |")
    return "\n".join(out) + "\n"


# --------------------------------------------------------- self-test ----

def self_test() -> None:
    """distance_counts against a pair-by-pair count on a random set with every rule."""
    import random
    import tempfile
    rng = random.Random(1)
    for rule in ("negative", "group", "ignore"):
        with tempfile.TemporaryDirectory() as tmp:
            d = Path(tmp)
            docs = [{"id": f"d{i}", "text": "x", **({"group": f"g{i % 4}"} if i % 3 else {})}
                    for i in range(23)]
            (d / "docs.jsonl").write_text("".join(json.dumps(x) + "\n" for x in docs))
            pairs = [{"a": "d0", "b": "d1", "label": True}, {"a": "d2", "b": "d9", "label": False},
                     {"a": "d4", "b": "d8", "label": None}, {"a": "d5", "b": "d13", "label": True}]
            (d / "pairs.jsonl").write_text("".join(json.dumps(x) + "\n" for x in pairs))
            (d / "set.json").write_text(json.dumps({"name": "t", "unlisted": rule}))
            s = EvalSet(d)
            fps = [None if i == 7 else rng.getrandbits(64) >> rng.randrange(40) for i in range(23)]
            pos, neg = distance_counts(s, fps)
            ref_p, ref_n = np.zeros(NONE + 1, int), np.zeros(NONE + 1, int)
            for a in range(23):
                for b in range(a + 1, 23):
                    label = s.label(a, b)
                    dist = NONE if fps[a] is None or fps[b] is None else bin(fps[a] ^ fps[b]).count("1")
                    if label is True:
                        ref_p[dist] += 1
                    elif label is False:
                        ref_n[dist] += 1
            assert (pos == ref_p).all() and (neg == ref_n).all(), rule
            assert s.totals() == (int(ref_p.sum()), int(ref_n.sum())), rule
    log("self-test passed")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", default="data/eval")
    parser.add_argument("--ours", default="data/eval-report")
    parser.add_argument("--out", default="data/quality/peers.jsonl")
    parser.add_argument("--markdown", default="data/quality/quality.md")
    parser.add_argument("--only", default="", help="comma-separated set names")
    parser.add_argument("--self-test", action="store_true")
    parser.add_argument("--reuse", action="store_true",
                        help="read the peers' rows from --out instead of running them")
    args = parser.parse_args()
    if args.self_test:
        self_test()
        return
    only = set(filter(None, args.only.split(",")))
    if args.reuse:
        rows = [json.loads(line) for line in open(args.out)]
        rows = [r for r in rows if not only or r["set"] in only]
    else:
        rows = []
        for directory in sorted(Path(args.sets).iterdir()):
            if (directory / "docs.jsonl").exists() and (not only or directory.name in only):
                rows += run_set(EvalSet(directory))
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        with open(args.out, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
    text = markdown(rows, Path(args.ours))
    Path(args.markdown).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
