"""The fingerprint keys of the Spark job (Manku et al.'s tables), without Spark: every
pair within k bits shares a key, at every corpus size, and keys grow with the corpus."""

import random

from tantivy_dedup.spark import _tables


def keys(fingerprint, tables):
    out = []
    for blocks in tables:
        key, at = 0, 0
        for shift, width in blocks:
            key |= ((fingerprint >> shift) & ((1 << width) - 1)) << at
            at += width
        out.append(key)
    return out


def test_pairs_within_k_share_a_key():
    rng = random.Random(3)
    for k in [0, 1, 3, 6, 12]:
        for documents in [10, 10**5, 10**9]:
            tables = _tables(k, documents)
            for _ in range(300):
                a = rng.getrandbits(64)
                b = a
                for bit in rng.sample(range(64), rng.randint(0, k)):
                    b ^= 1 << bit
                assert any(x == y for x, y in zip(keys(a, tables), keys(b, tables))), (k, documents)


def test_keys_lengthen_with_the_corpus():
    def key_bits(documents):
        return min(sum(width for _, width in blocks) for blocks in _tables(3, documents))

    assert key_bits(100) == 16  # k + 1 blocks: the pigeonhole
    assert key_bits(10**6) >= 28 and key_bits(10**9) >= 38
    assert len(_tables(3, 10**9)) <= 64
