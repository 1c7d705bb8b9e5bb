"""YAML snapshots: kubectl's layout parsed one list item at a time, anything else whole.

PyYAML composes a whole document as a node graph before it builds any object:
a 250 MB ``kind: List`` took 75 s and 8.8 GB that way. kubectl prints every
item as a block that starts with ``- `` at column 0 under ``items:``, so each
item can be parsed alone, built into the model, and dropped. Text that does not
fit that layout, or that uses anchors (which may point across items), is parsed
the general way.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ..errors import InputError
from .lists import flatten, with_list_kind
from .yaml_load import load, load_all, may_hold

__all__ = ["load_all", "yaml_objects"]

_DOC_SEPARATOR = re.compile(r"^---[ \t]*\r?$\n?", re.M)
_COLUMN_ZERO = re.compile(r"^[^\s#]", re.M)  # lines that start a top-level key or a list item
_ITEMS_KEY = re.compile(r"^items:[ \t]*\r?\n", re.M)


class _NotKubectlLayout(Exception):
    """The text is not laid out as kubectl prints lists: parse it the general way."""


@dataclass
class _Document:
    """One document of the stream: a parsed value, or a list head with item spans."""

    value: object
    items: list[tuple[int, int]]  # [start, end) of each item in the text; empty for plain documents


def yaml_objects(text: str, path: str) -> Iterator[object]:
    """Every Kubernetes object in a YAML stream, lists opened."""
    try:
        plan = _plan(text, path)
    except _NotKubectlLayout:
        plan = None
    if plan is None:
        for number, doc in enumerate(load_all(text, path), start=1):
            yield from flatten(doc, path, number)
        return
    for number, doc in enumerate(plan, start=1):
        if not doc.items:
            yield from flatten(doc.value, path, number)
            continue
        kind, api_version = doc.value.get("kind"), doc.value.get("apiVersion")
        for start, end in doc.items:
            item = with_list_kind(_load_item(text, start, end, path), kind, api_version)
            if isinstance(item, (list, dict)):
                yield from flatten(item, path, number)
            else:
                yield item


def _plan(text: str, path: str = "") -> list[_Document] | None:
    """Documents with their list items located (not yet parsed), or None."""
    if "\nitems:" not in text and not text.startswith("items:"):
        return None
    if may_hold(text, "&*"):
        return None
    docs, start = [], 0
    for sep in list(_DOC_SEPARATOR.finditer(text)) + [None]:
        end = sep.start() if sep else len(text)
        if text[start:end].strip():
            docs.append(_locate(text, start, end, path))
        start = sep.end() if sep else end
    return docs


def _locate(text: str, start: int, end: int, path: str) -> _Document:
    """Parse a document's top-level keys; find where each ``items`` entry begins and ends.

    Boundaries come from a regex over column-0 lines, not from splitting the
    text into lines, which would cost several times the file size in memory.
    """
    found = _ITEMS_KEY.search(text, start, end)
    if found is None:
        return _Document(_load_one(text[start:end], path), [])
    starts: list[int] = []
    stop = end
    for match in _COLUMN_ZERO.finditer(text, found.end(), end):
        pos = match.start()
        if text.startswith("- ", pos) or text.startswith("-\n", pos):
            starts.append(pos)
        else:
            stop = pos
            break
    head = _load_one(text[start : found.start()] + "items: []\n" + text[stop:end], path)
    if not isinstance(head, dict) or not starts or starts[0] != found.end():
        raise _NotKubectlLayout
    return _Document(head, list(zip(starts, starts[1:] + [stop])))


def _load_one(text: str, path: str) -> object:
    try:
        return load(text, path)
    except InputError:  # the general path reports it, with the file's own line numbers
        raise _NotKubectlLayout from None


def _load_item(text: str, start: int, end: int, path: str) -> object:
    """One list item; its leading ``- `` becomes two spaces, so columns stay the same."""
    return load("  " + text[start + 2 : end], path, line_offset=lambda: text.count("\n", 0, start))
