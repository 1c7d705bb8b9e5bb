"""Bytes -> Kubernetes objects: gzip, JSON (one or concatenated) or YAML streams.

JSON is recognised by its first character because the stdlib parser is an
order of magnitude faster than even LibYAML on large dumps.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator
from pathlib import Path

from ..errors import InputError
from .json_stream import json_objects
from .yaml_stream import yaml_objects

GZIP_MAGIC = b"\x1f\x8b"


def input_error(path: str | Path, exc: OSError) -> InputError:
    """One line for a file that cannot be opened or read."""
    if isinstance(exc, FileNotFoundError):
        return InputError(path, "no such file")
    if isinstance(exc, PermissionError):
        return InputError(path, "permission denied")
    if isinstance(exc, IsADirectoryError):
        return InputError(path, "is a directory")
    return InputError(path, exc.strerror or str(exc))


def read_text(path: str | Path) -> str:
    """A file's text, gunzipped if need be; :class:`InputError` naming the file otherwise."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise input_error(path, exc) from None
    return to_text(decompress(data, str(path)), str(path))


def decompress(data: bytes, path: str) -> bytes:
    if not data.startswith(GZIP_MAGIC):
        return data
    try:
        return gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(path, f"corrupt gzip data ({exc})") from None


def to_text(data: bytes, path: str) -> str:
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
    yield from yaml_objects(text, path)
