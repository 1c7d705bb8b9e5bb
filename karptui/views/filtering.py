"""The ``/`` filter as k9s reads it: a regular expression (case-insensitive), ``!`` in front to invert.

``key=value`` matches a label exactly (rows that have labels: nodes). Text that is not a
valid regular expression is searched for as it is, so typing ``[`` on the way to ``[a-c]``
narrows nothing away by surprise; the screen says so (:attr:`Filter.problem`).

A repetition inside a repetition (``(.+)+#``) makes Python's backtracking engine take time
exponential in the text's length: on a node name it froze the TUI for good, ctrl+c included,
since a match never lets go of the interpreter. Such a pattern is searched for as text too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

Row = TypeVar("Row")
# What a regular expression reads as more than the character itself; a pattern with none of these
# is its own text (``-`` and ``/`` mean themselves outside a class).
_REGEX_SPECIAL = frozenset(".^$*+?{}[]|()\\")


@dataclass(frozen=True)
class Filter:
    text: str = ""

    @property
    def inverse(self) -> bool:
        return self.text.strip().startswith("!")

    @property
    def pattern(self) -> str:
        body = self.text.strip()
        return body[1:].strip() if body.startswith("!") else body

    def __bool__(self) -> bool:
        return bool(self.pattern)

    def crumb(self) -> str:
        """How the screen shows the filter in force: ``/web`` or ``/!web``."""
        return f"/{'!' if self.inverse else ''}{self.pattern}" if self else ""

    @property
    def problem(self) -> str:
        """Why the pattern is searched for as plain text ("" when it is used as a regex)."""
        pattern = self.pattern
        if not pattern:
            return ""
        try:
            re.compile(pattern)
        except re.error as exc:
            return f"not a valid regular expression ({exc}): searched for as text"
        if _nested_repetition(pattern):
            return "a repetition inside a repetition would take forever on some names: searched for as text"
        return ""

    @property
    def plain(self) -> str | None:
        """The pattern lower-cased when searching for it is looking for that text: ASCII, and not a
        character a regular expression reads specially (most of what is typed: a name, a zone, a
        type). Case-insensitive matching of ASCII text is then a lower-cased substring test."""
        pattern = self.pattern
        if not pattern or not pattern.isascii() or any(c in _REGEX_SPECIAL or c == "\n" for c in pattern):
            return None
        return pattern.lower()

    def select(self, rows: Sequence[Row], fields: Callable[[Row], Iterable[str]],
               labels: Callable[[Row], Mapping[str, str]] | None = None,
               lowered: Sequence[str | None] | None = None) -> list[Row]:
        """The rows the filter shows, in their order: those :meth:`predicate` keeps. ``lowered``: each
        row's fields lower-cased and joined by newlines (:func:`lowered_fields`), kept by a caller that
        filters the same rows key after key; plain text (:attr:`plain`) is looked for in that one string,
        a comparison a row instead of a test of each field (a key typed on 20,000 nodes took a tenth of a
        second). A row whose string is None (text that is not ASCII) is tested by the predicate."""
        text = self.plain
        if not self:
            return list(rows)
        labelled = labels is not None and "=" in self.pattern and not self.pattern.startswith("=")
        if lowered is None or text is None or labelled:
            keep = self.predicate(fields, labels)
            return [row for row in rows if keep(row)]
        keep = None
        shown = []
        inverse = self.inverse
        for row, joined in zip(rows, lowered):
            if joined is None:
                keep = keep or self.predicate(fields, labels)
                hit = keep(row)
            else:
                hit = (text in joined) != inverse
            if hit:
                shown.append(row)
        return shown

    def predicate(self, fields: Callable[[object], Iterable[str]],
                  labels: Callable[[object], Mapping[str, str]] | None = None) -> Callable[[object], bool]:
        """row -> shown? (``fields``: the texts a row is searched in; ``labels``: its labels, if any)."""
        pattern, inverse = self.pattern, self.inverse
        if not pattern:
            return lambda row: True
        if labels is not None and "=" in pattern and not pattern.startswith("="):
            key, _, value = pattern.partition("=")
            key, value = key.strip(), value.strip()

            def test(row) -> bool:
                return labels(row).get(key) == value
        else:
            try:
                if _nested_repetition(pattern):
                    raise re.error("nested repetition")
                compiled = re.compile(pattern, re.IGNORECASE).search

                def search(text: str) -> bool:
                    return compiled(text) is not None
            except re.error:
                lowered = pattern.lower()

                def search(text: str) -> bool:
                    return lowered in text.lower()

            # Each distinct text is searched once: thousands of rows share an instance type, a
            # NodePool, a zone, an owner (a filter typed on 20,000 nodes searched 100,000 texts a key).
            seen: dict[str, bool] = {}

            def found(text: str) -> bool:
                hit = seen.get(text)
                if hit is None:
                    hit = seen[text] = search(text)
                return hit

            def test(row) -> bool:
                for text in fields(row):
                    if text and found(text):
                        return True
                return False
        return (lambda row: not test(row)) if inverse else test


def lowered_fields(fields: Iterable[str]) -> str | None:
    """A row's searched texts as :meth:`Filter.select` looks for plain text in them: lower-cased, one a
    line (a pattern never spans two); None when they are not all ASCII, where lower-casing and the
    regular expression's case-insensitive matching may differ."""
    joined = "\n".join(fields)
    return joined.lower() if joined.isascii() else None


def _nested_repetition(pattern: str) -> bool:
    """Whether a repeated part of the pattern holds a repetition of its own (``(a+)+``, ``(.*x)*``)."""
    try:
        from re import _constants as C, _parser
        tree = _parser.parse(pattern)
    except Exception:  # noqa: BLE001 -- not valid, or the parser's internals moved: compile decides
        return False
    repeats = (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", C.MAX_REPEAT))

    def walk(items, inside: bool) -> bool:
        for op, av in items:
            if op in repeats:
                low, high, body = av
                many = high is C.MAXREPEAT or high > 1
                if many and inside:
                    return True
                if walk(body, inside or many):
                    return True
            elif op is C.SUBPATTERN:
                if walk(av[-1], inside):
                    return True
            elif op is C.BRANCH:
                if any(walk(alternative, inside) for alternative in av[1]):
                    return True
            elif op in (C.ASSERT, C.ASSERT_NOT):
                if walk(av[1], inside):
                    return True
        return False

    return walk(tree, False)
