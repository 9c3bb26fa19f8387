"""`tantivy-dedup review` pages in a real browser (Chromium, headless): every decision of
a known ingest listed, least similar first; the planted edits marked, and nothing else;
the filters and the search box; the time to render a page of 1,000 decisions; hostile
text inert; and the page with scripts off."""

import os
from pathlib import Path

from conftest import ROOT, run

DECISIONS_JS = """() => [...document.querySelectorAll('article.decision')].map(a => {
  const ids = a.querySelectorAll('h2 bdi.id');
  return {anchor: a.id, rank: +a.dataset.rank, action: a.dataset.action,
          reason: a.dataset.reason, hidden: a.hidden,
          similarity: a.dataset.similarity === undefined ? null : +a.dataset.similarity,
          other: ids[0].textContent, kept: ids[1].textContent};
})"""

MARKS_JS = """(anchor) => {
  const sides = document.getElementById(anchor).querySelectorAll('.side');
  return {removed: [...sides[0].querySelectorAll('del')].map(e => e.textContent),
          added: [...sides[1].querySelectorAll('ins')].map(e => e.textContent)};
}"""


def shown(id_: str) -> str:
    """An id as the page shows it: control characters as [U+XXXX]."""
    return "".join(f"[U+{ord(c):04X}]" if c in "\u202e\u202c\u2066\u2069\u200f" else c for c in id_)


def anchor(id_: str) -> str:
    return "r-" + "".join(chr(b) if chr(b).isascii() and (chr(b).isalnum() or chr(b) in "-_.") else f"~{b:02x}" for b in id_.encode())


def all_pages(load, first: Path):
    """Every page of a review, following the next links: [(path, loaded)]."""
    pages, path = [], first
    while path is not None:
        loaded = load(path)
        pages.append((path, loaded))
        link = loaded.page.query_selector("header nav a[rel=next]")
        path = first.parent / link.get_attribute("href") if link else None
    return pages


def test_every_decision_is_listed_least_similar_first(load, reviewed, pairs):
    pages = all_pages(load, reviewed)
    assert len(pages) == 2, "1,103 decisions make two pages of at most 1,000"
    decisions = []
    for _, loaded in pages:
        decisions += loaded.page.evaluate(DECISIONS_JS)
        assert loaded.errors == [], loaded.errors
        assert loaded.requests == [], loaded.requests
    assert len(pages[0][1].page.query_selector_all("article.decision")) == 1000
    # A flagged pair is shown as ingest decided it, the copy against the document it was
    # flagged near; a grouped pair as `clusters` groups it, and of two documents equally
    # near each other either may lead (groups do not follow the order they came in).
    def key(kept, other, grouped):
        return frozenset((kept, other)) if grouped else (kept, other)

    expected = {key(shown(p.kept), shown(p.other), name == "grouped")
                for name, group in pairs.items() for p in group}
    assert {key(d["kept"], d["other"], d["action"] == "grouped") for d in decisions} == expected
    assert len(decisions) == len(expected)
    assert [d["rank"] for d in decisions] == list(range(1, len(decisions) + 1))
    similarity = [d["similarity"] for d in decisions]
    assert similarity == sorted(similarity), "least similar first"
    actions = {frozenset((d["kept"], d["other"])): d["action"] for d in decisions}
    assert {actions[frozenset((shown(p.kept), shown(p.other)))] for p in pairs["grouped"]} == {"grouped"}
    assert {actions[frozenset((shown(p.kept), shown(p.other)))] for p in pairs["flagged"]} == {"flagged"}


def test_the_diff_marks_exactly_the_planted_edits(load, reviewed, pairs):
    pages = all_pages(load, reviewed)
    checked = {"en": 0, "zh": 0}
    for pair in pairs["flagged"][:30] + pairs["flagged"][-30:]:
        for _, loaded in pages:
            if loaded.page.query_selector(f"[id=\"{anchor(pair.other)}\"]") is None:
                continue
            marks = loaded.page.evaluate(MARKS_JS, anchor(pair.other))
            # Adjacent edits make one marked stretch: compare the words marked.
            assert sorted(" ".join(marks["removed"]).split()) == sorted(old for old, _ in pair.edits), pair.other
            assert sorted(" ".join(marks["added"]).split()) == sorted(new for _, new in pair.edits), pair.other
            checked[pair.other[:2]] += 1
    assert checked == {"en": 30, "zh": 30}


def test_filters_and_search(load, reviewed, pairs):
    loaded = load(reviewed)
    page = loaded.page
    assert page.is_visible("#filters")
    decisions = page.evaluate(DECISIONS_JS)

    def visible():
        return [d for d in page.evaluate(DECISIONS_JS) if not d["hidden"]]

    page.select_option("#f-action", "grouped")
    grouped = [d for d in decisions if d["action"] == "grouped"]
    assert 0 < len(grouped) < len(decisions)
    assert visible() == [dict(d, hidden=False) for d in grouped]
    assert page.text_content("#f-count") == f"{len(grouped)} of 1000 decisions shown"
    page.select_option("#f-action", "")
    reasons = [o for o in page.eval_on_selector_all("#f-reason option", "os => os.map(o => o.value)") if o]
    assert reasons, "the reasons of the page are offered"
    for reason in reasons:
        page.select_option("#f-reason", reason)
        assert {d["reason"] for d in visible()} == {reason}
        assert len(visible()) == sum(d["reason"] == reason for d in decisions)
    page.select_option("#f-reason", "")
    assert len(visible()) == 1000

    target = next(p for p in pairs["flagged"] if page.query_selector(f"[id=\"{anchor(p.other)}\"]") and len(p.edits) == 1)
    page.fill("#f-search", target.other)
    assert [d["other"] for d in visible()] == [target.other]
    page.fill("#f-search", target.edits[0][1].upper())  # a planted word, in any case
    assert [d["other"] for d in visible()] == [target.other]
    page.fill("#f-search", "no such words anywhere")
    assert visible() == []
    page.fill("#f-search", "")
    assert len(visible()) == 1000
    assert loaded.errors == []


def test_a_page_of_1000_decisions_renders_in_under_a_second(load, reviewed):
    times = []
    for _ in range(3):
        loaded = load(reviewed)
        assert len(loaded.page.query_selector_all("article.decision")) == 1000
        times.append(loaded.page.evaluate(
            "() => { const n = performance.getEntriesByType('navigation')[0]; return n.loadEventEnd - n.startTime; }"))
        loaded.close()
    best = min(times)
    out = Path(os.environ.get("BROWSER_TESTS_OUT", ROOT / "target" / "browser"))
    out.mkdir(parents=True, exist_ok=True)
    (out / "render-ms.txt").write_text(f"{times}\n")
    print(f"render of 1,000 decisions (load event), ms: {times}")
    assert best < 1000, times


def test_hostile_text_is_inert_and_the_layout_holds(load, reviewed, pairs):
    for path, loaded in all_pages(load, reviewed):
        page = loaded.page
        assert page.evaluate("() => window.__pwned") is None, path
        assert loaded.errors == [], loaded.errors
        assert page.evaluate("() => document.scripts.length") == 1
        assert page.evaluate("() => document.querySelectorAll('article img, article b, article style').length") == 0
        html = page.content()
        for control in "\u202e\u2066\u2069\u200f":
            assert control not in html, f"raw U+{ord(control):04X} in {path}"
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 1280, f"{path} is {width}px wide"
        for pair in pairs["hostile"]:
            node = page.query_selector(f"[id=\"{anchor(pair.other)}\"]")
            if node is None:
                continue
            box = node.bounding_box()
            assert box["width"] <= 1280 and box["height"] < 3000, (pair.kept, box)
            text = node.text_content()
            if pair.kept == "hostile-markup":
                assert "<script>window.__pwned = 1</script>" in text
                assert "</script><script>window.__pwned = 2</script>" in text
                assert '"><script>window.__pwned = 4</script>[U+202E]' in text
            if pair.kept == "hostile-bidi":
                assert "[U+202E]evil override[U+202C]" in text
            if pair.kept == "hostile-huge":
                assert "longer than 2000 characters" in text
                assert page.evaluate("(a) => document.getElementById(a).querySelector('.text').textContent.length", anchor(pair.other)) == 2000


def test_without_scripts_the_page_is_the_plain_list(load, reviewed):
    loaded = load(reviewed, javascript=False)
    page = loaded.page
    assert not page.is_visible("#filters")
    assert len(page.query_selector_all("article.decision")) == 1000
    assert page.is_visible("article.decision:last-of-type h2")


def test_a_report_without_inputs_says_the_text_was_not_kept(load, rejected, pairs):
    index, report, input, dir = rejected
    out = dir / "report.html"
    run("review", "--index", index, "--report", report, "--out", str(out))
    loaded = load(out)
    decisions = loaded.page.evaluate(DECISIONS_JS)
    assert {(d["kept"], d["other"], d["action"]) for d in decisions} == {(p.kept, p.other, "rejected") for p in pairs["flagged"][:6]}
    assert len(loaded.page.query_selector_all(".gone")) == 6
    assert loaded.errors == []
    at = run("review", "--index", index, "--report", report, "--input", input, "--out", str(out), "--id", pairs["flagged"][0].other).strip()
    assert at == f"{out}#{anchor(pairs['flagged'][0].other)}"
    loaded = load(out)
    assert loaded.page.query_selector_all(".gone") == []
    marks = loaded.page.evaluate(MARKS_JS, anchor(pairs["flagged"][0].other))
    assert sorted(" ".join(marks["added"]).split()) == sorted(new for _, new in pairs["flagged"][0].edits)


def test_screenshot_of_the_sample_corpus(load, tmp_path):
    """The README's picture: the review of the sample corpus, ingested with --policy flag."""
    run("ingest", "--index", "index", "--policy", "flag", str(ROOT / "samples" / "corpus.jsonl"), cwd=tmp_path)
    out = tmp_path / "review.html"
    run("review", "--index", "index", "--out", "review.html", cwd=tmp_path)
    loaded = load(out)
    assert loaded.errors == []
    shot = Path(os.environ.get("REVIEW_SCREENSHOT", ROOT / "target" / "browser" / "review.png"))
    shot.parent.mkdir(parents=True, exist_ok=True)
    loaded.page.screenshot(path=str(shot))
