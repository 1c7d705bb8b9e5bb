"""``karptui budgets SNAPSHOT [--at TIME] [--hours N] [--whatif FILE] [--instance-types FILE]
[--output table|json]``: the disruption budgets per NodePool and reason, now and over the hours ahead."""

from __future__ import annotations

import argparse
import sys
from datetime import datetime, timezone

from ..catalog import snapshot_catalog
from ..errors import InputError
from ..sources import load_snapshot, resolve_snapshot_path
from ..text import visible
from ..views.budgets import budgets_json, budgets_lines, budgets_view
from ..views.clock import Clock, snapshot_clock
from ..views.info import warnings_with_catalog
from .output import emit, say

MAX_HOURS = 24 * 31


def parse_at(text: str) -> datetime:
    """``--at``: an ISO 8601 time (``2026-11-27T09:30``, ``...Z``, ``...+02:00``); without an offset, UTC."""
    try:
        moment = datetime.fromisoformat(text.strip().replace("z", "Z"))
    except ValueError:
        raise InputError("--at", f"{text!r} is not a time (ISO 8601, e.g. 2026-11-27T09:30Z)") from None
    return moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment.astimezone(timezone.utc)


def run_budgets(args: argparse.Namespace) -> int:
    if not 0 <= args.hours <= MAX_HOURS:
        raise InputError("--hours", f"{args.hours} is not between 0 and {MAX_HOURS}")
    at = parse_at(args.at) if args.at else None
    snapshot = load_snapshot(resolve_snapshot_path(args.snapshot))
    catalog = snapshot_catalog(snapshot, args.instance_types)
    if args.whatif:
        from ..whatif import apply_whatif, load_whatif

        whatif = load_whatif(args.whatif)
        try:
            snapshot = apply_whatif(snapshot, whatif).snapshot
        except ValueError as exc:  # a bad edit: the file and the edit
            raise InputError(args.whatif, str(exc)) from None
    clock = Clock(at, True) if at is not None else snapshot_clock(snapshot)
    view = budgets_view(snapshot, catalog, clock, hours=args.hours)
    warnings = warnings_with_catalog(snapshot, catalog)
    for warning in warnings:  # as simulate says them: a skipped NodePool is why it is not here
        say(f"karptui: warning: {warning}")
    if args.output == "json":
        doc = budgets_json(view)
        if warnings:
            doc["warnings"] = warnings
        return emit(doc, "json", lambda doc, console: None)
    for line in budgets_lines(view):
        sys.stdout.write(visible(line) + "\n")
    return 0
