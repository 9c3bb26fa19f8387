"""Fixtures of the browser tests: the built tool, a generated corpus ingested and
reviewed, and Chromium driven by Playwright (`scripts/browser-tests.sh` sets them up)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from corpus import corpus, write_jsonl  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


def tool() -> str:
    path = os.environ.get("TANTIVY_DEDUP_BIN") or str(ROOT / "target" / "debug" / "tantivy-dedup")
    if not Path(path).exists():
        pytest.skip(f"tantivy-dedup is not built at {path}")
    return str(Path(path).resolve())


def run(*args: str, cwd=None) -> str:
    done = subprocess.run([tool(), *args], capture_output=True, text=True, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="session")
def pairs():
    return corpus()


@pytest.fixture(scope="session")
def reviewed(tmp_path_factory, pairs):
    """The generated corpus ingested with --policy flag (the grouped pairs last, under a
    stricter rule, so that they are in the index unflagged) and reviewed: the first
    page's path."""
    dir = tmp_path_factory.mktemp("review")
    index = str(dir / "index")
    grouped = dir / "grouped.jsonl"
    write_jsonl(grouped, [r for p in pairs["grouped"] for r in ((p.kept, p.kept_text), (p.other, p.other_text))])
    flagged = dir / "flagged.jsonl"
    records = [r for p in pairs["flagged"] + pairs["hostile"] for r in ((p.kept, p.kept_text), (p.other, p.other_text))]
    write_jsonl(flagged, records)
    # The first run creates the index with the default rule; the second runs under a
    # stricter one of its own, so that its pairs go in unflagged.
    run("ingest", "--index", index, "--policy", "flag", str(flagged))
    run("ingest", "--index", index, "--policy", "flag", "--threshold", "0.99", str(grouped))
    out = dir / "pages" / "review.html"
    out.parent.mkdir()
    run("review", "--index", index, "--out", str(out))
    return out


@pytest.fixture(scope="session")
def rejected(tmp_path_factory, pairs):
    """A few planted pairs ingested with --policy reject and a report: (index, report,
    input)."""
    dir = tmp_path_factory.mktemp("rejected")
    index = str(dir / "index")
    input = dir / "input.jsonl"
    write_jsonl(input, [r for p in pairs["flagged"][:6] for r in ((p.kept, p.kept_text), (p.other, p.other_text))])
    report = dir / "report.jsonl"
    run("ingest", "--index", index, "--policy", "reject", "--report", str(report), str(input))
    return index, str(report), str(input), dir


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    executable = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class Loaded:
    """A page loaded in Chromium, with every console error and uncaught exception kept."""

    def __init__(self, browser, path: Path, javascript: bool = True):
        self.context = browser.new_context(java_script_enabled=javascript, viewport={"width": 1280, "height": 900})
        self.page = self.context.new_page()
        self.errors = []
        self.requests = []
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: r.url.startswith("file:") or self.requests.append(r.url))
        self.page.goto(path.as_uri())

    def close(self):
        self.context.close()


@pytest.fixture
def load(browser):
    opened = []

    def open_(path: Path, javascript: bool = True) -> Loaded:
        loaded = Loaded(browser, path, javascript)
        opened.append(loaded)
        return loaded

    yield open_
    for loaded in opened:
        loaded.close()
