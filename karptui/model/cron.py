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

from calendar import monthrange
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
# the most days each month has (February in a leap year)
_LONGEST = {month: monthrange(2024, month)[1] for month in range(1, 13)}
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
    # no month allowed is long enough for the first day allowed (``0 0 30 2 *``), when both day
    # fields must match: it fires in no year, so no search needs to look (the Go library searches
    # its five years, and finds nothing either)
    never: bool = False

    def month_may_match(self, day: datetime) -> bool:
        """Whether any day of ``day``'s month can match: its month is allowed and, when both day
        fields must match, it is long enough for the first allowed day (no 30th in February)."""
        if day.month not in self.months:
            return False
        return not self.any_day or min(self.days) <= monthrange(day.year, day.month)[1]

    def day_matches(self, day: datetime) -> bool:
        in_month = day.day in self.days
        in_week = (day.weekday() + 1) % 7 in self.weekdays
        return in_month and in_week if self.any_day else in_month or in_week

    def next_after(self, moment: datetime) -> datetime | None:
        """The first time the schedule fires strictly after ``moment`` (UTC, whole minutes), or None
        within :data:`SEARCH_YEARS` years. Months where it cannot fire are skipped whole: a
        schedule that never fires (``0 0 30 2 *``) looks at 60 months, not 1,826 days."""
        if self.never:
            return None
        moment = utc(moment)
        try:
            start = moment.replace(second=0, microsecond=0) + timedelta(minutes=1)
        except OverflowError:
            return None
        day = start.replace(hour=0, minute=0)
        first = True
        limit = start.year + SEARCH_YEARS
        minutes, hours = sorted(self.minutes), sorted(self.hours)
        try:
            while day.year <= limit:
                if not self.month_may_match(day):
                    day = _next_month(day)
                    first = False
                    continue
                if self.day_matches(day):
                    hour0 = start.hour if first else 0
                    for hour in hours:
                        if hour < hour0:
                            continue
                        minute0 = start.minute if first and hour == start.hour else 0
                        for minute in minutes:
                            if minute >= minute0:
                                return day.replace(hour=hour, minute=minute)
                day += timedelta(days=1)
                first = False
        except OverflowError:   # past year 9999: never, as far as a datetime can tell
            return None
        return None

    def last_at_or_before(self, moment: datetime) -> datetime | None:
        """The last time the schedule fired at or before ``moment`` (UTC, whole minutes), or None
        within :data:`SEARCH_YEARS` years: :meth:`next_after` run backwards."""
        if self.never:
            return None
        moment = utc(moment)
        end = moment.replace(second=0, microsecond=0)
        day = end.replace(hour=0, minute=0)
        first = True
        limit = end.year - SEARCH_YEARS
        minutes, hours = sorted(self.minutes, reverse=True), sorted(self.hours, reverse=True)
        try:
            while day.year >= limit:
                if not self.month_may_match(day):
                    day = day.replace(day=1) - timedelta(days=1)   # the last day of the month before
                    first = False
                    continue
                if self.day_matches(day):
                    hour1 = end.hour if first else 23
                    for hour in hours:
                        if hour > hour1:
                            continue
                        minute1 = end.minute if first and hour == end.hour else 59
                        for minute in minutes:
                            if minute <= minute1:
                                return day.replace(hour=hour, minute=minute)
                day -= timedelta(days=1)
                first = False
        except OverflowError:   # before year 1
            return None
        return None

    def hits(self, after: datetime, until: datetime) -> list[datetime]:
        """Every time the schedule fires in (after, until]: one per hit, so only for short spans
        (:func:`windows` covers a span by its windows, whatever the schedule)."""
        out = []
        hit = self.next_after(after)
        while hit is not None and hit <= until:
            out.append(hit)
            hit = self.next_after(hit)
        return out

    def windows(self, length: timedelta, start: datetime, end: datetime) -> list[datetime]:
        """The moments in (start, end] at which "fired within the last ``length``" may turn on or
        off: where a run of overlapping windows [hit, hit + length) begins, and where it ends.

        Walked window run by window run, not hit by hit: within a run, the last hit before its
        current end extends it by a whole ``length`` (an every-minute schedule with a year's
        duration is one run, where listing its hits took half a million steps)."""
        start, end = utc(start), utc(end)
        if length <= timedelta(0):
            return []
        out: list[datetime] = []
        last = self.last_at_or_before(start)
        t = start
        while True:
            if last is not None and last + length > t:   # inside a run: find where it ends
                closes = last + length
                while closes <= end:
                    later = self.last_at_or_before(closes)
                    if later is None or later <= last:
                        break
                    last, closes = later, later + length
                if closes > end:
                    return out
                out.append(closes)
                t = closes
            hit = self.next_after(t)   # none at t itself: a hit there would have extended the run
            if hit is None or hit > end:
                return out
            out.append(hit)
            last, t = hit, hit


def _next_month(day: datetime) -> datetime:
    return day.replace(year=day.year + 1, month=1, day=1) if day.month == 12 else day.replace(month=day.month + 1, day=1)


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
    any_day = stars[2] or stars[4]
    never = any_day and all(min(values[2]) > _LONGEST[month] for month in values[3])
    return Cron(text, *values, any_day=any_day, never=never)


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
