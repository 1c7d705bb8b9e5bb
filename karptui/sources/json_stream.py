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
from .fast_json import NOT_FAST, fast_loads, long_number_runs, orjson_or_not
from .file_window import FileWindow
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


def _values(text: str, path: str, pos: int = 0, number: int = 0) -> Iterator[object]:
    pos = _SPACE.match(text, pos).end()
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
    pos = _SPACE.match(text, pos + 1).end()
    if text.startswith("}", pos):
        yield from flatten(head, path, number)
        return pos + 1
    return (yield from _members(text, pos, head, [], False, path, number, numbers))


def _members(text: str, pos: int, head: dict, waiting: list, streamed: bool, path: str, number: int,
             numbers: list, after_value: bool = False) -> Iterator[object]:
    """The members of a top-level object from a key at ``pos`` (or, ``after_value``, from just after a
    member's value), its list's items streamed; then what the object is. Returns the position after ``}``."""
    while True:
        if not after_value:
            key, pos = _key(text, pos)
            if key == "items" and text.startswith("[", pos):
                pos = yield from _items(text, pos, head, waiting, path, number, numbers)
                streamed = True
            else:
                head[key], pos = _DECODER.raw_decode(text, pos)
        after_value = False
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


def _key(text: str, pos: int) -> tuple[str, int]:
    """An object member's key at ``pos`` and where its value begins (after the ``:``)."""
    if not text.startswith('"', pos):
        raise _Malformed(pos, "Expecting property name enclosed in double quotes")
    key, pos = _DECODER.raw_decode(text, pos)
    pos = _SPACE.match(text, pos).end()
    if not text.startswith(":", pos):
        raise _Malformed(pos, "Expecting ':' delimiter")
    return key, _SPACE.match(text, pos + 1).end()


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
    return (yield from _items_from(text, pos, between, head, waiting, path, number, numbers))


def _items_from(text: str, pos: int, between: str, head: dict, waiting: list, path: str, number: int,
                numbers: list) -> Iterator[object]:
    """A list's items from the one at ``pos`` to the closing ``]``, ``between`` the layout's separator
    ("" when none is guessed); returns the position after the ``]``."""
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
        else:
            yield from _other_item(item, head, waiting, path, number)
        if following >= 0:
            pos = following
            continue
        pos = _SPACE.match(text, pos).end()
        if text.startswith("]", pos):
            return pos + 1
        if not text.startswith(",", pos):
            raise _Malformed(pos, "Expecting ',' delimiter")
        pos = _SPACE.match(text, pos + 1).end()


def _other_item(item: object, head: dict, waiting: list, path: str, number: int) -> Iterator[object]:
    """A list item that is not one object of its own kind: a typed list's item without its kind waits
    for the list's kind (it may come after the items), anything else is opened or passed on."""
    if isinstance(item, dict) and "kind" not in item and not ("kind" in head and "apiVersion" in head):
        waiting.append(item)
    else:
        yield from _one(with_list_kind(item, head.get("kind"), head.get("apiVersion")), path, number)


def _one(item: object, path: str, number: int) -> Iterator[object]:
    if isinstance(item, (dict, list)):
        yield from flatten(item, path, number)
    else:
        yield item


# ---- a large file read forward, its text never decoded whole ------------------------------------

HEAD_BYTES = 1 << 20   # where a List read from its file must begin its "items" (its other members before them)
_BOM = b"\xef\xbb\xbf"


def list_from_file(window: FileWindow, path: str) -> Iterator[object] | None:
    """:func:`json_objects` for a file read forward (``window``) where the file is a List laid out one
    item a line (kubectl's indented output, the generator's), without the whole text ever held: held
    whole, a 2.4 GB dump's text and the model built from it were 4.5 GB at once. Each item is decoded
    from its own bytes, cut where the layout says it ends (as :func:`_items_from` does on text), and
    the bytes before it are let go; from where that does not hold on (the last item, the list's end, the
    object's other members, later documents, an item the cut does not give whole) the rest of the file
    is decoded to text and read as :func:`json_objects` reads it, so the objects and the errors are the
    same. None when the file does not open so: not a JSON object whose ``items`` list starts within its
    first MiB, on a new line, after ASCII (nothing is lost: the caller reads the file again as text)."""
    start = len(_BOM) if window[0:len(_BOM)] == _BOM else 0
    head_bytes = window[start:start + HEAD_BYTES]
    text = head_bytes.decode("utf-8", "replace")   # its positions are the bytes' while it is ASCII (checked below)
    head: dict = {}
    try:
        pos = _SPACE.match(text, 0).end()
        if not text.startswith("{", pos):
            return None
        pos = _SPACE.match(text, pos + 1).end()
        while True:
            key, pos = _key(text, pos)
            if key == "items" and text.startswith("[", pos):
                break
            head[key], pos = _DECODER.raw_decode(text, pos)
            pos = _SPACE.match(text, pos).end()
            if not text.startswith(",", pos):
                return None
            pos = _SPACE.match(text, pos + 1).end()
    except (ValueError, RecursionError, _Malformed):   # cut by the window, or not JSON: the text path says what it is
        return None
    first = _SPACE.match(text, pos + 1).end()
    gap = text[pos + 1:first]
    if "\n" not in gap or not text.startswith("{", first) or first >= len(text) - 1 or not head_bytes[:first].isascii():
        return None
    return _items_from_file(window, path, head, start + first, ("}," + gap + "{").encode())


def _items_from_file(window: FileWindow, path: str, head: dict, pos: int, between: bytes) -> Iterator[object]:
    waiting: list = []
    number, step = 1, len(between) - 1
    while True:
        end = window.find(between, pos)
        if end < 0:
            break
        piece = window[pos:end + 1]
        item = fast_loads(piece)
        if item is NOT_FAST:   # an integer orjson would round, or one it refuses: the stdlib decides
            try:
                item = json.loads(piece)
            except (ValueError, RecursionError):
                break   # not one whole value: the text path finds where the item ends, or what is wrong
        if type(item) is not dict:
            break
        kind = item.get("kind")
        if type(kind) is str and not kind.endswith("List"):
            yield item
        else:
            yield from _other_item(item, head, waiting, path, number)
        pos = end + step
        if pos - window.base >= window.chunk:
            window.drop(pos)
    text = _text_from(window, pos, path)
    numbers: list = []
    try:
        at = yield from _items_from(text, 0, between.decode(), head, waiting, path, number, numbers)
        at = yield from _members(text, at, head, waiting, True, path, number, numbers, after_value=True)
        yield from _values(text, path, at, number)
    except (ValueError, RecursionError, _Malformed) as exc:
        raise _error_after(exc, text, window, pos, path) from None


def _text_from(window: FileWindow, offset: int, path: str) -> str:
    """The file's text from ``offset`` on, refused as :func:`..decode.to_text` refuses a whole file."""
    rest = window[offset:]
    if b"\x00" in rest:
        raise InputError(path, "not a text file (binary data)")
    try:
        return rest.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, f"not UTF-8 text (bad byte at offset {offset + exc.start})") from None


def _error_after(exc: Exception, text: str, window: FileWindow, offset: int, path: str) -> InputError:
    """:func:`json_error` for ``text``, the file's text from byte ``offset`` on: the line and column
    counted from the file's start."""
    if isinstance(exc, json.JSONDecodeError):
        where, message = exc.pos, exc.msg
    elif isinstance(exc, _Malformed):
        where, message = exc.pos, str(exc)
    else:
        return json_error(exc, text, path)
    lines = text.count("\n", 0, where)
    if lines:
        column = where - text.rfind("\n", 0, where)
    else:   # on the line the text starts in: what stands before it on that line counts
        line_start = window.line_start(offset)
        column = len(window[line_start:offset].decode("utf-8", "replace")) + where + 1
    return InputError(path, f"invalid JSON at line {window.lines_before(offset) + lines + 1}, column {column}: {message}")
