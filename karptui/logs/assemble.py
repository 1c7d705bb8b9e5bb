"""Physical lines -> logical log lines: a pasted record may span several.

Operators paste JSON records pretty-printed by jq (one key per line), records a
terminal or an editor hard-wrapped (even mid-word or mid-key), and console lines whose
error text held a newline (``... RequestError: send request failed`` / ``caused by:
...  {"commit": ...}``). Each such record is one event, reported at its first physical
line; the lines it took are not counted again.

Almost every line is whole (it ends with ``}``, or it is a console line with its
context), so the check costs one comparison for them; only an open line looks ahead,
and never further than a bound.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator

from .classify import POOL_ERROR
from .kube_events import KARPENTER_REASONS, open_row, wrapped_row
from .paste import FRAGMENT, GO_TRACE, console, unwrap

MAX_JOINED_LINES = 64           # jq prints a v1 record in ~20 lines; a wrapped one takes 2-3
MAX_JOINED_CHARS = 256 * 1024   # far above any record; a bound on the work for a bad paste
_DECODE = json.JSONDecoder().raw_decode
_STARTS_RECORD = re.compile(r'^\s*(?:\{"|\d{4}-\d\d-\d\d[T ]\d\d:|[IWEF]\d{4} |\[pod/|(?:DEBUG|INFO|WARN|ERROR)\b)')
_NOISE = re.compile(r"^\s*(?:$|```|goroutine |\S+\.go:\d+|github\.com/|/\S+\.go:|panic:|\.\.\.\s*$)")


def logical_lines(lines: Iterable[str]) -> Iterator[tuple[str, int]]:
    """Each logical line and how many physical lines it took (1 for nearly all)."""
    source = iter(lines)
    for text in source:
        if text[-1:] == "}":  # a whole record: nearly every line
            yield text, 1
            continue
        held = [text]   # this line, then any read ahead and not used, to be given out in order
        while held:
            text = held.pop(0)
            stripped = text.rstrip()
            if stripped.endswith("}") or not stripped or GO_TRACE.match(stripped):
                yield text, 1
                continue
            body = unwrap(stripped).body
            if body == "{" and _opens_list(held, source):
                yield text, 1
                yield from _list_items(held, source)
                continue
            if body.startswith("{"):
                joined, used = _json(body, held, source, stripped[:1] == "+")
            elif _open_console(body):
                joined, used = _console(stripped, held, source)
            elif _contextless(body):
                joined, used = _context_below(stripped, held, source)
                if joined is None and stripped[-1:].isalnum():
                    joined, used = _list_goes_on(stripped, held, source)
            elif open_row(body):
                joined, used = _row_message_below(stripped, held, source)
            elif wrapped_row(body):
                joined, used = _row_goes_on(stripped, held, source)
            elif body[:1] == '"' and FRAGMENT.match(body):
                joined, used = _fragment_goes_on(body, held, source)
            elif body[:1] == '"' and _PAIR_LINE.match(body):
                joined, used = _pairs_below(body, held, source)
            elif "=" not in body and len(body) < 120 and _logfmt_below(held, source):
                joined, used = _values_below(body.strip(), held, source)
            elif body.strip() in KARPENTER_REASONS:
                joined, used = _message_below(body.strip(), held, source)
            elif stripped[-1:] == ";" and POOL_ERROR.match(body):
                joined, used = _pools_go_on(stripped, held, source)
            else:
                joined, used = None, 0
            if joined is None:
                yield text, 1
            else:
                del held[:used]
                yield joined, used + 1


def _ahead(held: list[str], source: Iterator[str], index: int) -> str | None:
    """The ``index``-th line after the current one, reading ahead as needed."""
    while len(held) <= index:
        line = next(source, None)
        if line is None:
            return None
        held.append(line)
    return held[index]


def _json(body: str, held: list[str], source: Iterator[str], diff: bool = False) -> tuple[str | None, int]:
    """A JSON object that continues on the next lines (pretty-printed or wrapped), if it closes -- not one
    that closed already, behind a wrapper's trailing marks (a whole record in a code span). ``diff``: the first
    line was an added line of a diff, so the lines it goes on in carry the diff's "+" too."""
    if body.rstrip().endswith("}"):
        try:
            _, end = _DECODE(body)
        except (ValueError, RecursionError):
            pass
        else:
            if not body[end:].strip():
                return None, 0
    parts = [body]
    size = len(body)
    quoted = _inside_string(body)  # whether the text so far stops inside a string: a wrap there is the text's own
    for index in range(MAX_JOINED_LINES):
        line = _ahead(held, source, index)
        if line is None or index and (not line.strip() or _NOISE.match(line) or _STARTS_RECORD.match(line)):
            return _cut_wrap(parts)
        piece = line.rstrip("\r\n")
        if index == 0 and body != "{" and _STARTS_RECORD.match(piece):
            return None, 0  # cut off, and the next record begins: nothing to join
        if piece.lstrip().startswith((">", "`")) or diff and piece[:1] == "+":
            piece = unwrap(piece).body
        if parts[-1].endswith("\\") and not parts[-1].endswith("\\\\"):
            parts[-1] = parts[-1][:-1]  # a backslash-continued wrap
        if not quoted and _between_tokens(parts[-1]):   # jq's indent goes; a space a string wraps at stays
            piece = piece.lstrip() if _inside_string(piece.lstrip()) else piece.strip()
        parts.append(piece)
        quoted = _inside_string(parts[-1], quoted)
        size += len(piece)
        if size > MAX_JOINED_CHARS:
            return None, 0
        if piece.rstrip().endswith("}"):
            joined = "".join(parts)
            try:
                _DECODE(joined)
            except (ValueError, RecursionError):
                continue
            return joined, index + 1
    return None, 0


# A pretty-printed List (``kubectl get events -o json``): its "items": [ on one of the lines after its brace
_ITEMS = re.compile(r'^\s*"items"\s*:\s*\[\s*$')


def _opens_list(held: list[str], source: Iterator[str]) -> bool:
    """Whether the lone ``{`` just read opens a pretty-printed List (its ``"items": [`` within three lines)."""
    for index in range(3):
        line = _ahead(held, source, index)
        if line is None:
            return False
        if _ITEMS.match(line):
            return True
    return False


def _list_items(held: list[str], source: Iterator[str]) -> Iterator[tuple[str, int]]:
    """A pretty-printed List's lines, each item joined into one logical line at its own first line (an
    Event item is an event where its brace is); the List's own lines are given out alone. An item the paste
    cut is joined as far as it goes, as a cut record is."""
    def take() -> str | None:
        return held.pop(0) if held else next(source, None)

    while True:   # the List's head, up to its "items": [
        line = take()
        if line is None:
            return
        yield line, 1
        if _ITEMS.match(line):
            break
    while True:
        line = take()
        if line is None:
            return
        if line.strip() != "{":
            yield line, 1   # the items' closing "]" and the List's tail, or what a paste left there
            if line.strip().startswith("]"):
                return
            continue
        parts = ["{"]
        while len(parts) <= MAX_JOINED_LINES:
            piece = take()
            if piece is None:   # the paste ended inside the item
                yield "".join(parts), len(parts)
                return
            parts.append(piece.strip())
            if piece.strip() in ("}", "},"):
                joined = "".join(parts[:-1]) + "}"
                try:
                    _DECODE(joined)
                except (ValueError, RecursionError):
                    continue   # a nested object's close
                yield joined, len(parts)
                break
        else:
            yield "".join(parts), len(parts)


def _cut_wrap(parts: list[str]) -> tuple[str | None, int]:
    """A record wrapped and then cut (the paste ended before it closed): its lines joined, for the pairs
    they carry (a NodePool's reason on the second line is still the record's). Only a first line that
    stopped inside a string value, or between pairs with the next line going on with a key (a wrap after
    a comma, jq's one key a line), was wrapped; any other cut record stands alone."""
    if len(parts) < 2 or not (_inside_string(parts[0]) or _between_tokens(parts[0])
                              and parts[1].lstrip().startswith('"')):
        return None, 0
    return "".join(parts), len(parts) - 1


def _inside_string(text: str, quoted: bool = False) -> bool:
    """Whether a JSON text stops inside a string (an odd number of unescaped quotes), given whether
    it started inside one."""
    escaped = False
    for ch in text:
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == '"':
            quoted = not quoted
    return quoted


def _between_tokens(previous: str) -> bool:
    """jq puts a line break after ``{``, ``[``, ``,`` and ``:``: there the next line's indent is only layout."""
    return previous.rstrip().endswith(("{", "[", ",", ":")) or previous.strip() in ("{", "")


def _open_console(body: str) -> bool:
    """An error or warning console line without its context: its text may go on below."""
    found = console(body, "")
    return found is not None and found.level in ("error", "warn") and not found.context


def _contextless(body: str) -> bool:
    """A console line of any level without its context object."""
    found = console(body, "")
    return found is not None and not found.context


def _context_below(first: str, held: list[str], source: Iterator[str]) -> tuple[str | None, int]:
    """A terminal or an editor wrapped a console line before its context: the next line is that
    object alone, indented (``        {"commit": "a83f61c", "provisioner": "default"}``), or the
    object wrapped in turn over a few lines (a launch's context is long). A JSON record of its own
    (a level or a message in it) is not a context."""
    line = _ahead(held, source, 0)
    piece = line.strip() if line is not None else ""
    if not piece.startswith('{"'):
        return None, 0
    for index in range(1, _CONTEXT_LINES + 1):
        if piece.endswith("}"):
            try:
                data, end = _DECODE(piece)
            except (ValueError, RecursionError):
                data, end = None, 0
            if end == len(piece) and type(data) is dict:
                if {"level", "message", "msg"} & data.keys():
                    return None, 0
                return f"{first}\t{piece}", index
        line = _ahead(held, source, index)
        if line is None or not line.strip() or _NOISE.match(line) or _STARTS_RECORD.match(line) or _is_record(line):
            return None, 0
        piece += (" " if piece.endswith((",", ":")) else "") + line.strip()
    return None, 0


_CONTEXT_LINES = 4  # a context wrapped below its line takes one line, at most a few


def _row_message_below(first: str, held: list[str], source: Iterator[str]) -> tuple[str | None, int]:
    """An event row that stops at its From column, and its message alone on the next line."""
    line = _ahead(held, source, 0)
    if line is None or not line.strip() or _STARTS_RECORD.match(line) or _NOISE.match(line) or _is_record(line) \
            or open_row(line) or line.lstrip().startswith(("Normal ", "Warning ")):
        return None, 0
    return f"{first}  {line.strip()}", 1


# one ``key=value`` a line, as an author lists a record's values below its message
_LOGFMT_LINE = re.compile(r'^\s*[A-Za-z][\w.-]*=(?:"(?:[^"\\]|\\.)*"|[^\s"]+)\s*$')


def _logfmt_below(held: list[str], source: Iterator[str]) -> bool:
    line = _ahead(held, source, 0)
    return line is not None and _LOGFMT_LINE.match(line) is not None


def _values_below(message: str, held: list[str], source: Iterator[str]) -> tuple[str | None, int]:
    """A message alone, then a few of its record's values one ``key=value`` a line (an author's notes:
    ``disrupting node(s)`` / ``decision="delete"`` / ``pod-count=1``): one line, the message, the
    author's ``...`` and the pairs, as a shortened copy that kept them reads."""
    pairs = []
    for index in range(MAX_PAIR_LINES):
        line = _ahead(held, source, index)
        if line is None or not _LOGFMT_LINE.match(line):
            break
        pairs.append(line.strip())
    return f"{message} ... {' '.join(pairs)}", len(pairs)


def _message_below(reason: str, held: list[str], source: Iterator[str]) -> tuple[str | None, int]:
    """One of Karpenter's event reasons alone on its line, as an author lists an event (``DisruptionBlocked``,
    then ``Pdb prevents pod evictions ...`` below): the next line is its message, read as ``REASON: MESSAGE``."""
    line = _ahead(held, source, 0)
    if line is None or not line.strip() or _NOISE.match(line) or _STARTS_RECORD.match(line) or _is_record(line) \
            or line.strip() in KARPENTER_REASONS:
        return None, 0
    return f"{reason}: {line.strip()}", 1


def _row_goes_on(first: str, held: list[str], source: Iterator[str]) -> tuple[str | None, int]:
    """An event row wrapped after a ``,`` or ``;``: its indented continuation lines, while the text
    still stops at one."""
    parts = [first.rstrip()]
    for index in range(MAX_JOINED_LINES):
        line = _ahead(held, source, index)
        if line is None or not line[:1].isspace() or not line.strip() or _NOISE.match(line) \
                or _STARTS_RECORD.match(line) or _is_record(line):
            break
        parts.append(line.strip())
        if not parts[-1].endswith((",", ";")):
            break
    return (" ".join(parts), len(parts) - 1) if len(parts) > 1 else (None, 0)


def _fragment_goes_on(first: str, held: list[str], source: Iterator[str]) -> tuple[str | None, int]:
    """A braceless record fragment wrapped inside a string: the next lines until its pairs read as
    one object (a few at most)."""
    parts = [first]
    for index in range(3):
        try:
            _DECODE("{" + "".join(parts).rstrip().rstrip(",") + "}")
            return ("".join(parts), index) if index else (None, 0)
        except (ValueError, RecursionError):
            pass
        line = _ahead(held, source, index)
        if line is None or not line.strip() or _NOISE.match(line) or _STARTS_RECORD.match(line) or _is_record(line):
            return None, 0
        parts.append(line.rstrip("\r\n"))
    return None, 0


# One or a few of a record's pairs, without its braces, ending with the comma before the next line's:
# an author's copy of a record one pair to a line (``"message":"failed launching nodeclaim",``)
_PAIR_LINE = re.compile(r'^"[\w.\-/ ]+"\s*:\s*(?:"(?:[^"\\]|\\.)*"|-?\d[\d.e+-]*|true|false|null)\s*,\s*'
                        r'(?:"[\w.\-/ ]+"\s*:\s*(?:"(?:[^"\\]|\\.)*"|-?\d[\d.e+-]*|true|false|null)\s*,\s*)*$')
_PAIR_OPENS = re.compile(r'^\s*"[\w.\-/ ]+"\s*:')
MAX_PAIR_LINES = 32
# a log viewer's folded value, on the line below its key: {…} for an object, (3)[…] for a list of three
_FOLDED = re.compile(r"^\s*(?:\(\d+\))?(?:\{…\}|\[…\]|\{\.\.\.\}|\[\.\.\.\])\s*(,?)\s*$")


def _pairs_below(first: str, held: list[str], source: Iterator[str]) -> tuple[str | None, int]:
    """A braceless record written a pair or two to a line: the lines below that go on with its pairs, to
    the one that ends without a comma (its last pair), read as one fragment; nothing joined when the
    pairs stop at a blank line or a line of another kind."""
    parts = [first.rstrip()]
    for index in range(MAX_PAIR_LINES):
        line = _ahead(held, source, index)
        folded = _FOLDED.match(line) if line is not None and parts[-1].endswith(":") else None
        if folded:   # a log viewer's folded object or list, below its key: no value to read
            parts[-1] += "null" + folded.group(1)
            if folded.group(1):
                continue
        elif line is None or not _PAIR_OPENS.match(line):
            return None, 0
        else:
            parts.append(line.strip())
        if not parts[-1].endswith((",", ":")):
            joined = "".join(parts)
            try:
                _DECODE("{" + joined + "}")
            except (ValueError, RecursionError):
                return None, 0
            return joined, index + 1
    return None, 0


def _pools_go_on(first: str, held: list[str], source: Iterator[str]) -> tuple[str | None, int]:
    """A scheduling error pasted alone and broken at the ``; `` between two NodePools' reasons: the
    lines that go on with the next NodePool's part."""
    parts = [first.rstrip()]
    for index in range(MAX_JOINED_LINES):
        line = _ahead(held, source, index)
        if line is None or not parts[-1].endswith(";") or not POOL_ERROR.match(line.strip()):
            break
        parts.append(line.strip())
    return (" ".join(parts), len(parts) - 1) if len(parts) > 1 else (None, 0)


def _is_record(line: str) -> bool:
    """Whether a line is a record of its own behind some prefix (stern's, a viewer's)."""
    body = unwrap(line.rstrip("\r\n")).body
    return body.startswith("{") or console(body, "") is not None


# the rest of a list's item a hard wrap cut mid-word, then the list going on: "and, ip-10-..." after "on-dem"
_LIST_REST = re.compile(r"^[a-z0-9.-]+(?:/[\w.-]+)*, \S")


def _list_goes_on(first: str, held: list[str], source: Iterator[str]) -> tuple[str | None, int]:
    """A console line's list of nodes (``terminating 100 machines A/m5.large/on-demand, B/...``) that a terminal
    or editor hard-wrapped in the middle of an item: the lines below that go on with the list, joined where
    they were cut."""
    parts = [first]
    for index in range(MAX_JOINED_LINES):
        line = _ahead(held, source, index)
        if line is None or not _LIST_REST.match(line):
            break
        parts.append(line.rstrip("\r\n"))
        if not parts[-1][-1:].isalnum():
            break
    return ("".join(parts), len(parts) - 1) if len(parts) > 1 else (None, 0)


def _console(first: str, held: list[str], source: Iterator[str]) -> tuple[str | None, int]:
    """Up to three continuation lines, until one brings the context JSON; more while every line so far
    has the first one's width (a terminal's hard wrap: an 80-column ``kubectl logs --prefix`` error
    line takes five or six)."""
    parts = [first]
    width = len(first)
    following = _ahead(held, source, 0)
    fixed = following is not None and len(following.rstrip("\r\n")) == width  # two lines of one width: a hard wrap
    for index in range(MAX_JOINED_LINES):
        line = _ahead(held, source, index)
        if line is None or _STARTS_RECORD.match(line) or _NOISE.match(line) or _is_record(line):
            break
        if index >= 3 and not (fixed and len(parts[-1]) == width):
            break
        piece = line.rstrip("\r\n")
        parts.append(piece if fixed or len(parts[-1]) >= 150 else " " + piece.lstrip())  # a terminal wraps mid-word
        if piece.rstrip().endswith("}"):
            return "".join(parts), index + 1
    return ("".join(parts), len(parts) - 1) if len(parts) > 1 else (None, 0)
