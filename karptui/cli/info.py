"""``karptui snapshot info SNAPSHOT [--output table|json]``."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ..model.quantity import format_millis, human_bytes
from ..sources import load_snapshot, resolve_snapshot_path
from ..sources.collector import collector_paused, keep_to_the_end
from ..views.info import karpenter_words, snapshot_info
from .output import emit, end_at_once

if TYPE_CHECKING:
    from rich.console import Console


def run_info(args: argparse.Namespace) -> int:
    with collector_paused():  # the picture stays to the end of this command: never walked by the collector
        snapshot = load_snapshot(resolve_snapshot_path(args.snapshot))
        keep_to_the_end()
    info = snapshot_info(snapshot)
    code = emit(info, args.output, _print_table)
    end_at_once(snapshot)
    return code


def _print_table(info: dict, console: Console) -> None:
    from rich.table import Table  # here: --output json never loads Rich
    from rich.text import Text

    title = info["name"] or info["source"]
    summary = Table(title=f"snapshot {title}", show_header=False, box=None, title_justify="left")
    summary.add_column(style="bold")
    summary.add_column()
    for label, value in _summary_rows(info):
        summary.add_row(label, str(value))
    console.print(summary)
    zones = Table(title="nodes by zone", title_justify="left")
    zones.add_column("zone")
    zones.add_column("nodes", justify="right")
    for zone, count in info["zones"].items():
        zones.add_row(zone, str(count))
    console.print(zones)
    for warning in info["warnings"]:
        console.print(Text.assemble(("warning:", "yellow"), f" {warning}"))


def _summary_rows(info: dict) -> list[tuple[str, object]]:
    alloc = info["allocatable"]
    rows: list[tuple[str, object]] = [("source", info["source"])]
    for key in ("captured_at", "context", "cluster", "kubernetes_version"):
        if info[key]:
            rows.append((key.replace("_", " "), info[key]))
    rows.append(("karpenter", karpenter_words(info["karpenter_version"], info["karpenter_settings"])))
    for note in info["karpenter_settings"]["notes"]:
        rows.append(("", note))
    if info["karpenter_version"]["detail"]:
        rows.append(("", info["karpenter_version"]["detail"]))
    rows += [
        ("nodes", f"{info['nodes']}  ({_counts(info['capacity_types'])})"),
        ("pods", info["pods"]),
        ("pending", info["pending"]),
        ("nodepools", info["nodepools"]),
        ("nodeclaims", info["nodeclaims"]),
        ("workloads", _counts(info["workloads"]) or "none"),
        ("pdbs", info["pdbs"]),
        ("events", f"{info['events']}  ({info['failed_scheduling_events']} FailedScheduling)"),
        ("cpu requested", f"{format_millis(alloc['requested_cpu_millis'])} of {format_millis(alloc['cpu_millis'])}"),
        ("memory requested",
         f"{human_bytes(alloc['requested_memory_bytes'])} of {human_bytes(alloc['memory_bytes'])}"),
    ]
    if info["karpenter_logs"]:
        rows.append(("karpenter log lines", info["karpenter_logs"]))
    return rows


def _counts(counter: dict) -> str:
    return ", ".join(f"{n} {k}" for k, n in counter.items())
