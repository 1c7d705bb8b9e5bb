"""Reading logs for history: through the one log reader, a large plain file split across processes.

A day of a large cluster's log is ~200 MiB, and the reader (``karptui.logs``) is the whole cost of
``karptui history``. A plain file over :data:`PARALLEL_MIN_BYTES` is cut into byte ranges, each read by
the same reader in its own process: a cut falls only after a line ending ``}`` (a whole record, which
the reader never joins to the next) and before a line that begins a record, so no record spans two
ranges. Each process counts the pending-pod lines (:data:`HOURLY`, most of a busy log's lines) into a
builder of its own, and sends back those counts and only what history reads of the other events
(:func:`slim`); the ranges' events are fed in file order with their line numbers made absolute, and their
counts added in the same order. Gzipped files, stdin and small
files are read in this process, as ``karptui logs parse`` reads them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from itertools import chain, pairwise
from multiprocessing import get_all_start_methods, get_context

from ..logs import LogParser
from ..logs.reader import _Lines, read_lines
from .builder import HOURLY, READ, HistoryBuilder
from .order import oldest_first

PARALLEL_MIN_BYTES = 32 << 20
RANGES_PER_PROCESS = 4   # smaller ranges: less of the log's events waiting in memory at once
_READ = 1 << 20
_RECORD_START = re.compile(rb'\{"|\d{4}-\d\d-\d\dT')


def slim(event: dict) -> dict | None:
    """An event :class:`HistoryBuilder` reads and that is not :data:`HOURLY` (those are counted where they
    are read), or None for one it ignores (most ``other`` lines: only a taint, an annotation, a node or a
    NodeClaim -- the drain's start, a garbage collection, an event row's step -- makes one part of a life)."""
    if event["kind"] == "other":
        return event if ("taint" in event or "annotation" in event or "node" in event or "nodeclaim" in event) \
            else None
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
        return feed_lines(builder, read_lines(path, warnings), file)
    lines = events = 0
    skipped = _Lines()   # the ranges' over-long lines, told as one read of the whole file tells them
    context = get_context("fork") if "fork" in get_all_start_methods() else get_context()
    with ProcessPoolExecutor(min(processes, len(ranges)), mp_context=context) as pool:
        jobs = [(path, a, b, builder.keep_provisionable) for a, b in ranges]
        for found, hourly, last_text, taken, counted, (long, first_long) in pool.map(_read_range, jobs):
            for event in found:
                if event.get("line"):
                    event["line"] += lines
            builder.feed_all(found, file)
            builder.add_counts(hourly, last_text)
            if long and not skipped.long:
                skipped.first_long = lines + first_long
            skipped.long += long
            lines += taken
            events += counted
    if skipped.long:
        warnings.append(skipped.warning(path))
    return lines, events


def feed_lines(builder: HistoryBuilder, lines, file: str) -> tuple[int, int]:
    """Every event of log lines already at hand (a recording's) into ``builder``; (physical lines, events)."""
    parser = LogParser()
    events, builder.newest_first = oldest_first(parser.parse(lines))
    builder.feed_all(events, file)
    return parser.stats.lines, parser.stats.events


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


def _read_range(job: tuple[str, int, int, bool]) -> tuple[list[dict], tuple, str, int, int, tuple[int, int]]:
    """A range's events for history: the :data:`HOURLY` ones counted here, in a builder of the range's own
    (most of a busy log's lines, so they never cross to the parent), the others slimmed and sent; the
    time of the range's last event the builder reads, kept or not (its ``last_text`` after the range, as
    when the log is read in one process: ``--since 24h`` counts back from the log's last time); and how
    many lines were over the length cap, with the first's number in the range.

    One loop over the reader's events, no generator between: it runs once per line of the log."""
    path, start, end, provisionable = job
    parser = LogParser()
    found: list[dict] = []
    append = found.append
    last = ""
    counted = HistoryBuilder(provisionable)
    count = counted.count
    splitter = _Lines()
    for event in parser.parse(_range_lines(path, start, end, splitter)):
        kind = event["kind"]
        if kind not in READ:
            continue
        last = event.get("time") or last
        if kind in HOURLY:
            count(event)
            continue
        kept = slim(event)
        if kept is not None:
            append(kept)
    return found, counted.counts(), last, parser.stats.lines, parser.stats.events, (splitter.long, splitter.first_long)


def _range_lines(path: str, start: int, end: int, splitter: _Lines | None = None) -> Iterator[str]:
    """The lines of a byte range, split and decoded as the reader does (its cap on a line's length too:
    ``splitter`` counts the lines over it); each read's lines handed out by ``itertools.chain``, so a
    line costs no Python frame here (as :func:`karptui.logs.reader.read_lines` hands them out)."""
    return chain.from_iterable(_range_batches(path, start, end, splitter if splitter is not None else _Lines()))


def _range_batches(path: str, start: int, end: int, splitter: _Lines) -> Iterator[list[str]]:
    with open(path, "rb") as handle:
        handle.seek(start)
        left = end - start
        while left > 0:
            chunk = handle.read(min(_READ, left))
            if not chunk:
                break
            left -= len(chunk)
            yield splitter.feed(chunk)
    yield splitter.end()
