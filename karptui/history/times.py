"""Instants of the log's own times: parsed once per NodeClaim step, compared as datetimes."""

from __future__ import annotations

from datetime import UTC, datetime

from ..logs.timeline import (
    _instant as instant,  # the one reader of every spelling logs and the API use
)

__all__ = ["hour_of", "instant", "seconds_between", "span_text", "stamp"]


def seconds_between(start: datetime | None, end: datetime | None) -> float | None:
    """``end - start`` in seconds, None unless both are known (a negative span is a log out of order: None)."""
    if start is None or end is None:
        return None
    span = (end - start).total_seconds()
    return round(span, 3) if span >= 0 else None


def stamp(when: datetime | None) -> str | None:
    """RFC 3339 in UTC with milliseconds, as Karpenter writes its times."""
    if when is None:
        return None
    if when.tzinfo is not UTC:
        when = when.astimezone(UTC)
    if when.year < 1000:  # strftime writes the year 999 as "999", not "0999": what was always written
        return when.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    # every time of a day's history goes through here (hundreds of thousands): isoformat, in C, writes the
    # same digits (milliseconds cut, not rounded) and its "+00:00" gives way to the "Z"
    return when.isoformat(timespec="milliseconds")[:-6] + "Z"


def hour_of(when: datetime) -> str:
    """The UTC hour an instant falls in, ``2025-03-25T22:00Z``: the buckets of churn, pending and cost."""
    when = when.astimezone(UTC)
    if when.year < 1000:
        return when.strftime("%Y-%m-%dT%H:00Z")
    return f"{when.year}-{when.month:02d}-{when.day:02d}T{when.hour:02d}:00Z"


def span_text(seconds: float | None) -> str:
    """A duration as the answers and the History pane write it: ``45s``, ``1m41s``, ``2h05m00s``; "" unknown."""
    if seconds is None:
        return ""
    minutes, rest = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m{rest:02d}s" if hours else (f"{minutes}m{rest:02d}s" if minutes else f"{rest}s")
