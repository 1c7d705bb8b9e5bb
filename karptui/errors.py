"""Errors the command line turns into one line and exit status 2."""

from __future__ import annotations

from pathlib import Path


class InputError(Exception):
    """Bad input from the user: a file that is missing, unreadable or malformed.

    ``str()`` is the one line shown: ``PATH: what is wrong``.
    """

    def __init__(self, path: str | Path | None, message: str) -> None:
        self.path = str(path) if path is not None else ""
        self.message = message
        super().__init__(f"{self.path}: {message}" if self.path else message)
