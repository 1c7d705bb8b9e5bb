"""Cron schedules as Karpenter reads a disruption budget's ``schedule``.

Karpenter parses ``TZ=UTC <schedule>`` with the Go cron library's standard
parser: five fields (minute, hour, day of month, month, day of week), month
and weekday names (``jan``, ``mon``; any case), ``*`` or ``?``, ranges, lists
and steps (``N/step`` runs from N to the field's end), and the macros
``@yearly`` / ``@annually``, ``@monthly``, ``@weekly``, ``@daily`` /
``@midnight`` and ``@hourly``. Sunday is 0 only (7 is refused), and when both
day fields are restricted a day matching either counts, but a field that is
``*`` or ``?`` (not ``*/2``) makes them both required. The NodePool CRD refuses
``@every``. Written here rather than taken from a Python cron package because
those follow Vixie cron on exactly these edges (``7``, ``*/2`` days), and the
answer must be Karpenter's.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from datetime import datetime, timedelta, timezone

from .errors import ModelError

_MONTHS = {name: i for i, name in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1)}
_DAYS = {name: i for i, name in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}
# (name, lowest, highest, names) per field, in the order the schedule gives them
_FIELDS = (("minute", 0, 59, {}), ("hour", 0, 23, {}), ("day of month", 1, 31, {}),
           ("month", 1, 12, _MONTHS), ("day of week", 0, 6, _DAYS))
_MACROS = {"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *", "@weekly": "0 0 * * 0",
           "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *"}
SEARCH_YEARS = 5  # like the Go library: a schedule with no hit within five years never fires


@dataclass(frozen=True, slots=True)
class Cron:
    """The values each field allows; ``any_day``: a day field was ``*``/``?``, so both day fields must match."""

    text: str
    minutes: frozenset[int]
    hours: frozenset[int]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]   # 0 = Sunday
    any_day: bool

    def day_matches(self, day: datetime) -> bool:
        in_month = day.day in self.days
        in_week = (day.weekday() + 1) % 7 in self.weekdays
        return in_month and in_week if self.any_day else in_month or in_week

    def next_after(self, moment: datetime) -> datetime | None:
        """The first time the schedule fires strictly after ``moment`` (UTC, whole minutes), or None
        within :data:`SEARCH_YEARS` years."""
        moment = utc(moment)
        start = moment.replace(second=0, microsecond=0) + timedelta(minutes=1)
        day = start.replace(hour=0, minute=0)
        first = True
        limit = start.year + SEARCH_YEARS
        while day.year <= limit:
            if day.month in self.months and self.day_matches(day):
                hour0 = start.hour if first else 0
                for hour in sorted(h for h in self.hours if h >= hour0):
                    minute0 = start.minute if first and hour == start.hour else 0
                    minutes = [m for m in sorted(self.minutes) if m >= minute0]
                    if minutes:
                        return day.replace(hour=hour, minute=minutes[0])
            day += timedelta(days=1)
            first = False
        return None

    def hits(self, after: datetime, until: datetime) -> list[datetime]:
        """Every time the schedule fires in (after, until]."""
        out = []
        hit = self.next_after(after)
        while hit is not None and hit <= until:
            out.append(hit)
            hit = self.next_after(hit)
        return out


class _Where:
    """Where in a schedule a message points, formatted only when a message is made: formatting the
    schedule for each of its list entries made a long list quadratic (a 750 KB list took minutes)."""

    __slots__ = ("text", "name", "expr")

    def __init__(self, text: str, name: str, expr: str):
        self.text, self.name, self.expr = text, name, expr

    def __format__(self, spec: str) -> str:
        return f"{_shown(self.text)}: {self.name} {_shown(self.expr)}"


def _shown(text: str, most: int = 60) -> str:
    """``text`` quoted for a message, cut when long (a message is one line, not the whole schedule)."""
    return repr(text) if len(text) <= most else f"{text[:most]!r}... ({len(text):,} characters)"


@lru_cache(maxsize=256)
def parse_cron(text: str) -> Cron:
    """The schedule ``text``; ModelError saying what is wrong when the Go library would refuse it."""
    spec = text.strip()
    if spec.startswith("@"):
        if spec not in _MACROS:
            raise ModelError(f"{_shown(text)} is not a cron macro Karpenter accepts ({', '.join(_MACROS)})")
        spec = _MACROS[spec]
    parts = spec.split()
    if len(parts) != len(_FIELDS):
        raise ModelError(f"{_shown(text)} has {len(parts)} fields; a cron schedule has 5 (minute hour day month weekday)")
    values, stars = [], []
    for part, (name, low, high, names) in zip(parts, _FIELDS):
        allowed, star = _field(part, low, high, names, name, text)
        values.append(frozenset(allowed))
        stars.append(star)
    return Cron(text, *values, any_day=stars[2] or stars[4])


def _field(part: str, low: int, high: int, names: dict[str, int], name: str, text: str) -> tuple[set[int], bool]:
    allowed: set[int] = set()
    star = False
    for expr in filter(None, part.split(",")):
        where = _Where(text, name, expr)
        span, *step_text = expr.split("/")
        if len(step_text) > 1:
            raise ModelError(f"{where} has more than one '/'")
        ends = span.split("-")
        if span in ("*", "?"):
            start, end, this_star = low, high, True
        elif len(ends) > 2:
            raise ModelError(f"{where} has more than one '-'")
        else:
            start = _number(ends[0], names, where)
            end = _number(ends[1], names, where) if len(ends) == 2 else start
            this_star = False
        step = 1
        if step_text:
            step = _number(step_text[0], {}, where)
            if len(ends) == 1:
                end = high  # "N/step" runs to the end of the field
            if step > 1:
                this_star = False
        if start < low or end > high:
            raise ModelError(f"{where} is outside {low}-{high}")
        if start > end:
            raise ModelError(f"{where} starts after it ends")
        if step == 0:
            raise ModelError(f"{where} has a step of 0")
        allowed.update(range(start, end + 1, step))
        star = star or this_star
    if not allowed:
        raise ModelError(f"{_shown(text)}: {name} is empty")
    return allowed, star


def _number(word: str, names: dict[str, int], where: _Where) -> int:
    if word.lower() in names:
        return names[word.lower()]
    if not word.isdigit():
        raise ModelError(f"{where}: {_shown(word)} is not a number" + (" or a name" if names else ""))
    return int(word)


def utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment.astimezone(timezone.utc)
