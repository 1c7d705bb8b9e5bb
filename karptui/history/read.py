"""Reading logs for history: through the one log reader, a large plain file split across processes.

A day of a large cluster's log is ~200 MiB, and the reader (``karptui.logs``) is the whole cost of
``karptui history``. A plain file over :data:`PARALLEL_MIN_BYTES` is cut into byte ranges, each read by
the same reader in its own process: a cut falls only after a line ending ``}`` (a whole record, which
the reader never joins to the next) and before a line that begins a record, so no record spans two
ranges. Each process sends back only what history reads of each event (:func:`slim`), and the ranges'
events are fed in file order with their line numbers made absolute. Gzipped files, stdin and small
files are read in this process, as ``karptui logs parse`` reads them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from itertools import pairwise
from multiprocessing import get_all_start_methods, get_context

from ..logs import LogParser
from ..logs.reader import _Lines, read_lines
from .builder import HOURLY, READ, HistoryBuilder

PARALLEL_MIN_BYTES = 32 << 20
RANGES_PER_PROCESS = 4   # smaller ranges: less of the log's events waiting in memory at once
_READ = 1 << 20
_RECORD_START = re.compile(rb'\{"|\d{4}-\d\d-\d\dT')
_NEEDED = frozenset({"nodeclaim_created", "nodeclaim_launched", "nodeclaim_registered", "nodeclaim_initialized",
                     "disruption", "node_terminated", "interruption", "launch_failed", "pods_provisionable",
                     "pod_unschedulable", "pod_nominated", "disruption_blocked", "unconsolidatable",
                     "consolidation_rejected"})


def slim(event: dict) -> dict | None:
    """What :class:`HistoryBuilder` reads of an event; None for one it ignores (most ``other`` lines)."""
    kind = event["kind"]
    if kind == "other":
        # the drain's start, a garbage collection, an event row's step: each names its node or NodeClaim
        return event if ("taint" in event or "annotation" in event or "node" in event or "nodeclaim" in event) \
            else None
    if kind not in _NEEDED:
        return None
    if kind == "pod_unschedulable":  # its NodePools' reasons are long and history counts pods
        return {k: event[k] for k in ("kind", "line", "time", "pod", "event") if k in event}
    if kind == "pods_provisionable":
        return {"kind": kind, "line": event["line"], "time": event.get("time", ""),
                "count": event.get("count") or len(event.get("pods") or ()), "pods": event.get("pods") or ()}
    return event


def workers() -> int:
    try:
        return max(1, min(4, len(os.sched_getaffinity(0))))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, min(4, os.cpu_count() or 1))


def feed_log(builder: HistoryBuilder, path: str, file: str, warnings: list[str]) -> tuple[int, int]:
    """Every event of one log into ``builder``; (physical lines, Karpenter events)."""
    processes = workers()
    ranges = _ranges(path, processes * RANGES_PER_PROCESS)
    if len(ranges) < 2:
        parser = LogParser()
        builder.feed_all(parser.parse(read_lines(path, warnings)), file)
        return parser.stats.lines, parser.stats.events
    lines = events = 0
    context = get_context("fork") if "fork" in get_all_start_methods() else get_context()
    with ProcessPoolExecutor(min(processes, len(ranges)), mp_context=context) as pool:
        for found, hours, last_text, taken, counted, long in pool.map(_read_range, [(path, a, b) for a, b in ranges]):
            for event in found:
                if event.get("line"):
                    event["line"] += lines
            builder.feed_all(found, file)
            builder.add_hours(hours, last_text)
            lines += taken
            events += counted
            if long:
                warnings.append(f"{path}: {long} line(s) over the length cap skipped")
    return lines, events


def _ranges(path: str, count: int) -> list[tuple[int, int]]:
    """Byte ranges that each begin a record, or one range when the file is small, compressed or not a file."""
    if count < 2 or path == "-":
        return []
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as handle:
            if size < PARALLEL_MIN_BYTES or handle.read(2) == b"\x1f\x8b":
                return []
            cuts = [0]
            for number in range(1, count):
                cut = _cut(handle, size * number // count)
                if cut is not None and cut > cuts[-1]:
                    cuts.append(cut)
    except OSError:
        return []  # the reader says what is wrong, in one line
    cuts.append(size)
    return list(pairwise(cuts))


def _cut(handle, near: int) -> int | None:
    """The first offset after ``near`` that follows a line ending ``}`` and begins a record."""
    handle.seek(near)
    data = handle.read(_READ)
    at = data.find(b"\n")
    while 0 <= at < len(data) - 32:
        if data[:at].rstrip(b"\r")[-1:] == b"}" and _RECORD_START.match(data, at + 1):
            return near + at + 1
        at = data.find(b"\n", at + 1)
    return None


def _read_range(job: tuple[str, int, int]) -> tuple[list[dict], dict, str, int, int, int]:
    """A range's events for history: the :data:`HOURLY` ones counted here, in a builder of the range's own
    (most of a busy log's lines, so they never cross to the parent), the others slimmed and sent; and the
    time of the range's last event the builder reads, kept or not (its ``last_text`` after the range, as
    when the log is read in one process: ``--since 24h`` counts back from the log's last time)."""
    path, start, end = job
    parser = LogParser()
    found: list[dict] = []
    last = [""]

    def hourly(events):
        for event in events:
            if event["kind"] in READ:
                last[0] = event.get("time") or last[0]
            kept = slim(event)
            if kept is None:
                continue
            if kept["kind"] in HOURLY:
                yield kept
            else:
                found.append(kept)

    counted = HistoryBuilder()
    counted.feed_all(hourly(parser.parse(_range_lines(path, start, end))))
    return found, counted.hours, last[0], parser.stats.lines, parser.stats.events, 0


def _range_lines(path: str, start: int, end: int) -> Iterator[str]:
    """The lines of a byte range, split and decoded as the reader does (its cap on a line's length too)."""
    splitter = _Lines()
    with open(path, "rb") as handle:
        handle.seek(start)
        left = end - start
        while left > 0:
            chunk = handle.read(min(_READ, left))
            if not chunk:
                break
            left -= len(chunk)
            yield from splitter.feed(chunk)
    yield from splitter.end()
