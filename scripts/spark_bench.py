#!/usr/bin/env python3
"""Corpus-scale clusters side by side, in one run on this machine: the Spark job
(`tantivy_dedup.spark`, local mode), the single-machine CLI (`ingest --policy flag`, then
`clusters`), the Python package (`CorpusIndex`: ingest with the flag policy, then
`clusters()`), and datasketch's MinHashLSH (the Python peer: 128 permutations, its threshold
set to ours, clusters as connected components of the pairs it returns).

  python scripts/spark_bench.py --cli target/release/tantivy-dedup [--master local[2]] \\
      [--docs N] [--settings FILE] [--json OUT.jsonl] SET_OR_FILE...

A SET is a folder of `tantivy-dedup eval` (docs.jsonl and labeled pairs.jsonl): quality is
measured on its labeled pairs (a pair is predicted near when both documents fall in one
cluster). A FILE is JSON lines with `id` and `text`; with `--docs N` it is grown to N
documents (one in ten a near copy of an earlier one, the others pages of sentences drawn
from the whole file) for timing at scale.

Reported per input: documents, seconds of each system (wall clock, one run; the Spark row
includes starting its session, the CLI rows their processes), Spark's shuffle bytes per
document (read from its REST API), clusters, whether Spark's and the Python package's
clusters are the CLI's, and precision, recall and F1 on labeled pairs.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path


def load(path: Path):
    """Documents and labeled pairs of a set folder or a JSON lines file."""
    if path.is_dir():
        docs = [json.loads(l) for l in open(path / "docs.jsonl", encoding="utf-8") if l.strip()]
        pairs = [json.loads(l) for l in open(path / "pairs.jsonl", encoding="utf-8") if l.strip()]
        return [{"id": d["id"], "text": d["text"]} for d in docs], pairs
    docs = [json.loads(l) for l in open(path, encoding="utf-8") if l.strip()]
    return [{"id": str(d["id"]), "text": d.get("text") or d.get("body") or ""} for d in docs], []


def grow(docs, n: int, seed: int = 7):
    """`docs` grown to `n` documents: near copies one in ten (a random document with 1 to 3
    words replaced), else pages of 5 to 15 sentences drawn from all the documents' (distinct
    pages that share a sentence at most now and then, as pages of one site do)."""
    rng = random.Random(seed)
    vocabulary = [w for d in docs[:500] for w in d["text"].split()][:20000] or ["word"]
    sentences = [s for d in docs for s in d["text"].split(". ") if len(s.split()) > 3] or ["a b c d"]
    out = list(docs)
    while len(out) < n:
        i = len(out)
        if rng.random() < 0.1:
            words = out[rng.randrange(len(out))]["text"].split()
            for _ in range(rng.randint(1, 3)):
                if words:
                    words[rng.randrange(len(words))] = rng.choice(vocabulary)
            text = " ".join(words)
        else:
            text = ". ".join(rng.choice(sentences) for _ in range(rng.randint(5, 15)))
        out.append({"id": f"grown-{i}", "text": text})
    return out[:n]


def quality(clusters, pairs):
    """Precision, recall and F1 of "in one cluster" on labeled pairs."""
    if not pairs:
        return None
    group = {}
    for n, ids in enumerate(clusters):
        for i in ids:
            group[i] = n
    tp = fp = fn = 0
    for p in pairs:
        predicted = p["a"] in group and group.get(p["a"]) == group.get(p["b"])
        if predicted and p["label"]:
            tp += 1
        elif predicted:
            fp += 1
        elif p["label"]:
            fn += 1
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return round(precision, 3), round(recall, 3), round(f1, 3)


def run_cli(cli: str, docs, workdir: Path, settings=None):
    data = workdir / "docs.jsonl"
    data.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    index = workdir / "cli-index"
    start = time.perf_counter()
    options = ["--settings", str(settings)] if settings else []
    subprocess.run([cli, "ingest", "--index", str(index), "--policy", "flag", *options, str(data)],
                   check=True, capture_output=True)
    ingested = time.perf_counter()
    out = subprocess.run([cli, "clusters", "--index", str(index), "--json"],
                         check=True, capture_output=True, text=True)
    done = time.perf_counter()
    clusters = [c["ids"] for c in json.loads(out.stdout)["clusters"]]
    return clusters, ingested - start, done - ingested, data


def run_python(docs, workdir: Path, settings=None):
    """The Python package's groups: a `CorpusIndex` ingested under the flag policy, then
    `clusters()`."""
    from tantivy_dedup import CorpusIndex, MatchingSettings

    start = time.perf_counter()
    matching = MatchingSettings.read(settings) if settings else None
    index = CorpusIndex.open_or_create(workdir / "python-index", matching)
    index.ingest(docs, policy="flag", report=workdir / "python-report.jsonl")
    clusters = index.clusters()
    return clusters, time.perf_counter() - start


def run_spark(data: Path, master: str, settings=None):
    from tantivy_dedup import MatchingSettings
    from tantivy_dedup.spark import near_duplicate_clusters, session

    os.environ.setdefault("SPARK_SHUFFLE_PARTITIONS", "8")
    start = time.perf_counter()
    spark = session(master, ui=True)
    spark.conf.set("spark.sql.adaptive.enabled", "true")
    # The file holds `id` and `text` only: read in one pass, without inferring the schema.
    df = spark.read.schema("id string, text string").json(str(data))
    matching = MatchingSettings.read(settings) if settings else None
    clusters_df, deduped = near_duplicate_clusters(df, settings=matching)
    rows = clusters_df.select("cluster", "id", "position").collect()
    kept = deduped.count()
    elapsed = time.perf_counter() - start
    shuffle = shuffle_bytes(spark)
    spark.stop()
    groups = {}
    for r in rows:
        groups.setdefault(r["cluster"], []).append((r["position"], r["id"]))
    return [[i for _, i in sorted(v)] for v in groups.values()], elapsed, shuffle, kept


def shuffle_bytes(spark):
    """Shuffle bytes written by every stage of the application (Spark's REST API)."""
    url = spark.sparkContext.uiWebUrl
    if not url:
        return None
    app = spark.sparkContext.applicationId
    with urllib.request.urlopen(f"{url}/api/v1/applications/{app}/stages") as response:
        stages = json.load(response)
    return sum(s.get("shuffleWriteBytes", 0) for s in stages)


def run_datasketch(docs, threshold: float, num_perm: int = 128):
    from datasketch import MinHash, MinHashLSH

    start = time.perf_counter()
    lsh = MinHashLSH(threshold=threshold, num_perm=num_perm)
    sketches = {}
    for d in docs:
        words = d["text"].split()
        shingles = {" ".join(words[i:i + 2]) for i in range(max(1, len(words) - 1))}
        m = MinHash(num_perm=num_perm)
        m.update_batch([s.encode("utf-8") for s in shingles])
        sketches[d["id"]] = m
        lsh.insert(d["id"], m)
    parent = {}

    def find(x):
        while parent.get(x, x) != x:
            parent[x] = parent.get(parent[x], parent[x])
            x = parent[x]
        return x

    for key, m in sketches.items():
        for other in lsh.query(m):
            if other != key:
                a, b = find(key), find(other)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    groups = {}
    for key in sketches:
        groups.setdefault(find(key), []).append(key)
    elapsed = time.perf_counter() - start
    return [g for g in groups.values() if len(g) > 1], elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("inputs", nargs="+", type=Path)
    parser.add_argument("--cli", required=True)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--docs", type=int, default=0)
    parser.add_argument("--no-datasketch", action="store_true")
    parser.add_argument("--json")
    parser.add_argument("--settings", help="a matching settings file (`eval --recommend`'s) "
                        "for all three, instead of the defaults")
    args = parser.parse_args()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from tantivy_dedup import MatchingSettings

    threshold = json.loads(MatchingSettings().to_json())["verification"]["threshold"]
    rows = []
    for path in args.inputs:
        docs, pairs = load(path)
        if args.docs:
            docs = grow(docs, args.docs)
        with tempfile.TemporaryDirectory() as tmp:
            cli_clusters, ingest_s, clusters_s, data = run_cli(args.cli, docs, Path(tmp), args.settings)
            python_clusters, python_s = run_python(docs, Path(tmp), args.settings)
            spark_clusters, spark_s, shuffle, kept = run_spark(data, args.master, args.settings)
        same = sorted(map(tuple, cli_clusters)) == sorted(map(tuple, spark_clusters))
        same_python = sorted(map(tuple, cli_clusters)) == sorted(map(tuple, python_clusters))
        row = {
            "input": path.name + (f" grown to {len(docs)}" if args.docs else ""),
            "settings": args.settings,
            "docs": len(docs),
            "cli_ingest_s": round(ingest_s, 2),
            "cli_clusters_s": round(clusters_s, 2),
            "spark_s": round(spark_s, 2),
            "spark_over_clusters": round(spark_s / clusters_s, 1),
            "spark_over_ingest_and_clusters": round(spark_s / (ingest_s + clusters_s), 2),
            "shuffle_bytes_per_doc": round(shuffle / len(docs)) if shuffle else None,
            "clusters": len(cli_clusters),
            "same_clusters_as_cli": same,
            "python_s": round(python_s, 2),
            "python_same_clusters_as_cli": same_python,
            "quality_ours": quality(cli_clusters, pairs),
        }
        if not args.no_datasketch:
            ds_clusters, ds_s = run_datasketch(docs, threshold)
            row.update(datasketch_s=round(ds_s, 2), datasketch_clusters=len(ds_clusters),
                       quality_datasketch=quality(ds_clusters, pairs))
        rows.append(row)
        print(json.dumps(row), flush=True)
    if args.json:
        with open(args.json, "a", encoding="utf-8") as out:
            for row in rows:
                out.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
