from dataclasses import dataclass
from os import PathLike
from typing import Any, Iterable, Literal, Mapping, Optional, Union, final, overload

import numpy as np

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

class DedupError(Exception):
    """An error of tantivy-dedup, with its message."""

@final
class MatchingSettings:
    """Fingerprint config, distance and two-stage matching (a settings file's JSON)."""

    def __init__(self) -> None: ...
    @staticmethod
    def from_json(json: str) -> MatchingSettings: ...
    @staticmethod
    def read(path: Union[str, PathLike]) -> MatchingSettings: ...
    def to_json(self) -> str: ...
    def with_distance(self, k: int) -> MatchingSettings: ...
    @property
    def distance(self) -> int: ...
    @property
    def signature_len(self) -> Optional[int]: ...
    @property
    def grouping(self) -> Literal["centres", "stars", "components"]: ...

@dataclass(frozen=True)
class Fingerprints:
    values: np.ndarray
    valid: np.ndarray

@dataclass(frozen=True)
class Signatures:
    fingerprints: Optional[np.ndarray]
    signatures: np.ndarray
    valid: np.ndarray

@dataclass(frozen=True)
class CandidateValues:
    fingerprints: np.ndarray
    has_fingerprint: np.ndarray
    signatures: np.ndarray
    has_signature: np.ndarray
    band_keys: np.ndarray
    has_bands: np.ndarray

class TextMatcher:
    settings: MatchingSettings
    def __init__(self, settings: Optional[MatchingSettings] = None) -> None: ...
    @property
    def signature_len(self) -> Optional[int]: ...
    def fingerprints(self, texts: Iterable[str]) -> Fingerprints: ...
    def signatures(self, texts: Iterable[str], *, fingerprints: bool = True) -> Signatures: ...
    @property
    def distance(self) -> int: ...
    @property
    def reach(self) -> int: ...
    @property
    def signatures_decide(self) -> bool: ...
    @property
    def bands(self) -> Optional[tuple[int, int]]: ...
    @property
    def least_agreement(self) -> Optional[int]: ...
    def candidate_values(self, texts: Union[Iterable[str], Any]) -> CandidateValues: ...
    def judge_pairs(
        self, a: CandidateValues, b: CandidateValues
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...
    def judge(self, a: str, b: str) -> dict: ...

class FingerprintIndex:
    def __init__(self, max_distance: int = 3) -> None: ...
    def __len__(self) -> int: ...
    def insert(self, id: int, fingerprint: int) -> Optional[int]: ...
    def extend(self, ids: Union[np.ndarray, Iterable[int]], fingerprints: Union[np.ndarray, Iterable[int]]) -> None: ...
    def remove(self, id: int) -> bool: ...
    def get(self, id: int) -> Optional[int]: ...
    def query(self, fingerprint: int, k: Optional[int] = None) -> list[tuple[int, int]]: ...
    def groups(self, k: Optional[int] = None, *, singletons: bool = False) -> list[np.ndarray]: ...
    def all_pairs(self, k: Optional[int] = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...

class CorpusIndex:
    # Made by `open` and `open_or_create`, not called directly.
    def __init__(self, native: Any) -> None: ...
    @staticmethod
    def open(path: Union[str, PathLike]) -> CorpusIndex: ...
    @staticmethod
    def open_or_create(
        path: Union[str, PathLike], settings: Optional[MatchingSettings] = None
    ) -> CorpusIndex: ...
    @property
    def settings(self) -> MatchingSettings: ...
    def __len__(self) -> int: ...
    @overload
    def ingest(
        self,
        records: Iterable[Mapping],
        policy: str = "reject",
        commit_every: int = 10_000,
        *,
        report: None = None,
    ) -> list[dict]: ...
    @overload
    def ingest(
        self,
        records: Iterable[Mapping],
        policy: str = "reject",
        commit_every: int = 10_000,
        *,
        report: Union[str, PathLike],
    ) -> dict[str, int]: ...
    def search(
        self, query: str, limit: int = 10, offset: int = 0, skip_flagged: bool = False
    ) -> dict: ...
    def clusters(self) -> list[list[str]]: ...
    @overload
    def review(
        self,
        out: Union[str, PathLike] = "review.html",
        report: Optional[Union[str, PathLike]] = None,
        inputs: Iterable[Union[str, PathLike]] = (),
        id: Optional[str] = None,
        json_lines: Literal[False] = False,
    ) -> dict: ...
    @overload
    def review(
        self,
        out: Union[str, PathLike] = "review.html",
        report: Optional[Union[str, PathLike]] = None,
        inputs: Iterable[Union[str, PathLike]] = (),
        id: Optional[str] = None,
        *,
        json_lines: Literal[True],
    ) -> list[dict]: ...

def hamming(a: np.ndarray, b: np.ndarray) -> np.ndarray: ...
def pairs_sharing_keys(
    kinds: np.ndarray,
    keys: np.ndarray,
    orders: np.ndarray,
    fingerprints: np.ndarray,
    min_distance: int,
    max_distance: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...
