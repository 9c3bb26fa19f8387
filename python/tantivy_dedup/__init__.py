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

from dataclasses import dataclass
from typing import Iterable, Optional

import numpy as np

from ._native import DedupError, MatchingSettings
from ._native import FingerprintIndex as _NativeFingerprintIndex
from ._native import TextMatcher as _NativeTextMatcher

__all__ = [
    "DedupError",
    "FingerprintIndex",
    "Fingerprints",
    "MatchingSettings",
    "Signatures",
    "TextMatcher",
    "hamming",
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
    ``valid[i]``; rows of texts without features are zeros.
    """

    fingerprints: np.ndarray  # uint64, shape (n,)
    signatures: np.ndarray  # uint32, shape (n, signature_len)
    valid: np.ndarray  # bool, shape (n,)


def _texts(texts: Iterable[str]) -> list:
    texts = list(texts)
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"text {i} is {type(text).__name__}, not str")
    return texts


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

    def signatures(self, texts: Iterable[str]) -> Signatures:
        """The fingerprints and signatures of ``texts``, computed on every core.

        Raises ``DedupError`` when the settings have no two-stage matching.
        """
        fingerprints, signatures, valid = self._native.fingerprints_and_signatures(_texts(texts))
        n = len(valid)
        return Signatures(
            fingerprints=np.frombuffer(fingerprints, dtype="<u8"),
            signatures=np.frombuffer(signatures, dtype="<u4").reshape(n, self.signature_len or 0),
            valid=np.frombuffer(valid, dtype=np.uint8).astype(bool),
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
        """Inserts or replaces ``id``'s fingerprint; the replaced one, if any."""
        return self._native.insert(int(id), int(fingerprint))

    def extend(self, ids, fingerprints) -> None:
        """Inserts many: ``ids`` (u32) and ``fingerprints`` (u64), as many of each."""
        ids = np.ascontiguousarray(ids, dtype="<u4")
        fingerprints = np.ascontiguousarray(fingerprints, dtype="<u8")
        self._native.extend_bytes(ids.tobytes(), fingerprints.tobytes())

    def remove(self, id: int) -> bool:
        """Removes ``id``; whether it was there."""
        return self._native.remove(int(id))

    def get(self, id: int) -> Optional[int]:
        """The fingerprint of ``id``, if any."""
        return self._native.get(int(id))

    def query(self, fingerprint: int, k: Optional[int] = None) -> list:
        """``(id, distance)`` of every fingerprint within ``k`` bits, nearest first."""
        return self._native.query(int(fingerprint), k)

    def all_pairs(self, k: Optional[int] = None):
        """Every pair within ``k`` bits as three uint32 arrays ``a < b``, ``distance``."""
        a, b, d = self._native.all_pairs_bytes(k)
        return tuple(np.frombuffer(x, dtype="<u4") for x in (a, b, d))


def hamming(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Bitwise Hamming distances between uint64 fingerprints (broadcasting)."""
    x = np.bitwise_xor(np.asarray(a, dtype=np.uint64), np.asarray(b, dtype=np.uint64))
    return np.unpackbits(x.view(np.uint8).reshape(*x.shape, 8), axis=-1).sum(axis=-1)
