"""When a snapshot shows the cluster: its capture time, else the newest timestamp in it.

A saved snapshot (``snapshot save``) records when it was captured. A kubectl dump does
not: it is read as of its newest timestamp -- the latest creation, deletion, node
heartbeat, pod start, Event or NodeClaim pod event in it -- which is the least it can
have been captured at. Ages on screen, disruption budgets' schedules, ``consolidateAfter``
and the objects a what-if adds all count from this one time (:attr:`Snapshot.as_of`).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timezone


def as_of(snapshot) -> datetime | None:
    """The capture time, else the newest timestamp, else None (a snapshot with no times at all)."""
    if snapshot.meta.captured_at is not None:
        return aware(snapshot.meta.captured_at)
    return newest_timestamp(snapshot)


def newest_timestamp(snapshot) -> datetime | None:
    return max(_timestamps(snapshot), default=None)


def _timestamps(snapshot) -> Iterator[datetime]:
    kinds = (snapshot.nodes, snapshot.pods, snapshot.workloads, snapshot.pdbs, snapshot.pvs, snapshot.pvcs,
             snapshot.events, snapshot.namespaces, snapshot.nodepools, snapshot.nodeclaims, snapshot.nodeclasses)
    for objects in kinds:
        for obj in objects:
            for stamp in (getattr(obj, "created", None), getattr(obj, "deleted", None)):
                if stamp is not None:
                    yield aware(stamp)
    for node in snapshot.nodes:
        if node.status_time is not None:
            yield aware(node.status_time)
    for pod in snapshot.pods:
        if pod.started is not None:
            yield aware(pod.started)
    for event in snapshot.events:
        for stamp in (event.first_seen, event.last_seen):
            if stamp is not None:
                yield aware(stamp)
    for claim in snapshot.nodeclaims:
        if claim.last_pod_event is not None:
            yield aware(claim.last_pod_event)


def aware(stamp: datetime) -> datetime:
    """The model's times carry their zone; one without is UTC, as the API writes them."""
    return stamp if stamp.tzinfo is not None else stamp.replace(tzinfo=timezone.utc)
