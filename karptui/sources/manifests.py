"""An object's manifest, or a Karpenter log line, read again from where it came from, for ``y``.

The model keeps the manifest of the objects a what-if may patch, but not of pods and
events: at 50,000 pods that would double the memory a session holds. The operator who
presses ``y`` on one pod waits for one more pass over the file (a worker does it), which
gives the object exactly as the file has it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from .files import read_objects


def manifest_in_files(path: str | Path, kind: str, namespace: str, name: str) -> Mapping | None:
    """The first ``kind`` named ``namespace/name`` in a snapshot file or directory, as it is there."""
    for obj, _ in read_objects(path):
        if not isinstance(obj, Mapping) or obj.get("kind") != kind:
            continue
        meta = obj.get("metadata")
        if isinstance(meta, Mapping) and meta.get("name") == name and (meta.get("namespace") or "") == namespace:
            return obj
    return None


def log_line(number: int, text: str, path: str | None) -> str | None:
    """Line ``number`` of the Karpenter log as written: from ``text`` (the snapshot's own log),
    else, for a line a tail read later, from the followed file ``path``; None when neither has it."""
    return log_lines([number], text, path).get(number)


def log_lines(numbers: Iterable[int], text: str, path: str | None) -> dict[int, str]:
    """Lines ``numbers`` of the Karpenter log as :func:`log_line` finds each, in one pass over the text
    and at most one over the file (a NodeClaim's history names up to 200 lines of a log of millions)."""
    wanted = set(numbers)
    found: dict[int, str] = {}
    if text and wanted:
        for at, line in enumerate(text.splitlines(), 1):
            if at in wanted:
                found[at] = line
                if len(found) == len(wanted):
                    return found
    left = wanted - set(found)
    if path and left:
        last = max(left)
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                for at, line in enumerate(handle, 1):
                    if at in left:
                        found[at] = line.rstrip("\n")
                    if at >= last:
                        break
        except OSError:
            pass
    return found
