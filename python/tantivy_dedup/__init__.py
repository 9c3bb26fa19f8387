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
from ._native import TextMatcher as _NativeTextMatcher

__all__ = [
    "DedupError",
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


def hamming(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Bitwise Hamming distances between uint64 fingerprints (broadcasting)."""
    x = np.bitwise_xor(np.asarray(a, dtype=np.uint64), np.asarray(b, dtype=np.uint64))
    return np.unpackbits(x.view(np.uint8).reshape(*x.shape, 8), axis=-1).sum(axis=-1)
