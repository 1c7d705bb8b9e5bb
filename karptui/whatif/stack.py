"""The edits an operator has made so far, with undo and redo: the what-if being built."""

from __future__ import annotations

from collections.abc import Iterable

from .edits import Edit, WhatIf

DEFAULT_NAME = "tui-whatif"


class EditStack:
    """The edits so far, with undo and redo; pushing after an undo forgets the redo list."""

    def __init__(self, edits: Iterable[Edit] = ()) -> None:
        self._done: list[Edit] = list(edits)
        self._undone: list[Edit] = []

    @property
    def edits(self) -> tuple[Edit, ...]:
        return tuple(self._done)

    def __len__(self) -> int:
        return len(self._done)

    def push(self, *edits: Edit) -> None:
        self._done.extend(edits)
        if edits:
            self._undone.clear()

    def undo(self) -> Edit | None:
        if not self._done:
            return None
        self._undone.append(self._done.pop())
        return self._undone[-1]

    def redo(self) -> Edit | None:
        if not self._undone:
            return None
        self._done.append(self._undone.pop())
        return self._done[-1]

    def replace(self, edits: Iterable[Edit]) -> None:
        """A loaded what-if: its edits, no redo list."""
        self._done, self._undone = list(edits), []

    def as_whatif(self, name: str = DEFAULT_NAME, description: str = "") -> WhatIf:
        return WhatIf(name or DEFAULT_NAME, tuple(self._done), description)
