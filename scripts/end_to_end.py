#!/usr/bin/env python3
"""End-to-end quality of the CLI on labeled evaluation sets: what a user gets.

`tantivy-dedup eval` scores pairs one by one. A user runs `ingest`, which admits the
documents in order, and `clusters`, which prints the groups: pairs the labels do not list
can join or split groups. For each set folder (docs/DATA.md, "Evaluation sets: format"),
in fresh temporary indexes:

  1. `ingest --policy flag --report R --index I <options> SET/docs.jsonl`, then
     `clusters --index I --json`: every pair of documents in one cluster is called near;
     precision, recall and F1 over ALL pairs of the set, by the semantics of
     `tantivy-dedup eval` (compare_quality.EvalSet: listed pairs by their label, unlisted
     pairs by the set's `unlisted` rule), so recall's denominator is every positive pair;
  2. `ingest --policy reject --report R --index J <options> SET/docs.jsonl`: documents
     rejected, and rejected wrongly (the pair (document, duplicate_of) is distinct: listed
     false, or unlisted and distinct by the rule), as a count and a share of the set's
     documents (the target: at most 0.2 %).

Prints one line per set, appends one JSON object per set to --out (set, name, options,
documents, clusters, precision, recall, f1, tp, fp, fn, rejected, wrongly_rejected,
wrongly_rejected_share, seconds, and more: see `run_set`) and one Markdown table row per
set to --markdown (the header when the file is new or empty).

Usage: end_to_end.py [--bin target/release/tantivy-dedup] [--out FILE.jsonl]
                     [--markdown FILE.md] [--name LABEL] SET_DIR... [-- INGEST_OPTION...]
       end_to_end.py --self-test

The options after `--` go to both `ingest` runs (e.g. `--preset news`, `--threshold 0.7`,
`--settings file.json`, `--idf-from {docs}`: `{docs}` is the set's docs.jsonl); without them the indexes take the defaults of the binary at hand
(each JSON row keeps the index's settings, from `stats --json`). The binary is copied once
per run, so a rebuild in the middle does not mix two versions.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare_quality import EvalSet, features, point  # noqa: E402

TARGET_SHARE = 0.002  # at most 0.2 % of the documents rejected wrongly


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ----------------------------------------------------------- scoring ----

def listed_arrays(s: EvalSet) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The listed pairs as arrays: a, b, label (1 near, 0 distinct, -1 left out)."""
    if not s.listed:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    keys = np.array(list(s.listed.keys()), dtype=np.int64)
    labels = np.array([{True: 1, False: 0, None: -1}[v[0]] for v in s.listed.values()],
                      dtype=np.int64)
    return keys[:, 0], keys[:, 1], labels


def score_clusters(s: EvalSet, clusters: list[list[str]]) -> dict:
    """Pairs inside one cluster called near, every other pair called distinct; counted
    over all pairs of the set without visiting them: per cluster, its pairs of one group
    and of different groups take the unlisted rule's label, then each listed pair inside a
    cluster trades that label for its own."""
    n = len(s.ids)
    index = {d: i for i, d in enumerate(s.ids)}
    cluster_of = np.full(n, -1, dtype=np.int64)
    unknown = []
    for k, ids in enumerate(clusters):
        for d in ids:
            i = index.get(d)
            if i is None:
                unknown.append(d)
            elif cluster_of[i] >= 0:
                raise ValueError(f"document {d!r} is in clusters {cluster_of[i]} and {k}")
            else:
                cluster_of[i] = k
    if unknown:
        log(f"  warning: {len(unknown)} clustered ids are not in the set, e.g. {unknown[0]!r}")
    k_clusters = len(clusters)
    alone = cluster_of < 0
    cluster_of[alone] = k_clusters + np.arange(int(alone.sum()))  # each its own cluster
    m = k_clusters + int(alone.sum())
    size = np.bincount(cluster_of, minlength=m)
    within = size * (size - 1) // 2

    # Pairs of one group per cluster: cells (cluster, group); a document without a group
    # has a group of its own (EvalSet gives it a negative code).
    _, group = np.unique(s.groups, return_inverse=True)
    group = group.astype(np.int64).reshape(-1)
    n_groups = int(group.max()) + 1 if n else 1
    cells, counts = np.unique(cluster_of * n_groups + group, return_counts=True)
    same = np.zeros(m, dtype=np.int64)
    np.add.at(same, cells // n_groups, counts * (counts - 1) // 2)
    diff = within - same

    zero = np.zeros(m, dtype=np.int64)
    pos, neg = {"ignore": (zero, zero), "group": (same, diff),
                "negative": (zero, diff)}[s.unlisted]
    pos, neg = pos.copy(), neg.copy()

    a, b, label = listed_arrays(s)
    inside = cluster_of[a] == cluster_of[b]
    a, b, label = a[inside], b[inside], label[inside]
    where = cluster_of[a]
    one_group = s.groups[a] == s.groups[b]
    if s.unlisted == "group":
        np.subtract.at(pos, where[one_group], 1)
        np.subtract.at(neg, where[~one_group], 1)
    elif s.unlisted == "negative":
        np.subtract.at(neg, where[~one_group], 1)
    np.add.at(pos, where[label == 1], 1)
    np.add.at(neg, where[label == 0], 1)

    positives, negatives = s.totals()
    tp, fp = int(pos.sum()), int(neg.sum())
    scores = point(None, tp, fp, positives)

    real = s.groups >= 0  # documents with a group
    spans = np.unique(np.stack([cluster_of[real], s.groups[real]]), axis=1) if real.any() \
        else np.zeros((2, 0), dtype=np.int64)
    groups_per_cluster = np.bincount(spans[0], minlength=m) if spans.size else zero
    clusters_per_group = np.bincount(spans[1]) if spans.size else np.zeros(0, dtype=np.int64)
    group_size = np.bincount(s.groups[real]) if real.any() else np.zeros(0, dtype=np.int64)
    return {
        "clusters": k_clusters,
        "clustered_documents": int(n - alone.sum()),
        "largest_cluster": int(size[:k_clusters].max()) if k_clusters else 0,
        "precision": scores["precision"], "recall": scores["recall"], "f1": scores["f1"],
        "tp": tp, "fp": fp, "fn": positives - tp,
        "positives": positives, "negatives": negatives,
        # clusters holding at least one pair labeled distinct, and (for sets with groups)
        # clusters whose documents come from more than one group
        "clusters_with_distinct_pair": int((neg[:k_clusters] > 0).sum()),
        "clusters_merging_groups": int((groups_per_cluster[:k_clusters] > 1).sum()),
        # groups of two or more documents spread over several clusters (or singletons)
        "groups_split": int(((group_size > 1) & (clusters_per_group > 1)).sum()),
        "unknown_ids": len(unknown),
    }


def score_rejections(s: EvalSet, report: list[dict]) -> dict:
    """Rejections of a `--policy reject` report, and those whose pair (document,
    duplicate_of) is labeled distinct; also those the set labels near and leaves out, and
    how alike the texts of the wrong ones are."""
    index = {d: i for i, d in enumerate(s.ids)}
    rejected = wrong = right = unlabeled = errors = 0
    examples, jaccards = [], []
    for row in report:
        if row.get("status") == "error":
            errors += 1
        if row.get("status") != "duplicate":
            continue
        rejected += 1
        other = row.get("duplicate_of")
        if isinstance(other, list):
            other = other[0] if other else None
        a, b = index.get(row.get("id")), index.get(other)
        label = None if a is None or b is None else s.label(a, b)
        if label is False:
            wrong += 1
            jaccards.append(jaccard(s.texts[a], s.texts[b]))
            if len(examples) < 5:
                examples.append([row.get("id"), other, row.get("distance"), row.get("similarity"),
                                 round(jaccards[-1], 3)])
        elif label is True:
            right += 1
        else:
            unlabeled += 1
    n = len(s.ids)
    return {"rejected": rejected, "wrongly_rejected": wrong,
            "wrongly_rejected_share": wrong / n if n else 0.0,
            "rightly_rejected": right, "rejected_unlabeled": unlabeled,
            "reject_errors": errors,
            # a diagnostic of the labels: wrong rejections whose texts are alike anyway
            # (character 5-gram Jaccard, as compare_quality's datasketch peer shingles)
            "wrongly_rejected_jaccard_ge_0.5": sum(j >= 0.5 for j in jaccards),
            "wrongly_rejected_jaccard_ge_0.8": sum(j >= 0.8 for j in jaccards),
            "wrong_rejection_examples": examples}


def jaccard(x: str, y: str) -> float:
    a, b = set(features("char-5gram", x)), set(features("char-5gram", y))
    return len(a & b) / len(a | b) if a | b else 1.0


# --------------------------------------------------------------- CLI ----

def run(cmd: list[str], what: str) -> subprocess.CompletedProcess:
    """Run the binary; exit code 1 (some record an error) is a warning, others fail."""
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        log(f"  {what} failed ({done.returncode}): {shlex.join(cmd)}\n{done.stderr[-4000:]}")
        raise SystemExit(2)
    if done.returncode == 1:
        log(f"  warning: {what} reported errors: {done.stderr.strip().splitlines()[-1:]}")
    return done


def read_report(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def run_set(binary: str, directory: Path, options: list[str], name: str, work: Path) -> dict:
    options = [o.replace("{docs}", str(directory / "docs.jsonl")) for o in options]
    started = time.perf_counter()
    s = EvalSet(directory)
    work = Path(tempfile.mkdtemp(prefix=f"{directory.name}-", dir=work))
    docs = str(directory / "docs.jsonl")

    t0 = time.perf_counter()
    flag_report = work / "flag.jsonl"
    run([binary, "ingest", "--index", str(work / "flag"), "--policy", "flag",
         "--report", str(flag_report), *options, docs], "ingest --policy flag")
    t1 = time.perf_counter()
    out = run([binary, "clusters", "--index", str(work / "flag"), "--json"], "clusters")
    clusters = [c["ids"] for c in json.loads(out.stdout)["clusters"]]
    t2 = time.perf_counter()
    reject_report = work / "reject.jsonl"
    run([binary, "ingest", "--index", str(work / "reject"), "--policy", "reject",
         "--report", str(reject_report), *options, docs], "ingest --policy reject")
    t3 = time.perf_counter()
    stats = json.loads(run([binary, "stats", "--index", str(work / "flag"), "--json"],
                           "stats").stdout)
    flagged = sum(r.get("status") == "duplicate" for r in read_report(flag_report))

    row = {"set": s.name, "name": name, "options": shlex.join(options),
           "documents": len(s.ids), "flagged": flagged}
    row.update(score_clusters(s, clusters))
    row.update(score_rejections(s, read_report(reject_report)))
    row.update({"seconds": round(time.perf_counter() - started, 2),
                "flag_ingest_seconds": round(t1 - t0, 2), "clusters_seconds": round(t2 - t1, 2),
                "reject_ingest_seconds": round(t3 - t2, 2),
                "settings": stats.get("settings")})
    shutil.rmtree(work, ignore_errors=True)
    return row


def summary(r: dict) -> str:
    return (f"{r['set']} [{r['name']}]: {r['documents']} docs, {r['clusters']} clusters "
            f"(largest {r['largest_cluster']}, {r['clusters_with_distinct_pair']} with a distinct "
            f"pair, {r['clusters_merging_groups']} merging groups, {r['groups_split']} groups "
            f"split); P {r['precision']:.4f} R {r['recall']:.4f} F1 {r['f1']:.4f} "
            f"(tp {r['tp']}, fp {r['fp']}, fn {r['fn']}); rejected {r['rejected']}, wrongly "
            f"{r['wrongly_rejected']} ({100 * r['wrongly_rejected_share']:.3f} %"
            f"{'' if r['wrongly_rejected_share'] <= TARGET_SHARE else ', over the 0.2 % target'}; "
            f"{r['wrongly_rejected_jaccard_ge_0.5']} of them with char-5gram Jaccard >= 0.5); "
            f"{r['seconds']:.1f} s")


MD_HEADER = ("| name | set | options | documents | clusters | precision | recall | F1 | TP | FP | FN "
             "| rejected | wrongly rejected | share | seconds |\n"
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")


def markdown_row(r: dict) -> str:
    options = f"`{r['options']}`" if r["options"] else "(defaults)"
    mark = "" if r["wrongly_rejected_share"] <= TARGET_SHARE else " ✗"
    return (f"| {r['name']} | {r['set']} | {options} | {r['documents']} | {r['clusters']} | "
            f"{r['precision']:.4f} | {r['recall']:.4f} | {r['f1']:.4f} | {r['tp']} | {r['fp']} | "
            f"{r['fn']} | {r['rejected']} | {r['wrongly_rejected']} | "
            f"{100 * r['wrongly_rejected_share']:.3f} %{mark} | {r['seconds']:.1f} |\n")


# --------------------------------------------------------- self-test ----

def write_set(d: Path, docs: list[dict], pairs: list[dict], rule: str) -> EvalSet:
    (d / "docs.jsonl").write_text("".join(json.dumps(x) + "\n" for x in docs))
    (d / "pairs.jsonl").write_text("".join(json.dumps(x) + "\n" for x in pairs))
    (d / "set.json").write_text(json.dumps({"name": "t", "unlisted": rule}))
    return EvalSet(d)


def brute_force(s: EvalSet, clusters: list[list[str]]) -> tuple[int, int, int]:
    where = {d: k for k, ids in enumerate(clusters) for d in ids}
    tp = fp = fn = 0
    n = len(s.ids)
    for a in range(n):
        for b in range(a + 1, n):
            label = s.label(a, b)
            ka, kb = where.get(s.ids[a]), where.get(s.ids[b])
            near = ka is not None and ka == kb
            tp += near and label is True
            fp += near and label is False
            fn += (not near) and label is True
    return tp, fp, fn


def self_test() -> None:
    """The scorer on a hand-made set with known answers under each rule, and against a
    pair-by-pair count on random sets and clusters."""
    import random

    # d0 d1 d2: group A; d3 d4: group B; d5 d6: no group; d7: group C.
    docs = [{"id": f"d{i}", "text": "x", **({"group": g} if g else {})}
            for i, g in enumerate("AAABB" + "--" + "C")]
    for d in docs:
        if d.get("group") == "-":
            del d["group"]
    pairs = [{"a": "d0", "b": "d1", "label": True}, {"a": "d2", "b": "d0", "label": None},
             {"a": "d3", "b": "d5", "label": True}, {"a": "d5", "b": "d6", "label": False},
             {"a": "d1", "b": "d3", "label": False}]
    clusters = [["d0", "d1", "d2", "d3"], ["d5", "d6"]]  # d4, d7 alone
    # Inside clusters: d0d1 T, d0d2 null, d0d3 unlisted/other groups, d1d2 unlisted/one group,
    # d1d3 F, d2d3 unlisted/other groups, d5d6 F.
    # negative: tp 1 (d0d1), fp 4 (d0d3 d1d3 d2d3 d5d6); positives d0d1 d3d5.
    # group: tp 2 (+ d1d2), fp 4; positives d0d1 d3d5 d1d2 d3d4.
    # ignore: tp 1, fp 2 (d1d3 d5d6); positives d0d1 d3d5.
    expected = {"negative": (1, 4, 1), "group": (2, 4, 2), "ignore": (1, 2, 1)}
    # Rejections: d1 of d0 (near), d3 of d1 (distinct), d6 of d5 (distinct), d4 of d3 (one
    # group, unlisted), d7 of d0 (other groups, unlisted), d2 of a stranger.
    report = [{"id": "d0", "status": "added"},
              {"id": "d1", "status": "duplicate", "duplicate_of": "d0", "action": "rejected"},
              {"id": "d3", "status": "duplicate", "duplicate_of": "d1", "action": "rejected"},
              {"id": "d6", "status": "duplicate", "duplicate_of": "d5", "action": "rejected"},
              {"id": "d4", "status": "duplicate", "duplicate_of": "d3", "action": "rejected"},
              {"id": "d7", "status": "duplicate", "duplicate_of": "d0", "action": "rejected"},
              {"id": "d2", "status": "duplicate", "duplicate_of": "zz", "action": "rejected"}]
    expected_wrong = {"negative": (3, 1, 2), "group": (3, 2, 1), "ignore": (2, 1, 3)}
    for rule, (tp, fp, fn) in expected.items():
        with tempfile.TemporaryDirectory() as tmp:
            s = write_set(Path(tmp), docs, pairs, rule)
            r = score_clusters(s, clusters)
            assert (r["tp"], r["fp"], r["fn"]) == (tp, fp, fn), (rule, r)
            assert brute_force(s, clusters) == (tp, fp, fn), rule
            assert r["clusters"] == 2 and r["clustered_documents"] == 6
            assert r["clusters_with_distinct_pair"] == 2
            assert r["clusters_merging_groups"] == 1 and r["groups_split"] == 1, r
            assert abs(r["precision"] - tp / (tp + fp)) < 1e-12
            j = score_rejections(s, report)
            wrong, right, unlabeled = expected_wrong[rule]
            assert (j["rejected"], j["wrongly_rejected"], j["rightly_rejected"],
                    j["rejected_unlabeled"]) == (6, wrong, right, unlabeled), (rule, j)
            assert j["wrongly_rejected_share"] == wrong / 8

    rng = random.Random(7)
    for trial in range(60):
        rule = ("negative", "group", "ignore")[trial % 3]
        n = rng.randrange(1, 30)
        docs = [{"id": f"d{i}", "text": "x",
                 **({"group": f"g{rng.randrange(5)}"} if rng.random() < 0.7 else {})}
                for i in range(n)]
        seen, pairs = set(), []
        for _ in range(rng.randrange(0, 3 * n)):
            a, b = rng.sample(range(n), 2) if n > 1 else (0, 0)
            if a != b and (min(a, b), max(a, b)) not in seen:
                seen.add((min(a, b), max(a, b)))
                pairs.append({"a": f"d{a}", "b": f"d{b}",
                              "label": rng.choice([True, False, None])})
        order = list(range(n))
        rng.shuffle(order)
        clusters, i = [], 0
        while i < n:
            k = rng.choice([1, 1, 2, 3, 5])
            members = [f"d{j}" for j in order[i:i + k]]
            if len(members) > 1:
                clusters.append(members)
            i += k
        with tempfile.TemporaryDirectory() as tmp:
            s = write_set(Path(tmp), docs, pairs, rule)
            r = score_clusters(s, clusters)
            assert (r["tp"], r["fp"], r["fn"]) == brute_force(s, clusters), (trial, rule, r)
    log("self-test passed")


# -------------------------------------------------------------- main ----

def main() -> None:
    argv = sys.argv[1:]
    options: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, options = argv[:cut], argv[cut + 1:]
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sets", nargs="*", type=Path, metavar="SET_DIR")
    parser.add_argument("--bin", default="target/release/tantivy-dedup")
    parser.add_argument("--out", type=Path, help="append one JSON object per set")
    parser.add_argument("--markdown", type=Path, help="append one table row per set")
    parser.add_argument("--name", help="label of this run [default: the options, or 'defaults']")
    parser.add_argument("--tmp", help="folder for the temporary indexes [default: the system's]")
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args(argv)
    if args.self_test:
        self_test()
        return
    if not args.sets:
        parser.error("no SET_DIR given")
    for d in args.sets:
        if not (d / "docs.jsonl").exists():
            parser.error(f"{d}: no docs.jsonl")
    name = args.name or (shlex.join(options) if options else "defaults")
    with tempfile.TemporaryDirectory(prefix="end-to-end-", dir=args.tmp) as tmp:
        binary = str(Path(tmp) / "tantivy-dedup")
        shutil.copy2(args.bin, binary)  # one version for the whole run
        version = subprocess.run([binary, "--version"], capture_output=True, text=True,
                                 check=True).stdout.strip()
        built = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(os.path.getmtime(args.bin)))
        log(f"{version} ({args.bin}, built {built}); ingest options: {shlex.join(options) or '(none)'}")
        for d in args.sets:
            row = run_set(binary, d, options, name, Path(tmp))
            row["binary"] = f"{version}, built {built}"
            print(summary(row), flush=True)
            if args.out:
                args.out.parent.mkdir(parents=True, exist_ok=True)
                with args.out.open("a") as f:
                    f.write(json.dumps(row) + "\n")
            if args.markdown:
                args.markdown.parent.mkdir(parents=True, exist_ok=True)
                new = not args.markdown.exists() or args.markdown.stat().st_size == 0
                with args.markdown.open("a") as f:
                    f.write((MD_HEADER if new else "") + markdown_row(row))


if __name__ == "__main__":
    main()
