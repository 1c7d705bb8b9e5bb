"""Bytes -> Kubernetes objects: gzip, JSON (one or concatenated) or YAML streams.

JSON is recognised by its first character because the stdlib parser is an
order of magnitude faster than even LibYAML on large dumps.
"""

from __future__ import annotations

import gzip
import re
import zlib
from collections.abc import Iterator

import yaml

from ..errors import InputError
from .json_stream import json_objects
from .lists import flatten

try:  # LibYAML: about ten times faster than the pure-Python loader
    _Loader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - wheels ship LibYAML
    _Loader = yaml.SafeLoader

GZIP_MAGIC = b"\x1f\x8b"


def decompress(data: bytes, path: str) -> bytes:
    if not data.startswith(GZIP_MAGIC):
        return data
    try:
        return gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(path, f"corrupt gzip data ({exc})") from None


def to_text(data: bytes, path: str) -> str:
    if b"\x00" in data:
        raise InputError(path, "not a text file (binary data)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(path, f"not UTF-8 text (bad byte at offset {exc.start})") from None
    if not text or text.isspace():  # isspace stops at the first visible character; strip() would copy
        raise InputError(path, "file is empty")
    return text


def objects(text: str, path: str) -> Iterator[object]:
    """Every Kubernetes object in the text, JSON or YAML, with lists opened."""
    first = next((ch for ch in text if not ch.isspace()), "")
    if first in ("{", "["):
        yield from json_objects(text, path)
        return
    for number, doc in enumerate(_yaml_documents(text, path), start=1):
        yield from flatten(doc, path, number)


def _yaml_documents(text: str, path: str) -> Iterator[object]:
    try:
        docs = _kubectl_list_documents(text)
    except _NotKubectlLayout:
        docs = None
    if docs is not None:
        yield from docs
        return
    try:
        yield from yaml.load_all(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = exc.problem or exc.context or "malformed"
        raise InputError(path, f"invalid YAML{where}: {problem}") from None
    except (yaml.YAMLError, RecursionError, ValueError) as exc:
        raise InputError(path, f"invalid YAML: {str(exc).splitlines()[0] if str(exc) else 'malformed'}") from None


class _NotKubectlLayout(Exception):
    """The text is not laid out as kubectl prints lists: parse it the general way."""


_DOC_SEPARATOR = re.compile(r"^---[ \t]*$", re.M)


def _kubectl_list_documents(text: str) -> list[object] | None:
    """kubectl's YAML, parsed one list item at a time.

    PyYAML composes a whole document as a node graph before building any
    object: a 250 MB ``kind: List`` took 75 s and 8.8 GB that way. kubectl
    prints every item as a block starting with ``- `` at column 0 under
    ``items:``, so each item can be parsed alone, in bounded memory. Anything
    that does not fit this layout (or fails to parse) goes the general way,
    which also gives exact error positions.
    """
    if "\nitems:" not in text and not text.startswith("items:"):
        return None
    docs = []
    for part in _DOC_SEPARATOR.split(text):
        if not part.strip():
            continue
        docs.append(_parse_document(part))
    return docs


_COLUMN_ZERO = re.compile(r"^[^\s#]", re.M)  # lines that start a top-level key or a list item
_ITEMS_KEY = re.compile(r"^items:[ \t]*\r?\n", re.M)


def _parse_document(part: str) -> object:
    """One document: its top-level keys parsed together, each list item alone.

    Item boundaries are found by a regex over column-0 lines rather than by
    splitting the text into lines, which would cost several times the file
    size in memory.
    """
    found = _ITEMS_KEY.search(part)
    if found is None:
        return _load_one(part)
    starts: list[int] = []
    end = len(part)
    for match in _COLUMN_ZERO.finditer(part, found.end()):
        pos = match.start()
        if part.startswith("- ", pos) or part.startswith("-\n", pos):
            starts.append(pos)
        else:
            end = pos
            break
    head = _load_one(part[: found.start()] + "items: []\n" + part[end:])
    if not isinstance(head, dict) or (starts and starts[0] != found.end()):
        raise _NotKubectlLayout  # something between "items:" and its first item
    bounds = starts + [end]
    head["items"] = [_load_one("  " + part[a + 2 : b]) for a, b in zip(bounds, bounds[1:])]
    return head


def _load_one(text: str) -> object:
    try:
        return yaml.load(text, Loader=_Loader)
    except (yaml.YAMLError, RecursionError, ValueError):
        raise _NotKubectlLayout from None
