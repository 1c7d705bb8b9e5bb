"""A file read forward through a bounded window of its bytes.

A large dump is read item by item (:func:`.json_stream.list_from_file`): only the bytes between the
item being read and the next chunk are held, never the file whole. Plain reads, not a memory
mapping: a file truncated while it is read (a dump written again over it) then reads short and says
so as bad JSON, where a mapping's next page would kill the process with SIGBUS.
"""

from __future__ import annotations

from typing import BinaryIO

CHUNK = 16 << 20   # bytes read at a time


class FileWindow:
    """The bytes of ``source`` from the last line dropped on, read ``chunk`` bytes at a time as they are
    asked for. Positions are the file's. :meth:`drop` lets the bytes before a position go; what is asked
    of dropped bytes afterwards is an error, except how many lines they held (:meth:`lines_before`)."""

    def __init__(self, source: BinaryIO, chunk: int = CHUNK) -> None:
        self.source, self.chunk = source, chunk
        self.buffer = bytearray()
        self.base = 0            # the file position of buffer[0]
        self.lines_dropped = 0   # newlines in the bytes dropped
        self.ended = False
        self.most = 0            # the most bytes the window held at once

    def _read(self) -> bool:
        """One more chunk into the window; False at the file's end."""
        if self.ended:
            return False
        more = self.source.read(self.chunk)
        if not more:
            self.ended = True
            return False
        self.buffer += more
        self.most = max(self.most, len(self.buffer))
        return True

    def _hold(self, end: int) -> None:
        """The bytes up to file position ``end`` in the window (fewer at the file's end)."""
        while self.base + len(self.buffer) < end and self._read():
            pass

    def __getitem__(self, where: slice) -> bytearray:
        start, stop = where.start or 0, where.stop
        if start < self.base:
            raise IndexError(f"bytes before {self.base} were dropped")
        if stop is None:
            while self._read():
                pass
            stop = self.base + len(self.buffer)
        self._hold(stop)
        return self.buffer[start - self.base:stop - self.base]   # a copy (orjson and json take a bytearray)

    def find(self, sub: bytes, start: int) -> int:
        """The file position of ``sub`` at or after ``start``, reading on as far as it takes; -1 at the end."""
        at = start - self.base
        while True:
            found = self.buffer.find(sub, at)
            if found >= 0:
                return self.base + found
            at = max(at, len(self.buffer) - len(sub) + 1)
            if not self._read():
                return -1

    def drop(self, pos: int) -> None:
        """Let the bytes before ``pos`` go, up to the last line start before it (what a column is
        counted from stays)."""
        cut = self.buffer.rfind(b"\n", 0, pos - self.base) + 1
        if cut > 0:
            self.lines_dropped += self.buffer.count(b"\n", 0, cut)
            del self.buffer[:cut]
            self.base += cut

    def lines_before(self, pos: int) -> int:
        """How many newlines the file holds before ``pos`` (at or after the window's start)."""
        return self.lines_dropped + self.buffer.count(b"\n", 0, pos - self.base)

    def line_start(self, pos: int) -> int:
        """The file position where the line holding ``pos`` starts (at or after the window's start)."""
        return self.base + self.buffer.rfind(b"\n", 0, pos - self.base) + 1
