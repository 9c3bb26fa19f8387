#!/usr/bin/env python3
"""Fingerprinting throughput of the Python near-duplicate peers.

Runs each peer over every input file (JSON lines with a "text" field),
single-threaded, best of at least N runs (fast configs repeat until
--min-seconds of runs, at most 20), and prints one JSON object per line:

  {"tool": "python-simhash", "config": "char-4gram", "corpus": "english",
   "docs": N, "bytes": B, "seconds": S, "mb_per_s": X, "docs_per_s": D, ...}

Only the fingerprinting is timed: files are read and decoded before the
clock starts; MB = 10^6 bytes of UTF-8 text. "seconds"/"mb_per_s" are wall
time (the comparison's measure); "cpu_seconds"/"mb_per_s_cpu" are the
process's CPU time, a cross-check when other work shares the machine.

Peers (installed by scripts/compare-throughput.sh into data/venv):
  python-simhash  simhash.Simhash(text): its default features, character
                  4-grams of the lower-cased \\w characters, 64 bits.
  gaoya           SimHash64StringIntIndex.doc2signature(text) (Rust inside),
                  analyzer word or char, several n-gram ranges.
  datasketch      MinHash(num_perm=128), default scheme and SHA-1 hash, over
                  word 3-shingles or character 3-grams (MinHash.generator,
                  which shares the permutations between documents).

Usage: compare_peers.py [--runs 3] [--min-seconds 5] [--max-mb M] [--peers a,b] FILE.jsonl...
"""

from __future__ import annotations

# Single-threaded: keep native thread pools at one thread before imports.
import os

for _var in ("RAYON_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
             "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import gc
import json
import platform
import sys
import time
from importlib import metadata
from pathlib import Path


def load(path: str, max_mb: float | None) -> tuple[list[str], int]:
    texts, total = [], 0
    cap = None if max_mb is None else int(max_mb * 1e6)
    with open(path, encoding="utf-8") as f:
        for line in f:
            text = json.loads(line)["text"]
            texts.append(text)
            total += len(text.encode("utf-8"))
            if cap is not None and total >= cap:
                break
    return texts, total


# ------------------------------------------------------------- peers ----
# Each factory returns fingerprint(texts) -> list of fingerprints.


def python_simhash_char4():
    from simhash import Simhash

    def run(texts):
        return [Simhash(t).value for t in texts]
    return run


def gaoya_factory(analyzer: str, ngram: tuple[int, int]):
    def make():
        from gaoya.gaoya import simhash as gs
        # (num_blocks, hamming_distance) only matter for indexing, not for the
        # signature; doc2signature tokenizes and hashes in Rust, one document
        # per call, on the calling thread.
        index = gs.SimHash64StringIntIndex(6, 5, analyzer, False, ngram)
        sig = index.doc2signature

        def run(texts):
            return [sig(t) for t in texts]
        return run
    return make


def datasketch_factory(kind: str, num_perm: int = 128):
    def make():
        from datasketch import MinHash

        if kind == "word-3shingle":
            def feats(t):
                w = t.split()
                if len(w) < 3:
                    return [" ".join(w).encode("utf-8")]
                return [" ".join(w[i:i + 3]).encode("utf-8") for i in range(len(w) - 2)]
        elif kind == "char-3gram":
            def feats(t):
                if len(t) < 3:
                    return [t.encode("utf-8")]
                return [t[i:i + 3].encode("utf-8") for i in range(len(t) - 2)]
        else:
            raise ValueError(kind)

        def run(texts):
            return [m.digest() for m in MinHash.generator((feats(t) for t in texts),
                                                           num_perm=num_perm)]
        return run
    return make


PEERS = {
    "python-simhash": [("char-4gram", python_simhash_char4)],
    "gaoya": [
        ("simhash/word-1gram", gaoya_factory("word", (1, 1))),
        ("simhash/word-3gram", gaoya_factory("word", (3, 3))),
        ("simhash/char-3gram", gaoya_factory("char", (3, 3))),
        ("simhash/char-4gram", gaoya_factory("char", (4, 4))),
    ],
    "datasketch": [
        ("minhash-128/word-3shingle", datasketch_factory("word-3shingle")),
        ("minhash-128/char-3gram", datasketch_factory("char-3gram")),
    ],
}

PACKAGES = {"python-simhash": "simhash", "gaoya": "gaoya", "datasketch": "datasketch"}


def bench(fn, texts, runs: int, min_seconds: float,
          max_runs: int = 20) -> tuple[float, float, int]:
    """Best wall time over at least `runs` runs; fast configs keep repeating
    until `min_seconds` of runs have accumulated (at most `max_runs`), so that a
    burst of load from other processes does not decide the result. Also returns
    the best CPU time of the process (single-threaded, so it is the fingerprinting
    thread's), which other processes on a busy machine disturb far less."""
    fn(texts[:50])  # warm up imports, caches, lazy init
    best = best_cpu = float("inf")
    done, spent = 0, 0.0
    while done < runs or (spent < min_seconds and done < max_runs):
        gc.collect()
        gc.disable()
        try:
            c0 = time.process_time()
            t0 = time.perf_counter()
            out = fn(texts)
            dt = time.perf_counter() - t0
            dc = time.process_time() - c0
        finally:
            gc.enable()
        assert len(out) == len(texts)
        del out
        best = min(best, dt)
        best_cpu = min(best_cpu, dc)
        done += 1
        spent += dt
    return best, best_cpu, done


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--min-seconds", type=float, default=5.0,
                    help="repeat fast configs until this much run time (max 20 runs)")
    ap.add_argument("--max-mb", type=float, default=None,
                    help="only use the first M MB of text of each file")
    ap.add_argument("--peers", default=",".join(PEERS),
                    help=f"comma-separated subset of {','.join(PEERS)}")
    args = ap.parse_args()

    peers = [p for p in args.peers.split(",") if p]
    for p in peers:
        if p not in PEERS:
            sys.exit(f"unknown peer {p!r}; known: {', '.join(PEERS)}")
    versions = {}
    for p in peers:
        try:
            versions[p] = metadata.version(PACKAGES[p])
        except metadata.PackageNotFoundError:
            sys.exit(f"{PACKAGES[p]} is not installed (run scripts/compare-throughput.sh)")

    for path in args.files:
        corpus = Path(path).name.removesuffix(".jsonl")
        texts, nbytes = load(path, args.max_mb)
        print(f"[peers] {corpus}: {len(texts)} docs, {nbytes / 1e6:.2f} MB", file=sys.stderr,
              flush=True)
        for peer in peers:
            for config, factory in PEERS[peer]:
                fn = factory()
                secs, cpu, done = bench(fn, texts, args.runs, args.min_seconds)
                rec = {
                    "tool": peer,
                    "config": config,
                    "corpus": corpus,
                    "docs": len(texts),
                    "bytes": nbytes,
                    "seconds": round(secs, 4),
                    "mb_per_s": round(nbytes / 1e6 / secs, 3),
                    "docs_per_s": round(len(texts) / secs, 1),
                    "cpu_seconds": round(cpu, 4),
                    "mb_per_s_cpu": round(nbytes / 1e6 / cpu, 3) if cpu > 0 else None,
                    "version": versions[peer],
                    "threads": 1,
                    "runs": done,
                    "python": platform.python_version(),
                }
                print(json.dumps(rec), flush=True)
                print(f"[peers]   {peer:15s} {config:28s} {rec['mb_per_s']:8.3f} MB/s "
                      f"{rec['docs_per_s']:10.1f} docs/s", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
