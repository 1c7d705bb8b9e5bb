"""Appending to a recording: a base segment, then one delta per interval, under a size cap.

Each segment is one :func:`~karptui.sources.atomic.atomic_write` (temporary file, fsync,
rename, directory fsync): a recorder killed at any moment leaves every segment it wrote
whole and loses only the interval it was gathering.

Rotation keeps the directory under ``max_size``: when a new delta takes it over, the oldest
intervals are folded into a fresh base segment (the state after the last interval dropped,
replayed from what is on disk) written *before* the files it replaces are removed, oldest
first; a recorder stopped half-way leaves files a reader skips (:func:`.reader.replayable`).
It drops enough at once to come back to :data:`ROTATE_TO` of the cap, so it does not rewrite
a whole base at every interval once the cap is reached.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from ..errors import InputError
from ..sources.atomic import atomic_write
from ..sources.decode import size_text as human_bytes
from .reader import apply, read_segment, replayable
from .segments import (BASE, DELTA, FORMAT, MANIFEST, VERSION, encode, identity, list_segments, segment_name,
                       stamp)

ROTATE_TO = 0.8


class RecordingWriter:
    """Writes one recording directory; :meth:`check` first, then :meth:`begin`, :meth:`base`, :meth:`delta`."""

    def __init__(self, path: str | Path, max_size: int | None = None) -> None:
        self.path = Path(path)
        self.max_size = max_size
        self.seq = -1          # the last segment written
        self.rotations = 0
        self.dropped = 0       # intervals folded into a newer base by rotation

    def check(self) -> Path:
        """That ``path`` can become a recording: absent (its parent a writable directory) or an empty
        directory. :class:`InputError` (one line) otherwise, before anything is read from the cluster."""
        path = self.path
        if path.exists() or path.is_symlink():
            if not path.is_dir():
                raise InputError(path, "exists and is not a directory; give a new directory for the recording")
            if any(path.iterdir()):
                what = "already holds a recording" if (path / MANIFEST).exists() else "is a directory that is not empty"
                raise InputError(path, f"{what}; give a new or empty directory")
            if not os.access(path, os.W_OK | os.X_OK):
                raise InputError(path, "is not writable")
        else:
            parent = path.parent
            if not parent.is_dir():
                raise InputError(path, f"directory {parent} does not exist")
            if not os.access(parent, os.W_OK | os.X_OK):
                raise InputError(path, f"directory {parent} is not writable")
        return path

    def begin(self, every: float, started: datetime, context: str = "", cluster: str = "",
              kubernetes_version: str = "", logs_source: str = "", notes: Iterable[str] = ()) -> None:
        """The directory (mode as the umask says) and its manifest."""
        from .. import __version__

        self.path.mkdir(exist_ok=True)
        manifest = {"format": FORMAT, "version": VERSION, "karptuiVersion": __version__, "every": every,
                    "maxSize": self.max_size, "started": stamp(started), "context": context, "cluster": cluster,
                    "kubernetesVersion": kubernetes_version, "logsSource": logs_source, "notes": list(notes)}
        import json

        atomic_write(self.path / MANIFEST, (json.dumps(manifest, indent=1) + "\n").encode())

    def base(self, start: datetime, end: datetime, objects: Iterable[dict],
             logs: Iterable[tuple[datetime, str]] = ()) -> Path:
        """The first segment: every object as listed, and the log lines read before it."""
        written = self._write(self.seq + 1, BASE, start, end, {"objects": list(objects)}, logs)
        self.seq += 1  # only once written: a write interrupted leaves no gap in the numbers
        self._check_fits(written.stat().st_size)
        return written

    def delta(self, start: datetime, end: datetime, changes: Iterable[tuple[datetime, str, dict]],
              logs: Iterable[tuple[datetime, str]] = ()) -> Path:
        """One interval: each change as seen (time, ADDED|MODIFIED|DELETED, object) and its log lines.
        The caller then calls :meth:`rotate`."""
        written = self._write(self.seq + 1, DELTA, start, end,
                              {"changes": [[stamp(t), kind, obj] for t, kind, obj in changes]}, logs)
        self.seq += 1
        return written

    def _write(self, seq: int, kind: str, start: datetime, end: datetime, body: dict,
               logs: Iterable[tuple[datetime, str]]) -> Path:
        document = {"segment": kind, "seq": seq, "start": stamp(start), "end": stamp(end), **body,
                    "logs": [[stamp(t), line] for t, line in logs]}
        return atomic_write(self.path / segment_name(seq, kind), encode(document))

    # ---- the cap ---------------------------------------------------------------------------
    def size(self) -> int:
        """Bytes on disk now: the manifest and every segment."""
        return (self.path / MANIFEST).stat().st_size + sum(f.size for f in list_segments(self.path))

    def _check_fits(self, base_size: int) -> None:
        if self.max_size is not None and base_size + (self.path / MANIFEST).stat().st_size > self.max_size:
            raise InputError("--max-size", f"{human_bytes(self.max_size)} is less than one snapshot of this cluster "
                                           f"({human_bytes(base_size)} compressed); give a larger cap")

    def rotate(self) -> None:
        """Fold the oldest intervals into a new base until the directory is back under its cap."""
        if self.max_size is None:
            return
        while self.size() > self.max_size:
            files = list_segments(self.path)
            chain = replayable(files)
            stale = [f for f in files if f not in chain]
            if stale:  # left by a rotation that was stopped half-way
                _remove(stale)
                continue
            base, deltas = chain[0], chain[1:]
            if not deltas:
                self._check_fits(base.size)
                return
            target, total, k = self.max_size * ROTATE_TO, self.size(), 0
            while k < len(deltas) and total > target:
                total -= deltas[k].size   # the new base is about the old one's size: the state, not its history
                k += 1
            last = deltas[k - 1]
            state = {identity(o): o for o in read_segment(base).objects}
            for delta in deltas[:k]:
                for _, change_type, obj in read_segment(delta).changes:
                    apply(state, change_type, obj)
            ended = read_segment(last).end
            written = self._write(last.seq, BASE, ended, ended, {"objects": list(state.values())}, ())
            _remove([base, *deltas[:k]])
            self.rotations += 1
            self.dropped += k
            self._check_fits(written.stat().st_size)


def _remove(files) -> None:
    for file in files:
        try:
            os.unlink(file.path)
        except FileNotFoundError:
            pass
