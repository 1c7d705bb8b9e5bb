"""Streaming parser: lines in, events out, in input order; memory bounded by the caller."""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from .assemble import logical_lines
from .classify import classify, classify_message
from .foreign import foreign_line, shared_library_line
from .kube_events import json_event
from .paste import GO_TRACE
from .record import FastError, Record, fast_loads, kubectl_wrap, parse_body, parse_record, zap_console, zap_head

KINDS = ("pod_unschedulable", "pods_provisionable", "nodeclaims_computed", "nodeclaim_created",
         "nodeclaim_launched", "nodeclaim_registered", "nodeclaim_initialized", "disruption",
         "node_terminated", "launch_failed", "interruption", "other",
         # issue 13: Karpenter's events beside its logs, and NodePool limits
         "limits_exceeded", "pod_nominated", "disruption_blocked", "unconsolidatable",
         "consolidation_candidate", "consolidation_rejected", "consolidation_approved",
         # issue 27: balanced consolidation's per-NodePool score
         "consolidation_score")


@dataclass
class Stats:
    lines: int = 0
    events: int = 0
    leaders: list = field(default_factory=list)   # kubectl --prefix sources that took the leader lease

    @property
    def skipped(self) -> int:
        """Lines that were not Karpenter log lines (stack traces, truncated JSON, other programs)."""
        return self.lines - self.events


def event(number: int, text: str) -> dict | None:
    """The event (docs/logs-jsonl.md) for one line, or None when it is not a Karpenter log line.

    A zap JSON line (most of any log), bare or behind ``kubectl logs --prefix``, goes straight
    from its decoded object to its event; every other line, and a JSON line of another shape,
    goes through the Record.
    """
    if text[:1] == "{":
        found = _zap_json(number, text, "")
        if found is not None:
            return found
        record = parse_record(number, text)
    else:
        source, stamp, body = kubectl_wrap(text)
        first = body[:1]
        if first == "{":
            found = _zap_json(number, body, source)
            if found is not None:
                return found
        elif first.isdigit():  # zap's console line begins with its time
            head = zap_console(body.rstrip("\r\n"))
            if head is not None:
                when, level, logger, message, fields = head
                if logger[-6:] != "events":  # v0.1x logged its events: the Record path reads those
                    out = classify_message(message, fields, level, logger, number, when)
                    if source:
                        out["source"] = source
                    return out
        elif GO_TRACE.match(body):  # a Go stack trace's line: never a record, whatever the paste path tries
            return None
        record = parse_body(number, body, source, stamp)
    if record is None:
        return None
    if record.preset is None and record.logger.endswith("events") and "reason" in record.fields:
        record.preset = _logged_event(record)
    out = classify(record)
    if record.source:
        out["source"] = record.source
    return out


def _zap_json(number: int, text: str, source: str) -> dict | None:
    """The event for a zap JSON line, straight from its decoded object, without a Record (nearly
    every line comes this way); None for any other line -- also for JSON only the stdlib will
    read, which the Record path (``record.json_object``) then asks."""
    try:
        data = fast_loads(text)
    except (FastError, ValueError, RecursionError):
        return None
    head = zap_head(data) if type(data) is dict else None
    if head is None:
        return None
    when, level, logger, message = head
    if logger[-6:] == "events":  # v0.1x logged its events: the Record path reads those
        return None
    out = classify_message(message, data, level, logger, number, when)
    if source:
        out["source"] = source
    return out


# "kubectl describe node NAME" (or no/nodes, pod/po, nodeclaim) above a pasted Events table names its object
# (its namespace, given before or after the name, qualifies a pod as Karpenter's own lines name one: NS/NAME)
_DESCRIBE = re.compile(r"\bdescribe\s+(nodes?|no|pods?|po|nodeclaims?)(?:/|\s+)"
                       r"(?:(?:-n\s*|--namespace[=\s]\s*)([\w.-]+)\s+)?"
                       r"(?!-)([\w.-]+)(?:\s+(?:-n\s*|--namespace[=\s]\s*)([\w.-]+))?")
_DESCRIBED = {"no": "node", "nodes": "node", "po": "pod", "pods": "pod", "nodeclaims": "nodeclaim"}


def _logged_event(record: Record) -> dict | None:
    """v0.1x logged every event it recorded: ``controller.events  Normal  {"object": ..., "reason": ...}``."""
    f = record.fields
    found = json_event({"reason": f.get("reason"), "message": f.get("message", ""),
                        "involvedObject": f.get("object") or {}, "source": {"component": "karpenter"}})
    if found is not None:
        found.pop("time", None)
    return found


class LogParser:
    """Feed lines as they come (a file, stdin, a live stream); nothing is kept but counters."""

    def __init__(self) -> None:
        self.stats = Stats()
        self._previous = ""   # the line before, for a line whose program only its neighbour tells

    def _leader(self, found: dict) -> None:
        """Only the leader replica acts (lease karpenter-leader-election); note who took it."""
        source = found.get("source", "")
        if source not in self.stats.leaders:
            self.stats.leaders.append(source)

    def feed(self, text: str) -> dict | None:
        """One line at a time (a live stream): no look-ahead, so a record split over lines is read
        for what its first line carries."""
        self.stats.lines += 1
        found = event(self.stats.lines, text)
        if found is not None and _theirs(found, text, self._previous):
            found = None
        self._previous = text
        if found is not None:
            self.stats.events += 1
        return found

    def parse(self, lines: Iterable[str]) -> Iterator[dict]:
        stats = self.stats
        number, events = stats.lines, stats.events
        previous = self._previous
        try:
            described: tuple[str, str] | None = None
            for text, taken in logical_lines(lines):  # feed() inlined: runs ~10^5-10^6 times a second
                number += taken
                found = event(number - taken + 1, text)
                if found is not None and found["kind"] == "other" and _theirs(found, text, previous):
                    found = None
                previous = text
                if found is None:
                    if "describe" in text:
                        match = _DESCRIBE.search(text)
                        if match:
                            what = _DESCRIBED.get(match.group(1), match.group(1))
                            namespace, name = match.group(2) or match.group(4), match.group(3)
                            described = (what, f"{namespace}/{name}" if namespace and what == "pod" else name)
                    continue
                if described and "event" in found and (not ({"node", "nodeclaim", "pod"} & found.keys()) or (
                        described[0] == "pod" and "pod" not in found)):  # a pod's table: every row is about it,
                    found[described[0]] = described[1]                   # also those naming its NodeClaim
                events += 1
                if found["kind"] == "other" and "acquired lease" in found.get("message", ""):
                    self._leader(found)
                yield found
        finally:
            stats.lines, stats.events = number, events
            self._previous = previous


def _theirs(found: dict, text: str, previous: str) -> bool:
    """Whether a line Karpenter's process and other programs both write (foreign.py) is, by the line
    before it, the other program's."""
    return found["kind"] == "other" and shared_library_line(text) and foreign_line(previous)


class EventWindow:
    """The newest ``size`` events, for panes that tail a log of any length."""

    def __init__(self, size: int = 10_000) -> None:
        self.events: deque[dict] = deque(maxlen=size)

    def add(self, found: dict) -> None:
        self.events.append(found)
