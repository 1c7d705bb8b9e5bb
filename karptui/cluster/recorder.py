"""``karptui record``: the live cluster's changes and Karpenter's log, appended to a recording.

The same informers as the TUI's live mode (:class:`~.live.LiveCluster`), told of each change
through their journal, and the same allow-list as ``snapshot save`` (:func:`.redact.redact`)
on every object before it is kept; the leader controller's log through
:class:`~.karpenter_logs.KarpenterLogs`. The recording itself (format, checkpoints, rotation) is
:mod:`karptui.recording`'s.

A change is kept only when what the allow-list keeps of the object changed: a node's
heartbeat or a status field karptui does not read is not history. A relist (after a 410, or
the informers' periodic resync) is compared with what was known, so a deletion a dropped
watch missed is still recorded, at the time the relist saw it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from ..recording import RecordingWriter
from ..recording.segments import identity
from .connect import Connection
from .karpenter_logs import KarpenterLogs
from .live import LiveCluster
from .redact import redact
from .resources import Resource


def wall_clock() -> datetime:
    return datetime.now(UTC)


class Recorder:
    """Records ``connection``'s cluster into ``writer`` every ``every`` seconds.

    ``clock`` gives the times written (the wall clock; a test harness passes a faster one, with
    ``every`` in real seconds to match, to record a simulated day in a minute).
    """

    def __init__(self, connection: Connection, writer: RecordingWriter, every: float,
                 clock: Callable[[], datetime] = wall_clock, logs_since: float | None = 3600.0,
                 on_note: Callable[[str], None] = lambda note: None, **informer_options: Any) -> None:
        self.connection, self.writer, self.every, self.clock = connection, writer, every, clock
        self.logs_since, self.on_note = logs_since, on_note
        self.informer_options = informer_options
        self.lock = threading.Lock()
        self.state: dict[tuple[str, str, str], dict] = {}
        self.changes: list[tuple[datetime, str, dict]] = []
        self.logs: list[tuple[datetime, str]] = []
        self.started: datetime | None = None
        self.interval_start: datetime | None = None
        self.intervals = 0
        self.stop_event = threading.Event()
        self.live: LiveCluster | None = None
        self.follower: KarpenterLogs | None = None

    # ---- fed from the informers' and the log follower's threads ------------------------------
    def journal(self, resource: Resource, event: str, raw: Any) -> None:
        now = self.clock()
        with self.lock:
            if event == "LISTED":
                self._listed(resource, raw, now)
            elif event == "DELETED":
                key = identity(resource.typed(raw))
                if self.state.pop(key, None) is not None:
                    kind, namespace, name = key
                    gone = {"apiVersion": resource.api_version, "kind": kind,
                            "metadata": {"name": name, **({"namespace": namespace} if namespace else {})}}
                    self.changes.append((now, "DELETED", gone))
            else:
                self._put(redact(resource.typed(raw)), now)

    def _put(self, kept: dict, now: datetime) -> None:
        key = identity(kept)
        before = self.state.get(key)
        if before == kept:
            return
        self.state[key] = kept
        self.changes.append((now, "ADDED" if before is None else "MODIFIED", kept))

    def _listed(self, resource: Resource, items: list[dict], now: datetime) -> None:
        listed = [redact(resource.typed(item)) for item in items]
        keys = {identity(o) for o in listed}
        for key in [k for k in self.state if k[0] == resource.kind and k not in keys]:
            kept = self.state.pop(key)
            self.changes.append((now, "DELETED", {"apiVersion": kept.get("apiVersion"), "kind": key[0],
                                                  "metadata": {"name": key[2], **({"namespace": key[1]} if key[1] else {})}}))
        for kept in listed:
            self._put(kept, now)

    def _log_lines(self, lines: list[str]) -> None:
        now = self.clock()
        with self.lock:
            self.logs.extend((now, line) for line in lines)

    # ---- the loop ----------------------------------------------------------------------------
    def start(self, sync_wait: float = 60.0) -> list[str]:
        """Informers and the log follower started, the first listing written as the base segment;
        the notes an operator should see (kinds not readable)."""
        self.live = LiveCluster(self.connection, journal=self.journal, **self.informer_options).start()
        if self.logs_since != 0:
            self.follower = KarpenterLogs(self.connection, self._log_lines, since_seconds=self.logs_since,
                                          on_note=self.on_note)
            threading.Thread(target=self.follower.run, name="record-karpenter-logs", daemon=True).start()
        synced = self.live.wait_synced(sync_wait)
        notes = list(self.live.status())
        if not synced:
            notes.append(f"not every kind listed after {sync_wait:.0f} s; recording what there is")
        self.started = self.clock()
        self.writer.begin(self.every, self.started, context=self.connection.context, cluster=self.connection.server,
                          kubernetes_version=self.connection.version, notes=notes)
        with self.lock:
            end = self.clock()
            objects, logs = list(self.state.values()), self.logs
            self.changes, self.logs = [], []
            self.interval_start = end
        self.writer.base(self.started, end, objects, logs)
        return notes

    def flush(self) -> int:
        """The interval gathered so far, written as one delta segment; how many changes it held."""
        with self.lock:
            end = self.clock()
            changes, logs, start = self.changes, self.logs, self.interval_start
            self.changes, self.logs, self.interval_start = [], [], end
        try:
            self.writer.delta(start, end, changes, logs)
        except BaseException:  # not written (a signal, a full disk): the next flush carries them
            with self.lock:
                self.changes, self.logs, self.interval_start = changes + self.changes, logs + self.logs, start
            raise
        self.intervals += 1
        self.writer.rotate()
        return len(changes)

    def run(self, duration: float | None, on_interval: Callable[[int], None] = lambda changes: None) -> None:
        """Every ``every`` seconds a delta, until ``duration`` seconds (None: until stopped)."""
        import time

        began = time.monotonic()
        while not self.stop_event.is_set():
            left = None if duration is None else duration - (time.monotonic() - began)
            if left is not None and left <= 0:
                return
            wait = self.every if left is None else min(self.every, left)
            if self.stop_event.wait(wait):
                return
            on_interval(self.flush())

    def stop(self) -> None:
        self.stop_event.set()
        if self.follower is not None:
            self.follower.stop()
        if self.live is not None:
            self.live.stop()
