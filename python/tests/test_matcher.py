"""The Python package against the command-line tool and the Rust rule: the same
fingerprints as `tantivy-dedup fingerprint`, signatures whose equal positions estimate
the Jaccard similarity, verdicts as the index's, errors as DedupError."""

import functools
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from tantivy_dedup import CandidateValues, DedupError, FingerprintIndex, MatchingSettings, TextMatcher, hamming

from conftest import SAMPLES


def sample_texts():
    with open(SAMPLES, encoding="utf-8") as f:
        return [json.loads(line)["text"] for line in f if line.strip()]


def test_fingerprints_are_the_command_lines(tool):
    out = subprocess.run([tool, "fingerprint", str(SAMPLES)], capture_output=True, check=True, text=True)
    expected = [json.loads(line)["fingerprint"] for line in out.stdout.splitlines()]
    fps = TextMatcher().fingerprints(sample_texts())
    got = [format(int(v), "016x") if ok else None for v, ok in zip(fps.values, fps.valid)]
    assert got == expected


def test_texts_without_features_have_no_fingerprint():
    fps = TextMatcher().fingerprints(["some words here", "", "   ", "!!!"])
    assert fps.values.dtype == np.uint64
    assert fps.valid.tolist() == [True, False, False, False]
    assert fps.values[1:].tolist() == [0, 0, 0]


def test_signatures_estimate_jaccard_and_agree_with_fingerprints():
    texts = sample_texts()
    matcher = TextMatcher()
    sig = matcher.signatures(texts)
    assert sig.signatures.shape == (len(texts), matcher.signature_len)
    assert sig.signatures.dtype == np.uint32
    assert np.array_equal(sig.fingerprints, matcher.fingerprints(texts).values)
    a = "the river rose during the night and the farmers moved their animals to the hill " * 3
    b = a.replace("farmers", "villagers")
    one = matcher.signatures([a, a, b, "completely unrelated words about storage engines and databases"])
    same = np.mean(one.signatures[0] == one.signatures[1])
    close = np.mean(one.signatures[0] == one.signatures[2])
    far = np.mean(one.signatures[0] == one.signatures[3])
    assert same == 1.0
    assert close > 0.5 > far


def test_signatures_alone_are_those_beside_the_fingerprints():
    texts = sample_texts() + ["", "!!!", "the and of", "網頁的指紋與近似重複", "Café “quoted” words"]
    matcher = TextMatcher()
    both = matcher.signatures(texts)
    alone = matcher.signatures(texts, fingerprints=False)
    assert alone.fingerprints is None
    assert alone.signatures.shape == both.signatures.shape
    assert np.array_equal(alone.signatures[both.valid], both.signatures[both.valid])
    assert np.all(alone.valid[both.valid])
    assert alone.valid[len(texts) - 5 : len(texts) - 3].tolist() == [False, False]
    assert not alone.signatures[~alone.valid].any()


def test_the_verdict_says_why():
    matcher = TextMatcher()
    page = "The quick brown fox jumps over the lazy dog near the river bank today."
    same = matcher.judge(page, page)
    # The signatures decide, within k too.
    assert same["near"] and same["reason"] == "verified" and same["score"] == 1.0
    assert matcher.signatures_decide
    other = matcher.judge(page, "Completely different words about databases and storage engines.")
    assert not other["near"]
    assert other["reason"] in {"beyond-reach", "no-shared-band", "below-threshold"}
    assert matcher.judge("", page)["reason"] == "no-fingerprint"


def test_settings_files_round_trip_and_bad_ones_raise(tmp_path):
    settings = MatchingSettings().with_distance(5)
    path = tmp_path / "settings.json"
    path.write_text(settings.to_json())
    read = MatchingSettings.read(path)
    assert read.distance == 5 and read.signature_len == 128
    assert TextMatcher(read).judge("a b c d e f g", "a b c d e f g")["near"]
    with pytest.raises(DedupError, match="distance"):
        MatchingSettings().with_distance(65)
    with pytest.raises(DedupError):
        MatchingSettings.from_json("{}")
    with pytest.raises(DedupError):
        MatchingSettings.read(tmp_path / "missing.json")
    no_verify = json.loads(settings.to_json())
    del no_verify["verification"]
    plain = TextMatcher(MatchingSettings.from_json(json.dumps(no_verify)))
    assert plain.signature_len is None
    with pytest.raises(DedupError, match="no two-stage matching"):
        plain.signatures(["some text"])
    with pytest.raises(DedupError, match="no two-stage matching"):
        plain.signatures(["some text"], fingerprints=False)


def test_non_strings_are_type_errors():
    with pytest.raises(TypeError, match="text 1 is int"):
        TextMatcher().fingerprints(["fine", 3])


def batch_calls(matcher):
    """Every method of `matcher` that takes a batch of texts and returns a value per text."""
    alone = functools.partial(matcher.signatures, fingerprints=False)
    return [matcher.fingerprints, matcher.signatures, alone, matcher.candidate_values]


def test_a_lone_surrogate_is_a_value_error_naming_its_text():
    # A UnicodeEncodeError, which is a ValueError, saying which text of the batch it is.
    for call in batch_calls(TextMatcher()):
        with pytest.raises(UnicodeEncodeError, match=r"surrogates not allowed \(text 1 of the batch\)"):
            call(["fine", "bad \ud800 text", "also \udfff bad"])
        with pytest.raises(ValueError, match=r"text 0 of the batch"):
            call(["\udc80"])


def test_a_single_text_where_a_batch_is_expected_is_a_type_error():
    # Iterating a str would fingerprint each of its characters.
    for call in batch_calls(TextMatcher()):
        for one in ("hello world", b"hello world"):
            with pytest.raises(TypeError, match="sequence of texts"):
                call(one)
    # A batch of one, and any iterable of str, are fine.
    assert TextMatcher().fingerprints(["hello world"]).valid.tolist() == [True]
    assert TextMatcher().fingerprints(iter(["hello world", "x y"])).valid.tolist() == [True, True]


def test_signatures_are_written_in_place_without_copies():
    # Peak memory of signatures of 100,000 short texts, in a fresh process: the result
    # (128 u32 values a text, 51 MB) and not several copies of it.
    script = """
import resource, sys
from tantivy_dedup import TextMatcher
matcher = TextMatcher()
texts = [f"text number {i} about the harbour ferry" for i in range(100_000)]
matcher.signatures(texts[:10])
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
sig = CALL
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print((after - before) * 1024, sig.signatures.nbytes)
"""
    calls = [
        "matcher.signatures(texts)",
        "matcher.signatures(texts, fingerprints=False)",
        "matcher.candidate_values(texts)",
    ]
    for call in calls:
        out = subprocess.run(
            [sys.executable, "-c", script.replace("CALL", call)], capture_output=True, text=True, check=True
        )
        grown, result = map(int, out.stdout.split())
        assert result == 100_000 * 128 * 4
        assert grown < 1.5 * result, (call, grown, result)


def test_hamming_broadcasts():
    fps = np.array([0, 1, 3, 0xFFFFFFFFFFFFFFFF], dtype=np.uint64)
    assert hamming(fps[0], fps).tolist() == [0, 1, 2, 64]


def test_many_texts_on_every_core_in_input_order():
    texts = [f"document number {i} " + "with some shared words " * (i % 7) for i in range(5000)]
    matcher = TextMatcher()
    together = matcher.fingerprints(texts).values
    alone = np.array([matcher.fingerprints([t]).values[0] for t in texts[:50]], dtype=np.uint64)
    assert np.array_equal(together[:50], alone)
    assert os.cpu_count() >= 1


def test_the_index_finds_what_a_brute_force_scan_finds():
    rng = np.random.default_rng(7)
    base = rng.integers(0, 2**63, size=300, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, size=300, dtype=np.uint64)
    # Near copies: 0 to 4 bits flipped.
    flips = [np.uint64(sum(1 << int(b) for b in rng.choice(64, size=n, replace=False))) for n in rng.integers(0, 5, size=300)]
    fps = np.concatenate([base, base ^ np.array(flips, dtype=np.uint64)])
    ids = np.arange(len(fps), dtype=np.uint32)
    index = FingerprintIndex(max_distance=3)
    index.extend(ids, fps)
    assert len(index) == len(fps)
    distances = hamming(fps[:, None], fps[None, :])
    for k in (0, 3, 6):
        a, b, d = index.all_pairs(k)
        got = set(zip(a.tolist(), b.tolist(), d.tolist()))
        i, j = np.nonzero(np.triu(distances <= k, 1))
        assert got == set(zip(i.tolist(), j.tolist(), distances[i, j].tolist()))
    q = int(fps[5])
    expected = sorted((int(d), int(i)) for i, d in enumerate(distances[5]) if d <= 3)
    assert [(d, i) for i, d in index.query(q)] == expected
    assert index.remove(5) and not index.remove(5)
    assert index.get(5) is None and index.get(6) == int(fps[6])
    with pytest.raises(DedupError):
        index.extend(np.array([1, 2]), np.array([1], dtype=np.uint64))


def test_candidate_values_read_arrow_strings_as_python_strings():
    pa = pytest.importorskip("pyarrow")
    texts = ["The quick brown fox", "", "网页的指纹 and words", "!!!", "the quick brown fox jumps"] * 3
    matcher = TextMatcher()
    expected = matcher.candidate_values(texts)
    with_nulls = pa.array(texts[:1] + [None] + texts[2:])
    arrays = [
        pa.array(texts),
        pa.array(texts, pa.large_string()),
        pa.chunked_array([texts[:4], texts[4:]]),
        pa.array(["skipped"] + texts)[1:],  # a slice: offsets that do not start at 0
        with_nulls,  # a null is an empty text
    ]
    for array in arrays:
        got = matcher.candidate_values(array)
        for field in ("fingerprints", "has_fingerprint", "signatures", "has_signature", "band_keys", "has_bands"):
            assert np.array_equal(getattr(got, field), getattr(expected, field)), (array.type, field)
    assert len(matcher.candidate_values(pa.array([], pa.string())).fingerprints) == 0
    with pytest.raises(TypeError, match="not of strings"):
        matcher.candidate_values(pa.array([1, 2]))


def test_the_least_agreement_is_the_rules():
    matcher = TextMatcher()
    least = matcher.least_agreement
    assert 0 < least <= matcher.signature_len
    # A pair just beyond k sharing its first band: near from the least agreement on.
    n, k = matcher.signature_len, matcher.distance
    a = np.arange(n, dtype=np.uint32)

    def values(signatures, fingerprint):
        count = len(signatures)
        return CandidateValues(
            fingerprints=np.full(count, fingerprint, dtype=np.uint64),
            has_fingerprint=np.ones(count, dtype=bool),
            signatures=np.array(signatures, dtype=np.uint32),
            has_signature=np.ones(count, dtype=bool),
            band_keys=np.zeros((count, 0), dtype=np.uint32),
            has_bands=np.zeros(count, dtype=bool),
        )

    equal = [least - 1, least]
    b = [np.where(np.arange(n) < e, a, a + 1000) for e in equal]
    near, distance, _ = matcher.judge_pairs(values([a, a], 0), values(b, (1 << (k + 1)) - 1))
    assert distance.tolist() == [k + 1, k + 1] and near.tolist() == [False, True]
    no_verify = json.loads(MatchingSettings().to_json())
    del no_verify["verification"]
    assert TextMatcher(MatchingSettings.from_json(json.dumps(no_verify))).least_agreement is None


def test_ids_are_u32_in_insert_and_extend_alike():
    index = FingerprintIndex()
    index.extend([0, 2**32 - 1], [10, 20])
    index.insert(2**32 - 2, 30)
    assert (index.get(0), index.get(2**32 - 1), index.get(2**32 - 2)) == (10, 20, 30)
    # Out of range: OverflowError in both, extend naming the position, and nothing of the
    # batch applied (2**32 + 1 would have become 1, -1 would have become 2**32 - 1).
    for ids, at in [([1, 2**32 + 1], 1), ([-1, 5], 0), ([5, 6, 2**70], 2)]:
        with pytest.raises(OverflowError, match=rf"ids\[{at}\] = .* outside"):
            index.extend(ids, [1, 2, 3][: len(ids)])
    for dtype in (np.int64, np.uint64):
        with pytest.raises(OverflowError, match=r"ids\[1\]"):
            index.extend(np.array([1, 2**32 + 1], dtype=dtype), np.array([1, 2], dtype=np.uint64))
    with pytest.raises(OverflowError, match=r"ids\[0\]"):
        index.extend(np.array([-1], dtype=np.int32), np.array([7], dtype=np.uint64))
    for id in (2**32 + 1, -1):
        with pytest.raises(OverflowError, match="outside"):
            index.insert(id, 40)
    assert len(index) == 3 and index.get(1) is None and index.get(2**32 - 1) == 20
    with pytest.raises(OverflowError):
        index.get(2**32)


def components(n, pairs):
    """The connected components (of two or more) of `pairs` over `0..n`, as sorted lists."""
    parent = list(range(n))

    def find(i):
        while parent[i] != i:
            i = parent[i]
        return i

    for a, b in pairs:
        x, y = find(a), find(b)
        parent[max(x, y)] = min(x, y)
    groups = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(i)
    return sorted(g for g in groups.values() if len(g) > 1)


def test_groups_are_the_components_of_all_pairs():
    rng = np.random.default_rng(11)
    base = rng.integers(0, 2**63, size=200, dtype=np.uint64)
    flips = [np.uint64(sum(1 << int(b) for b in rng.choice(64, size=n, replace=False))) for n in rng.integers(0, 6, size=200)]
    # Near copies, and exact copies of some of them.
    fps = np.concatenate([base, base ^ np.array(flips, dtype=np.uint64), base[:30]])
    index = FingerprintIndex(max_distance=3)
    index.extend(np.arange(len(fps)), fps)
    for k in (0, 3, 5, 12):
        a, b, _ = index.all_pairs(k)
        groups = index.groups(k)
        assert all(g.dtype == np.uint32 for g in groups)
        assert [g.tolist() for g in groups] == components(len(fps), zip(a.tolist(), b.tolist())), k
    everyone = index.groups(3, singletons=True)
    assert sorted(i for g in everyone for i in g.tolist()) == list(range(len(fps)))
    assert FingerprintIndex().groups() == []


def test_groups_of_many_equal_fingerprints_need_no_pairs():
    # 20,000 equal fingerprints: 200 million pairs for all_pairs, one group here.
    index = FingerprintIndex()
    index.extend(np.arange(20_000), np.full(20_000, 0xDEADBEEF, dtype=np.uint64))
    index.insert(50_000, 0xDEADBEEF ^ 0b111)
    index.insert(60_000, ~np.uint64(0xDEADBEEF))
    (group,) = index.groups()
    assert group.tolist() == list(range(20_000)) + [50_000]


def test_settings_name_the_grouping_clusters_apply():
    # The default rule (signatures deciding at 0.8): every two documents of a group near.
    assert MatchingSettings().grouping == "centres"
    loose = json.loads(MatchingSettings().to_json())
    loose["verification"]["threshold"] = 0.18
    assert MatchingSettings.from_json(json.dumps(loose)).grouping == "stars"
