"""``karptui logs parse FILE|- [--output table|jsonl]``."""

from __future__ import annotations

import argparse
import json
import sys

from ..logs import LogParser
from ..logs.parser import KINDS
from ..logs.reader import read_lines
from ..text import visible_rows
from .output import say

SHOWN = ("pod", "nodepool", "nodeclaim", "node", "instance_type", "zone", "capacity_type", "method", "action",
         "nodes", "count", "error", "message")


def run_logs_parse(args: argparse.Namespace) -> int:
    parser = LogParser()
    warnings: list[str] = []
    events = parser.parse(read_lines(args.file, warnings))
    if args.output == "jsonl":
        write = sys.stdout.write
        for found in events:
            write(json.dumps(found, separators=(",", ":")))
            write("\n")
    else:
        _table(events)
    stats = parser.stats
    for warning in warnings:
        say(f"karptui: {warning}")
    say(f"{stats.lines} lines: {stats.events} Karpenter events, {stats.skipped} skipped (not Karpenter log lines)")
    if stats.leaders:
        say(f"leader: {', '.join(s or 'this log' for s in stats.leaders)}")
    return 0


def _summary(found: dict) -> str:
    if found["kind"] == "pod_unschedulable" and found.get("nodepools"):
        pools = "; ".join(f"{p['name']}: {p['reason']}" for p in found["nodepools"])
        return f"{found.get('pod', '')} {pools}"
    return " ".join(f"{k}={found[k]}" for k in SHOWN if found.get(k) not in (None, "", []))


# Fixed widths, so each row prints as it is parsed: a table renderer that sizes columns
# to their content holds every row until the end (a million-line log held in memory,
# nothing on screen until the last line is read).
WIDTHS = {"line": 8, "time": 24, "level": 5, "kind": max(map(len, KINDS))}


def _row(values: tuple[str, ...]) -> str:
    """Control characters from a log (an ANSI escape, a carriage return) are shown, never sent
    to the terminal, and a tab is a space in a column: karptui.text's rule for table cells."""
    (shown,) = visible_rows([values])
    cells = [v.ljust(w) for v, w in zip(shown, WIDTHS.values())]
    return " ".join(cells) + " " + shown[-1] + "\n"


def _table(events) -> None:
    """Rows as they come: header once, then one line per event, flushed when a person watches."""
    out = sys.stdout
    watching = out.isatty()
    header = False
    for found in events:
        if not header:
            out.write(_row(tuple(WIDTHS) + ("details",)))
            header = True
        out.write(_row((str(found["line"]), found["time"], found["level"], found["kind"], _summary(found))))
        if watching:
            out.flush()
    if not header:
        out.write(_row(tuple(WIDTHS) + ("details",)))
