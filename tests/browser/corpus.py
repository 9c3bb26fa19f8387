"""The generated corpus the browser tests review: planted near-duplicate pairs of known
edits in English and Chinese, pairs of hostile text, and enough pairs for a full page of
1,000 decisions. Deterministic: the same records every run."""

import json
import random
from dataclasses import dataclass, field

ENGLISH_PAIRS = 1_040
CHINESE_PAIRS = 40
GROUPED_PAIRS = 20
WORDS = 80


@dataclass
class Pair:
    """A planted pair: `kept` is ingested first, `other` is it with `edits` applied."""

    kept: str
    other: str
    kept_text: str
    other_text: str
    # (old, new) of each planted edit.
    edits: list = field(default_factory=list)


def _word(rng: random.Random) -> str:
    syllables = ["ka", "lo", "mi", "ter", "su", "ran", "vel", "do", "pi", "gor", "neb", "ux", "sa", "fi", "thr", "ol"]
    return "".join(rng.choice(syllables) for _ in range(rng.randint(2, 4)))


def _han(rng: random.Random) -> str:
    return chr(rng.randint(0x4E00, 0x9FA5))


def _english(rng: random.Random, n: int, edits: int):
    words = [_word(rng) for _ in range(WORDS)]
    copy = list(words)
    planted = []
    for at in rng.sample(range(2, WORDS - 2), edits):
        new = _word(rng) + "q"
        planted.append((copy[at], new))
        copy[at] = new
    return " ".join(words) + ".", " ".join(copy) + ".", planted


def _chinese(rng: random.Random):
    chars = [_han(rng) for _ in range(WORDS)]
    copy = list(chars)
    at = rng.randrange(5, WORDS - 5)
    new = _han(rng)
    while new == chars[at]:
        new = _han(rng)
    copy[at] = new
    return "".join(chars) + "。", "".join(copy) + "。", [(chars[at], new)]


def hostile_pairs(rng: random.Random) -> list:
    filler = " ".join(_word(rng) for _ in range(60))
    markup = (
        "<script>window.__pwned = 1</script> </script><script>window.__pwned = 2</script> "
        "<img src=x onerror=\"window.__pwned = 3\"> <b>bold</b> &amp; <!-- comment --> "
        "<style>body{display:none}</style> " + filler
    )
    bidi = "\u202eevil override\u202c \u2066isolate\u2069 \u200fmark " + filler + " \u202e"
    huge = " ".join(_word(rng) for _ in range(200_000))[: 1 << 20]
    pairs = []
    for name, text in [("markup", markup), ("bidi", bidi), ("huge", huge)]:
        words = text.split(" ")
        old = words[-3]
        words[-3] = "planted"
        pairs.append(Pair(f"hostile-{name}", f"hostile-{name}-copy", text, " ".join(words), [(old, "planted")]))
    # A hostile id: it must come out as text, never as markup.
    pairs[0].other = '"><script>window.__pwned = 4</script>\u202e'
    return pairs


def corpus() -> dict:
    """{'grouped': [Pair], 'flagged': [Pair], 'hostile': [Pair]}."""
    rng = random.Random(49)
    flagged = []
    for n in range(ENGLISH_PAIRS):
        kept, other, edits = _english(rng, n, 1 + n % 2)
        flagged.append(Pair(f"en-{n}", f"en-{n}-copy", kept, other, edits))
    for n in range(CHINESE_PAIRS):
        kept, other, edits = _chinese(rng)
        flagged.append(Pair(f"zh-{n}", f"zh-{n}-copy", kept, other, edits))
    grouped = []
    for n in range(GROUPED_PAIRS):
        kept, other, edits = _english(rng, n, 1)
        grouped.append(Pair(f"g-{n}", f"g-{n}-copy", kept, other, edits))
    return {"grouped": grouped, "flagged": flagged, "hostile": hostile_pairs(rng)}


def write_jsonl(path, records) -> None:
    with open(path, "w", encoding="utf-8") as out:
        for id_, text in records:
            out.write(json.dumps({"id": id_, "text": text}, ensure_ascii=False) + "\n")
