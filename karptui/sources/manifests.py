"""An object's manifest read again from where the snapshot came from, for ``y``.

The model keeps the manifest of the objects a what-if may patch, but not of pods and
events: at 50,000 pods that would double the memory a session holds. The operator who
presses ``y`` on one pod waits for one more pass over the file (a worker does it), which
gives the object exactly as the file has it.
"""

from __future__ import annotations

from collections.abc import Mapping
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
