"""A snapshot's own history: the Karpenter log it carries (``--logs``, or recorded by ``snapshot
save``) and its events, read as ``karptui history`` reads files. ``karptui mcp``'s node history
asks this; ``karptui history --events/--snapshot`` feeds events through the same function."""

from __future__ import annotations

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
    builder = HistoryBuilder()
    text = snapshot.meta.logs_text
    if text:
        builder.feed_all(LogParser().parse(text.splitlines(keepends=True)), snapshot.meta.logs_source or "")
    feed_snapshot_events(builder, snapshot, snapshot.meta.source or "")
    return finish(builder, catalog=catalog, discounts=discounts)
