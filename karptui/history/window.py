"""``--since`` / ``--until``: an RFC 3339 time, or a duration counted back from the log's last line."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from ..errors import InputError
from ..model.errors import ModelError
from ..model.fields import parse_duration
from .times import instant


@dataclass(frozen=True)
class Bound:
    """One bound: an instant, or ``seconds`` before the newest time in the input."""

    at: datetime | None = None
    seconds_before_end: float | None = None

    def resolve(self, end: datetime | None) -> datetime | None:
        if self.at is not None:
            return self.at
        if self.seconds_before_end is None or end is None:
            return None
        return end - timedelta(seconds=self.seconds_before_end)


@dataclass(frozen=True)
class Window:
    """The part of the input the history shows; unbounded by default."""

    since: Bound = Bound()
    until: Bound = Bound()

    def resolve(self, end: datetime | None) -> tuple[datetime | None, datetime | None]:
        return self.since.resolve(end), self.until.resolve(end)


def parse_bound(text: str | None, flag: str) -> Bound:
    """``2025-03-25T22:00:00Z`` or ``24h``/``90m``; InputError (one line, exit 2) for anything else."""
    if text is None:
        return Bound()
    when = instant(text) if text[:1].isdigit() and ("T" in text or "-" in text) else None
    if when is not None:
        return Bound(at=when)
    try:
        seconds = parse_duration(text, flag)
    except ModelError:
        seconds = None
    if seconds is None or seconds < 0:
        raise InputError(flag, f"{text!r} is neither an RFC 3339 time (2025-03-25T22:00:00Z) nor a duration "
                               "such as 24h or 90m")
    return Bound(seconds_before_end=seconds)


def parse_window(since: str | None, until: str | None) -> Window:
    window = Window(parse_bound(since, "--since"), parse_bound(until, "--until"))
    if window.since.at and window.until.at and window.since.at > window.until.at:
        raise InputError("--since", f"{since} is after --until {until}")
    return window
