"""Near-duplicate clusters of a corpus on Apache Spark, by the rule of a tantivy-dedup index.

``near_duplicate_clusters(df)`` takes a DataFrame with an id and a text column and returns
the clusters ``tantivy-dedup clusters`` would print for the same documents ingested in the
same order, and the DataFrame without each cluster's members after its leader. Nothing is
collected to the driver:

1. **Values per partition** (``mapInArrow``): each text's fingerprint, signature and band
   keys, computed by the Rust extension on the executor's cores.
2. **Copies**: documents whose fingerprint and signature are an earlier document's (its
   copies) are not paired: they are joined to that document, their first, by one pair,
   and grouped with it, so a page repeated by the thousand does not make millions of
   pairs.
3. **Pairs by grouping**: each document has a key in each of Manku et al.'s tables (the
   fingerprint in *b* blocks, a key per choice of *b* - *k* of them, *b* growing with the
   corpus) and, with two-stage matching, one per signature band (MinHash LSH). The key
   rows are packed in Rust a binary value per batch and bucket (Spark's cost per row is
   paid per bucket, not per key) and shuffled once by bucket; each partition's
   groups are paired in Rust (``packed_pairs``). Pairs sharing a table key within
   *k* are candidates the signatures judge (near whatever their signatures under the rule
   of settings before format 6); pairs sharing a band key within the rule's reach are
   candidates too. Fingerprints bunch (common words weigh on every
   document), so a key of a large corpus can pair many documents of which few are near:
   they are compared where they are grouped, and only near pairs and candidates leave.
4. **Candidates judged**: a candidate meets a byte a value of both signatures; those
   whose bytes agree on fewer positions than the rule's least agreement cannot be near
   and are dropped. Up to ``_BROADCAST_DIGEST_BYTES`` of such bytes (a few million
   documents) go to every task as a broadcast, and candidates are checked where they are
   paired; beyond, each candidate meets them in two shuffles of packed rows, by one
   document then the other. The rest are joined with their signatures (only their own
   documents' values shuffled, filtered by a broadcast of their orders when it is small)
   and verified by the index's rule (``judge_pairs``: a shared band and signatures
   agreeing up to the threshold).
5. **Connected components** of the near pairs: by one task's union-find
   (``local_roots``) when they are few (millions), else by rounds of local contraction:
   each vertex's edges meet in one partition, where a union-find turns the components it
   sees into stars on their least vertex, until the stars settle (checkpointed each
   round).
6. **Groups per component** (a row per component, ``mapInArrow``, Rust's ``leader_rows``
   calling the library's grouping rule, the one ``clusters`` applies, named by
   ``MatchingSettings.grouping``): the document near the most others, and the nearest,
   leads (copies weighing in), and each other joins the nearest leader it may join, or
   leads. No group spans two components, so a component decided alone is decided as the
   whole corpus would decide it.

Command line: ``python -m tantivy_dedup.spark --input docs.jsonl --output out/`` writes
``out/clusters`` and ``out/deduped`` (JSON lines, or Parquet with ``--format parquet``);
``--schema 'id string, text string'`` reads JSON lines in one pass instead of two.
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
#: The schema of packed rows: a bucket, the side of a grouping a row holds (0 or 1), and
#: the side's rows of a batch that fall in the bucket, as one value (numpy records).
_PACKED = "bucket int, side byte, rows binary"
#: The schema of the pairs found by grouping: near within k, or candidates beyond it.
_FOUND = "a long, b long, distance int, candidate boolean"
#: Buckets of the grouping stages per shuffle partition: many, so that partitions (which
#: take the buckets by hash) are even.
_BUCKETS_PER_PARTITION = 8
#: The largest table of digests (``_digest``: a byte a signature value, 9 more a document)
#: sent to every task as a broadcast, where band candidates are checked as they are paired,
#: before they are made distinct: 256 MiB, about two million documents of the default 128
#: values. Each Python worker holds a copy; a larger table would crowd an executor's
#: memory beside the tasks' work, and its candidates meet their digests in two shuffles
#: instead (``_may_agree``).
_BROADCAST_DIGEST_BYTES = 256 << 20


def _matcher(settings_json: Optional[str]) -> TextMatcher:
    settings = MatchingSettings.from_json(settings_json) if settings_json else None
    return TextMatcher(settings)


#: At most this many fingerprint keys a document (Manku et al.'s tables).
_MAX_TABLES = 64


def _blocks(count: int) -> list:
    """``(shift, width)`` of ``count`` blocks of a 64-bit fingerprint, widths as equal as
    they can be."""
    widths = [64 // count + (1 if i < 64 % count else 0) for i in range(count)]
    blocks, shift = [], 0
    for width in widths:
        blocks.append((shift, width))
        shift += width
    return blocks


def _tables(k: int, documents: int) -> list:
    """The fingerprint keys of Manku et al.'s tables for pairs within ``k`` bits among
    ``documents``: the fingerprint cut into ``b`` blocks, one key per choice of ``b - k`` of
    them (two fingerprints within ``k`` bits differ in at most ``k`` blocks, so they agree
    on all the blocks of one choice). ``b`` grows until a key holds about 8 bits more than
    ``log2(documents)`` (few pairs of unrelated documents share one), within
    ``_MAX_TABLES`` keys. Each key is a list of ``(shift, width)`` blocks."""
    from itertools import combinations
    from math import comb, log2

    want = log2(max(documents, 2)) + 8
    count = k + 1
    while count < 64 and comb(count + 1, count + 1 - k) <= _MAX_TABLES:
        blocks = _blocks(count)
        if min(sum(w for _, w in c) for c in combinations(blocks, count - k)) >= want:
            break
        count += 1
    blocks = _blocks(count)
    return [list(choice) for choice in combinations(blocks, count - k)]


def _binary_rows(rows: np.ndarray, n: int):
    """The rows of a 2-D array as an Arrow binary array, one value a row, without a Python
    object a row."""
    import pyarrow as pa

    data = np.ascontiguousarray(rows).tobytes()
    width = len(data) // n if n else 0
    offsets = np.arange(n + 1, dtype=np.int32) * width
    return pa.Array.from_buffers(pa.binary(), n, [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def _fixed_rows(column, width: int, dtype="<u4") -> np.ndarray:
    """An Arrow binary column of ``width`` values of ``dtype`` a row (little-endian u32
    signature values by default) as an (n, width) array, read from its buffers (every row
    has ``width`` values: the job writes them so)."""
    n, size = len(column), np.dtype(dtype).itemsize
    if width == 0 or n == 0:
        return np.zeros((n, width), dtype=dtype)
    if hasattr(column, "combine_chunks"):
        column = column.combine_chunks()
    offset_type = np.int64 if str(column.type) == "large_binary" else np.int32
    _, offsets, data = column.buffers()
    offsets = np.frombuffer(offsets, dtype=offset_type)[column.offset : column.offset + n + 1]
    if column.null_count or not np.all(np.diff(offsets) == width * size):
        raise ValueError("signature rows of unequal length")
    raw = np.frombuffer(data, dtype=np.uint8)[offsets[0] : offsets[0] + n * width * size]
    return raw.view(dtype).reshape(n, width)


def _partition_rows(batches):
    """The Arrow batches of a partition as one table, ``None`` for none: for the steps that
    need a partition whole (grouping, union-find)."""
    import pyarrow as pa

    batches = list(batches)
    return pa.Table.from_batches(batches) if batches else None


def _numbers(column, dtype) -> np.ndarray:
    """An Arrow column of numbers or booleans without nulls as a numpy array."""
    return np.asarray(column.to_numpy(zero_copy_only=False), dtype=dtype)


def _list_bounds(lists) -> bytes:
    """Where each list of an Arrow list column starts in its ``flatten()``, and the end, as
    little-endian i32 bytes: a null list is empty."""
    import pyarrow.compute as pc

    lengths = _numbers(pc.list_value_length(lists).fill_null(0), np.int64)
    return np.concatenate([[0], np.cumsum(lengths)]).astype("<i4").tobytes()


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
    the DataFrame's order: the order breaks ties only (between documents whose near
    documents weigh alike, with equal fingerprints). Returns ``(clusters, deduped)``: ``clusters`` has a
    row per member of a cluster of two or more, ``cluster`` (the leader's id), ``id``,
    ``position`` (0 for the leader, then 1, 2, .. in order) and ``order``; ``deduped`` is
    ``df`` without the members after the leaders: one document of each cluster, its
    leader (not what ``ingest --policy reject``, deciding in arrival order, keeps).

    ``settings`` are an index's (``MatchingSettings.read``), the library's defaults when
    ``None``. Settings whose candidates beyond *k* come from the fingerprints within a
    loose distance, instead of signature bands, are refused: that search has no grouping
    key. ``max_rounds`` bounds the rounds of the components (a chain of near-duplicates
    needs about the logarithm of its length).
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
        import pyarrow as pa

        m = _matcher(settings_json)
        for batch in batches:
            # The texts' UTF-8 goes to Rust from the Arrow buffers: no Python string a text.
            v = m.candidate_values(batch.column("text"))
            n = batch.num_rows
            out = pa.RecordBatch.from_arrays(
                [
                    batch.column("order"),
                    batch.column("id"),
                    pa.array(v.fingerprints.view(np.int64)),
                    _binary_rows(v.signatures, n),
                    pa.array(v.has_signature),
                    pa.ListArray.from_arrays(
                        pa.array(np.arange(n + 1, dtype=np.int32) * v.band_keys.shape[1]),
                        pa.array(v.band_keys.view(np.int32).reshape(-1)),
                    ),
                    pa.array(v.has_bands),
                ],
                names=["order", "id", "fp", "sig", "has_sig", "bands", "has_bands"],
            )
            # Most batches have no text without a fingerprint: no copy of the batch then.
            yield out if v.has_fingerprint.all() else out.filter(pa.array(v.has_fingerprint))

    vals = (
        docs.select(
            F.col("__order").alias("order"),
            F.col(id_column).cast("string").alias("id"),
            F.col(text_column).cast("string").alias("text"),
        )
        .mapInArrow(values, _VALUES)
        .localCheckpoint()
    )

    firsts, copies = _copies(vals)
    buckets = _BUCKETS_PER_PARTITION * int(df.sparkSession.conf.get("spark.sql.shuffle.partitions"))
    documents = vals.count()
    tables = _tables(k, documents)
    band_stage = bool(matcher.bands) and matcher.reach > k
    # Where the signatures decide, the pairs within k are candidates as well.
    decide = matcher.signatures_decide
    least = matcher.least_agreement if band_stage or decide else None
    # Beyond k, a pair is near only within the reach, sharing a band, its signatures
    # agreeing: candidates whose signatures cannot agree enough are dropped by one byte a
    # value, where they are paired when the bytes of every document fit a broadcast.
    broadcast = least is not None and documents * (sig_len + 9) <= _BROADCAST_DIGEST_BYTES
    digests = df.sparkSession.sparkContext.broadcast(_digest_table(vals, sig_len)) if broadcast else None
    # Every key row of a document (its table keys and, beyond k, its band keys) is shuffled
    # once, packed by bucket; each partition's groups are paired in Rust.
    found = (
        firsts.select("order", "fp", "bands", "has_bands")
        .mapInArrow(_key_rows(tables, band_stage, buckets), _PACKED)
        .repartition(buckets // _BUCKETS_PER_PARTITION, "bucket")
        .mapInArrow(_grouped_pairs(tables, k, matcher.reach, digests, sig_len, least, decide), _FOUND)
        # Candidates come from every band their documents share. The shuffle also gathers
        # the pairs into partitions of a useful size (adaptive execution coalesces them)
        # for the stages after.
        .dropDuplicates(["a", "b"])
        .localCheckpoint()
    )
    if digests is not None:
        # The pairs are checkpointed: the tasks need the table no more.
        digests.unpersist()
    # Two fingerprints within k agree on every block of one table: the tables find every
    # pair within k, near whatever their signatures unless the signatures decide.
    edges = found.filter("not candidate").select("a", "b", "distance")
    if band_stage or decide:
        candidates = found if decide else found.filter("candidate")
        candidates = candidates.select("a", "b", "distance")
        if decide:
            edges = None
        if least is not None and not broadcast:
            candidates = _may_agree(candidates, vals, sig_len, least, buckets)
        # Checkpointed: read for their documents' orders, then joined (`_may_agree`'s
        # shuffles run once).
        candidates = candidates.select("a", "b").localCheckpoint()
        side = vals.select("order", "fp", "sig", "has_sig")
        # Only the candidates' documents are joined: their orders, when few enough to go
        # to every task, filter the values where they are, before both joins shuffle them.
        needed = (
            candidates.select(F.explode(F.array("a", "b")).alias("order"))
            .distinct()
            .localCheckpoint()
        )
        if needed.count() <= _BROADCAST_ROWS:
            side = side.join(F.broadcast(needed), "order", "left_semi")
        candidates = (
            candidates.join(side.toDF("a", "fp_a", "sig_a", "has_sig_a"), "a")
            .join(side.toDF("b", "fp_b", "sig_b", "has_sig_b"), "b")
        )
        judged = candidates.mapInArrow(_judge(settings_json, sig_len), _EDGES)
        edges = judged if edges is None else edges.unionByName(judged)
    # Checkpointed: the components and the groups both read it.
    edges = _with_copies(edges, copies).localCheckpoint()
    labels = _components(edges, max_rounds)

    grouping = (settings if settings is not None else MatchingSettings()).grouping

    def leaders(batches):
        import pyarrow as pa

        from ._native import leader_rows

        for batch in batches:
            members, near = batch.column("members"), batch.column("near")
            orders, ids, fps, firsts = members.flatten().flatten()
            a, b, distance = near.flatten().flatten()
            leader, member, position = leader_rows(
                _list_bounds(members), _numbers(orders, "<i8").tobytes(),
                _numbers(fps, "<i8").tobytes(), _numbers(firsts, "<i8").tobytes(),
                _list_bounds(near), _numbers(a, "<i8").tobytes(), _numbers(b, "<i8").tobytes(),
                _numbers(distance, "<u4").tobytes(), grouping,
            )
            leader, member = np.frombuffer(leader, "<u4"), np.frombuffer(member, "<u4")
            if len(member):
                yield pa.RecordBatch.from_arrays(
                    [
                        ids.take(pa.array(leader)),
                        ids.take(pa.array(member)),
                        pa.array(np.frombuffer(position, "<u4").astype(np.int32)),
                        orders.take(pa.array(member)),
                    ],
                    names=["cluster", "id", "position", "order"],
                )

    nodes = (
        labels.join(vals.select("order", "id", "fp"), labels["v"] == vals["order"])
        .join(copies, "order", "left")
        .withColumn("first", F.coalesce("first", "order"))
        .groupBy(F.col("label").alias("component"))
        .agg(F.collect_list(F.struct("order", "id", "fp", "first")).alias("members"))
    )
    near_by_component = (
        edges.join(labels, edges["a"] == labels["v"])
        .groupBy(F.col("label").alias("component"))
        .agg(F.collect_list(F.struct("a", "b", "distance")).alias("near"))
    )
    # One row a component, many components a batch: a Python call a batch, not a
    # component.
    clusters = (
        nodes.join(near_by_component, "component", "left")
        .mapInArrow(leaders, _CLUSTERS)
        .localCheckpoint()
    )
    rejected = clusters.filter("position > 0").select(F.col("order").alias("__order"))
    deduped = docs.join(rejected, "__order", "left_anti").drop("__order")
    return clusters, deduped


def _copies(vals):
    """``(firsts, copies)``: the values of the documents whose fingerprint and signature
    are no earlier document's, and the others as ``(order, first)``, ``first`` the order
    of the earliest document with their values.

    A copy is near the documents its first is near, at the same distances, so its pairs
    need not be searched: it is grouped with its first (``_with_copies``). A page repeated
    ten thousand times would otherwise put ten thousand documents in every key of its
    fingerprint and bands, 50 million pairs each. Only documents whose fingerprint is
    shared are compared by signature, so the common case shuffles fingerprints alone."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    shared = vals.groupBy("fp").count().filter("count > 1").select("fp").localCheckpoint()
    copies = (
        vals.join(_broadcast_if_small(shared), "fp", "left_semi")
        .select(
            "order",
            F.min("order").over(Window.partitionBy("fp", "sig", "has_sig")).alias("first"),
        )
        .filter("order != first")
        .localCheckpoint()
    )
    firsts = vals.join(_broadcast_if_small(copies.select("order")), "order", "left_anti")
    return firsts, copies


#: Rows of a checkpointed frame up to which a join sends it whole to every task instead of
#: shuffling the other side (about 16 bytes a row).
_BROADCAST_ROWS = 2_000_000


def _broadcast_if_small(frame):
    """``frame`` (checkpointed: its count is cheap), marked for broadcast when it has at most
    ``_BROADCAST_ROWS`` rows, so that joining the values with it filters them where they
    are; a larger one (a corpus mostly of copies) is joined by shuffling both sides."""
    from pyspark.sql import functions as F

    return F.broadcast(frame) if frame.count() <= _BROADCAST_ROWS else frame


def _with_copies(edges, copies):
    """``edges`` (near pairs of first documents) with a pair ``(first, copy, 0)`` for each
    copy: enough to put a copy in its first's component, where ``leader_rows`` groups it
    with its first (the copies' other pairs are their first's, so they are not listed:
    a thousand copies of a page near ten others add a thousand pairs, not ten
    thousand)."""
    from pyspark.sql import functions as F

    of_first = copies.select(
        F.col("first").alias("a"), F.col("order").alias("b"), F.lit(0).alias("distance")
    )
    return edges.unionByName(of_first)


def _packed_batch(present: bytes, bounds: bytes, rows: bytes, side: int):
    """The ``_PACKED`` batch of rows packed by bucket in Rust: the buckets (little-endian
    i32), the byte offsets of each one's rows and the end (i32), and the rows. Shuffling a
    few large values instead of a row each takes Spark's cost per row (a row object, its
    share of the sort) off every key and pair."""
    import pyarrow as pa

    buckets = np.frombuffer(present, dtype="<i4")
    values = pa.Array.from_buffers(
        pa.binary(), len(buckets), [None, pa.py_buffer(bounds), pa.py_buffer(rows)]
    )
    return pa.RecordBatch.from_arrays(
        [pa.array(buckets, pa.int32()), pa.array(np.full(len(buckets), side, dtype=np.int8)), values],
        names=["bucket", "side", "rows"],
    )


def _pairs_batch(a, b, distance, **extra):
    """The Arrow batch of pairs the Rust stages give (little-endian i64 ``a`` and ``b``, u32
    distances, as bytes or arrays), with ``extra`` columns: ``_EDGES`` rows and more."""
    import pyarrow as pa

    columns = {
        "a": pa.array(np.frombuffer(a, dtype="<i8")),
        "b": pa.array(np.frombuffer(b, dtype="<i8")),
        "distance": pa.array(np.frombuffer(distance, dtype="<u4").astype(np.int32)),
        **{name: pa.array(values) for name, values in extra.items()},
    }
    return pa.RecordBatch.from_arrays(list(columns.values()), names=list(columns))


def _unpacked(rows, side: int) -> bytes:
    """The packed rows of ``side`` in a partition's ``_PACKED`` rows (a table, or ``None``),
    end to end, for the Rust stage that reads them."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if rows is None:
        return b""
    values = rows.filter(pc.equal(rows.column("side"), side)).column("rows")
    values = values.combine_chunks() if values.num_chunks else pa.array([], pa.binary())
    if len(values) == 0:
        return b""
    _, offsets, data = values.buffers()
    offsets = np.frombuffer(offsets, dtype=np.int32)[values.offset : values.offset + len(values) + 1]
    return data.slice(int(offsets[0]), int(offsets[-1] - offsets[0])).to_pybytes()


def _key_rows(tables: list, band_stage: bool, buckets: int):
    """The ``mapInArrow`` function that turns documents (``order``, ``fp``, ``bands``,
    ``has_bands``) into their key rows, packed by bucket in Rust (``pack_key_rows``): a
    row a table of Manku et al. (kinds ``0 .. len(tables)``, the key the table's blocks of
    the fingerprint) and, with ``band_stage``, a row a signature band (the kinds after, for
    documents with bands)."""

    def key_rows(batches):
        from ._native import pack_key_rows

        for batch in batches:
            n = batch.num_rows
            if n == 0:
                continue
            bands, has, width = np.zeros(0, dtype="<i4"), np.zeros(n, dtype=np.uint8), 0
            if band_stage:
                has = _numbers(batch.column("has_bands"), np.uint8)
                bands = _numbers(batch.column("bands").flatten(), "<i4")
                width = len(bands) // n
                if len(bands) != n * width:
                    raise ValueError("documents with unequal numbers of band keys")
            order, fp = (_numbers(batch.column(c), "<i8") for c in ("order", "fp"))
            packed = pack_key_rows(
                np.ascontiguousarray(order).tobytes(),
                np.ascontiguousarray(fp).tobytes(),
                np.ascontiguousarray(bands).tobytes(),
                np.ascontiguousarray(has).tobytes(),
                width,
                tables,
                buckets,
            )
            yield _packed_batch(*packed, 0)

    return key_rows


def _grouped_pairs(
    tables: list,
    k: int,
    reach: int,
    digests=None,
    sig_len: int = 0,
    least: Optional[int] = None,
    decide: bool = False,
):
    """The ``mapInArrow`` function that pairs a partition's key rows (``_key_rows`` of
    ``tables``, shuffled by bucket): rows sharing a table key within ``k`` bits are near
    (``candidate`` false; a pair only in the group of the first table whose key it shares,
    so once in the whole job), rows sharing a band key ``k + 1`` to ``reach`` bits apart are
    candidates (once for each band they share), kept only where they may agree on
    ``least`` values when ``digests`` (a broadcast ``_digest_table`` of ``sig_len``-byte
    digests) is given; where the signatures ``decide``, the pairs within ``k`` are kept by
    that test too. A group of *m* documents makes *m* (*m* - 1) / 2 pairs in the
    partition's memory (5,000 documents: 12.5 million, 300 MB); copies of one document's
    values count once (``_copies``)."""

    def grouped_pairs(batches):
        from ._native import packed_pairs

        rows = _unpacked(_partition_rows(batches), 0)
        if not rows:
            return
        pairs = packed_pairs(rows, tables, k, reach)
        judged = b"\x01" * (len(pairs[3])) if decide else pairs[3]
        keep = _kept_candidates(digests.value, sig_len, *pairs[:2], judged, least) if digests is not None else None
        a, b = np.frombuffer(pairs[0], "<i8"), np.frombuffer(pairs[1], "<i8")
        distance, candidate = np.frombuffer(pairs[2], "<u4"), np.frombuffer(pairs[3], np.uint8).astype(bool)
        if keep is not None:
            a, b, distance, candidate = a[keep], b[keep], distance[keep], candidate[keep]
        yield _pairs_batch(a, b, distance, candidate=candidate)

    return grouped_pairs


def _kept_candidates(table, sig_len: int, a, b, candidate, least: int) -> np.ndarray:
    """Which pairs ``(a, b)`` (i64 arrays or their little-endian bytes) to keep, by a
    ``_digest_table``: those that are no ``candidate``, those whose digests agree on
    ``least`` positions or more, and those with a document without a signature (the judge
    rules on them), by the rule of ``_may_agree`` (``kept_candidates`` in Rust)."""
    from ._native import kept_candidates

    def raw(values, dtype):
        return values if isinstance(values, bytes) else np.ascontiguousarray(values, dtype=dtype).tobytes()

    keep = kept_candidates(*table, sig_len, raw(a, "<i8"), raw(b, "<i8"), raw(candidate, np.uint8), least)
    return np.frombuffer(keep, dtype=np.uint8).astype(bool)


def _digest_table(vals, sig_len: int):
    """Every document's digest (``_digest``) and whether it has a signature, by order, for
    ``_kept_candidates``: ``(orders, usable, digests)`` as little-endian bytes, ascending by
    order, collected to the driver (9 bytes and a byte a signature value a document).
    Plain bytes: a broadcast is unpickled where the job's classes may not be importable
    (``python -m``), and Rust reads bytes where they are."""

    def digests(batches):
        import pyarrow as pa

        for batch in batches:
            n = batch.num_rows
            rows = _digest(_fixed_rows(batch.column("sig"), sig_len))
            yield pa.RecordBatch.from_arrays(
                [batch.column("order"), batch.column("has_sig"), _binary_rows(rows, n)],
                names=["order", "usable", "digest"],
            )

    table = (
        vals.select("order", "sig", "has_sig")
        .mapInArrow(digests, "order long, usable boolean, digest binary")
        .toArrow()
    )
    orders = _numbers(table.column("order"), np.int64)
    by_order = np.argsort(orders, kind="stable")
    usable = _numbers(table.column("usable"), bool)
    rows = _fixed_rows(table.column("digest"), sig_len, np.uint8)
    return (
        np.ascontiguousarray(orders[by_order], dtype="<i8").tobytes(),
        np.ascontiguousarray(usable[by_order], dtype=np.uint8).tobytes(),
        np.ascontiguousarray(rows[by_order]).tobytes(),
    )


def _digest(signatures: np.ndarray) -> np.ndarray:
    """A byte per signature value, equal where the values are: where two digests differ,
    the values do, so the digests' equal positions bound the values' from above."""
    return ((signatures.astype(np.uint32) * np.uint32(0x9E37_79B1)) >> np.uint32(24)).astype(
        np.uint8
    )


def _may_agree(candidates, vals, sig_len: int, least: int, buckets: int):
    """The candidate pairs ``(a, b, distance)`` whose signatures may agree on ``least``
    positions or more (or that lack a signature, which the judge rules on): the others
    cannot be near. Each pair meets a byte a value of each signature (``_digest``) in two
    shuffles, by ``a`` then by ``b``, a quarter of the bytes of the signatures that the
    survivors are joined with after; the pairs are packed, given their first's digest and
    kept in Rust (``pack_by_order``, ``pack_pairs``, ``attach_digests``,
    ``agreeing_pairs``)."""
    digest_row = np.dtype([("order", "<i8"), ("usable", "u1"), ("digest", "u1", (sig_len,))])
    partitions = buckets // _BUCKETS_PER_PARTITION

    def digests(batches):
        from ._native import pack_by_order

        for batch in batches:
            rows = np.empty(batch.num_rows, dtype=digest_row)
            rows["order"] = _numbers(batch.column("order"), np.int64)
            rows["usable"] = _numbers(batch.column("has_sig"), bool)
            rows["digest"] = _digest(_fixed_rows(batch.column("sig"), sig_len))
            if len(rows):
                yield _packed_batch(*pack_by_order(rows.tobytes(), digest_row.itemsize, buckets), 0)

    def pairs_by_a(batches):
        from ._native import pack_pairs

        for batch in batches:
            if batch.num_rows:
                columns = [
                    np.ascontiguousarray(_numbers(batch.column(c), t)).tobytes()
                    for c, t in (("a", "<i8"), ("b", "<i8"), ("distance", "<u4"))
                ]
                yield _packed_batch(*pack_pairs(*columns, buckets), 1)

    def sides(batches):
        """A partition's digest rows and its rows of side 1, as bytes."""
        rows = _partition_rows(batches)
        return (_unpacked(rows, side) for side in (0, 1))

    def with_a(batches):
        from ._native import attach_digests

        table, pairs = sides(batches)
        if pairs:
            yield _packed_batch(*attach_digests(table, pairs, sig_len, buckets), 1)

    def agreeing(batches):
        from ._native import agreeing_pairs

        table, carried = sides(batches)
        if carried:
            yield _pairs_batch(*agreeing_pairs(table, carried, sig_len, least))

    signatures = vals.select("order", "sig", "has_sig").mapInArrow(digests, _PACKED)
    carried = (
        signatures.unionByName(candidates.mapInArrow(pairs_by_a, _PACKED))
        .repartition(partitions, "bucket")
        .mapInArrow(with_a, _PACKED)
    )
    return (
        signatures.unionByName(carried)
        .repartition(partitions, "bucket")
        .mapInArrow(agreeing, _EDGES)
    )


def _judge(settings_json: Optional[str], sig_len: int):
    """The ``mapInArrow`` function that keeps the candidate pairs (``a``, ``b``, their
    ``fp_``, ``sig_`` and ``has_sig_`` values) the rule calls near, as ``_EDGES`` rows."""

    def judge(batches):
        import pyarrow as pa

        m = _matcher(settings_json)
        for batch in batches:
            n = batch.num_rows
            if n == 0:
                continue

            def values_of(suffix):
                return CandidateValues(
                    fingerprints=_numbers(batch.column(f"fp_{suffix}"), np.int64).view(np.uint64),
                    has_fingerprint=np.ones(n, dtype=bool),
                    signatures=_fixed_rows(batch.column(f"sig_{suffix}"), sig_len),
                    has_signature=_numbers(batch.column(f"has_sig_{suffix}"), bool),
                    band_keys=np.zeros((n, 0), dtype=np.uint32),
                    has_bands=np.zeros(n, dtype=bool),
                )

            near, distance, _ = m.judge_pairs(values_of("a"), values_of("b"))
            keep = pa.array(near)
            yield pa.RecordBatch.from_arrays(
                [
                    batch.column("a").filter(keep),
                    batch.column("b").filter(keep),
                    pa.array(distance[near].astype(np.int32)),
                ],
                names=["a", "b", "distance"],
            )

    return judge


#: Edges up to which the components are found in one task: a union-find over all the
#: edges is the whole answer, where each round over many partitions pays two shuffles and
#: a check (the task holds about 40 bytes an edge).
_ONE_TASK_EDGES = 4_000_000


def _components(edges, max_rounds: int, one_task_edges: int = _ONE_TASK_EDGES):
    """``(v, label)``: every vertex of ``edges`` with the least vertex of its connected
    component: by one task's union-find for at most ``one_task_edges`` edges, else by rounds
    of local contraction (hash-to-min, each partition contracted whole by a union-find).

    The graph is kept as stars, ``(x, r)`` with ``r < x``. A round sends every star edge to
    the partitions of both its ends, so that a vertex's partition holds all its edges; each
    partition replaces the components of the edges it holds by stars on their least vertex
    (``local_roots``). Connectivity is kept (a component is replaced by a star on the same
    vertices), and the neighbours of a vertex meet at one root, so a path about halves each
    round. The rounds end when the stars are a forest: each vertex the leaf of at most one
    star, no root a leaf."""
    from pyspark.sql import functions as F

    def contract(batches):
        import pyarrow as pa

        from ._native import local_roots

        rows = _partition_rows(batches)
        if rows is None:
            return
        x, r = (np.ascontiguousarray(_numbers(rows.column(c), np.int64)) for c in ("x", "r"))
        leaves, roots = local_roots(x.tobytes(), r.tobytes())
        yield pa.RecordBatch.from_arrays(
            [pa.array(np.frombuffer(leaves, "<i8")), pa.array(np.frombuffer(roots, "<i8"))],
            names=["x", "r"],
        )

    def labels(stars):
        return stars.select(F.col("x").alias("v"), F.col("r").alias("label")).unionByName(
            stars.select(F.col("r").alias("v"), F.col("r").alias("label")).distinct()
        )

    stars = edges.select(F.col("b").alias("x"), F.col("a").alias("r")).localCheckpoint()
    if stars.count() <= one_task_edges:
        # All the edges in one partition: its stars are a forest at once.
        return labels(stars.repartition(1).mapInArrow(contract, "x long, r long").localCheckpoint())
    for _ in range(max_rounds):
        routed = stars.select(F.col("x").alias("at"), "x", "r").unionByName(
            stars.select(F.col("r").alias("at"), "x", "r")
        )
        stars = (
            routed.repartition("at")
            .mapInArrow(contract, "x long, r long")
            .distinct()
            .localCheckpoint()
        )
        if _settled(stars):
            return labels(stars)
    raise RuntimeError(
        f"the near-duplicate components did not settle in {max_rounds} rounds: raise max_rounds"
    )


def _settled(stars) -> bool:
    """Whether the distinct stars ``(x, r)`` are a forest of stars: each vertex the leaf of
    at most one, no root a leaf."""
    from pyspark.sql import functions as F

    roles = stars.select(F.col("x").alias("v"), F.lit(1).alias("leaf")).unionByName(
        stars.select(F.col("r").alias("v"), F.lit(0).alias("leaf"))
    )
    tangled = (
        roles.groupBy("v")
        .agg(F.sum("leaf").alias("leaf"), F.count(F.lit(1)).alias("roles"))
        .filter("leaf > 1 or (leaf = 1 and roles > 1)")
    )
    return tangled.limit(1).count() == 0


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
    parser.add_argument(
        "--schema",
        help="the input's schema as a DDL string (e.g. 'id string, text string'): JSON lines "
        "are then read once, not first scanned whole to infer it; columns it leaves out are "
        "not read (nor written to deduped/)",
    )
    parser.add_argument("--id-column", default="id")
    parser.add_argument("--text-column", default="text")
    parser.add_argument("--master", default=os.environ.get("SPARK_MASTER", "local[*]"))
    args = parser.parse_args(argv)

    fmt = args.format or ("parquet" if args.input.rstrip("/").endswith(".parquet") else "json")
    settings = MatchingSettings.read(args.settings) if args.settings else None
    spark = session(args.master)
    try:
        reader = spark.read.schema(args.schema) if args.schema else spark.read
        df = (reader.parquet if fmt == "parquet" else reader.json)(args.input)
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


def session(master: str = "local[*]", ui: bool = False):
    """A Spark session whose Python workers run this interpreter (and so this package);
    with ``ui``, its web UI and REST API (on loopback in local mode). The environment sets
    ``SPARK_SHUFFLE_PARTITIONS`` (8) and ``SPARK_DRIVER_MEMORY`` (4g: local mode's executor
    heap), read when the first session starts."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    # Local mode talks to itself only: on loopback, whatever the host name resolves to.
    if master.startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    return (
        SparkSession.builder.master(master)
        .appName("tantivy-dedup")
        .config("spark.sql.shuffle.partitions", os.environ.get("SPARK_SHUFFLE_PARTITIONS", "8"))
        # Local mode runs the executor in the driver's JVM, whose default heap (1 GB) the
        # candidate pairs of a million documents outgrow.
        .config("spark.driver.memory", os.environ.get("SPARK_DRIVER_MEMORY", "4g"))
        .config("spark.ui.enabled", "true" if ui else "false")
        .getOrCreate()
    )


if __name__ == "__main__":
    sys.exit(main())
