"""The on-disk format of a recording, in one place (docs/record.md is its contract).

A recording is a directory::

    OUT/recording.json                  the manifest: format, version, interval, cap, cluster
    OUT/00000000.base.json.gz           the cluster as it was at the segment's end
    OUT/00000001.delta.json.gz          the changes, log lines of one interval
    OUT/00000002.delta.json.gz          ...

Every file is written whole to a temporary name, fsynced and renamed
(:func:`karptui.sources.atomic.atomic_write`), so a segment on disk is complete or absent,
and a recorder killed at any moment loses only the interval it was gathering. Segments
are numbered; a base numbered N is the state after delta N (rotation writes one, then
removes what it replaces), so the newest history replays from the lowest base onwards.
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from dataclasses import dataclass
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path

from ..errors import InputError
from ..sources import fast_json

FORMAT = "karptui-recording"
VERSION = 1
MANIFEST = "recording.json"
SEGMENT_NAME = re.compile(r"\A(?P<seq>[0-9]{8})\.(?P<type>base|delta)\.json\.gz\Z")
BASE, DELTA = "base", "delta"
CHANGE_TYPES = ("ADDED", "MODIFIED", "DELETED")
COMPRESSLEVEL = 6  # gzip's default: at 1,000 nodes, level 9 saved 3% for twice the time


@dataclass(frozen=True)
class SegmentFile:
    """One segment file as named on disk (its content is read on demand)."""

    seq: int
    type: str
    path: Path
    size: int


def segment_name(seq: int, kind: str) -> str:
    return f"{seq:08d}.{kind}.json.gz"


def list_segments(folder: Path) -> list[SegmentFile]:
    """The segment files in ``folder``, by number, a base before the delta of the same number."""
    found = []
    for entry in folder.iterdir():
        match = SEGMENT_NAME.match(entry.name)
        if match is None:
            continue
        try:
            size = entry.stat().st_size
        except FileNotFoundError:  # removed by a rotation while we looked
            continue
        found.append(SegmentFile(int(match["seq"]), match["type"], entry, size))
    return sorted(found, key=lambda s: (s.seq, s.type != BASE))


def stamp(when: datetime) -> str:
    """RFC 3339 in UTC to the microsecond: the order of changes within an interval matters."""
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def instant(text: object, where: Path | str) -> datetime:
    if not isinstance(text, str):
        raise InputError(where, f"a time is {type(text).__name__}, not an RFC 3339 string")
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise InputError(where, f"{text[:40]!r} is not an RFC 3339 time") from None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def encode(document: dict) -> bytes:
    return gzip.compress(json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode(),
                         compresslevel=COMPRESSLEVEL, mtime=0)


def decode(path: Path) -> dict:
    """A segment's or manifest's document; :class:`InputError` naming the file when it is not one."""
    try:
        data = path.read_bytes()
        if path.name.endswith(".gz"):
            data = gzip.decompress(data)
        document = fast_json.loads(data)
    except FileNotFoundError:
        raise InputError(path, "no such file (removed while it was read?)") from None
    except (OSError, EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise InputError(path, f"cannot be read ({exc})") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(path, f"is not JSON ({exc})") from None
    if not isinstance(document, dict):
        raise InputError(path, "is not a JSON object")
    return document


def identity(obj: dict) -> tuple[str, str, str]:
    """(kind, namespace, name): the key under which the recording keeps an object."""
    meta = obj.get("metadata") or {}
    return (str(obj.get("kind") or ""), str(meta.get("namespace") or ""), str(meta.get("name") or ""))


def parse_size(text: str, where: str = "--max-size") -> int:
    """``1GiB``, ``500Mi``, ``2G``, ``1048576``: a size in bytes (Kubernetes' quantity suffixes,
    with or without a trailing B)."""
    from ..model.errors import ModelError
    from ..model.quantity import parse_quantity

    raw = text.strip()
    cut = raw[:-1] if raw.endswith("B") and raw[:-1] and not raw[:-1].isdigit() else raw
    try:
        value = parse_quantity(cut)
    except (ModelError, ValueError, ArithmeticError, TypeError):
        value = None
    if not isinstance(value, Fraction) or value <= 0:
        raise InputError(where, f"{text!r} is not a size such as 1GiB, 500MiB or 200M")
    return int(value)
