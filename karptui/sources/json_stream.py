"""JSON snapshots, decoded one list item at a time.

Decoding a 200 MB ``kubectl get -o json`` List whole and then building the
model took 2.9 s; decoding each item and building it straight away takes
2.2 s (the item is still in the CPU cache) and never holds the raw list and
the model at once. The top level is walked by hand - JSON's object grammar is
small - and every value is decoded by the stdlib's C decoder. Files may hold
several JSON values back to back (``kubectl get -o json >> dump``).

A list's items are decoded by orjson where the file shows where each one ends
(:func:`_items`), which takes about half the stdlib's time per item; what orjson
returns is what the stdlib would (``fast_json``), and the stdlib decides the rest.
"""

from __future__ import annotations

import bisect
import json
import re
import sys
from collections.abc import Iterator

from ..errors import InputError
from .fast_json import NOT_FAST, long_number_runs, orjson_or_not
from .lists import flatten, is_list_kind, with_list_kind

_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


class _Malformed(Exception):
    def __init__(self, pos: int, message: str) -> None:
        super().__init__(message)
        self.pos = pos


def json_objects(text: str, path: str) -> Iterator[object]:
    """Every Kubernetes object in the JSON text, lists opened."""
    try:
        yield from _values(text, path)
    except (ValueError, RecursionError, _Malformed) as exc:
        raise json_error(exc, text, path) from None


def json_error(exc: Exception, text: str, path: str) -> InputError:
    """What the stdlib decoder (or the walk above) refused, as one line naming the file."""
    if isinstance(exc, json.JSONDecodeError):
        return InputError(path, f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}")
    if isinstance(exc, _Malformed):
        line = text.count("\n", 0, exc.pos) + 1
        column = exc.pos - (text.rfind("\n", 0, exc.pos) + 1) + 1
        return InputError(path, f"invalid JSON at line {line}, column {column}: {exc}")
    if isinstance(exc, RecursionError):
        return InputError(path, "invalid JSON: nested too deeply")
    # the decoder's int() refuses numbers longer than Python's int-string limit
    return InputError(path, f"invalid JSON: a number longer than {sys.get_int_max_str_digits():,} digits"
                            if "integer string conversion" in str(exc) else f"invalid JSON: {exc}")


def _values(text: str, path: str) -> Iterator[object]:
    pos, number = _SPACE.match(text, 0).end(), 0
    numbers: list = []  # where orjson may not be the judge (fast_json.long_number_runs), found once
    while pos < len(text):
        number += 1
        if text[pos] == "{":
            pos = yield from _object(text, pos, path, number, numbers)
        else:
            value, pos = _DECODER.raw_decode(text, pos)
            yield from flatten(value, path, number)
        pos = _SPACE.match(text, pos).end()


def _object(text: str, pos: int, path: str, number: int, numbers: list) -> Iterator[object]:
    """Walk one top-level object; stream the elements of its ``items`` array.

    Items that carry no ``kind`` (typed lists such as ``PodList``) wait until
    the list's own ``kind`` and ``apiVersion`` have been read. Returns the position after ``}``.
    """
    head: dict = {}
    waiting: list = []
    streamed = False
    pos = _SPACE.match(text, pos + 1).end()
    if text.startswith("}", pos):
        yield from flatten(head, path, number)
        return pos + 1
    while True:
        if not text.startswith('"', pos):
            raise _Malformed(pos, "Expecting property name enclosed in double quotes")
        key, pos = _DECODER.raw_decode(text, pos)
        pos = _SPACE.match(text, pos).end()
        if not text.startswith(":", pos):
            raise _Malformed(pos, "Expecting ':' delimiter")
        pos = _SPACE.match(text, pos + 1).end()
        if key == "items" and text.startswith("[", pos):
            pos = yield from _items(text, pos, head, waiting, path, number, numbers)
            streamed = True
        else:
            head[key], pos = _DECODER.raw_decode(text, pos)
        pos = _SPACE.match(text, pos).end()
        if text.startswith("}", pos):
            break
        if not text.startswith(",", pos):
            raise _Malformed(pos, "Expecting ',' delimiter")
        pos = _SPACE.match(text, pos + 1).end()
    for item in waiting:
        yield from _one(with_list_kind(item, head.get("kind"), head.get("apiVersion")), path, number)
    kind = head.get("kind")
    if not streamed or (isinstance(kind, str) and not is_list_kind(kind)):
        # An ordinary object. No Kubernetes kind has a top-level "items" array but
        # lists, so one that does is (at most) a custom kind karptui ignores anyway.
        yield from flatten(head, path, number)
    return pos + 1


def _items(text: str, pos: int, head: dict, waiting: list, path: str, number: int,
           numbers: list) -> Iterator[object]:
    start, pos = pos + 1, _SPACE.match(text, pos + 1).end()
    if text.startswith("]", pos):
        return pos + 1
    # Where the first item opens on a new line (kubectl's indented output, one item a line), the
    # items are separated by "}," and the same run of whitespace before the next "{". A raw
    # newline is never inside a JSON string, so each such place lies outside every string; the
    # text up to it is one item if orjson decodes it whole as one object, which is then the value
    # the stdlib would read from here (JSON values end where they end). Anything else (the last
    # item, an item orjson leaves to the stdlib, a file laid out otherwise) the stdlib decodes,
    # and where its item ended elsewhere the layout guess is dropped for the rest of the list.
    # ``numbers`` (filled at the first list, a sentinel past the end closing it) says where orjson
    # may not be the judge: an item holding such a run is the stdlib's.
    gap = text[start:pos]
    between = "}," + gap + "{" if "\n" in gap and text.startswith("{", pos) else ""
    if between and not numbers:
        numbers += long_number_runs(text) + [len(text)]
    while True:
        item, end = NOT_FAST, -1
        if between:
            end = text.find(between, pos)
            if end >= 0 and numbers[bisect.bisect_left(numbers, pos)] > end:
                item = orjson_or_not(text[pos:end + 1])
        if type(item) is dict:
            pos = end + 1
            following = end + len(between) - 1  # the separator was found there: the next item's "{"
        else:
            item, pos = _DECODER.raw_decode(text, pos)
            if pos != end + 1:
                between = ""
            following = -1
        kind = item.get("kind") if type(item) is dict else None
        if type(kind) is str and not kind.endswith("List"):
            yield item  # the common case, what _one would yield, without its two generators per item
        elif isinstance(item, dict) and "kind" not in item and not ("kind" in head and "apiVersion" in head):
            waiting.append(item)
        else:
            yield from _one(with_list_kind(item, head.get("kind"), head.get("apiVersion")), path, number)
        if following >= 0:
            pos = following
            continue
        pos = _SPACE.match(text, pos).end()
        if text.startswith("]", pos):
            return pos + 1
        if not text.startswith(",", pos):
            raise _Malformed(pos, "Expecting ',' delimiter")
        pos = _SPACE.match(text, pos + 1).end()


def _one(item: object, path: str, number: int) -> Iterator[object]:
    if isinstance(item, (dict, list)):
        yield from flatten(item, path, number)
    else:
        yield item
