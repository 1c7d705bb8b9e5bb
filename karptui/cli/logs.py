"""``karptui logs parse FILE|- [--output table|jsonl]``."""

from __future__ import annotations

import argparse
import json
import sys

from rich.console import Console
from rich.table import Table

from ..logs import LogParser
from ..logs.reader import read_lines
from ..text import visible_doc
from .output import say, table_console

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
        _table(events, table_console())
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


def _table(events, console: Console) -> None:
    table = Table(show_lines=False)
    for column in ("line", "time", "level", "kind", "details"):
        table.add_column(column, overflow="fold")
    for found in map(visible_doc, events):  # the log's own text, made visible
        table.add_row(str(found["line"]), found["time"], found["level"], found["kind"], _summary(found))
    console.print(table)
