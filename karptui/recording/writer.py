"""Appending to a recording: a base segment, then one delta per interval, under a size cap.

Each segment is one :func:`~karptui.sources.atomic.atomic_write` (temporary file, fsync,
rename, directory fsync): a recorder killed at any moment leaves every segment it wrote
whole and loses only the interval it was gathering.

Checkpoints: after an interval, when at least ``checkpoint_every`` intervals have passed since
the last full state (the base or a checkpoint) and their segments hold at least
:data:`CHECKPOINT_RATIO` of that state's bytes, the state after it is written whole (the
writer keeps it, applying each delta as the reader does), so a reader's state at any moment
is one full state and the intervals after it. The byte condition is what keeps a quiet
cluster's recording small: replaying a day of small intervals costs less than decoding one
more state (1,000 nodes, 3 replaced every 5 minutes: 3.6 KiB an interval, 1.3 MiB a state).
Full states take at most :data:`CHECKPOINT_SHARE` of the cap: a new checkpoint that would pass
it first removes the one whose absence leaves the shortest gap (they are only shortcuts), and
when the base alone leaves no room none is written. A checkpoint also keeps, after its objects,
the Events that expired before it (``expired``: each as last seen, with the number of the delta
that removed it), so the history of Events (:meth:`.reader.Recording.events_until`) starts from it
too: a replay from the base has seen them, the state no longer holds them.

Rotation keeps the directory under ``max_size``: when a new delta takes it over, the oldest
intervals are folded into a fresh base segment (the state after the last interval dropped,
replayed from the newest full state on disk at or before it) written *before* the files it
replaces are removed, oldest first; a recorder stopped half-way leaves files a reader skips
(:func:`.reader.replayable`). It drops enough at once to come back to :data:`ROTATE_TO` of the
cap, so it does not rewrite a whole base at every interval once the cap is reached.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from ..errors import InputError
from ..sources.atomic import atomic_write
from ..sources.decode import size_text as human_bytes
from .reader import apply, read_segment, replayable, usable_checkpoints
from .segments import (BASE, CHECKPOINT, DELTA, FORMAT, MANIFEST, VERSION, SegmentFile, decode, encode, identity,
                       instant, list_segments, segment_name, stamp)

ROTATE_TO = 0.8
#: The least the intervals since the last full state hold, against that state's bytes, for a checkpoint.
CHECKPOINT_RATIO = 0.5
#: The most of the cap the full states (the base and the checkpoints) take together.
CHECKPOINT_SHARE = 0.5
#: Intervals between checkpoints at least, when the caller does not say (``record --checkpoint-every``).
CHECKPOINT_EVERY = 12


class RecordingWriter:
    """Writes one recording directory; :meth:`check` first, then :meth:`begin`, :meth:`base`, :meth:`delta`."""

    def __init__(self, path: str | Path, max_size: int | None = None,
                 checkpoint_every: int | None = CHECKPOINT_EVERY) -> None:
        self.path = Path(path)
        self.max_size = max_size
        self.checkpoint_every = checkpoint_every   # None or 0: no checkpoints (every state from the base)
        self.seq = -1          # the last segment written
        self.rotations = 0
        self.dropped = 0       # intervals folded into a newer base by rotation
        self.checkpoints = 0   # written
        self.thinned = 0       # removed to keep the full states within their share of the cap
        self.state: dict = {}  # identity -> object: the state after the last segment, as a reader replays it
        self.latest: datetime | None = None   # the latest time any segment so far starts, ends or changes at
        self.last_end: datetime | None = None # the last segment's end
        self.full_size = 0     # bytes of the last full state written (base or checkpoint)
        self.since: list[int] = []   # bytes of each delta written since it
        #: identity -> (number of the delta that removed it, the Event as last seen): what a checkpoint's
        #: ``expired`` holds (those removed at or before the base are dropped when a rotation writes one)
        self.expired: dict[tuple[str, str, str], tuple[int, dict]] = {}

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
                    "kubernetesVersion": kubernetes_version, "logsSource": logs_source, "notes": list(notes),
                    "checkpointEvery": self.checkpoint_every or 0}
        import json

        atomic_write(self.path / MANIFEST, (json.dumps(manifest, indent=1) + "\n").encode())

    def base(self, start: datetime, end: datetime, objects: Iterable[dict],
             logs: Iterable[tuple[datetime, str]] = ()) -> Path:
        """The first segment: every object as listed, and the log lines read before it."""
        objects = list(objects)
        written = self._write(self.seq + 1, BASE, start, end, {"objects": objects}, logs)
        self.seq += 1  # only once written: a write interrupted leaves no gap in the numbers
        self.state = {identity(o): o for o in objects}
        self.expired = {}
        self.latest = self.last_end = _instant(max(start, end))
        self.full_size, self.since = written.stat().st_size, []
        self._check_fits(self.full_size)
        return written

    def delta(self, start: datetime, end: datetime, changes: Iterable[tuple[datetime, str, dict]],
              logs: Iterable[tuple[datetime, str]] = ()) -> Path:
        """One interval: each change as seen (time, ADDED|MODIFIED|DELETED, object) and its log lines.
        The caller then calls :meth:`rotate`."""
        changes = list(changes)
        written = self._write(self.seq + 1, DELTA, start, end,
                              {"changes": [[stamp(t), kind, obj] for t, kind, obj in changes]}, logs)
        self.seq += 1
        for when, change_type, obj in changes:
            if obj.get("kind") == "Event":
                key = identity(obj)
                last = self.state.get(key) if change_type == "DELETED" else None
                if last is not None:
                    self.expired[key] = (self.seq, last)
                elif change_type != "DELETED":
                    self.expired.pop(key, None)   # served again: the state holds it
            apply(self.state, change_type, obj)
        self.latest = max(self.latest, _instant(max([start, end, *(when for when, _, _ in changes)])))
        self.last_end = _instant(end)
        self.since.append(written.stat().st_size)
        return written

    def _write(self, seq: int, kind: str, start: datetime, end: datetime, body: dict,
               logs: Iterable[tuple[datetime, str]]) -> Path:
        document = {"segment": kind, "seq": seq, "start": stamp(start), "end": stamp(end)}
        if kind != CHECKPOINT:
            lines = [[stamp(t), line] for t, line in logs]
            # the log before the objects or changes: a reader takes the times and lines without them (segments.head)
            document.update({"logs": lines, **body})
        else:
            document.update(body)
        return atomic_write(self.path / segment_name(seq, kind), encode(document))

    # ---- checkpoints -----------------------------------------------------------------------
    def checkpoint(self, force: bool = False) -> Path | None:
        """The state after the last delta, written whole when one is due (module docstring) or
        ``force``d; None when none is written.

        Only when no segment so far starts, ends or changes later than the last delta's end (a
        clock stepped back would break that): a reader takes a checkpoint for any moment from
        that end on, which is the replay only when every change before it is at or before it."""
        if self.seq <= 0 or not self.since or self.latest is None:
            return None
        if not force and not (self.checkpoint_every and len(self.since) >= self.checkpoint_every
                              and sum(self.since) >= CHECKPOINT_RATIO * self.full_size):
            return None
        if self.last_end != self.latest or not self._room(self.full_size):
            return None
        written = self._write(self.seq, CHECKPOINT, self.last_end, self.last_end,
                              {"objects": list(self.state.values()),
                               "expired": [[seq, obj] for seq, obj in self.expired.values()]}, ())
        self.checkpoints += 1
        self.full_size, self.since = written.stat().st_size, []
        return written

    def _room(self, size: int) -> bool:
        """Whether a full state of ``size`` bytes fits in the full states' share of the cap, checkpoints
        removed to make room (each time the one whose absence leaves the shortest gap)."""
        if self.max_size is None:
            return True
        budget = CHECKPOINT_SHARE * self.max_size
        files = list_segments(self.path)
        chain = replayable(files)
        if not chain:
            return False
        points = sorted(usable_checkpoints(files, chain).values(), key=lambda f: f.seq)
        if chain[0].size + size > budget:
            return False
        while chain[0].size + sum(p.size for p in points) + size > budget:
            marks = [chain[0].seq, *(p.seq for p in points), self.seq]
            gone = min(range(len(points)), key=lambda i: marks[i + 2] - marks[i])
            _remove([points.pop(gone)])
            self.thinned += 1
        return True

    # ---- the cap ---------------------------------------------------------------------------
    def size(self) -> int:
        """Bytes on disk now: the manifest and every segment."""
        return (self.path / MANIFEST).stat().st_size + sum(f.size for f in list_segments(self.path))

    def _check_fits(self, base_size: int) -> None:
        if self.max_size is not None and base_size + (self.path / MANIFEST).stat().st_size > self.max_size:
            raise InputError("--max-size", f"{human_bytes(self.max_size)} is less than one snapshot of this cluster "
                                           f"({human_bytes(base_size)} compressed); give a larger cap")

    def rotate(self) -> None:
        """After each delta: a checkpoint if one is due (:meth:`checkpoint`), then the oldest intervals
        folded into a new base until the directory is back under its cap."""
        self.checkpoint()
        if self.max_size is None:
            return
        while self.size() > self.max_size:
            files = list_segments(self.path)
            chain = replayable(files)
            points = usable_checkpoints(files, chain)   # by index in chain
            stale = [f for f in files if f not in chain and f not in points.values()]
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
                if k in points:
                    total -= points[k].size
            last = deltas[k - 1]
            state = self._state_after(chain, points, k)
            ended = read_segment(last).end
            written = self._write(last.seq, BASE, ended, ended, {"objects": list(state.values())}, ())
            _remove([base, *sorted([*deltas[:k], *(points[i] for i in points if i <= k)], key=lambda f: f.seq)])
            # a replay from the new base never sees what expired before it
            self.expired = {key: kept for key, kept in self.expired.items() if kept[0] > last.seq}
            self.rotations += 1
            self.dropped += k
            self._check_fits(written.stat().st_size)

    @staticmethod
    def _state_after(chain: list[SegmentFile], points: dict[int, SegmentFile], k: int) -> dict:
        """The state after ``chain[k]``, from the newest readable full state at or before it."""
        for index in sorted((i for i in points if i <= k), reverse=True):
            try:
                doc = decode(points[index].path)
            except InputError:
                continue   # a torn checkpoint: the one before it will do
            objects = doc.get("objects")
            if doc.get("segment") == CHECKPOINT and isinstance(objects, list) and all(isinstance(o, dict) for o in objects):
                start = index
                break
        else:
            start, objects = 0, read_segment(chain[0]).objects
        state = {identity(o): o for o in objects}
        for delta in chain[start + 1:k + 1]:
            for _, change_type, obj in read_segment(delta).changes:
                apply(state, change_type, obj)
        return state


def _instant(when: datetime) -> datetime:
    """``when`` as a reader reads it back (UTC, to the microsecond): what a checkpoint's time is compared by."""
    return instant(stamp(when), "")


def _remove(files) -> None:
    for file in files:
        try:
            os.unlink(file.path)
        except FileNotFoundError:
            pass
