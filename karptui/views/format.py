"""Short text forms the way kubectl prints them (ages, percentages)."""

from __future__ import annotations

from datetime import datetime


def age(created: datetime | None, now: datetime) -> str:
    """kubectl's age: ``45s``, ``12m``, ``5h``, ``3d``, ``2y``."""
    if created is None:
        return "-"
    if created.tzinfo is None and now.tzinfo is not None:
        created = created.replace(tzinfo=now.tzinfo)
    seconds = max(0, int((now - created).total_seconds()))
    for unit, size in (("y", 365 * 86400), ("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size * (2 if unit != "m" else 1):
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def percent(part: int, whole: int) -> int:
    return round(100 * part / whole) if whole else 0


CORES_FROM = 100_000   # millicores from which CPU reads in cores: a zone's 6180500m read as noise


def cpu(millis: int) -> str:
    """CPU in millicores as k9s shows it (``7465m``), so node columns compare at a glance; from
    100 cores (a zone's or a big node group's sum) in cores, ``6,181c``, which a column can hold."""
    if abs(millis) >= CORES_FROM:
        return f"{millis / 1000:,.0f}c"
    return f"{millis}m"


def bar(part: int, whole: int, width: int = 10) -> str:
    """A text gauge: ``█████▌░░░░`` for 55%; the track is drawn so columns line up in any table."""
    if not whole:
        return "░" * width
    filled = min(1.0, part / whole) * width
    full = int(filled)
    half = "▌" if filled - full >= 0.5 and full < width else ""
    return ("█" * full + half).ljust(width, "░")


def money(price: float | None, mark: str = "", after: str = "") -> str:
    """``$0.384``; ``mark`` (the cost model's estimate mark) goes in front of an estimated price, ``after``
    (its discount mark) behind a discounted one."""
    return "-" if price is None else f"{mark}${price:.3f}{after}"


def counted(count: int, noun: str, plural: str = "") -> str:
    """``1 nodepool``, ``3 nodepools``, ``0 pods``: the header said "1 nodepools" and "6 schedule"."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"
