"""The on-disk format of a recording, in one place (docs/record.md is its contract).

A recording is a directory::

    OUT/recording.json                  the manifest: format, version, interval, cap, cluster
    OUT/00000000.base.json.gz           the cluster as it was at the segment's end
    OUT/00000001.delta.json.gz          the changes, log lines of one interval
    OUT/00000002.delta.json.gz          ...
    OUT/00000012.checkpoint.json.gz     the cluster as it was after delta 12 (a shortcut, see below)

Every file is written whole to a temporary name, fsynced and renamed
(:func:`karptui.sources.atomic.atomic_write`), so a segment on disk is complete or absent,
and a recorder killed at any moment loses only the interval it was gathering. Segments
are numbered; a base numbered N is the state after delta N (rotation writes one, then
removes what it replaces), so the newest history replays from the lowest base onwards.

A checkpoint numbered N holds the same state a replay reaches after delta N, written every few
intervals so that a state at any moment is one checkpoint plus the intervals after it, not the
whole history since the base. It is only a shortcut: a reader that cannot read one (torn by a
disk that lied about fsync, cut by a copy) uses the one before it or the base, and a reader of
an older karptui, whose names do not include it, never sees it.
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
SEGMENT_NAME = re.compile(r"\A(?P<seq>[0-9]{8})\.(?P<type>base|delta|checkpoint)\.json\.gz\Z")
BASE, DELTA, CHECKPOINT = "base", "delta", "checkpoint"
#: Of one number: the base (the state after that delta, from a rotation), the delta, then the
#: checkpoint (the state after that delta).
_ORDER = {BASE: 0, DELTA: 1, CHECKPOINT: 2}
#: How much of a base or checkpoint :func:`head` decompresses at most, looking for its objects.
HEAD_LIMIT = 64 << 20
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
    """The segment files in ``folder``, by number; of one number the base, the delta, the checkpoint."""
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
    return sorted(found, key=lambda s: (s.seq, _ORDER[s.type]))


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


def head(path: Path) -> dict | None:
    """A segment's fields written before its objects or changes (``segment``, ``seq``, ``start``,
    ``end``, and ``logs`` where the writer put them first), read without decoding the objects or
    changes; None when the file does not begin so or cannot be read: the caller then decodes it
    whole (:func:`decode`), which says what is wrong. A segment of an older karptui has its
    ``logs`` after its objects or changes: its head has no ``logs``.

    The state is most of a recording (27 MB of JSON at 1,000 nodes), and the changes most of an
    interval: a recording's times and log lines are wanted long before, or without, either."""
    markers = (b',"objects":', b',"changes":')
    try:
        with path.open("rb") as handle:
            inflate = zlib.decompressobj(wbits=31)   # a gzip member
            text, looked = bytearray(), 0
            while len(text) < HEAD_LIMIT:
                chunk = handle.read(1 << 16)
                if not chunk:
                    return None
                text += inflate.decompress(chunk)
                # A '"' inside a JSON string is escaped, so the first `,"objects":` or `,"changes":`
                # (after fields holding only strings, numbers and arrays of them) is the key.
                found = min((f for f in (text.find(m, max(0, looked - len(m))) for m in markers) if f >= 0),
                            default=-1)
                if found >= 0:
                    document = fast_json.loads(bytes(text[:found]) + b"}")
                    return document if isinstance(document, dict) else None
                looked = len(text)
    except (OSError, EOFError, zlib.error, ValueError, UnicodeDecodeError):
        return None
    return None


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
