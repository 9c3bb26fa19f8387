"""tantivy-dedup from Python: SimHash fingerprints, MinHash signatures and near-duplicate
verdicts of many texts at once, computed in Rust on every core with the GIL released,
exactly as a tantivy-dedup index with the same settings computes them.

>>> from tantivy_dedup import MatchingSettings, TextMatcher
>>> matcher = TextMatcher()                      # the library's default settings
>>> fps = matcher.fingerprints(["a text", "another text", ""])
>>> fps.values.dtype, fps.valid.tolist()
(dtype('uint64'), [True, True, False])
>>> matcher.judge("the same words here", "the same words here")["near"]
True
"""

from __future__ import annotations

import json
import os
from collections import abc
from dataclasses import dataclass
from typing import Iterable, Mapping, Optional, Union

import numpy as np

from ._native import CorpusIndex as _NativeCorpusIndex
from ._native import DedupError, MatchingSettings
from ._native import FingerprintIndex as _NativeFingerprintIndex
from ._native import TextMatcher as _NativeTextMatcher
from ._native import pairs_sharing_keys as _native_pairs_sharing_keys

__all__ = [
    "CandidateValues",
    "CorpusIndex",
    "DedupError",
    "FingerprintIndex",
    "Fingerprints",
    "MatchingSettings",
    "Signatures",
    "TextMatcher",
    "hamming",
    "pairs_sharing_keys",
]


@dataclass(frozen=True)
class Fingerprints:
    """64-bit fingerprints of texts, in input order.

    ``values[i]`` is the fingerprint of text ``i`` where ``valid[i]``; a text without
    features (empty, or only punctuation) has none, and is never a near-duplicate.
    """

    values: np.ndarray  # uint64, shape (n,)
    valid: np.ndarray  # bool, shape (n,)


@dataclass(frozen=True)
class Signatures:
    """Fingerprints and MinHash signatures of texts, in input order.

    ``signatures[i]`` (``signature_len`` uint32 values) belongs to text ``i`` where
    ``valid[i]``; rows of texts without features are zeros. ``fingerprints`` is ``None``
    when they were not asked for (``TextMatcher.signatures(texts, fingerprints=False)``).
    """

    fingerprints: Optional[np.ndarray]  # uint64, shape (n,)
    signatures: np.ndarray  # uint32, shape (n, signature_len)
    valid: np.ndarray  # bool, shape (n,)


@dataclass(frozen=True)
class CandidateValues:
    """What a batch job groups and judges texts by, in input order (see
    ``TextMatcher.candidate_values``).

    ``band_keys[i]`` (``bands`` uint32 values) holds text ``i``'s signature's band keys
    where ``has_bands[i]``: two texts whose keys agree at one band are candidates, as in an
    index's band tables. Rows of texts without a fingerprint, signature or band keys are
    zeros.
    """

    fingerprints: np.ndarray  # uint64, shape (n,)
    has_fingerprint: np.ndarray  # bool, shape (n,)
    signatures: np.ndarray  # uint32, shape (n, signature_len)
    has_signature: np.ndarray  # bool, shape (n,)
    band_keys: np.ndarray  # uint32, shape (n, bands)
    has_bands: np.ndarray  # bool, shape (n,)


def _texts(texts: Iterable[str]) -> list:
    """``texts`` as a list of str; ``TypeError`` for one that is not a str, and for a
    single str or bytes given where a sequence of texts is expected (iterating it would
    make a text of each character)."""
    _not_one_text(texts, "texts")
    texts = list(texts)
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"text {i} is {type(text).__name__}, not str")
    return texts


def _not_one_text(batch, what: str) -> None:
    """``TypeError`` when ``batch``, which should be a sequence, is one str or bytes."""
    if isinstance(batch, (str, bytes, bytearray, memoryview)):
        raise TypeError(
            f"{what} must be a sequence of texts, not a single {type(batch).__name__} "
            f"(wrap it in a list: [text])"
        )


#: The largest id of a ``FingerprintIndex``: ids are u32.
_MAX_ID = 2**32 - 1


def _id(id) -> int:
    """``id`` as an int of ``FingerprintIndex``'s range; ``OverflowError`` outside it."""
    value = int(id)
    if not 0 <= value <= _MAX_ID:
        raise OverflowError(f"id {value} is outside the ids' range 0..={_MAX_ID} (u32)")
    return value


def _ids(ids) -> np.ndarray:
    """``ids`` as little-endian u32, checked before anything is converted:
    ``OverflowError`` naming the position of the first id outside ``0..=2**32 - 1``."""
    array = np.asarray(ids)
    if array.dtype.kind not in "iu":
        # Python ints beyond 64 bits, floats, bools: one at a time, as `insert` takes them.
        array = np.array([int(x) for x in array.ravel()], dtype=object).reshape(array.shape)
    if array.size:
        outside = np.flatnonzero(((array < 0) | (array > _MAX_ID)).ravel())
        if outside.size:
            at = int(outside[0])
            raise OverflowError(
                f"ids[{at}] = {array.ravel()[at]} is outside the ids' range "
                f"0..={_MAX_ID} (u32); nothing was inserted"
            )
    return np.ascontiguousarray(array, dtype="<u4")


def _arrow_utf8(texts):
    """``(offsets, data)`` of a pyarrow string array: little-endian i64 offsets from 0 and
    the UTF-8 they index, as bytes; ``None`` when ``texts`` is not a pyarrow array."""
    if type(texts).__module__.split(".")[0] != "pyarrow" or not hasattr(texts, "type"):
        return None
    import pyarrow as pa

    if isinstance(texts, pa.ChunkedArray):
        texts = texts.combine_chunks() if texts.num_chunks else pa.array([], pa.string())
    if pa.types.is_large_string(texts.type):
        width = np.int64
    elif pa.types.is_string(texts.type):
        width = np.int32
    else:
        raise TypeError(f"texts is a pyarrow array of {texts.type}, not of strings")
    if texts.null_count:
        texts = texts.fill_null("")
    n = len(texts)
    if n == 0:
        return np.zeros(1, dtype="<i8").tobytes(), b""
    _, offsets, data = texts.buffers()
    offsets = np.frombuffer(offsets, dtype=width)[texts.offset : texts.offset + n + 1]
    start, end = int(offsets[0]), int(offsets[-1])
    data = data.slice(start, end - start).to_pybytes() if data is not None else b""
    return (offsets.astype("<i8") - start).tobytes(), data


class TextMatcher:
    """Fingerprints, signatures and verdicts under one set of matching settings.

    ``settings`` defaults to the library's (``MatchingSettings()``); read an index's or
    ``eval --recommend``'s file with ``MatchingSettings.read(path)``.
    """

    def __init__(self, settings: Optional[MatchingSettings] = None) -> None:
        self._native = _NativeTextMatcher(settings)
        self.settings = settings if settings is not None else MatchingSettings()

    @property
    def signature_len(self) -> Optional[int]:
        """Values per signature; ``None`` without two-stage matching."""
        return self._native.signature_len

    def fingerprints(self, texts: Iterable[str]) -> Fingerprints:
        """The fingerprints of ``texts``, computed on every core."""
        values, valid = self._native.fingerprints(_texts(texts))
        return Fingerprints(
            values=np.frombuffer(values, dtype="<u8"),
            valid=np.frombuffer(valid, dtype=np.uint8).astype(bool),
        )

    def signatures(self, texts: Iterable[str], *, fingerprints: bool = True) -> Signatures:
        """The fingerprints and signatures of ``texts``, computed on every core; ``valid``
        says a text has both.

        With ``fingerprints=False``, the signatures alone (about two thirds of the work on
        English text), ``fingerprints`` is ``None`` and ``valid`` says a text has
        shingles; the signatures are those of the default call wherever that one has them.

        Raises ``DedupError`` when the settings have no two-stage matching.
        """
        fps = None
        if fingerprints:
            fps, signatures, valid = self._native.fingerprints_and_signatures(_texts(texts))
            fps = np.frombuffer(fps, dtype="<u8")
        else:
            signatures, valid = self._native.signatures(_texts(texts))
        n = len(valid)
        return Signatures(
            fingerprints=fps,
            signatures=np.frombuffer(signatures, dtype="<u4").reshape(n, self.signature_len or 0),
            valid=np.frombuffer(valid, dtype=np.uint8).astype(bool),
        )

    @property
    def distance(self) -> int:
        """The distance *k*: fingerprints within it are near-duplicates, or, where the
        signatures decide, candidates judged by them."""
        return self._native.distance

    @property
    def signatures_decide(self) -> bool:
        """Whether the signatures decide the pairs within *k* too (the rule of settings
        format 6 and later): a pair is near only when its signatures agree up to the
        threshold, whatever its distance. ``False`` without two-stage matching."""
        return self._native.signatures_decide

    @property
    def reach(self) -> int:
        """The largest Hamming distance at which a pair can be near-duplicates: the
        verification's candidate distance, else *k*."""
        return self._native.reach

    @property
    def bands(self) -> Optional[tuple]:
        """``(bands, rows)`` of the candidate stage when pairs beyond *k* become candidates
        by sharing a signature band; ``None`` otherwise."""
        return self._native.bands

    @property
    def least_agreement(self) -> Optional[int]:
        """The fewest signature positions on which a pair the signatures judge (beyond *k*,
        or at any distance where they decide) must agree to be near-duplicates (``signature_len + 1`` when none can be): a pair with an upper
        bound on its agreement below it is not near. ``None`` without two-stage matching,
        or when the score is containment."""
        return self._native.least_agreement

    def candidate_values(self, texts) -> CandidateValues:
        """Fingerprints, signatures and band keys of ``texts`` in one pass on every core:
        what a job that finds pairs by grouping (on band keys and fingerprint blocks) needs,
        and what ``judge_pairs`` takes back.

        ``texts`` is an iterable of str, or a pyarrow string array (``string`` or
        ``large_string``, chunked or not; a null is an empty text), whose UTF-8 is read from
        its buffers without making a Python string per text."""
        utf8 = _arrow_utf8(texts)
        if utf8 is not None:
            native = self._native.candidate_values_utf8(*utf8)
        else:
            native = self._native.candidate_values(_texts(texts))
        fps, has_fp, sigs, has_sig, keys, has_bands = native
        n = len(has_fp)
        bands = self.bands[0] if self.bands else 0
        return CandidateValues(
            fingerprints=np.frombuffer(fps, dtype="<u8"),
            has_fingerprint=np.frombuffer(has_fp, dtype=np.uint8).astype(bool),
            signatures=np.frombuffer(sigs, dtype="<u4").reshape(n, self.signature_len or 0),
            has_signature=np.frombuffer(has_sig, dtype=np.uint8).astype(bool),
            band_keys=np.frombuffer(keys, dtype="<u4").reshape(n, bands),
            has_bands=np.frombuffer(has_bands, dtype=np.uint8).astype(bool),
        )

    def judge_pairs(self, a: CandidateValues, b: CandidateValues):
        """Verdicts on the pairs ``(a[i], b[i])`` by their values (rows of two
        ``CandidateValues`` of equal length), as an index judges its candidates: three
        arrays, ``near`` (bool), ``distance`` (uint32; 2**32 - 1 without fingerprints) and
        ``similarity`` (float64, the signatures' agreement; NaN without)."""

        def side(v: CandidateValues):
            return (
                np.ascontiguousarray(v.fingerprints, dtype="<u8").tobytes(),
                np.ascontiguousarray(v.has_fingerprint, dtype=np.uint8).tobytes(),
                np.ascontiguousarray(v.signatures, dtype="<u4").tobytes(),
                np.ascontiguousarray(v.has_signature, dtype=np.uint8).tobytes(),
            )

        near, distance, similarity = self._native.judge_pairs(*side(a), *side(b))
        return (
            np.frombuffer(near, dtype=np.uint8).astype(bool),
            np.frombuffer(distance, dtype="<u4"),
            np.frombuffer(similarity, dtype="<f8"),
        )

    def judge(self, a: str, b: str) -> dict:
        """Whether ``a`` and ``b`` are near-duplicates under these settings, and why.

        Keys: ``near``, ``distance`` (Hamming, or ``None``), ``jaccard`` (with two-stage
        matching), ``reason`` (``within-distance``, ``verified``, ``below-threshold``,
        ``no-shared-band``, ``beyond-reach``, ``no-signature``, ``no-fingerprint``) and the
        reason's figures (``k``, ``reach``, ``rows``, ``score``, ``threshold``).
        """
        return self._native.judge(a, b)


class FingerprintIndex:
    """Fingerprints by id (u32), for exact lookups within a Hamming distance (Manku et
    al.'s permuted block tables; a query beyond ``max_distance`` scans).

    >>> index = FingerprintIndex()
    >>> index.extend(np.array([1, 2, 3]), np.array([0b0, 0b111, 0b1111_0000], dtype=np.uint64))
    >>> index.query(0b1)
    [(1, 1), (2, 2)]
    >>> a, b, d = index.all_pairs()
    >>> list(zip(a.tolist(), b.tolist(), d.tolist()))
    [(1, 2, 3)]
    """

    def __init__(self, max_distance: int = 3) -> None:
        self._native = _NativeFingerprintIndex(max_distance)

    def __len__(self) -> int:
        return len(self._native)

    def insert(self, id: int, fingerprint: int) -> Optional[int]:
        """Inserts or replaces ``id``'s fingerprint; the replaced one, if any.

        Raises ``OverflowError`` for an id outside ``0..=2**32 - 1``."""
        return self._native.insert(_id(id), int(fingerprint))

    def extend(self, ids, fingerprints) -> None:
        """Inserts many: ``ids`` (u32, as in ``insert``) and ``fingerprints`` (u64), as
        many of each.

        All or nothing: raises ``OverflowError`` naming the position of the first id
        outside ``0..=2**32 - 1``, and ``DedupError`` when the lengths differ, before
        inserting any."""
        ids = _ids(ids)
        fingerprints = np.ascontiguousarray(fingerprints, dtype="<u8")
        self._native.extend_bytes(ids.tobytes(), fingerprints.tobytes())

    def remove(self, id: int) -> bool:
        """Removes ``id``; whether it was there. ``OverflowError`` as in ``insert``."""
        return self._native.remove(_id(id))

    def get(self, id: int) -> Optional[int]:
        """The fingerprint of ``id``, if any. ``OverflowError`` as in ``insert``."""
        return self._native.get(_id(id))

    def query(self, fingerprint: int, k: Optional[int] = None) -> list:
        """``(id, distance)`` of every fingerprint within ``k`` bits, nearest first."""
        return self._native.query(int(fingerprint), k)

    def groups(self, k: Optional[int] = None, *, singletons: bool = False) -> list:
        """The groups of near-duplicates: ids whose fingerprints are linked by steps of at
        most ``k`` bits (default: ``max_distance``), the connected components of the pairs
        ``all_pairs`` lists. The recommended way to find near-duplicates in the index.

        A list of uint32 arrays, each group's ids ascending, the groups by their least id;
        ids in no pair are left out unless ``singletons``. The pairs are never listed: ids
        of equal fingerprints join at once and each distinct fingerprint is queried once,
        a few thousand at a time, so the memory is that of the ids, however many pairs
        there are (20,000 equal fingerprints are one group, not 200 million pairs)."""
        ids, offsets = self._native.groups_bytes(k, singletons)
        ids = np.frombuffer(ids, dtype="<u4")
        offsets = np.frombuffer(offsets, dtype="<u8").astype(np.intp)
        return [ids[start:end] for start, end in zip(offsets[:-1], offsets[1:])]

    def all_pairs(self, k: Optional[int] = None):
        """Every pair within ``k`` bits as three uint32 arrays ``a < b``, ``distance``.

        Every pair is built at once, in about 36 bytes a pair at its peak: ``n`` ids of
        one fingerprint make ``n (n - 1) / 2`` pairs (20,000 make 200 million, about 7 GB).
        Prefer ``groups`` unless the pairs themselves are needed."""
        a, b, d = self._native.all_pairs_bytes(k)
        return tuple(np.frombuffer(x, dtype="<u4") for x in (a, b, d))


class CorpusIndex:
    """An index folder of the ``tantivy-dedup`` command-line tool, from Python.

    The folder is the one ``tantivy-dedup ingest --index DIR`` makes: the CLI searches what
    Python ingested and the other way round. Records are dicts with ``id`` and ``text``
    (or ``body``), and optionally ``title``, ``url`` and ``tags``, as the CLI's JSON lines.

    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> index = CorpusIndex.open_or_create(folder)
    >>> page = "the council approved the harbour ferry timetable for the winter season"
    >>> report = index.ingest([{"id": "a", "text": page}, {"id": "b", "text": page}])
    >>> [(line["id"], line["status"]) for line in report]
    [('a', 'added'), ('b', 'duplicate')]
    >>> report[1]["duplicate_of"], report[1]["action"]
    ('a', 'rejected')
    >>> [hit["id"] for hit in index.search("harbour")["hits"]]
    ['a']
    """

    def __init__(self, native: _NativeCorpusIndex) -> None:
        self._native = native

    @staticmethod
    def open(path: Union[str, os.PathLike]) -> "CorpusIndex":
        """Opens the index in ``path`` with the settings it was created with."""
        return CorpusIndex(_NativeCorpusIndex.open(os.fspath(path)))

    @staticmethod
    def open_or_create(
        path: Union[str, os.PathLike], settings: Optional[MatchingSettings] = None
    ) -> "CorpusIndex":
        """Opens the index in ``path``, or creates it there with ``settings`` (the library's
        defaults when ``None``; a settings file from ``MatchingSettings.read``) when the
        folder is missing or empty. Safe when several processes create it at once."""
        return CorpusIndex(_NativeCorpusIndex.open_or_create(os.fspath(path), settings))

    @property
    def settings(self) -> MatchingSettings:
        """The index's matching settings."""
        return self._native.settings

    def __len__(self) -> int:
        """Documents in the index, as of the last ingest or open."""
        return len(self._native)

    def ingest(
        self,
        records: Iterable[Mapping],
        policy: str = "reject",
        commit_every: int = 10_000,
        *,
        report: Union[str, os.PathLike, None] = None,
    ) -> Union[list, dict]:
        """Adds ``records``, each checked against every document already in the index and
        every earlier record; ``policy`` says what a near-duplicate gets: ``"reject"``
        (not indexed), ``"flag"`` (indexed, listed under its original by ``search``) or
        ``"replace"`` (indexed, the older copies deleted).

        Returns one dict per record, in order, as ``ingest --report`` writes them:
        ``status`` is ``added``, ``updated``, ``exists``, ``duplicate`` (with
        ``duplicate_of``, ``distance``, ``similarity`` and ``action``) or ``error`` (with
        ``error``: a record without ``id`` or text, not a dict, or holding a str that is
        not valid Unicode, such as a lone surrogate; the others go on). ``id`` is a str, or
        an int of 64 bits, which becomes its decimal string as the command-line tool makes
        a JSON number id. Commits every ``commit_every`` records and at the end. A record
        that changes a document (an update, or a text of an id seen before) is followed by
        a line for each record judged against the document's old text and decided again,
        with ``rejudged_after`` and its status now, or ``lost`` when its text is in no
        document and no near-duplicate of it is (rejected against the old text in an
        earlier commit or run): fetch it again and add it.

        That list holds every line at once (some 750 bytes a record as dicts). With
        ``report`` (a file path, created or truncated), the recommended form for large
        ingests, the lines are written there instead as JSON lines, a window of
        ``commit_every`` records at a time, exactly as ``ingest --report`` writes them;
        the return value is then the counts: ``{"records", "added", "updated",
        "exists", "duplicate", "error", "lost"}`` (records by their own lines; ``lost``
        counts the lines of records reported lost).

        Raises ``TypeError`` when ``records`` is a str, bytes or a single mapping rather
        than an iterable of records."""
        if isinstance(records, (str, bytes, bytearray, memoryview, abc.Mapping)):
            raise TypeError(
                f"records must be an iterable of records (dicts), not a single "
                f"{type(records).__name__} (wrap it in a list: [record])"
            )
        if report is not None:
            return self._native.ingest_to_file(records, os.fspath(report), policy, commit_every)
        lines = self._native.ingest_json(records, policy, commit_every)
        return [json.loads(line) for line in lines]

    def search(
        self, query: str, limit: int = 10, offset: int = 0, skip_flagged: bool = False
    ) -> dict:
        """The page of ``query`` (tantivy's query syntax, over title and body) with
        near-duplicates of better hits hidden under them: ``{"hits": [{"id", "score",
        "fingerprint", "title", "hidden", "hidden_details"}], "hidden_total"}``, as
        ``tantivy-dedup search --json`` prints it."""
        return json.loads(self._native.search_json(query, limit, offset, skip_flagged))

    def clusters(self) -> list:
        """Every group of near-duplicates in the index by id, leader first (the document
        near the most others), then the members in index order, as ``tantivy-dedup
        clusters`` lists them: formed from all the near pairs, not in the order the
        documents came (``MatchingSettings.grouping`` says how)."""
        return self._native.clusters()

    def review(
        self,
        out="review.html",
        report=None,
        inputs=(),
        id: Optional[str] = None,
        json_lines: bool = False,
    ):
        """The near-duplicate decisions for people to check, least similar first, as
        ``tantivy-dedup review`` writes them: the index's groups (flagged or not) and
        replaced records, or with ``report`` (a file ``ingest --report`` wrote) that
        ingest's decisions, the texts of rejected records read from ``inputs`` (the
        ingest's JSON-lines files).

        Writes self-contained HTML pages (1,000 decisions a file, ``out`` then
        ``review-2.html``, ... beside it) and returns ``{"files": [paths], "decisions": N,
        "at": "FILE#ANCHOR" of the decision about ``id``, or None}``; ``ValueError`` when
        no decision names ``id``. With ``json_lines=True`` writes nothing and returns the
        decisions as dicts, as ``review --json`` prints them."""
        report = None if report is None else os.fspath(report)
        inputs = [os.fspath(path) for path in inputs]
        if json_lines:
            return [json.loads(line) for line in self._native.review_json(report, inputs)]
        files, decisions, at = self._native.review(os.fspath(out), report, inputs, id)
        return {"files": files, "decisions": decisions, "at": at}


def hamming(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Bitwise Hamming distances between uint64 fingerprints (broadcasting)."""
    x = np.bitwise_xor(np.asarray(a, dtype=np.uint64), np.asarray(b, dtype=np.uint64))
    return np.unpackbits(x.view(np.uint8).reshape(*x.shape, 8), axis=-1).sum(axis=-1)


def pairs_sharing_keys(kinds, keys, orders, fingerprints, min_distance: int, max_distance: int):
    """The pairs of documents that share a grouping key, ``min_distance`` to
    ``max_distance`` bits apart: what a job that groups rows on keys (the fingerprint's
    block-table keys, the signature's band keys) does with a group.

    A row is a document's key of one kind: ``kinds`` (uint32: the table or the band),
    ``keys`` (uint64), ``orders`` (int64: the document's, distinct between documents) and
    ``fingerprints`` (uint64), of equal length; a document has at most one row of a kind.
    Returns ``(a, b, distance)``: int64 orders, ``a`` before ``b``, and uint32 distances,
    each pair once however many keys it shares, sorted. Runs without the GIL.
    """
    columns = [
        np.ascontiguousarray(np.asarray(kinds).astype("<u4", copy=False)),
        np.ascontiguousarray(np.asarray(keys).astype(np.int64, copy=False).view("<u8")),
        np.ascontiguousarray(np.asarray(orders).astype("<i8", copy=False)),
        np.ascontiguousarray(np.asarray(fingerprints).astype(np.int64, copy=False).view("<u8")),
    ]
    a, b, distance = _native_pairs_sharing_keys(
        *(column.tobytes() for column in columns), min_distance, max_distance
    )
    return (
        np.frombuffer(a, dtype="<i8"),
        np.frombuffer(b, dtype="<i8"),
        np.frombuffer(distance, dtype="<u4"),
    )
