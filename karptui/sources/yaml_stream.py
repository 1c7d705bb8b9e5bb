"""YAML snapshots: kubectl's layout parsed one list item at a time, anything else whole."""

from __future__ import annotations

import re
from collections.abc import Iterator

import yaml

from ..errors import InputError

try:  # LibYAML: about ten times faster than the pure-Python loader
    _Loader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - wheels ship LibYAML
    _Loader = yaml.SafeLoader


def yaml_documents(text: str, path: str) -> Iterator[object]:
    """Every document of a YAML stream, as PyYAML would load it."""
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
