"""Reading logs as a stream: files (maybe gzipped, maybe growing) and stdin, line by line.

Bytes that are not UTF-8 are replaced rather than fatal (the line then fails to
parse and is counted as skipped); memory stays at one line, however long.
"""

from __future__ import annotations

import gzip
import io
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from ..errors import InputError
from ..sources.decode import input_error


def _lines(handle: BinaryIO) -> Iterator[str]:
    """Decoded lines; the text layer decodes in bulk (faster than per line), bad bytes replaced."""
    yield from io.TextIOWrapper(handle, encoding="utf-8", errors="replace", newline="")


def open_log(path: str) -> BinaryIO:
    """A binary handle on a log file or ``-`` (stdin); InputError if it cannot be opened."""
    if path == "-":
        return sys.stdin.buffer
    try:
        handle = Path(path).open("rb")
        if handle.peek(2)[:2] == b"\x1f\x8b":
            return gzip.GzipFile(fileobj=handle)  # type: ignore[return-value]
        return handle
    except OSError as exc:
        raise input_error(path, exc) from None


def read_lines(path: str, warnings: list[str]) -> Iterator[str]:
    """Every line of the log; a read error after the first line ends the stream with a warning."""
    handle = open_log(path)
    got_any = False
    try:
        for line in _lines(handle):
            got_any = True
            yield line
    except (OSError, EOFError) as exc:
        if not got_any:
            raise InputError(path, f"cannot read: {exc}") from None
        warnings.append(f"{path}: stopped reading: {exc}")
    finally:
        if handle is not sys.stdin.buffer:
            try:
                handle.close()
            except ValueError:  # already closed by the text layer
                pass


def follow(path: str, poll: float = 0.5, stop=lambda: False) -> Iterator[str]:
    """Lines of a growing file, as ``tail -f`` gives them, until ``stop()`` says so."""
    for batch in follow_batches(path, poll, stop):
        yield from batch


def follow_batches(path: str, poll: float = 0.5, stop=lambda: False, start: int | None = 0) -> Iterator[list[str]]:
    """The complete lines appended since the last poll, one list per poll (what a screen redraws at once).

    A half-written line waits for its newline; a file truncated in place (copytruncate
    rotation) is read again from its start. ``start`` is a byte offset (None: the end).
    """
    with Path(path).open("rb") as handle:
        handle.seek(0, io.SEEK_END) if start is None else handle.seek(start)
        partial = b""
        while not stop():
            data = handle.read(1 << 20)
            if not data:
                if os.fstat(handle.fileno()).st_size < handle.tell():
                    handle.seek(0)
                    partial = b""
                    continue
                time.sleep(poll)
                continue
            data = partial + data
            cut = data.rfind(b"\n") + 1
            partial = data[cut:]
            if cut:
                yield [line + "\n" for line in data[:cut].decode("utf-8", "replace").split("\n")[:-1]]
