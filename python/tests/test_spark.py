"""The Spark job (`tantivy_dedup.spark`) against the single-machine tool, in Spark's local
mode: the same clusters as `tantivy-dedup clusters` on the same documents, and as
survivors the clusters' leaders and the documents in no cluster, also where
near-duplicates chain (groups, not connected components), among copies, under the
`rewrites` preset, and the command line over Parquet."""

import json
import os
import subprocess
import sys

import pytest

pyspark = pytest.importorskip("pyspark", reason="pyspark is installed by .ci/run")

from tantivy_dedup import DedupError, MatchingSettings  # noqa: E402
from tantivy_dedup import spark as job  # noqa: E402

from conftest import SAMPLES  # noqa: E402

BASE = (
    "the river rose during the night and the farmers of the valley moved their animals to "
    "the high pastures before dawn while the council opened the school hall for families "
    "whose houses stood near the old stone bridge that the water had reached by morning"
).split()
SPARE = "copper lantern meadow harbor violet engine saddle orchard marble thunder".split()


@pytest.fixture(scope="module")
def spark():
    session = job.session("local[2]")
    yield session
    session.stop()


def chain_corpus():
    """Progressive rewrites of one paragraph (each a word further from the first) and
    unrelated lines: near-duplicates that chain, so groups and connected components
    disagree."""
    records, words = [], list(BASE)
    for step in range(24):
        at = (step * 7) % len(words)
        words[at] = SPARE[step % len(SPARE)] + str(step)
        records.append({"id": f"edit-{step:02}", "text": " ".join(words)})
        records.append({"id": f"other-{step:02}", "text": f"note {step} about {SPARE[step % 10]} and bees"})
    return records


def tool_clusters(tool, tmp_path, lines, *options):
    """`ingest --policy flag` (with `options`) then `clusters --json`, and the ids of the
    documents in no cluster and of the clusters' leaders."""
    data = tmp_path / "input.jsonl"
    data.write_text("".join(json.dumps(line) + "\n" for line in lines))
    flag = tmp_path / "flag"
    subprocess.run(
        [tool, "ingest", "--index", str(flag), "--policy", "flag", *options, str(data)], check=True, capture_output=True
    )
    out = subprocess.run([tool, "clusters", "--index", str(flag), "--json"], check=True, capture_output=True, text=True)
    clusters = [c["ids"] for c in json.loads(out.stdout)["clusters"]]
    members = {i for ids in clusters for i in ids[1:]}
    return clusters, {line["id"] for line in lines} - members


def spark_clusters(spark, lines, **options):
    df = spark.createDataFrame([(line["id"], line["text"], n) for n, line in enumerate(lines)], "id string, text string, n long")
    clusters, deduped = job.near_duplicate_clusters(df, order_column="n", **options)
    groups = {}
    for row in clusters.collect():
        groups.setdefault(row["cluster"], []).append((row["position"], row["id"]))
    as_lists = [[i for _, i in sorted(members)] for members in groups.values()]
    return sorted(as_lists, key=lambda ids: lines.index(next(l for l in lines if l["id"] == ids[0]))), {
        row["id"] for row in deduped.collect()
    }


def sample_lines():
    return [json.loads(line) for line in open(SAMPLES, encoding="utf-8") if line.strip()]


@pytest.fixture(params=["broadcast", "shuffled"])
def digests(request, monkeypatch):
    """Band candidates checked against a broadcast of every digest where they are paired,
    and the copies and the candidates' orders sent whole to every task that joins with
    them (the job's choices for corpora of a few million documents); or everything meeting
    in shuffles (its choices beyond)."""
    if request.param == "shuffled":
        monkeypatch.setattr(job, "_BROADCAST_DIGEST_BYTES", 0)
        monkeypatch.setattr(job, "_BROADCAST_ROWS", -1)
    return request.param


def test_the_samples_cluster_as_the_tool_clusters_them(spark, tool, tmp_path, digests):
    lines = [{"id": line["id"], "text": line["text"]} for line in sample_lines()]
    expected, kept = tool_clusters(tool, tmp_path, lines)
    clusters, deduped = spark_clusters(spark, lines)
    assert clusters == expected
    assert len(clusters) > 3
    assert deduped == kept


def test_chained_rewrites_group_as_the_tool_groups_them(spark, tool, tmp_path, digests):
    lines = chain_corpus()
    expected, kept = tool_clusters(tool, tmp_path, lines)
    clusters, deduped = spark_clusters(spark, lines)
    assert clusters == expected
    edits = [c for c in clusters if c[0].startswith("edit-")]
    # The rewrites chain from the first to the last, yet make several groups: each
    # joins a leader it is near, not any document it is near.
    assert len(edits) >= 2, clusters
    assert deduped == kept


def test_rewrites_group_in_stars_as_the_tool_groups_them(spark, tool, tmp_path):
    # Under the rewrites preset a document joins the nearest leader it is near (stars);
    # the chain and copies of it among the samples.
    chain = chain_corpus()
    samples = [{"id": line["id"], "text": line["text"]} for line in sample_lines()]
    lines = chain + samples + [{"id": f"copy-{n}", "text": chain[2 * n]["text"]} for n in range(5)]
    expected, kept = tool_clusters(tool, tmp_path, lines, "--preset", "rewrites")
    # The index's rule: the preset's verification in the default settings.
    stored = json.loads((tmp_path / "flag" / ".tantivy-dedup.json").read_text())
    text = json.loads(MatchingSettings().to_json())
    text["verification"] = stored["verification"]
    settings = MatchingSettings.from_json(json.dumps(text))
    assert settings.grouping == "stars"
    clusters, deduped = spark_clusters(spark, lines, settings=settings)
    assert clusters == expected
    assert deduped == kept


def test_fingerprints_alone_cluster_as_the_tool_clusters_them(spark, tool, tmp_path):
    lines = chain_corpus() + [{"id": line["id"], "text": line["text"]} for line in sample_lines()]
    expected, kept = tool_clusters(tool, tmp_path, lines, "--no-verify")
    text = MatchingSettings().to_json()
    settings = MatchingSettings.from_json(text[: text.index('"verification"')] + '"verification": null}')
    assert settings.signature_len is None
    clusters, deduped = spark_clusters(spark, lines, settings=settings)
    assert clusters == expected
    assert len(clusters) > 3
    assert deduped == kept


def test_copies_cluster_as_the_tool_clusters_them(spark, tool, tmp_path, digests):
    # Pages repeated by the hundred among the others, some copies before the page they
    # copy, some of a rewrite that chains: copies take their first's pairs.
    samples = [{"id": line["id"], "text": line["text"]} for line in sample_lines()]
    chain = chain_corpus()
    lines = []
    for n in range(400):
        source = samples[n % 3] if n % 2 else chain[(n // 2) % 6]
        lines.append({"id": f"copy-{n:03}", "text": source["text"]})
        lines += chain[n : n + 1] + samples[n : n + 1]
    expected, kept = tool_clusters(tool, tmp_path, lines)
    clusters, deduped = spark_clusters(spark, lines)
    assert clusters == expected
    assert max(map(len, clusters)) > 100
    assert deduped == kept


def test_components_are_those_of_a_union_find(spark):
    import random

    from test_spark_tables import union_find_roots

    rng = random.Random(9)
    # Long paths (the rounds must halve them), in order of id and shuffled, stars, and
    # random pairs.
    shuffled = rng.sample(range(1000, 1300), 300)
    edges = [(i, i + 1) for i in range(0, 300)] + list(zip(shuffled, shuffled[1:]))
    edges += [(2000, 2000 + i) for i in range(1, 40)] + [(3000 + i, 3000) for i in range(1, 40)]
    edges += [(rng.randrange(4000, 4400), rng.randrange(4000, 4400)) for _ in range(300)]
    edges = [(min(a, b), max(a, b)) for a, b in edges if a != b]
    frame = spark.createDataFrame([(a, b, 0) for a, b in edges], job._EDGES)
    # Rounds over partitions, and one task's union-find.
    for one_task_edges in (0, len(edges)):
        labels = {row["v"]: row["label"] for row in job._components(frame, 64, one_task_edges).collect()}
        assert labels == union_find_roots(edges), one_task_edges
        empty = spark.createDataFrame([], job._EDGES)
        assert job._components(empty, 64, one_task_edges).count() == 0


@pytest.mark.parametrize("k", [0, 6])
def test_other_distances_cluster_as_the_tool_clusters_them(spark, tool, tmp_path, k):
    # k = 0: one table whose key is the whole fingerprint.
    lines = chain_corpus() + [{"id": line["id"], "text": line["text"]} for line in sample_lines()]
    expected, kept = tool_clusters(tool, tmp_path, lines, "--distance", str(k))
    clusters, deduped = spark_clusters(spark, lines, settings=MatchingSettings().with_distance(k))
    assert clusters == expected
    assert len(clusters) > 3
    assert deduped == kept


def test_stars_settle_only_as_a_forest(spark):
    def settled(stars):
        return job._settled(spark.createDataFrame(stars, "x long, r long"))

    assert settled([]) and settled([(2, 1), (3, 1), (9, 4)])
    assert not settled([(3, 2), (2, 1)])  # a root that is a leaf
    assert not settled([(3, 1), (3, 2)])  # a leaf of two stars


def test_settings_without_bands_are_refused(spark):
    scan = json.loads(MatchingSettings().to_json())
    scan["verification"]["candidates"] = {"kind": "scan"}
    settings = MatchingSettings.from_json(json.dumps(scan))
    df = spark.createDataFrame([("a", "some words")], "id string, text string")
    with pytest.raises(ValueError, match="bands"):
        job.near_duplicate_clusters(df, settings=settings)


def test_the_command_line_reads_and_writes_parquet(spark, tmp_path):
    lines = sample_lines()
    source = tmp_path / "docs.parquet"
    spark.createDataFrame([(line["id"], line["text"]) for line in lines], "doc string, body string").coalesce(1).write.parquet(
        str(source)
    )
    out = tmp_path / "out"
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable}
    run = subprocess.run(
        [sys.executable, "-m", "tantivy_dedup.spark", "--input", str(source), "--output", str(out),
         "--id-column", "doc", "--text-column", "body", "--master", "local[2]"],
        capture_output=True, text=True, env=env,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert "near-duplicates in" in run.stderr
    clusters = spark.read.parquet(str(out / "clusters"))
    deduped = spark.read.parquet(str(out / "deduped"))
    assert set(clusters.columns) == {"cluster", "id", "position"}
    assert set(deduped.columns) == {"doc", "body"}
    members = clusters.filter("position > 0").count()
    assert members > 0 and deduped.count() == len(lines) - members
    missing = subprocess.run(
        [sys.executable, "-m", "tantivy_dedup.spark", "--input", str(source), "--output", str(out), "--master", "local[1]"],
        capture_output=True, text=True, env=env,
    )
    assert missing.returncode == 2 and "no column 'id'" in missing.stderr


def test_candidates_that_cannot_agree_enough_are_dropped(spark):
    """`_may_agree` (two shuffles) and `_kept_candidates` (a table of every digest) keep a
    candidate exactly when its signatures' digests agree on the least agreement or more (or
    a signature is missing), which keeps every pair whose signatures do."""
    import numpy as np

    from tantivy_dedup import TextMatcher

    matcher = TextMatcher()
    n, least = matcher.signature_len, matcher.least_agreement
    rng = np.random.default_rng(23)
    docs = 60
    base = rng.integers(0, 2**32, size=n, dtype=np.uint32)
    sigs = []
    for i in range(docs):
        if i % 2:
            # Agreeing with the one before on exactly least - 1, least or least + 1 values.
            sig = sigs[-1].copy()
            size = n - least + 1 - (i // 2) % 3
        else:
            sig, size = base.copy(), rng.integers(n - least - 6, n - least + 6)
        changed = rng.choice(n, size=size, replace=False)
        sig[changed] = ~sig[changed]
        sigs.append(sig)
    has = rng.random(docs) < 0.9
    vals = spark.createDataFrame(
        [(i, bytearray(sigs[i].astype("<u4").tobytes()), bool(has[i])) for i in range(docs)],
        "order long, sig binary, has_sig boolean",
    )
    pairs = [(a, b, 5) for a in range(docs) for b in range(a + 1, docs) if rng.random() < 0.5 or b == a + 1]
    candidates = spark.createDataFrame(pairs, job._EDGES)
    got = {(r["a"], r["b"]) for r in job._may_agree(candidates, vals, n, least, 16).collect()}
    digests = [job._digest(s) for s in sigs]
    expected = {
        (a, b) for a, b, _ in pairs
        if not (has[a] and has[b]) or int((digests[a] == digests[b]).sum()) >= least
    }
    assert got == expected
    agreeing = {(a, b) for a, b, _ in pairs if int((sigs[a] == sigs[b]).sum()) >= least}
    assert agreeing <= got and len(got) < len(pairs)
    # The same from a table of every digest, with pairs near within k (no candidates) kept
    # whatever their digests.
    table = job._digest_table(vals.sample(fraction=1.0, seed=3), n)
    a = np.array([p[0] for p in pairs], dtype=np.int64)
    b = np.array([p[1] for p in pairs], dtype=np.int64)
    candidate = np.arange(len(pairs)) % 7 != 0
    keep = job._kept_candidates(table, n, a, b, candidate, least)
    ab = list(zip(a.tolist(), b.tolist()))
    assert {pair for pair, k in zip(ab, keep) if k} == expected | {pair for pair, c in zip(ab, candidate) if not c}
    with pytest.raises(DedupError, match="no digest"):
        job._kept_candidates(table, n, a + docs, b, candidate, least)


def test_the_command_line_reads_json_lines_with_a_schema_given(spark, tmp_path):
    lines = [{**line, "lang": "en"} for line in sample_lines()]
    source = tmp_path / "docs.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = tmp_path / "out"
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable}
    run = subprocess.run(
        [sys.executable, "-m", "tantivy_dedup.spark", "--input", str(source), "--output", str(out),
         "--schema", "id string, text string", "--master", "local[2]"],
        capture_output=True, text=True, env=env,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    clusters = spark.read.json(str(out / "clusters"))
    deduped = spark.read.json(str(out / "deduped"))
    assert set(deduped.columns) == {"id", "text"}  # the schema's columns only
    members = clusters.filter("position > 0").count()
    assert members > 0 and deduped.count() == len(lines) - members
