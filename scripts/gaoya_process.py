#!/usr/bin/env python3
"""gaoya's word SimHash over a JSON-lines file, as one whole process.

Reads FILE.jsonl with the json module, collects the "text" field of every
record and fingerprints them all with one call to gaoya's native
SimHash64StringIntIndex.par_bulk_doc2signatures (64 bits, analyzer "word",
lowercase False, ngram_range (1, 1): the defaults of gaoya.simhash.SimHashStringIndex).
par_bulk_doc2signatures runs on rayon's global pool: one thread per core unless
RAYON_NUM_THREADS says otherwise. Nothing big is written: one summary line on
stderr (texts, signatures, XOR of the signatures); exit 1 if the counts differ.

Timed as a whole process (interpreter start, imports, JSON parsing included)
by scripts/compare-process.sh.

Usage: gaoya_process.py FILE.jsonl
"""

import json
import sys

from gaoya.gaoya import simhash as gs


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    texts = []
    with open(sys.argv[1], encoding="utf-8") as f:
        for line in f:
            if line.strip():
                texts.append(json.loads(line)["text"])
    # (num_blocks, max_distance) only matter for indexing, not for signatures.
    index = gs.SimHash64StringIntIndex(6, 5, "word", False, (1, 1))
    sigs = index.par_bulk_doc2signatures(texts)
    xor = 0
    for s in sigs:
        xor ^= s
    print(f"gaoya: {len(texts)} texts, {len(sigs)} signatures, xor {xor:016x}",
          file=sys.stderr)
    return 0 if len(sigs) == len(texts) else 1


if __name__ == "__main__":
    sys.exit(main())
