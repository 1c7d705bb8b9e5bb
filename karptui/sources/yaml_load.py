"""The one way karptui parses YAML: depth and aliases checked before anything is built.

LibYAML's parser is iterative, but PyYAML composes nodes recursively in C: a 50 KB
file nested 25,000 levels deep kills the process (exit 139) where LibYAML itself has
no nesting cap. And an alias is expanded wherever the value is later walked: nine
aliases of nine aliases ... of a list is a billion nodes in under a kilobyte. So
every YAML text karptui reads goes through :func:`load` or :func:`load_all`, which
refuse, with one line, YAML nested deeper than ``MAX_YAML_DEPTH`` (aliases expanded),
with more than ``MAX_YAML_ALIASES`` aliases, with an alias inside its own anchor, or
whose aliases would add more than ``MAX_YAML_ALIAS_EXPANSION`` nodes.

The check is two-staged so that a 1 GB kubectl dump pays almost nothing:

* a pre-filter at C speed (``str.count``, ``str.find``, one regex search) computes an
  upper bound of the nesting depth and whether the text could hold an alias at all. It
  may over-estimate (brackets inside quoted strings, deep block-scalar text) but never
  under-estimates;
* only when the bound passes the limit, or an alias is possible, LibYAML's event stream
  is walked - depth and alias expansion are counted, nothing is composed or built.

Why the bound holds: flow collections each need their own ``[`` or ``{``, so their
depth is at most the number of those characters. A block collection nested in another
starts at a greater column, except a sequence that is a mapping's value (same column),
which cannot directly hold another such sequence: at most two levels per column. A
block collection starts at a line's indentation, or after the ``- ``, ``? ``, ``: ``
indicators that begin a line (``- - - x``); so block depth is at most twice the longest
run of spaces, tabs and ``-?:`` at the start of a line, plus two. Line breaks are
LibYAML's: ``\\n``, ``\\r``, NEL, LS and PS.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from functools import lru_cache

import yaml

from .. import limits
from ..errors import InputError

try:  # LibYAML: about ten times faster than the pure-Python loader
    Loader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - wheels ship LibYAML
    Loader = yaml.SafeLoader

_LINE_BREAKS = "\n\r\x85\u2028\u2029"
_PREFIX_CHARS = " \t?:\\-\ufeff"
#: Characters after which ``*`` or ``&`` starts an alias or anchor token (YAML
#: whitespace, line breaks, flow indicators, a BOM; ``:`` for ``{"a":*b}``).
_BEFORE_TOKEN = frozenset(" \t[{,:\ufeff" + _LINE_BREAKS)
#: Characters that cannot begin an anchor's name (``* *`` in a cron schedule is no alias).
_NOT_A_NAME = frozenset(" \t,[]{}" + _LINE_BREAKS)
_SCAN_IN_PYTHON = 2000  # past this many '*' characters, one regex search is cheaper
#: The line of the whole file where a text begins: a number, or a function that counts it
#: only when a message needs it (counting for every list item would be quadratic).
LineOffset = int | Callable[[], int]
_MAYBE_TOKEN = re.compile(r"[&*](?<=[ \t\[{,:\ufeff\n\r\x85\u2028\u2029][&*])[^ \t,\[\]{}\n\r\x85\u2028\u2029]")


@lru_cache(maxsize=512)
def _indented(columns: int) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(a line starting with ``columns`` prefix characters, the same for the text's first line)."""
    run = f"[{_PREFIX_CHARS}]{{{columns}}}"
    return re.compile(f"[{_LINE_BREAKS}]{run}"), re.compile(run)


def may_hold(text: str, marks: str = "*", start: int = 0, end: int | None = None) -> bool:
    """Could ``text[start:end]`` hold an alias (``"*"``) or anchor (``"&"``)? Never a false no."""
    end = len(text) if end is None else end
    for mark in marks:
        pos, seen = text.find(mark, start, end), 0
        while pos != -1:
            if (pos == start or text[pos - 1] in _BEFORE_TOKEN) and text[pos + 1 : pos + 2] not in _NOT_A_NAME:
                return True
            seen += 1
            if seen > _SCAN_IN_PYTHON:  # a file full of '*' in strings: let the regex engine look
                return _MAYBE_TOKEN.search(text, pos, end) is not None
            pos = text.find(mark, pos + 1, end)
    return False


def depth_bound(text: str, limit: int) -> int:
    """An upper bound of the nesting depth of ``text``, exact enough to compare with ``limit``.

    Returns ``limit + 1`` as soon as the bound passes the limit (the precise pass decides).
    """
    flow = text.count("[") + text.count("{")
    if flow + 2 > limit:
        return limit + 1
    # block depth <= 2 * prefix + 2: is there a line whose prefix makes the total pass the limit?
    columns = (limit - flow - 2) // 2 + 1
    later_line, first_line = _indented(columns)
    if first_line.match(text) or later_line.search(text):
        return limit + 1
    return flow + 2 * (columns - 1) + 2


def check(text: str, path: str, line_offset: LineOffset = 0) -> None:
    """Refuse ``text`` (InputError) if it nests too deeply or its aliases would blow up.

    When the whole text does not pass the pre-filter, each document is filtered on its
    own (a stream of thousands of small objects has brackets enough in total, but each
    document is shallow), and only the documents that fail go through the event pass.
    """
    depth_limit = limits.MAX_YAML_DEPTH
    if depth_bound(text, depth_limit) <= depth_limit and not may_hold(text, "*"):
        return
    totals = (0, 0)  # aliases and expansion, counted over the whole file
    for start, end in _documents(text):
        piece = text if end - start == len(text) else text[start:end]
        if depth_bound(piece, depth_limit) <= depth_limit and not may_hold(piece, "*"):
            continue
        offset = line_offset if start == 0 else _shifted(line_offset, text, start)
        totals = _count_events(piece, path, offset, depth_limit, *totals)


#: A ``---`` at column 0 always starts a document for LibYAML (or is an error in a quoted
#: scalar): no collection spans one.
_DOCUMENT_START = re.compile(r"^---(?=[ \t\r\n]|\Z)", re.M)


def _documents(text: str) -> list[tuple[int, int]]:
    """Where the stream's documents begin and end; the whole text when a directive (``%YAML``)
    could belong to the document after it."""
    if text.startswith("%") or "\n%" in text:
        return [(0, len(text))]
    starts = [m.start() for m in _DOCUMENT_START.finditer(text)]
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    return list(zip(starts, starts[1:] + [len(text)]))


def _shifted(line_offset: LineOffset, text: str, start: int) -> Callable[[], int]:
    def first_line() -> int:
        return (line_offset() if callable(line_offset) else line_offset) + text.count("\n", 0, start)
    return first_line


def _count_events(text: str, path: str, line_offset: LineOffset, depth_limit: int,
                  aliases: int = 0, expansion: int = 0) -> tuple[int, int]:
    """Walk LibYAML's events: nesting depth, number of aliases and what they would expand to.

    ``aliases`` and ``expansion`` carry the counts of earlier documents; returns them updated.
    """
    max_aliases, max_expansion = limits.MAX_YAML_ALIASES, limits.MAX_YAML_ALIAS_EXPANSION
    depth = nodes = 0
    sizes: dict[str, int] = {}  # anchor -> nodes its value holds, aliases expanded
    heights: dict[str, int] = {}  # anchor -> collection levels its value spans, aliases expanded
    # per open collection: its anchor, nodes before it, the deepest level reached inside it
    opened: list[list] = [[None, 0, 0]]  # the document itself, at depth 0
    for event in yaml.parse(text, Loader=Loader):
        kind = type(event)
        if kind is yaml.ScalarEvent:
            nodes += 1
            if event.anchor is not None:
                sizes[event.anchor], heights[event.anchor] = 1, 0
        elif kind is yaml.MappingStartEvent or kind is yaml.SequenceStartEvent:
            depth += 1
            if depth > depth_limit:
                raise InputError(path, f"YAML nested more than {depth_limit} levels deep"
                                       f"{_at(event, line_offset)}; karptui refuses deeper nesting")
            if event.anchor is not None:  # redefined from here on; an alias inside is recursive
                sizes.pop(event.anchor, None)
                heights.pop(event.anchor, None)
            opened.append([event.anchor, nodes, depth])
            nodes += 1
        elif kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
            anchor, before, deepest = opened.pop()
            if anchor is not None:
                sizes[anchor], heights[anchor] = nodes - before, deepest - depth + 1
            opened[-1][2] = max(opened[-1][2], deepest)
            depth -= 1
        elif kind is yaml.AliasEvent:
            aliases += 1
            if aliases > max_aliases:
                raise InputError(path, f"more than {max_aliases} YAML aliases{_at(event, line_offset)}; "
                                       "karptui refuses alias-heavy YAML (kubectl never writes aliases)")
            size = sizes.get(event.anchor)
            if size is None:
                if any(frame[0] == event.anchor for frame in opened):
                    raise InputError(path, f"YAML alias *{event.anchor} refers to its own node"
                                           f"{_at(event, line_offset)}; karptui refuses recursive YAML")
                continue  # an undefined alias: the loader reports it with its position
            reached = depth + heights[event.anchor]
            if reached > depth_limit:  # the composer shares the node, but whatever walks it recurses
                raise InputError(path, f"YAML nested more than {depth_limit} levels deep once aliases are "
                                       f"expanded{_at(event, line_offset)}; karptui refuses deeper nesting")
            opened[-1][2] = max(opened[-1][2], reached)
            nodes += size
            expansion += size
            if expansion > max_expansion:
                raise InputError(path, f"YAML aliases would expand to more than {max_expansion:,} nodes"
                                       f"{_at(event, line_offset)}; karptui refuses alias bombs")
        elif kind is yaml.DocumentStartEvent:
            sizes.clear()  # anchors do not cross documents
            heights.clear()
            opened = [[None, 0, 0]]
    return aliases, expansion


def _at(event: yaml.Event, line_offset: LineOffset) -> str:
    return _where(event.start_mark, line_offset)


def _where(mark: yaml.Mark | None, line_offset: LineOffset) -> str:
    if mark is None:
        return ""
    first = line_offset() if callable(line_offset) else line_offset
    return f" at line {first + mark.line + 1}, column {mark.column + 1}"


def load(text: str, path: str, line_offset: LineOffset = 0) -> object:
    """One YAML document, checked first; every error is one InputError line naming ``path``.

    ``line_offset`` is the line of the full file where ``text`` begins (for a list item
    parsed on its own), so positions in messages are the file's.
    """
    try:
        check(text, path, line_offset)
        return yaml.load(text, Loader=Loader)
    except yaml.YAMLError as exc:
        raise yaml_error(exc, path, line_offset) from None
    except (RecursionError, ValueError) as exc:  # ValueError: an integer past Python's 4,300 digits
        raise InputError(path, f"invalid YAML: {_first_line(exc)}") from None


def load_all(text: str, path: str) -> Iterator[object]:
    """Every document of a YAML stream, checked first, as :func:`load`."""
    try:
        check(text, path)
        yield from yaml.load_all(text, Loader=Loader)
    except yaml.YAMLError as exc:
        raise yaml_error(exc, path, 0) from None
    except (RecursionError, ValueError) as exc:
        raise InputError(path, f"invalid YAML: {_first_line(exc)}") from None


def yaml_error(exc: yaml.YAMLError, path: str, line_offset: LineOffset = 0) -> InputError:
    """PyYAML's error as one line: the position and the problem."""
    if isinstance(exc, yaml.MarkedYAMLError):
        where = _where(exc.problem_mark or exc.context_mark, line_offset)
        if "maximum nesting depth" in (exc.problem or ""):  # LibYAML's own cap (1,000 in 0.2.6) came first
            return InputError(path, f"YAML nested more than {limits.MAX_YAML_DEPTH} levels deep{where}; "
                                    "karptui refuses deeper nesting")
        return InputError(path, f"invalid YAML{where}: {_one_line(exc.problem or exc.context or 'malformed')}")
    return InputError(path, f"invalid YAML: {_first_line(exc)}")


def _first_line(exc: Exception) -> str:
    if isinstance(exc, ValueError) and "integer string conversion" in str(exc):
        return f"a number longer than {sys.get_int_max_str_digits():,} digits"
    return _one_line(str(exc)) or "malformed"


def _one_line(text: str) -> str:
    return (text.splitlines() or [""])[0]
