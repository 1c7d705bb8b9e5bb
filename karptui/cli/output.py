"""Every command prints the same way: indented JSON, or a rich rendering of the same document.

What it prints comes from snapshots, logs and clusters: tables get the document with
every string made visible (:func:`karptui.text.visible`) and a console that reads no
markup; lines on stderr go through :func:`say`. JSON needs neither (``json`` writes
control characters as ``\\u001b``, and non-ASCII as escapes too).
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, TextIO

from ..text import visible, visible_doc

if TYPE_CHECKING:
    from rich.console import Console


@cache
def _visible_console() -> type:
    """Rich's Console where every plain string printed is made visible first: the document is
    (``emit``), but a table's extra lines (the cost line, built from a discounts file's family
    names) were not, and an OSC 52 sequence in a family name reached the terminal raw. Made on
    the first table: ``--output json`` never loads Rich."""
    from rich.console import Console

    class _VisibleConsole(Console):
        def print(self, *objects, **kwargs) -> None:  # noqa: A003 -- Console's own name
            super().print(*(visible(o) if isinstance(o, str) else o for o in objects), **kwargs)

    return _VisibleConsole


def table_console() -> Console:
    """A console that never reads text as markup: what it prints comes from snapshots, logs and
    clusters, where ``[ap-northeast-2a]`` is data (styles are given as Text and style= instead),
    and ``:warning:`` is data too (Rich turns emoji codes into emoji even with markup off)."""
    return _visible_console()(markup=False, highlight=False, emoji=False)


class RecurringText:
    """A table cell's text that many rows repeat, laid out once per width and reused.

    Rich lays every cell out anew (measured, then wrapped to its column). A pending pod's reason
    runs to hundreds of characters and every pod of a Job has the same one: on 5,000 nodes with
    8,600 pending pods the ``simulate`` table took 6 s, longer than the simulation (issue 28). The
    cells of one table share ``seen``; what they give Rich is what the plain text would give, so
    the table prints the same bytes."""

    __slots__ = ("text", "seen")

    def __init__(self, text: str, seen: dict) -> None:
        self.text, self.seen = text, seen

    def __rich_measure__(self, console, options):
        from rich.measure import Measurement
        from rich.text import Text

        key = (self.text, options.max_width)
        found = self.seen.get(key)
        if found is None:
            found = self.seen[key] = Measurement.get(console, options, Text(self.text))
        return found

    def __rich_console__(self, console, options):
        from rich.text import Text

        key = (self.text, options.max_width, options.justify, options.overflow, options.no_wrap)
        found = self.seen.get(key)
        if found is None:
            found = self.seen[key] = list(console.render(Text(self.text), options))
        return found


def json_text(doc: object) -> str:
    """A document as every ``--output json`` prints it (and ``karptui mcp``'s tools return it)."""
    return json.dumps(doc, indent=2)


def emit(doc: dict, output: str, table: Callable[[dict, Console], None]) -> int:
    if output == "json":
        sys.stdout.write(json_text(doc))
        sys.stdout.write("\n")
    else:
        table(visible_doc(doc), table_console())
    return 0


def say(line: str) -> None:
    """One line on stderr (errors, warnings, progress) with what came from input made visible."""
    print(visible(line), file=sys.stderr)


class StatusLine:
    """One stderr line a terminal rewrites in place (progress, a slow read), then clears.

    Cut to the terminal's width, so ``\r`` returns to the line's start instead of leaving
    wrapped pieces behind; made visible, as every stderr line is. Not a terminal: nothing
    here (callers that log to a file print whole lines with :func:`say`).
    """

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.shown = False

    def show(self, text: str) -> None:
        if not self.tty:
            return
        width = shutil.get_terminal_size().columns - 1
        self._write(f"\r{visible(text)[:max(width, 20)]}\x1b[K")
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            self._write("\r\x1b[K")
            self.shown = False

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # stderr closed: a status line is not worth failing for
            pass


# What a command's answer was made from, held until the process ends (:func:`end_at_once`).
_HELD: list = []


def end_at_once(*pictures: object) -> None:
    """The answer is written and ``pictures`` are of no more use: the console script ends the
    process without freeing them object by object (:func:`leave_at_once`). Freeing a 10,000-pod
    picture and the interpreter's teardown took 60 ms of a 1.2 s ``snapshot info``. An
    in-process caller (a test) never leaves; it only holds them until it exits."""
    _HELD.extend(pictures)


def leave_at_once(code: int) -> None:
    """End the process now with ``code`` if a command asked to (:func:`end_at_once`), once what it
    wrote is flushed; a flush that fails (a closed pipe) leaves the ending to the interpreter, which
    reports it as before."""
    if _HELD:
        exit_now(code)


def exit_now(code: int) -> None:
    """End the process with ``code`` once stdout and stderr are flushed, without the interpreter's
    teardown (every command and the TUI that end at once end here); a flush that fails (a closed
    pipe) returns, leaving the ending to the interpreter, which reports it as before."""
    import os

    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError:
        return
    os._exit(code)
