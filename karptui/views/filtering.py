"""The ``/`` filter as k9s reads it: a regular expression (case-insensitive), ``!`` in front to invert.

``key=value`` matches a label exactly (rows that have labels: nodes). Text that is not a
valid regular expression is searched for as it is, so typing ``[`` on the way to ``[a-c]``
narrows nothing away by surprise.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass


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
                search = re.compile(pattern, re.IGNORECASE).search
            except re.error:
                lowered = pattern.lower()

                def search(text: str):
                    return lowered in text.lower()

            def test(row) -> bool:
                return any(search(f) for f in fields(row) if f)
        return (lambda row: not test(row)) if inverse else test
