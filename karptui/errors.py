"""Errors the command line turns into one line and an exit status."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the parser imports this module: --version needs no pathlib
    from pathlib import Path


class InputError(Exception):
    """Bad input from the user: a file that is missing, unreadable or malformed.

    ``str()`` is the one line shown: ``PATH: what is wrong``.
    """

    def __init__(self, path: str | Path | None, message: str) -> None:
        self.path = str(path) if path is not None else ""
        self.message = message
        super().__init__(f"{self.path}: {message}" if self.path else message)


class ClusterUnavailable(Exception):
    """The live cluster cannot be used (no kubeconfig, unreachable, credentials refused).

    ``str()`` is the one line shown; ``code`` the exit status: 2 for configuration
    the user can fix by flags, 1 for the network or the server.
    """

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code
