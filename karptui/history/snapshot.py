"""A snapshot's own history: the Karpenter log it carries (``--logs``, or recorded by ``snapshot
save``) and its events, read as ``karptui history`` reads files. ``karptui mcp``'s node history
asks this; ``karptui history --events/--snapshot`` feeds events through the same function."""

from __future__ import annotations

from collections.abc import Iterable

from ..logs import LogParser
from ..model import Snapshot
from .builder import HistoryBuilder
from .finish import finish
from .timeline import Timeline


def feed_snapshot_events(builder: HistoryBuilder, snapshot: Snapshot, file: str) -> None:
    """Karpenter's events and kube-scheduler's FailedScheduling of ``snapshot`` into ``builder``."""
    from ..logs.timeline import snapshot_events

    builder.feed_all(snapshot_events(snapshot), file=file)
    for event in snapshot.events:
        if event.reason == "FailedScheduling" and event.involved_kind == "Pod":
            builder.failed_scheduling(f"{event.involved_namespace}/{event.involved_name}",
                                      event.last_seen or event.first_seen)


def snapshot_timeline(snapshot: Snapshot, catalog=None, discounts=None) -> Timeline:
    """The timeline of the log ``snapshot`` carries and of its events (empty when it has neither)."""
    text = snapshot.meta.logs_text
    events = LogParser().parse(text.splitlines(keepends=True)) if text else ()
    return events_timeline(events, snapshot, catalog, discounts, snapshot.meta.logs_source or "")


def events_timeline(events: Iterable[dict], snapshot: Snapshot | None, catalog=None, discounts=None,
                    file: str = "") -> Timeline:
    """The timeline of log events the log reader has already read (the TUI's: the snapshot's log, ``--logs``
    and the lines followed since), then of ``snapshot``'s events: the History pane's way in, the same
    builder and :func:`finish` as ``karptui history``."""
    builder = HistoryBuilder()
    builder.feed_all(events, file)   # "": lines are numbered ``N``, as `karptui history` numbers one log's
    if snapshot is not None:
        feed_snapshot_events(builder, snapshot, snapshot.meta.source or "")
    return finish(builder, catalog=catalog, discounts=discounts)
