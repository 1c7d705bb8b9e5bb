"""Streaming parser: lines in, events out, in input order; memory bounded by the caller."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .classify import classify
from .record import parse_record

KINDS = ("pod_unschedulable", "pods_provisionable", "nodeclaims_computed", "nodeclaim_created",
         "nodeclaim_launched", "nodeclaim_registered", "nodeclaim_initialized", "disruption",
         "node_terminated", "launch_failed", "interruption", "other")


@dataclass
class Stats:
    lines: int = 0
    events: int = 0
    skipped: int = 0


def event(number: int, text: str) -> dict | None:
    """The DESIGN §4.2 event for one line, or None when it is not a Karpenter log line."""
    record = parse_record(number, text)
    if record is None:
        return None
    out = {"line": record.line, "time": record.time, "level": record.level}
    out.update(classify(record))
    if record.source:
        out["source"] = record.source
    return out


class LogParser:
    """Feed lines as they come (a file, stdin, a live stream); nothing is kept but counters."""

    def __init__(self) -> None:
        self.stats = Stats()

    def feed(self, text: str) -> dict | None:
        self.stats.lines += 1
        found = event(self.stats.lines, text)
        if found is None:
            self.stats.skipped += 1
        else:
            self.stats.events += 1
        return found

    def parse(self, lines: Iterable[str]) -> Iterator[dict]:
        for text in lines:
            found = self.feed(text)
            if found is not None:
                yield found


class EventWindow:
    """The newest ``size`` events, for panes that tail a log of any length."""

    def __init__(self, size: int = 10_000) -> None:
        self.events: deque[dict] = deque(maxlen=size)

    def add(self, found: dict) -> None:
        self.events.append(found)
