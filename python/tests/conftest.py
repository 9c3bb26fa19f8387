"""What the Python tests share: the repository's root, its samples, and the built
command-line tool (a test that needs it is skipped where it was not built)."""

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples" / "corpus.jsonl"


@pytest.fixture
def tool() -> str:
    """The path of the built `tantivy-dedup` binary (cargo's debug build first, as
    `cargo test` leaves it)."""
    for path in (ROOT / "target" / "debug" / "tantivy-dedup", ROOT / "target" / "release" / "tantivy-dedup"):
        if path.exists():
            return str(path)
    found = shutil.which("tantivy-dedup")
    if found is None:
        pytest.skip("tantivy-dedup is not built")
    return found
