"""The "now" that ages are counted from.

A saved snapshot (``snapshot save``) records when it was captured, and the live
cluster's now is the wall clock. A kubectl dump records neither: counting its
ages from today's date makes every object "2y" old. Such a dump is read as of
its newest timestamp (the model's rule, :attr:`karptui.model.Snapshot.as_of`,
which the simulator's budgets and consolidateAfter use too), and the header says so.
"""

from __future__ import annotations

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
    return Clock(snapshot.as_of or wall, False)


def recorded_moment(at: datetime) -> str:
    """The header's name for a moment of a recording: ``as at 2026-11-28 03:12:05 UTC, recorded``."""
    return f"as at {at.astimezone(timezone.utc):%Y-%m-%d %H:%M:%S} UTC, recorded"
