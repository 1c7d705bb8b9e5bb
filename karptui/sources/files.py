"""Snapshot files: YAML or JSON, lists or streams, gzip, or a directory of them.

Accepts whatever an operator already has: ``kubectl get ... -A -o yaml``
(a ``kind: List``), ``-o json`` output concatenated into one file, typed lists
from the raw API (``PodList`` items carry no ``kind``), multi-document YAML,
and karptui's own saved snapshots (a metadata document plus a List).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

from ..errors import InputError
from ..model import Snapshot, SnapshotBuilder
from .collector import collector_paused
from .decode import objects, objects_read_forward, read_text
from .snapshot_file import META_KIND, snapshot_meta

SUFFIXES = (".yaml", ".yml", ".json")


def snapshot_files(path: Path) -> list[Path]:
    """The file itself, or every YAML/JSON file (maybe gzipped) under a directory."""
    if not path.exists():
        raise InputError(path, "no such file or directory")
    if not path.is_dir():
        return [path]
    found = sorted(
        p for p in path.rglob("*")
        if p.is_file()
        and not any(part.startswith(".") for part in p.relative_to(path).parts)
        and p.name.removesuffix(".gz").endswith(SUFFIXES)
    )
    if not found:
        raise InputError(path, "no .yaml, .yml or .json files in this directory")
    return found


def read_objects(path: str | Path) -> Iterator[tuple[object, str]]:
    """Every raw object in a file or directory, with the file it came from."""
    for file in snapshot_files(Path(path)):
        origin = str(file)
        found = objects_read_forward(file, origin)   # a large JSON List: never held whole
        for obj in found if found is not None else objects(read_text(file), origin):
            yield obj, origin


def load_snapshot(path: str | Path) -> Snapshot:
    """A Snapshot from a snapshot file or directory; :class:`InputError` if unreadable."""
    with collector_paused():
        return _load(path)


NOT_A_DUMP = ("no Kubernetes objects in it (expected the output of kubectl get ... -o yaml or -o json, "
              "or a snapshot karptui saved)")


def _load(path: str | Path) -> Snapshot:
    if Path(path).is_dir():  # only a directory may be a recording: a file never loads their reader
        from ..recording import Recording, is_recording

        if is_recording(path):  # karptui record's directory: every command reads its newest state
            recording = Recording(path)
            return recording.snapshot_at(recording.end)
    builder = SnapshotBuilder()
    meta_docs = []
    kinds = 0
    for obj, origin in read_objects(path):
        # type() first: a dict (every JSON object) skips the ABC check, asked of every object of the dump
        kind = obj.get("kind") if type(obj) is dict or isinstance(obj, Mapping) else None
        if kind == META_KIND:
            meta_docs.append((obj, origin))
        else:
            kinds += type(kind) is str or isinstance(kind, str)
            builder.add(obj, origin)
    if not kinds:
        # `foo: bar`, `[]` or an empty List: an empty cluster on screen would look like an answer
        raise InputError(path, NOT_A_DUMP)
    meta, notes = snapshot_meta(meta_docs, str(path))
    return builder.build(meta, notes)
