"""A paste read off a log store that shows the newest line first.

Kibana, Grafana's log panels and CloudWatch Logs Insights list the newest line first by default, and
operators paste what they see: a NodeClaim's launch above its creation, its deletion above its drain. History
reads a life's steps in the order they happened (a nameless creation is paired with the launch after it, a
drain with the disruption before it), so a short input whose times only ever go back is read from its last
event to its first. Only a short input (a paste, a small file): a day's log is read as written, oldest first,
and never held whole to look at.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import chain, islice

from .times import instant

MOST = 2000   # events held to look at their order: far more than any paste, far less than a day's log


def oldest_first(events: Iterable[dict]) -> tuple[Iterator[dict], bool]:
    """The events in the order they happened, and whether the input listed them newest first."""
    stream = iter(events)
    head = list(islice(stream, MOST + 1))
    if len(head) > MOST:
        return chain(head, stream), False
    if newest_first(head):
        return iter(head[::-1]), True
    return iter(head), False


def newest_first(events: list[dict]) -> bool:
    """Whether the events' times never go forward and do go back, over at least three timed events (a few
    lines of one second, or two lines, say nothing of the order)."""
    times = [when for when in (instant(e.get("time") or "") for e in events) if when is not None]
    if len(times) < 3:
        return False
    try:
        return times[0] > times[-1] and all(a >= b for a, b in zip(times, times[1:]))
    except TypeError:   # a time with a zone beside one without: no order to read
        return False
