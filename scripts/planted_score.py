#!/usr/bin/env python3
"""Recall and precision of a deduplication against the planted copies of planted_news.py.

Usage: planted_score.py TRUTH.tsv --report REPORT.jsonl   (tantivy-dedup ingest --report)
       planted_score.py TRUTH.tsv --ids REJECTED.txt      (one rejected id a line)

A record is rejected when the last report line of its id says "status": "duplicate"
(with --ids: when it is listed). recall = rejected planted copies / planted copies;
precision = rejected planted copies / rejected records. With --report, "pair_right"
also counts the rejected copies whose "duplicate_of" is their planted original.
Prints one JSON line. Standard library only.
"""

import argparse
import json
import sys


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("truth")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--report")
    source.add_argument("--ids")
    args = parser.parse_args()
    truth = {}
    with open(args.truth, encoding="utf-8") as f:
        next(f)  # header
        for line in f:
            copy, original, _ = line.rstrip("\n").split("\t")
            truth[copy] = original
    rejected: dict[str, str | None] = {}
    if args.report:
        last = {}
        with open(args.report, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    record = json.loads(line)
                    last[record["id"]] = record
        for id_, record in last.items():
            if record.get("status") == "duplicate":
                rejected[id_] = record.get("duplicate_of")
    else:
        with open(args.ids, encoding="utf-8") as f:
            rejected = {line.strip(): None for line in f if line.strip()}
    hits = [id_ for id_ in rejected if id_ in truth]
    result = {
        "planted": len(truth),
        "rejected": len(rejected),
        "true_rejected": len(hits),
        "recall": len(hits) / len(truth) if truth else None,
        "precision": len(hits) / len(rejected) if rejected else None,
    }
    if args.report:
        result["pair_right"] = sum(rejected[id_] == truth[id_] for id_ in hits)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
