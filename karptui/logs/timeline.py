"""Karpenter's log lines and its Kubernetes events on one timeline.

The log says what Karpenter decided; its events (Nominated, DisruptionBlocked,
Unconsolidatable, the consolidation verdicts, interruption warnings) say what it told
the objects involved, and outlive the log's sampling and rotation. An operator reads
them together, so the Activity pane and a pending pod's story interleave both by time.
An event becomes the same kind of record a log line does (kube_events.py owns that),
marked ``origin: "event"`` with ``line: 0``.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timezone

from ..model import Snapshot
from .kube_events import KARPENTER_REASONS, KARPENTER_SOURCES, karpenter_event

_EPOCH = datetime.min.replace(tzinfo=timezone.utc)


def snapshot_events(snapshot: Snapshot) -> list[dict]:
    """Karpenter's events in the snapshot as log-event records, oldest first."""
    found = []
    for event in snapshot.events:
        if event.source not in KARPENTER_SOURCES and (event.source or event.reason not in KARPENTER_REASONS):
            continue
        if not event.filed_with_its_object:  # the API server files no event elsewhere: an edited file's
            continue
        kind = event.involved_kind.lower()
        obj = f"{kind}/{event.involved_key if kind == 'pod' else event.involved_name}" if kind else ""
        record = karpenter_event(event.reason, event.message, obj)
        if record is None:
            continue
        when = event.last_seen.isoformat() if event.last_seen else ""
        level = "warn" if event.type == "Warning" else "info"
        found.append({"line": 0, "time": when, "level": level, **record, "origin": "event"})
    found.sort(key=lambda r: _instant(r["time"]) or _EPOCH)
    return found


def merged(logged: Iterable[dict], events: list[dict]) -> list[dict]:
    """Log records in their own order, each event placed before the first log record that is later.

    A log's lines are already in time order (or, with two replicas interleaved, in the order
    they were written), so they are never reordered; an event with no time goes first.
    """
    out: list[dict] = []
    pending = list(events)
    index = 0
    for record in logged:
        when = _instant(record.get("time", ""))
        if when is not None:
            while index < len(pending) and (_instant(pending[index]["time"]) or _EPOCH) <= when:
                out.append(pending[index])
                index += 1
        out.append(record)
    out.extend(pending[index:])
    return out


def _instant(text: str) -> datetime | None:
    """An RFC 3339 time in any of the spellings logs and the API use; None if it is not one."""
    if not text:
        return None
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00") if text.endswith("Z") else text)
    except ValueError:
        try:  # nanoseconds (kubectl --timestamps): fromisoformat takes at most microseconds
            head, _, tail = text.partition(".")
            digits = "".join(ch for ch in tail if ch.isdigit())
            zone = tail[len(digits):].replace("Z", "+00:00")
            when = datetime.fromisoformat(f"{head}.{digits[:6]}{zone}")
        except ValueError:
            return None
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)
