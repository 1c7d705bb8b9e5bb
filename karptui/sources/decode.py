"""Bytes -> Kubernetes objects: gzip, JSON (one or concatenated) or YAML streams.

JSON is recognised by its first character because the stdlib parser is an
order of magnitude faster than even LibYAML on large dumps.
"""

from __future__ import annotations

import gzip
import os
import stat
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from .. import limits
from ..errors import InputError
from .file_window import FileWindow
from .json_stream import json_objects, list_from_file

GZIP_MAGIC = b"\x1f\x8b"
CHUNK = 8 << 20  # bytes read (or decompressed) at a time


def input_error(path: str | Path, exc: OSError) -> InputError:
    """One line for a file that cannot be opened or read."""
    if isinstance(exc, FileNotFoundError):
        return InputError(path, "no such file")
    if isinstance(exc, PermissionError):
        return InputError(path, "permission denied")
    if isinstance(exc, IsADirectoryError):
        return InputError(path, "is a directory")
    return InputError(path, exc.strerror or str(exc))


READ_FORWARD_FROM = 64 << 20   # a snapshot file this large is read forward (:func:`objects_read_forward`)


def objects_read_forward(path: str | Path, origin: str) -> Iterator[object] | None:
    """Every Kubernetes object of a large plain JSON List file, read forward through a bounded window
    (:func:`.json_stream.list_from_file`: the text is never held whole); None for any other file
    (smaller, compressed, not a regular file, past the size karptui reads, laid out otherwise), which
    :func:`read_text` and :func:`objects` then read. The file stays open until its objects are read."""
    try:
        # asked before opening: opening a FIFO waits for its writer, and read_text opens it once only
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode) or not READ_FORWARD_FROM <= info.st_size <= limits.MAX_SNAPSHOT_BYTES:
            return None
        handle = Path(path).open("rb")
    except OSError:
        return None   # read_text says what is wrong
    try:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode) or handle.read(2) == GZIP_MAGIC:
            handle.close()
            return None
        handle.seek(0)
        found = list_from_file(FileWindow(handle), origin)
    except OSError:
        handle.close()
        return None
    if found is None:
        handle.close()
        return None
    return _closing(found, handle)


def _closing(objects_: Iterator[object], handle: BinaryIO) -> Iterator[object]:
    try:
        yield from objects_
    except OSError as exc:
        raise input_error(handle.name, exc) from None
    finally:
        handle.close()


def read_text(path: str | Path, small: bool = False) -> str:
    """A file's text, gunzipped if need be; :class:`InputError` naming the file otherwise.

    At most ``MAX_SNAPSHOT_BYTES`` (``MAX_SMALL_FILE_BYTES`` when ``small``: what-ifs,
    catalogs, themes) are read, after decompression: a gzip bomb, ``/dev/zero``, a FIFO
    that never ends or a huge file stops at the bound, in chunks, with one line.
    """
    limit = limits.MAX_SMALL_FILE_BYTES if small else limits.MAX_SNAPSHOT_BYTES
    what = "a what-if, catalog or theme file" if small else "a snapshot file"
    try:
        with Path(path).open("rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            head = handle.read(2)
            if head != GZIP_MAGIC:
                if size > limit:  # a regular file says its size: refuse before reading it
                    raise InputError(path, f"{size_text(size)}, more than the {size_text(limit)} karptui reads of {what}")
                too_big = f"more than the {size_text(limit)} karptui reads of {what}"
                data = _read_whole(handle, head, size, limit, path, too_big) if size > len(head) else \
                    _read_capped(handle, head, limit, path, too_big)
            else:
                source = gzip.GzipFile(fileobj=_Prefixed(head, handle), mode="rb")
                data = _read_capped(source, b"", limit, path,
                                    f"more than {size_text(limit)} once decompressed, the most karptui reads of {what}")
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise InputError(path, f"corrupt gzip data ({exc or 'truncated'})") from None
    except OSError as exc:
        raise input_error(path, exc) from None
    return to_text(data, str(path))


def _read_capped(source: BinaryIO, head: bytes, limit: int, path: str | Path, too_big: str) -> bytearray:
    """Everything ``source`` yields after ``head``, refused past ``limit`` bytes or at a NUL byte."""
    data = bytearray(head)
    while True:
        chunk = source.read(min(CHUNK, limit + 1 - len(data)))
        if not chunk:
            return data
        if b"\x00" in chunk:  # /dev/zero, a disk image: say so now, not after gigabytes
            raise InputError(path, "not a text file (binary data)")
        data += chunk
        if len(data) > limit:
            raise InputError(path, too_big)


def _read_whole(handle: BinaryIO, head: bytes, size: int, limit: int, path: str | Path, too_big: str) -> bytes | bytearray:
    """A regular file of ``size`` bytes (fstat's word), whose ``head`` was read: read again whole,
    in one read into one buffer, where reading chunk by chunk into a growing one copied a large dump twice
    (a third of the time :func:`read_text` took). A file still growing goes on in chunks, capped;
    binary data is refused by :func:`to_text`, which looks at every byte anyway."""
    handle.seek(0)
    data = handle.read(size)
    more = handle.read(CHUNK)
    if not more:
        return data
    grown = bytearray(data)
    grown += more
    if len(grown) > limit:
        raise InputError(path, too_big)
    return _read_capped(handle, bytes(grown), limit, path, too_big)


class _Prefixed:
    """A file (maybe a pipe, which cannot seek back) whose first bytes were already read."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        self._head, self._rest = head, rest

    def read(self, size: int = -1) -> bytes:
        if not self._head:
            return self._rest.read(size)
        if size < 0:
            head, self._head = self._head, b""
            return head + self._rest.read()
        head, self._head = self._head[:size], self._head[size:]
        return head + (self._rest.read(size - len(head)) if size > len(head) else b"")


def size_text(count: int) -> str:
    """``4 GiB``, ``1.5 MiB``, ``900 bytes``: a size as an operator reads it."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if count >= 1 << shift:
            return f"{count / (1 << shift):.1f}".removesuffix(".0") + f" {unit}"
    return f"{count:,} bytes"


def to_text(data: bytes | bytearray, path: str) -> str:
    if b"\x00" in data:
        raise InputError(path, "not a text file (binary data)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(path, f"not UTF-8 text (bad byte at offset {exc.start})") from None
    if not text or text.isspace():  # isspace stops at the first visible character; strip() would copy
        raise InputError(path, "file is empty")
    return text


def objects(text: str, path: str) -> Iterator[object]:
    """Every Kubernetes object in the text, JSON or YAML, with lists opened."""
    first = next((ch for ch in text if not ch.isspace()), "")
    if first in ("{", "["):
        yield from json_objects(text, path)
        return
    from .yaml_stream import yaml_objects  # here: a JSON file never loads PyYAML

    yield from yaml_objects(text, path)
