#!/usr/bin/env python3
"""rensa's inline deduplication of a JSON-lines file, as one process, for compare-ingest.sh.

Every record's text (the "text" field, else "body"), lowercased and split on whitespace,
becomes its word 2-shingles; an RMinHash of 128 permutations (seed 42) of them goes to
one RMinHashDeduplicator(threshold=0.8, num_perm=128, use_lsh=True) (rensa's default
bands), in file order: `add` returns False for a near-duplicate of a record added
before, which is then left out, as `tantivy-dedup ingest --policy reject` leaves it out.
Nothing is indexed or stored but the deduplicator's state.

Usage: rensa_dedup.py FILE.jsonl [REJECTED_IDS]
Writes the ids of the records left out, one a line, to REJECTED_IDS (default: none
written) and a one-line JSON summary to standard output. Needs rensa (PyPI).
"""

import json
import sys

from rensa import RMinHash, RMinHashDeduplicator

NUM_PERM = 128
THRESHOLD = 0.8
SEED = 42


def main() -> int:
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    dedup = RMinHashDeduplicator(threshold=THRESHOLD, num_perm=NUM_PERM, use_lsh=True)
    out = open(sys.argv[2], "w", encoding="utf-8") if len(sys.argv) == 3 else None
    records = rejected = 0
    with open(sys.argv[1], encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            record = json.loads(line)
            text = record.get("text") or record.get("body") or ""
            words = text.lower().split()
            minhash = RMinHash(num_perm=NUM_PERM, seed=SEED)
            minhash.update([f"{a} {b}" for a, b in zip(words, words[1:])] or words)
            records += 1
            if not dedup.add(str(record["id"]), minhash):
                rejected += 1
                if out:
                    out.write(f"{record['id']}\n")
    if out:
        out.close()
    print(json.dumps({"tool": "rensa", "records": records, "rejected": rejected}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
