"""The "now" that ages are counted from.

A saved snapshot (``snapshot save``) records when it was captured, and the live
cluster's now is the wall clock. A kubectl dump records neither: counting its
ages from today's date makes every object "2y" old. Such a dump is read as of
its newest timestamp -- the latest creation, deletion, node heartbeat or
condition transition, pod start, Event or NodeClaim pod event in it -- which is
the least it can have been captured at, and the header says so.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone

from ..model import Snapshot

UNKNOWN_NOTE = "capture time unknown: ages relative to the newest timestamp in the dump"


@dataclass(frozen=True)
class Clock:
    now: datetime
    known: bool  # the capture time (or the wall clock); False: the newest timestamp in the dump

    @property
    def note(self) -> str:
        return "" if self.known else UNKNOWN_NOTE


def snapshot_clock(snapshot: Snapshot, live: bool = False, wall: datetime | None = None) -> Clock:
    """``live``: the wall clock (``wall``, else the time now); else the capture time; else the
    newest timestamp in the snapshot; else (no timestamps at all) the wall clock, said as unknown."""
    wall = wall or datetime.now(timezone.utc)
    if live:
        return Clock(wall, True)
    if snapshot.meta.captured_at is not None:
        return Clock(snapshot.meta.captured_at, True)
    return Clock(newest_timestamp(snapshot) or wall, False)


def newest_timestamp(snapshot: Snapshot) -> datetime | None:
    return max(_timestamps(snapshot), default=None)


def _timestamps(snapshot: Snapshot) -> Iterator[datetime]:
    kinds = (snapshot.nodes, snapshot.pods, snapshot.workloads, snapshot.pdbs, snapshot.pvs, snapshot.pvcs,
             snapshot.events, snapshot.namespaces, snapshot.nodepools, snapshot.nodeclaims, snapshot.nodeclasses)
    for objects in kinds:
        for obj in objects:
            for stamp in (getattr(obj, "created", None), getattr(obj, "deleted", None)):
                if stamp is not None:
                    yield _aware(stamp)
    for node in snapshot.nodes:
        if node.status_time is not None:
            yield _aware(node.status_time)
    for pod in snapshot.pods:
        if pod.started is not None:
            yield _aware(pod.started)
    for event in snapshot.events:
        for stamp in (event.first_seen, event.last_seen):
            if stamp is not None:
                yield _aware(stamp)
    for claim in snapshot.nodeclaims:
        if claim.last_pod_event is not None:
            yield _aware(claim.last_pod_event)


def _aware(stamp: datetime) -> datetime:
    """The model's times carry their zone; one without is UTC, as the API writes them."""
    return stamp if stamp.tzinfo is not None else stamp.replace(tzinfo=timezone.utc)
