"""Reading logs as a stream: files (maybe gzipped, maybe growing) and stdin, line by line.

Bytes that are not UTF-8 are replaced rather than fatal (the line then fails to
parse and is counted as skipped). Memory stays at one line plus one read chunk:
a line over :data:`karptui.limits.MAX_LOG_LINE_BYTES` is skipped as it streams
past (counted as a line, so later line numbers stay right, with one warning),
never held. So a log with no newline at all -- a 2 GB single line, stdin that
never sends one -- reads in bounded memory, and a stream of nothing but NUL
bytes (``/dev/zero``) is refused as binary at its first read.

There is no cap on a log's total size, compressed or not: logs are legitimately
many GB, and nothing here keeps more than the current line, so a gzip "bomb"
only costs the time to read it (the parser keeps counters, not lines).
Lines end at ``\\n``, which is not part of the line (a ``\\r\\n`` line keeps its ``\\r``, which the parser
strips).
"""

from __future__ import annotations

import gzip
import os
import sys
import time
from collections.abc import Callable, Iterator
from itertools import chain
from pathlib import Path
from typing import BinaryIO

from .. import limits
from ..errors import InputError
from ..sources.decode import input_error


class _Lines:
    """Splits chunks of bytes into decoded lines, dropping any line over the cap as it goes.

    Holds at most the cap's worth of an unfinished line; ``long`` counts the dropped
    lines and ``first_long`` is the number of the first (1-based).
    """

    def __init__(self) -> None:
        self.cap = limits.MAX_LOG_LINE_BYTES
        self.partial = b""       # the start of a line whose newline has not come (at most cap bytes)
        self.skipping = False    # inside a line already over the cap: drop bytes up to its newline
        self.count = 0           # lines given out so far
        self.long = 0
        self.first_long = 0

    def _dropped(self) -> list[str]:
        """The over-long line, as an empty line: counted by the parser, never kept."""
        self.long += 1
        self.count += 1
        if not self.first_long:
            self.first_long = self.count
        return [""]

    def feed(self, chunk: bytes) -> list[str]:
        """The lines ``chunk`` completes. Pieces of at most the cap, so that every line but
        the first lies inside one piece and only the first can be over the cap."""
        if len(chunk) <= self.cap:
            return self._feed(chunk)
        out: list[str] = []
        for at in range(0, len(chunk), self.cap):
            out += self._feed(chunk[at:at + self.cap])
        return out

    def _feed(self, chunk: bytes) -> list[str]:
        out: list[str] = []
        if self.skipping:
            end = chunk.find(b"\n")
            if end < 0:
                return out
            self.skipping = False
            out += self._dropped()
            chunk = chunk[end + 1:]
        partial = self.partial
        cut = chunk.rfind(b"\n") + 1
        if not cut:  # no newline yet: keep the start of the line, unless it is already too long
            data = partial + chunk if partial else chunk
            if len(data) > self.cap:
                self.partial, self.skipping = b"", True
            else:
                self.partial = data
            return out
        # The first line (the held start of it, then the chunk's part) apart, and the others decoded in
        # place, through a view: joining the held part to the chunk, and slicing the chunk, copied every
        # byte read twice more (a tenth of reading a log)
        first = chunk.find(b"\n")
        if len(partial) + first > self.cap:  # only the first line can be long: the others lie inside one piece
            out += self._dropped()
        else:
            self.count += 1
            out.append((partial + chunk[:first] if partial else chunk[:first]).decode("utf-8", "replace"))
        if first + 1 < cut:  # without the last newline
            lines = str(memoryview(chunk)[first + 1:cut - 1], "utf-8", "replace").split("\n")
            self.count += len(lines)
            out += lines
        rest = chunk[cut:]
        if len(rest) > self.cap:
            self.partial, self.skipping = b"", True
        else:
            self.partial = rest
        return out

    def end(self) -> list[str]:
        """The last line when the input ends without a newline."""
        if self.skipping:
            self.skipping = False
            return self._dropped()
        if self.partial:
            self.count += 1
            text, self.partial = self.partial.decode("utf-8", "replace"), b""
            return [text]
        return []

    def warning(self, path: str) -> str:
        return (f"{path}: {self.long} line(s) over {self.cap:,} bytes skipped (first: line {self.first_long}); "
                "Karpenter's lines are a few KiB")


def _read(handle: BinaryIO) -> Callable[[int], bytes]:
    """What returns the bytes available now (a pipe's as they come), up to n."""
    return getattr(handle, "read1", None) or handle.read


def _batches(handle: BinaryIO, splitter: _Lines) -> Iterator[list[str]]:
    """Decoded lines of ``handle``, a read's worth at a time, in bounded memory (see :class:`_Lines`)."""
    read = _read(handle)
    while True:
        chunk = read(limits.LOG_READ_CHUNK)
        if not chunk:
            break
        yield splitter.feed(chunk)
    yield splitter.end()


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


class _Refusing:
    """A handle whose first read is checked: nothing but NUL bytes is not a log."""

    def __init__(self, handle: BinaryIO, path: str) -> None:
        self.handle, self.path, self.first = handle, path, True
        self._read = _read(handle)

    def read1(self, size: int) -> bytes:
        data = self._read(size)
        if self.first and data:
            self.first = False
            if not data.strip(b"\0"):
                raise InputError(self.path, "binary data (nothing but NUL bytes), not a log")
        return data


def read_lines(path: str, warnings: list[str]) -> Iterator[str]:
    """Every line of the log; a read error after the first line ends the stream with a warning.

    Lines over :data:`karptui.limits.MAX_LOG_LINE_BYTES` come as empty lines (so the
    numbering holds) and one warning at the end says how many there were. The lines of
    each read are handed out by ``itertools.chain``, so a line costs no Python frame here.
    """
    return chain.from_iterable(_read_batches(path, warnings))


def _read_batches(path: str, warnings: list[str]) -> Iterator[list[str]]:
    handle = open_log(path)
    splitter = _Lines()
    got_any = False
    try:
        for batch in _batches(_Refusing(handle, path), splitter):  # type: ignore[arg-type]
            got_any = got_any or bool(batch)
            yield batch
    except (OSError, EOFError) as exc:
        if not got_any:
            raise InputError(path, f"cannot read: {exc}") from None
        warnings.append(f"{path}: stopped reading: {exc}")
    finally:
        if splitter.long:
            warnings.append(splitter.warning(path))
        if handle is not sys.stdin.buffer:
            try:
                handle.close()
            except ValueError:  # already closed
                pass


def follow(path: str, poll: float = 0.5, stop=lambda: False) -> Iterator[str]:
    """Lines of a growing file, as ``tail -f`` gives them, until ``stop()`` says so."""
    for batch in follow_batches(path, poll, stop):
        yield from batch


def follow_batches(path: str, poll: float = 0.5, stop=lambda: False, start: int | None = 0) -> Iterator[list[str]]:
    """The complete lines appended since the last poll, one list per poll (what a screen redraws at once).

    A half-written line waits for its newline, but no more than
    :data:`karptui.limits.MAX_LOG_LINE_BYTES` of it is kept: a longer line (or a
    file that grows without newlines) comes as one empty line once its newline
    arrives. A file truncated in place (copytruncate rotation) is read again from
    its start. ``start`` is a byte offset (None: the end).
    """
    with Path(path).open("rb") as handle:
        handle.seek(0, os.SEEK_END) if start is None else handle.seek(start)
        splitter = _Lines()
        while not stop():
            data = handle.read(1 << 20)  # a poll's worth at once: one batch, one redraw
            if not data:
                if os.fstat(handle.fileno()).st_size < handle.tell():
                    handle.seek(0)
                    splitter = _Lines()
                    continue
                time.sleep(poll)
                continue
            lines = splitter.feed(data)
            if lines:
                yield lines
