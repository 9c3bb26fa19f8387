"""CorpusIndex.review: the pages and JSON of the review, from Python."""

import json

import pytest

import tantivy_dedup

TEXT = (
    "The committee met on Monday to discuss the annual budget for the city's public "
    "libraries, parks and roads, and it agreed to publish the full minutes of the meeting "
    "online before the end of the month for every resident to read."
)
COPY = TEXT.replace("Monday", "Tuesday")
OTHER = "An unrelated note about gardening: tomatoes need sun, water and patience."


def test_review_of_flagged_documents(tmp_path):
    index = tantivy_dedup.CorpusIndex.open_or_create(tmp_path / "index")
    index.ingest([{"id": "a", "text": TEXT}, {"id": "b", "text": COPY}, {"id": "c", "text": OTHER}], policy="flag")
    out = tmp_path / "review.html"
    written = index.review(out, id="b")
    assert written == {"files": [str(out)], "decisions": 1, "at": f"{out}#r-b"}
    html = out.read_text()
    assert "on <del>Monday</del> to" in html and "on <ins>Tuesday</ins> to" in html
    [decision] = index.review(json_lines=True)
    assert (decision["kept"]["id"], decision["other"]["id"], decision["action"]) == ("a", "b", "flagged")
    assert decision["near"] is True and decision["reason"]["kind"] == "verified"
    with pytest.raises(ValueError, match="no decision names"):
        index.review(out, id="c")


def test_review_of_a_report_with_the_inputs(tmp_path):
    records = [{"id": "a", "text": TEXT}, {"id": "b", "text": COPY}]
    inputs = tmp_path / "input.jsonl"
    inputs.write_text("".join(json.dumps(r) + "\n" for r in records))
    index = tantivy_dedup.CorpusIndex.open_or_create(tmp_path / "index")
    report = tmp_path / "report.jsonl"
    index.ingest(records, policy="reject", report=report)
    [alone] = index.review(report=report, json_lines=True)
    assert alone["other"]["text_known"] is False and alone["reason"]["kind"] == "reported"
    [both] = index.review(report=report, inputs=[inputs], json_lines=True)
    added = [s["text"] for s in both["diff"]["other"] if s["change"] == "added"]
    assert both["other"]["text_known"] is True and added == ["Tuesday"]
