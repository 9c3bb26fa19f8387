"""Near-duplicate clusters of a corpus on Apache Spark, by the rule of a tantivy-dedup index.

``near_duplicate_clusters(df)`` takes a DataFrame with an id and a text column and returns
the clusters ``tantivy-dedup clusters`` would print for the same documents ingested in the
same order, and the DataFrame without the documents ``ingest --policy reject`` would have
rejected. Nothing is collected to the driver:

1. **Values per partition** (``mapInPandas``): each text's fingerprint, signature and band
   keys, computed by the Rust extension on the executor's cores.
2. **Candidate pairs by grouping**: documents sharing a block of their fingerprint (the
   pigeonhole of Manku et al.: *k* + 1 blocks, so a pair within *k* bits shares one) or a
   signature band (MinHash LSH) are paired by a join on the key.
3. **Verification** of every candidate pair by the index's rule (``judge_pairs``: within
   *k*, or a shared band and signatures agreeing up to the threshold).
4. **Connected components** of the near pairs, by minimum-label propagation with pointer
   jumping (DataFrame joins, checkpointed each round).
5. **Leaders per component** (``cogroup().applyInPandas``): in input order, a document
   near an earlier leader joins the nearest (the earliest among equals), any other leads,
   as the index's writer decides. A document's fate depends only on the documents it is
   near, so a component decided alone is decided as the whole corpus would decide it.

Command line: ``python -m tantivy_dedup.spark --input docs.jsonl --output out/`` writes
``out/clusters`` and ``out/deduped`` (JSON lines, or Parquet with ``--format parquet``).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Optional, Tuple

import numpy as np

from . import CandidateValues, MatchingSettings, TextMatcher

__all__ = ["near_duplicate_clusters", "main"]

#: The schema of the values computed per partition.
_VALUES = "order long, id string, fp long, sig binary, has_sig boolean, bands array<int>, has_bands boolean"
#: The schema of verified pairs.
_EDGES = "a long, b long, distance int"
#: The schema of the clusters.
_CLUSTERS = "cluster string, id string, position int, order long"
#: Offset of band kinds among the candidate keys (block kinds are 0..=k).
_BAND_KIND = 1000


def _matcher(settings_json: Optional[str]) -> TextMatcher:
    settings = MatchingSettings.from_json(settings_json) if settings_json else None
    return TextMatcher(settings)


def _blocks(k: int) -> list:
    """``(shift, mask)`` of the k + 1 blocks of a 64-bit fingerprint, widths as equal as
    they can be: two fingerprints within k bits agree on one block at least."""
    count = k + 1
    widths = [64 // count + (1 if i < 64 % count else 0) for i in range(count)]
    blocks, shift = [], 0
    for width in widths:
        blocks.append((shift, (1 << width) - 1))
        shift += width
    return blocks


def near_duplicate_clusters(
    df,
    id_column: str = "id",
    text_column: str = "text",
    order_column: Optional[str] = None,
    settings: Optional[MatchingSettings] = None,
    max_rounds: int = 64,
):
    """The near-duplicate clusters of ``df`` and ``df`` without the duplicates.

    Documents are taken in ``order_column``'s order (ascending, distinct values), else in
    the DataFrame's order. Returns ``(clusters, deduped)``: ``clusters`` has a row per
    member of a cluster of two or more, ``cluster`` (the leader's id), ``id``, ``position``
    (0 for the leader, then 1, 2, .. in order) and ``order``; ``deduped`` is ``df`` without
    the members after the leaders, what ``ingest --policy reject`` keeps.

    ``settings`` are an index's (``MatchingSettings.read``), the library's defaults when
    ``None``. Settings whose candidates beyond *k* come from the fingerprints within a
    loose distance, instead of signature bands, are refused: that search has no grouping
    key. ``max_rounds`` bounds the label propagation (a chain of near-duplicates needs
    about the logarithm of its length).
    """
    from pyspark.sql import functions as F

    settings_json = settings.to_json() if settings is not None else None
    matcher = _matcher(settings_json)
    if matcher.signature_len and not matcher.bands:
        raise ValueError(
            "these settings find candidates beyond k within a loose fingerprint distance, "
            "which has no grouping key for Spark: use settings with signature bands (the "
            "default candidate stage)"
        )
    k = matcher.distance
    sig_len = matcher.signature_len or 0
    order = F.col(order_column).cast("long") if order_column else F.monotonically_increasing_id()
    # The order is drawn once: later stages join on it.
    docs = df.withColumn("__order", order).localCheckpoint()

    def values(batches):
        m = _matcher(settings_json)
        import pandas as pd

        for pdf in batches:
            texts = pdf["text"].fillna("").astype(str).tolist()
            v = m.candidate_values(texts)
            keep = v.has_fingerprint
            yield pd.DataFrame(
                {
                    "order": pdf["order"].to_numpy()[keep],
                    "id": pdf["id"].to_numpy()[keep],
                    "fp": v.fingerprints.view(np.int64)[keep],
                    "sig": [row.tobytes() for row in v.signatures[keep]],
                    "has_sig": v.has_signature[keep],
                    "bands": list(v.band_keys.view(np.int32)[keep]),
                    "has_bands": v.has_bands[keep],
                }
            )

    vals = (
        docs.select(
            F.col("__order").alias("order"),
            F.col(id_column).cast("string").alias("id"),
            F.col(text_column).cast("string").alias("text"),
        )
        .mapInPandas(values, _VALUES)
        .localCheckpoint()
    )

    block_keys = [
        vals.select(
            "order",
            F.lit(i).alias("kind"),
            F.shiftrightunsigned("fp", shift).bitwiseAND(F.lit(mask)).alias("key"),
        )
        for i, (shift, mask) in enumerate(_blocks(k))
    ]
    keys = block_keys[0]
    for more in block_keys[1:]:
        keys = keys.unionByName(more)
    if matcher.bands:
        band_keys = vals.filter("has_bands").select(
            "order", F.posexplode("bands").alias("band", "band_key")
        )
        keys = keys.unionByName(
            band_keys.select(
                "order",
                (F.col("band") + _BAND_KIND).alias("kind"),
                F.col("band_key").cast("long").alias("key"),
            )
        )
    x, y = keys.alias("x"), keys.alias("y")
    pairs = (
        x.join(
            y,
            (F.col("x.kind") == F.col("y.kind"))
            & (F.col("x.key") == F.col("y.key"))
            & (F.col("x.order") < F.col("y.order")),
        )
        .select(F.col("x.order").alias("a"), F.col("y.order").alias("b"))
        .distinct()
    )
    side = vals.select("order", "fp", "sig", "has_sig")
    candidates = pairs.join(
        side.toDF("a", "fp_a", "sig_a", "has_sig_a"), "a"
    ).join(side.toDF("b", "fp_b", "sig_b", "has_sig_b"), "b")

    def judge(batches):
        m = _matcher(settings_json)
        import pandas as pd

        for pdf in batches:
            n = len(pdf)
            if n == 0:
                continue

            def values_of(suffix):
                sigs = b"".join(pdf[f"sig_{suffix}"]) if sig_len else b""
                return CandidateValues(
                    fingerprints=pdf[f"fp_{suffix}"].to_numpy(dtype=np.int64).view(np.uint64),
                    has_fingerprint=np.ones(n, dtype=bool),
                    signatures=np.frombuffer(sigs, dtype="<u4").reshape(n, sig_len),
                    has_signature=pdf[f"has_sig_{suffix}"].to_numpy(dtype=bool),
                    band_keys=np.zeros((n, 0), dtype=np.uint32),
                    has_bands=np.zeros(n, dtype=bool),
                )

            near, distance, _ = m.judge_pairs(values_of("a"), values_of("b"))
            yield pd.DataFrame(
                {
                    "a": pdf["a"].to_numpy()[near],
                    "b": pdf["b"].to_numpy()[near],
                    "distance": distance[near].astype(np.int32),
                }
            )

    edges = candidates.mapInPandas(judge, _EDGES).localCheckpoint()
    labels = _components(edges, max_rounds)

    def leaders(nodes, near):
        import pandas as pd

        earlier = {}
        for a, b, distance in zip(near["a"], near["b"], near["distance"]):
            earlier.setdefault(int(b), []).append((int(distance), int(a)))
        ids = dict(zip(nodes["order"].astype(int), nodes["id"]))
        is_leader, members = set(), {}
        for at in sorted(ids):
            options = [(d, a) for d, a in earlier.get(at, ()) if a in is_leader]
            if options:
                members.setdefault(min(options)[1], []).append(at)
            else:
                is_leader.add(at)
        rows = []
        for leader, group in members.items():
            for position, at in enumerate([leader, *group]):
                rows.append((ids[leader], ids[at], position, at))
        return pd.DataFrame(rows, columns=["cluster", "id", "position", "order"])

    nodes = labels.join(vals.select("order", "id"), labels["v"] == vals["order"]).select(
        F.col("label").alias("component"), "order", "id"
    )
    near_by_component = edges.join(labels, edges["a"] == labels["v"]).select(
        F.col("label").alias("component"), "a", "b", "distance"
    )
    clusters = (
        nodes.groupBy("component")
        .cogroup(near_by_component.groupBy("component"))
        .applyInPandas(leaders, _CLUSTERS)
        .localCheckpoint()
    )
    rejected = clusters.filter("position > 0").select(F.col("order").alias("__order"))
    deduped = docs.join(rejected, "__order", "left_anti").drop("__order")
    return clusters, deduped


def _components(edges, max_rounds: int):
    """``(v, label)``: every vertex of ``edges`` with the least vertex of its connected
    component, by minimum-label propagation with pointer jumping, checkpointed each round."""
    from pyspark.sql import functions as F

    both = (
        edges.select(F.col("a").alias("src"), F.col("b").alias("dst"))
        .unionByName(edges.select(F.col("b").alias("src"), F.col("a").alias("dst")))
        .localCheckpoint()
    )
    labels = both.select(F.col("src").alias("v")).distinct().withColumn("label", F.col("v"))
    labels = labels.localCheckpoint()
    for _ in range(max_rounds):
        proposed = (
            both.join(labels, both["src"] == labels["v"])
            .groupBy("dst")
            .agg(F.min("label").alias("proposed"))
        )
        stepped = labels.join(proposed, labels["v"] == proposed["dst"], "left").select(
            "v", F.least("label", F.coalesce("proposed", "label")).alias("label")
        )
        # Pointer jumping: a vertex takes its label's label, halving chains each round.
        jumped = (
            stepped.alias("s")
            .join(stepped.alias("p"), F.col("s.label") == F.col("p.v"), "left")
            .select(
                F.col("s.v").alias("v"),
                F.least(F.col("s.label"), F.coalesce(F.col("p.label"), F.col("s.label"))).alias(
                    "label"
                ),
            )
            .localCheckpoint()
        )
        changed = (
            jumped.join(labels.withColumnRenamed("label", "before"), "v")
            .filter("label != before")
            .limit(1)
            .count()
        )
        labels = jumped
        if changed == 0:
            return labels
    raise RuntimeError(
        f"the near-duplicate components did not settle in {max_rounds} rounds: raise max_rounds"
    )


def main(argv=None) -> int:
    """``python -m tantivy_dedup.spark``: clusters and the deduped corpus of a file."""
    parser = argparse.ArgumentParser(
        prog="python -m tantivy_dedup.spark",
        description="Near-duplicate clusters of a corpus on Spark, by a tantivy-dedup index's rule.",
    )
    parser.add_argument("--input", required=True, help="JSON lines or Parquet (file or folder)")
    parser.add_argument("--output", required=True, help="folder for clusters/ and deduped/")
    parser.add_argument("--format", choices=["json", "parquet"], help="default: by --input's name")
    parser.add_argument("--settings", help="a settings file (an index's, or eval --recommend's)")
    parser.add_argument("--id-column", default="id")
    parser.add_argument("--text-column", default="text")
    parser.add_argument("--master", default=os.environ.get("SPARK_MASTER", "local[*]"))
    args = parser.parse_args(argv)

    fmt = args.format or ("parquet" if args.input.rstrip("/").endswith(".parquet") else "json")
    settings = MatchingSettings.read(args.settings) if args.settings else None
    spark = session(args.master)
    try:
        reader = spark.read.parquet if fmt == "parquet" else spark.read.json
        df = reader(args.input)
        for column in (args.id_column, args.text_column):
            if column not in df.columns:
                print(f"error: {args.input} has no column {column!r}", file=sys.stderr)
                return 2
        clusters, deduped = near_duplicate_clusters(
            df, args.id_column, args.text_column, settings=settings
        )
        clusters = clusters.orderBy("order").drop("order")
        writer = lambda frame: frame.write.mode("overwrite").format(fmt)  # noqa: E731
        writer(clusters).save(os.path.join(args.output, "clusters"))
        writer(deduped).save(os.path.join(args.output, "deduped"))
        members = clusters.filter("position > 0").count()
        print(f"{members} near-duplicates in {clusters.count() - members} clusters", file=sys.stderr)
    finally:
        spark.stop()
    return 0


def session(master: str = "local[*]"):
    """A Spark session whose Python workers run this interpreter (and so this package)."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    # Local mode talks to itself only: on loopback, whatever the host name resolves to.
    if master.startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    return (
        SparkSession.builder.master(master)
        .appName("tantivy-dedup")
        .config("spark.sql.shuffle.partitions", os.environ.get("SPARK_SHUFFLE_PARTITIONS", "8"))
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )


if __name__ == "__main__":
    sys.exit(main())
