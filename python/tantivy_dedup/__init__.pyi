from dataclasses import dataclass
from os import PathLike
from typing import Iterable, Optional, Union

import numpy as np

class DedupError(Exception):
    """An error of tantivy-dedup, with its message."""

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

@dataclass(frozen=True)
class Fingerprints:
    values: np.ndarray
    valid: np.ndarray

@dataclass(frozen=True)
class Signatures:
    fingerprints: np.ndarray
    signatures: np.ndarray
    valid: np.ndarray

class TextMatcher:
    settings: MatchingSettings
    def __init__(self, settings: Optional[MatchingSettings] = None) -> None: ...
    @property
    def signature_len(self) -> Optional[int]: ...
    def fingerprints(self, texts: Iterable[str]) -> Fingerprints: ...
    def signatures(self, texts: Iterable[str]) -> Signatures: ...
    def judge(self, a: str, b: str) -> dict: ...

def hamming(a: np.ndarray, b: np.ndarray) -> np.ndarray: ...
