"""`CorpusIndex`: the command-line tool's index folder from Python. The tool and Python
read and extend the same folder, report lines and pages are the tool's JSON, a bad record
is an error line and the others go on."""

import json
import subprocess

import pytest

from tantivy_dedup import CorpusIndex, DedupError, MatchingSettings

from conftest import SAMPLES

PAGE = (
    "the harbour board met on tuesday to approve the new ferry timetable, which adds two "
    "evening crossings and moves the first morning departure to half past six"
)


def run(tool, *args, stdin=""):
    out = subprocess.run([tool, *args], input=stdin, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_the_tool_and_python_share_one_folder(tool, tmp_path):
    folder = str(tmp_path / "index")
    # The tool ingests the samples, flagging copies; Python sees its clusters and pages.
    run(tool, "ingest", "--index", folder, "--policy", "flag", str(SAMPLES))
    index = CorpusIndex.open(folder)
    assert len(index) == sum(1 for line in open(SAMPLES, encoding="utf-8") if line.strip())
    tool_clusters = json.loads(run(tool, "clusters", "--index", folder, "--json"))
    assert index.clusters() == [c["ids"] for c in tool_clusters["clusters"]]
    assert index.clusters(), "the samples hold near-duplicates"
    for query in ["the", "river OR market", "title:news"]:
        tool_page = json.loads(run(tool, "search", "--index", folder, "--json", query))
        assert index.search(query) == tool_page, query

    # Python ingests a copy of a sample under a new id; the tool's report of another copy
    # is the same line, and its search hides Python's copy.
    first = json.loads(open(SAMPLES, encoding="utf-8").readline())
    (line,) = index.ingest([{"id": "py-copy", "text": first["text"]}], policy="flag")
    assert line["status"] == "duplicate" and line["action"] == "flagged", line
    tool_line = json.loads(
        run(
            tool,
            "ingest", "--index", folder, "--policy", "flag", "--report", "-", "-",
            stdin=json.dumps({"id": "tool-copy", "text": first["text"]}) + "\n",
        )
    )
    assert {**tool_line, "id": "py-copy"} == line
    reopened = CorpusIndex.open(folder)
    assert len(reopened) == len(index) + 1
    cluster = next(c for c in reopened.clusters() if "py-copy" in c)
    assert "tool-copy" in cluster and cluster[0] not in ("py-copy", "tool-copy")


def test_every_record_gets_a_line_and_bad_ones_do_not_stop_the_rest(tmp_path):
    index = CorpusIndex.open_or_create(tmp_path / "index")
    report = index.ingest(
        [
            "not a dict",
            {"text": PAGE},
            {"id": "blank", "text": "   "},
            {"id": "tags", "text": PAGE, "tags": "harbour"},
            {"id": "ferry", "body": PAGE, "title": "Ferries", "url": "https://example.org/f", "tags": ["harbour"]},
            {"id": "ferry", "text": PAGE},
            {"id": "copy", "text": PAGE + " today"},
            {"id": "bees", "text": "an unrelated note about bees, hives and the honey harvest"},
        ]
    )
    assert [(line["id"], line["status"]) for line in report] == [
        ("#0", "error"),
        ("#1", "error"),
        ("blank", "error"),
        ("#3", "error"),
        ("ferry", "added"),
        ("ferry", "exists"),
        ("copy", "duplicate"),
        ("bees", "added"),
    ]
    assert "not a dict" in report[0]["error"] and "id" in report[1]["error"]
    assert "no text" in report[2]["error"] and "tags" in report[3]["error"]
    assert report[6]["duplicate_of"] == "ferry" and report[6]["action"] == "rejected"
    # Beyond k, within the candidate distance, verified by the signatures.
    assert 0 <= report[6]["distance"] <= 16 and report[6]["similarity"] > 0.5, report[6]
    assert len(index) == 2
    hit = index.search("harbour")["hits"][0]
    assert (hit["id"], hit["title"]) == ("ferry", "Ferries")


def test_policies_and_their_clusters(tmp_path):
    flagged = CorpusIndex.open_or_create(tmp_path / "flag")
    flagged.ingest([{"id": "a", "text": PAGE}, {"id": "b", "text": PAGE}], policy="flag")
    assert flagged.clusters() == [["a", "b"]]
    page = flagged.search("ferry")
    # One text, one score: the tie goes by address, which the writer's threads choose.
    (hit,) = page["hits"]
    assert sorted([hit["id"], *hit["hidden"]]) == ["a", "b"]
    assert flagged.search("ferry", skip_flagged=True)["hidden_total"] == 0

    replaced = CorpusIndex.open_or_create(tmp_path / "replace")
    replaced.ingest([{"id": "old", "text": PAGE}])
    (line,) = replaced.ingest([{"id": "new", "text": PAGE}], policy="replace")
    assert line["replaced"] == ["old"]
    assert [h["id"] for h in replaced.search("ferry")["hits"]] == ["new"]

    with pytest.raises(ValueError, match="policy"):
        replaced.ingest([], policy="drop")
    with pytest.raises(ValueError, match="commit_every"):
        replaced.ingest([], commit_every=0)


def test_settings_of_a_new_index_and_errors_of_a_wrong_folder(tmp_path):
    settings = MatchingSettings().with_distance(6)
    index = CorpusIndex.open_or_create(tmp_path / "k6", settings)
    assert index.settings.distance == 6
    assert CorpusIndex.open(tmp_path / "k6").settings.to_json() == index.settings.to_json()
    with pytest.raises(DedupError):
        CorpusIndex.open(tmp_path / "missing")
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "todo.txt").write_text("mine")
    with pytest.raises(DedupError):
        CorpusIndex.open_or_create(tmp_path / "notes")
    assert (tmp_path / "notes" / "todo.txt").read_text() == "mine"
    with pytest.raises(DedupError, match="query"):
        index.search("title:(")


def test_number_ids_are_their_decimal_strings_as_in_the_tool(tmp_path):
    index = CorpusIndex.open_or_create(tmp_path / "index")
    texts = [f"{PAGE} and note {word}" for word in ("alpha", "beta", "gamma")]
    records = [
        {"id": 7, "text": "a note about bees, hives and the honey harvest of the valley"},
        {"id": -3, "text": "a recipe for bread with rye flour, seeds and a slow overnight rise"},
        {"id": 2**64 - 1, "text": "the chess club meets on thursdays in the library's back room"},
        {"id": 2**64, "text": texts[0]},
        {"id": 1.5, "text": texts[1]},
        {"id": True, "text": texts[2]},
    ]
    report = index.ingest(records)
    assert [(line["id"], line["status"]) for line in report] == [
        ("7", "added"),
        ("-3", "added"),
        ("18446744073709551615", "added"),
        ("#3", "error"),
        ("#4", "error"),
        ("#5", "error"),
    ]
    assert "not an integer of 64 bits" in report[3]["error"] and "string" in report[3]["error"]
    assert "not an integer of 64 bits" in report[4]["error"]
    assert "bool" in report[5]["error"]
    # The same id as a string is the same document.
    (line,) = index.ingest([{"id": "7", "text": records[0]["text"]}])
    assert line["status"] == "exists"


def test_number_ids_match_the_tools_report(tool, tmp_path):
    records = [
        {"id": 7, "text": "a note about bees, hives and the honey harvest of the valley"},
        {"id": -3, "text": "a recipe for bread with rye flour, seeds and a slow overnight rise"},
        {"id": 2**64 - 1, "text": "the chess club meets on thursdays in the library's back room"},
    ]
    report = CorpusIndex.open_or_create(tmp_path / "py").ingest(records)
    jsonl = "".join(json.dumps(r) + "\n" for r in records)
    out = run(tool, "ingest", "--index", str(tmp_path / "cli"), "--report", "-", "-", stdin=jsonl)
    assert [json.loads(line) for line in out.splitlines()] == report


def test_a_lone_surrogate_is_that_records_error_line(tmp_path):
    index = CorpusIndex.open_or_create(tmp_path / "index")
    report = index.ingest(
        [
            {"id": "first", "text": PAGE},
            {"id": "broken", "text": "half a pair \ud800 here in the text of a page"},
            {"id": "bad \udfff id", "text": "another page about something else entirely, bees"},
            {"id": "titled", "text": "a recipe for bread with rye flour", "title": "x\ud800"},
            {"id": "last", "text": "the chess club meets on thursdays in the back room"},
        ]
    )
    assert [(line["id"], line["status"]) for line in report] == [
        ("first", "added"),
        ("#1", "error"),
        ("#2", "error"),
        ("#3", "error"),
        ("last", "added"),
    ]
    assert "lone surrogate \\uD800 at character 12" in report[1]["error"]
    assert "`text`" in report[1]["error"] and "broken" in report[1]["error"]
    assert "`id`" in report[2]["error"] and "\\uDFFF" in report[2]["error"]
    assert "`title`" in report[3]["error"]
    assert len(index) == 2


def test_a_single_record_or_str_is_a_type_error(tmp_path):
    index = CorpusIndex.open_or_create(tmp_path / "index")
    for one in ({"id": "a", "text": PAGE}, "a text", b"bytes"):
        with pytest.raises(TypeError, match="iterable of records"):
            index.ingest(one)
    assert len(index) == 0


def test_a_folder_of_other_files_is_named_as_such(tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "todo.txt").write_text("mine")
    for call in (CorpusIndex.open_or_create, CorpusIndex.open):
        with pytest.raises(DedupError, match=r"not empty.*todo\.txt.*choose an empty or new folder") as raised:
            call(tmp_path / "notes")
        assert "meta.json" not in str(raised.value).split("(")[0], raised.value
    assert sorted(p.name for p in (tmp_path / "notes").iterdir() if not p.name.startswith(".")) == ["todo.txt"]
    with pytest.raises(DedupError, match="does not exist"):
        CorpusIndex.open(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(DedupError, match="is empty"):
        CorpusIndex.open(tmp_path / "empty")
    (tmp_path / "file").write_text("x")
    with pytest.raises(DedupError, match="not a folder"):
        CorpusIndex.open(tmp_path / "file")


def test_the_report_streams_to_a_file_and_the_counts_come_back(tmp_path):
    def records():
        for i in range(50):
            # Every fifth one a copy of the page, the others each their own words.
            text = PAGE if i % 5 == 0 else " ".join(f"w{i}v{j}" for j in range(20))
            yield {"id": f"r{i}", "text": text}
        yield {"id": "r1", "text": "x y z"}
        yield {"text": "no id"}

    path = tmp_path / "report.jsonl"
    index = CorpusIndex.open_or_create(tmp_path / "index")
    counts = index.ingest(records(), commit_every=7, report=path)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    # The lines of the list form, on a fresh index.
    assert lines == CorpusIndex.open_or_create(tmp_path / "again").ingest(records(), commit_every=7)
    assert len(lines) == 52 and lines[-1]["id"] == "#51" and lines[-2]["status"] == "updated"
    by_status = {}
    for line in lines:
        by_status[line["status"]] = by_status.get(line["status"], 0) + 1
    zero = {"added": 0, "updated": 0, "exists": 0, "duplicate": 0, "error": 0, "lost": 0}
    assert counts == {"records": 52, **zero, **by_status}
    assert counts["added"] == len(index) and counts["duplicate"] > 0
    with pytest.raises(ValueError, match="policy"):
        index.ingest([], policy="drop", report=tmp_path / "never.jsonl")
    assert not (tmp_path / "never.jsonl").exists()


def test_records_judged_against_a_page_that_changes_in_the_ingest_are_decided_again(tmp_path):
    other = " ".join(f"n{k}" for k in range(40))
    own = " ".join(f"x{k}" for k in range(40))
    # `i` is sent with `j`'s text (rejected against `j`), then `j` changes: `i` is decided
    # again after `j`'s line, and both texts are indexed.
    index = CorpusIndex.open_or_create(tmp_path / "reject")
    index.ingest([{"id": "j", "text": PAGE}, {"id": "i", "text": own}])
    run = [{"id": "i", "text": PAGE}, {"id": "j", "text": other}]
    lines = index.ingest(run)
    assert [(line["id"], line["status"]) for line in lines] == [
        ("i", "duplicate"),
        ("j", "updated"),
        ("i", "updated"),
    ]
    assert lines[2]["rejudged_after"] == "j"
    assert [h["id"] for h in index.search("ferry")["hits"]] == ["i"]
    # The same ingest again changes nothing.
    assert [line["status"] for line in index.ingest(run)] == ["exists", "exists"]

    # Under Flag, a copy flagged against `j` is unflagged when `j` changes.
    flagged = CorpusIndex.open_or_create(tmp_path / "flag")
    lines = flagged.ingest(
        [{"id": "j", "text": PAGE}, {"id": "c", "text": PAGE}, {"id": "j", "text": other}],
        policy="flag",
    )
    assert [(line["id"], line["status"]) for line in lines][-1] == ("c", "added")
    assert lines[-1]["rejudged_after"] == "j"
    assert flagged.clusters() == []
    assert [h["id"] for h in flagged.search("ferry", skip_flagged=True)["hits"]] == ["c"]


def test_a_streamed_report_holds_no_line_in_memory(tmp_path):
    # Python's own allocations while 20,000 records are ingested with `report=`: the lines
    # go to the file as they come (the list form holds them all: about 16 MB here).
    import tracemalloc

    def records():
        for i in range(20_000):
            yield {"id": f"r{i}", "text": " ".join(f"w{i}x{j}" for j in range(12))}

    index = CorpusIndex.open_or_create(tmp_path / "index")
    tracemalloc.start()
    try:
        counts = index.ingest(records(), report=tmp_path / "report.jsonl")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert counts["added"] == 20_000
    assert peak < 1 << 20, f"{peak} bytes of Python objects at the peak"


def test_a_record_rejected_in_an_earlier_ingest_is_reported_lost_when_its_duplicate_changes(tmp_path):
    index = CorpusIndex.open_or_create(tmp_path / "index")
    index.ingest([{"id": "j", "text": PAGE}])
    rejected = index.ingest([{"id": "i", "text": PAGE}])
    assert rejected[0]["status"] == "duplicate" and rejected[0]["duplicate_of"] == "j"
    other = " ".join(f"n{k}" for k in range(40))
    # Another ingest (another writer, as another process would have) changes `j`: `i`'s
    # text is in no document now, and the report says so after `j`'s line.
    path = tmp_path / "report.jsonl"
    counts = index.ingest([{"id": "j", "text": other}], report=path)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [(line["id"], line["status"]) for line in lines] == [("j", "updated"), ("i", "lost")]
    assert lines[1]["rejudged_after"] == "j"
    assert counts["records"] == 1 and counts["updated"] == 1 and counts["lost"] == 1
    # Reported once.
    again = index.ingest([{"id": "j", "text": PAGE}])
    assert [line["status"] for line in again] == ["updated"]
