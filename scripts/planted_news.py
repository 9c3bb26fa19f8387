#!/usr/bin/env python3
"""N news-like documents with planted near copies, for measuring an ingest at scale.

Sentences of a news corpus (the bodies of data/reuters.jsonl, Reuters-21578, written by
scripts/fetch-corpora.sh) are recombined into new documents of about 160 words. One
document in ten is a near copy of an earlier original (never of a copy): the original
with 2 to 4 words replaced by words of other sentences, or with a sentence appended.
Every document is a function of the seed and its number, so a copy regenerates its
original instead of keeping it: the output is streamed in constant memory (only the
sentence pool, ~90,000 sentences, is held), about 25 us of CPU a document (1M documents,
1.1 GB, in about half a minute).

Writes two files:
  OUT          JSON lines as `tantivy-dedup ingest` reads them:
               {"id": "news-0000042", "title": "...", "text": "..."}
  TRUTH        the planted pairs, tab-separated with a header line:
               copy <TAB> original <TAB> edit   (edit: "replace:K" or "append")

Two originals share no more than what chance puts in two draws of ~8 sentences from a
pool of ~90,000, so the planted pairs are, as near as can be, the only near-duplicates.
Documents hold 133 to 238 words, 162 on average. A replaced word changes at most two of
the ~160 word 2-shingles, an appended sentence adds about 25: a copy's word 2-shingle
Jaccard with its original (lowercased) is 0.76 to 0.99, median 0.91, below 0.8 for 1.5 %
of the copies (seed 1, 100,000 documents).

Usage: scripts/planted_news.py --docs N [--seed 1] [--source data/reuters.jsonl]
                               [--out data/bench/news-N.jsonl] [--truth OUT.truth.tsv]
Standard library only. The same arguments (and source file) give the same bytes.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

WORDS_PER_DOC = 148  # the stopping point: documents average about 160 words
COPY_EVERY = 10  # one document in COPY_EVERY is a planted copy
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"(])")
MASK = (1 << 64) - 1


def mix(*values: int) -> int:
    """A 64-bit hash of integers (splitmix64 steps): cheap, deterministic across runs."""
    h = 0x9E3779B97F4A7C15
    for v in values:
        h = (h ^ (v & MASK)) * 0xBF58476D1CE4E5B9 & MASK
        h = (h ^ (h >> 27)) * 0x94D049BB133111EB & MASK
        h ^= h >> 31
    return h


def sentences(source: Path) -> list[str]:
    """The prose sentences of the source's bodies, each once, in the order met."""
    seen: dict[str, None] = {}
    with source.open(encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            record = json.loads(line)
            text = record.get("text") or record.get("body") or ""
            for paragraph in text.split("\n\n"):
                paragraph = " ".join(paragraph.split())
                if not paragraph or paragraph.isupper():
                    continue  # the headline, table headers
                for s in SENTENCE_END.split(paragraph):
                    words = s.split()
                    if not 6 <= len(words) <= 45 or s[-1] not in ".!?":
                        continue
                    alpha = sum(w.isalpha() and w.islower() for w in words)
                    if alpha * 2 < len(words):
                        continue  # tables, figures, lists of names
                    seen.setdefault(s, None)
    return list(seen)


def is_copy(seed: int, i: int) -> bool:
    return i > 0 and mix(seed, i, 1) % COPY_EVERY == 0


def original_of(seed: int, i: int) -> int:
    """The earlier original that document i (a copy) copies."""
    j = mix(seed, i, 2) % i
    while is_copy(seed, j):
        j -= 1  # document 0 is an original
    return j


def compose(pool: list[str], seed: int, i: int) -> list[str]:
    """The sentences of original i: drawn until about WORDS_PER_DOC words."""
    rng = random.Random(mix(seed, i, 3))
    target = WORDS_PER_DOC + rng.randint(-15, 15)
    out, words = [], 0
    while words < target:
        s = pool[rng.randrange(len(pool))]
        out.append(s)
        words += s.count(" ") + 1
    return out


def edit(pool: list[str], seed: int, i: int, original: list[str]) -> tuple[str, str]:
    """Copy i's text from its original's sentences, and the edit made."""
    rng = random.Random(mix(seed, i, 4))
    if rng.random() < 0.5:
        return " ".join(original + [pool[rng.randrange(len(pool))]]), "append"
    words = " ".join(original).split(" ")
    k = rng.randint(2, 4)
    for position in rng.sample(range(len(words)), k):
        donor = pool[rng.randrange(len(pool))].split(" ")
        words[position] = donor[rng.randrange(len(donor))]
    return " ".join(words), f"replace:{k}"


def title(first: str) -> str:
    words = first.rstrip(".!?").split(" ")
    return " ".join(words[:8])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, required=True, help="documents to write")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--source", type=Path, default=Path("data/reuters.jsonl"))
    parser.add_argument("--out", type=Path, help="default: data/bench/news-N.jsonl")
    parser.add_argument("--truth", type=Path, help="default: OUT with .truth.tsv")
    args = parser.parse_args()
    if args.docs < 1:
        parser.error("--docs must be at least 1")
    out = args.out or Path(f"data/bench/news-{args.docs}.jsonl")
    truth = args.truth or out.with_suffix(".truth.tsv")
    if not args.source.is_file():
        parser.error(f"{args.source} is missing: run scripts/fetch-corpora.sh")
    pool = sentences(args.source)
    if len(pool) < 1000:
        parser.error(f"{args.source}: only {len(pool)} sentences")
    out.parent.mkdir(parents=True, exist_ok=True)
    truth.parent.mkdir(parents=True, exist_ok=True)
    width = max(7, len(str(args.docs - 1)))
    name = f"news-{{:0{width}d}}".format
    copies = 0
    with open(out, "w", encoding="utf-8") as docs, open(truth, "w", encoding="utf-8") as pairs:
        pairs.write("copy\toriginal\tedit\n")
        for i in range(args.docs):
            if is_copy(args.seed, i):
                j = original_of(args.seed, i)
                parts = compose(pool, args.seed, j)
                text, how = edit(pool, args.seed, i, parts)
                pairs.write(f"{name(i)}\t{name(j)}\t{how}\n")
                copies += 1
            else:
                parts = compose(pool, args.seed, i)
                text = " ".join(parts)
            record = {"id": name(i), "title": title(parts[0]), "text": text}
            docs.write(json.dumps(record, ensure_ascii=False))
            docs.write("\n")
    print(
        f"wrote {out} ({args.docs} documents, {copies} planted copies; "
        f"{len(pool)} sentences from {args.source}) and {truth}",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
