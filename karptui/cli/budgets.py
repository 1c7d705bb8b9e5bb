"""``karptui budgets SNAPSHOT [--at TIME] [--hours N] [--whatif FILE] [--instance-types FILE]
[--feature-gates K=V,...] [--karpenter-version V] [--output table|json]``: the disruption budgets per NodePool and reason, now and over the hours ahead."""

from __future__ import annotations

import argparse
import sys
from datetime import datetime, timezone

from ..catalog import snapshot_catalog
from ..errors import InputError
from ..sources import load_snapshot, resolve_snapshot_path
from ..text import visible
from ..views.budgets import WindowPastCalendar, budgets_json, budgets_lines, budgets_view
from ..views.clock import Clock, snapshot_clock
from ..views.info import warnings_with_catalog
from .karpenter_settings import flags_given, with_flags
from .karpenter_version import flag_text, with_flag
from .output import emit, say
from .simulate import feature_gates

MAX_HOURS = 24 * 31


def parse_at(text: str) -> datetime:
    """``--at``: an ISO 8601 time (``2026-11-27T09:30``, ``...Z``, ``...+02:00``); without an offset, UTC."""
    try:
        moment = datetime.fromisoformat(text.strip().replace("z", "Z"))
    except ValueError:
        raise InputError("--at", f"{text!r} is not a time (ISO 8601, e.g. 2026-11-27T09:30Z)") from None
    return moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment.astimezone(timezone.utc)


def run_budgets(args: argparse.Namespace) -> int:
    hours = check_hours(args.hours)
    at = parse_at(args.at) if args.at else None
    snapshot = with_flags(with_flag(load_snapshot(resolve_snapshot_path(args.snapshot)), flag_text(args)),
                          flags_given(args))
    catalog = snapshot_catalog(snapshot, args.instance_types)
    whatif = None
    if args.whatif:
        from ..whatif import load_whatif

        whatif = load_whatif(args.whatif)
    view, warnings = budgets_answer(snapshot, catalog, at=at, hours=hours, whatif=whatif,
                                    gates=feature_gates(args.feature_gates))
    for warning in warnings:  # as simulate says them: a skipped NodePool is why it is not here
        say(f"karptui: warning: {warning}")
    if args.output == "json":
        return emit(budgets_document(view, warnings), "json", lambda doc, console: None)
    for line in budgets_lines(view):
        sys.stdout.write(visible(line) + "\n")
    return 0


def check_hours(hours: int) -> int:
    """``--hours``: 0 to a month of hourly cells."""
    if not 0 <= hours <= MAX_HOURS:
        raise InputError("--hours", f"{hours} is not between 0 and {MAX_HOURS}")
    return hours


def budgets_answer(snapshot, catalog, *, at: datetime | None, hours: int, whatif=None, gates=None) -> tuple:
    """The budgets view at ``at`` (default: the snapshot's clock) over ``hours``, after ``whatif``
    if given, and the loader's warnings: what ``budgets`` prints and ``karptui mcp`` returns.
    ``gates``: ``--feature-gates`` (None: the snapshot's controller's)."""
    if whatif is not None:
        from ..whatif.session import apply_drifting

        try:  # the NodeClaims the edits drift are marked: reason Drifted counts them, as Karpenter would
            snapshot = apply_drifting(snapshot, whatif)[0].snapshot
        except ValueError as exc:  # a bad edit: the file and the edit
            raise InputError(whatif.source, str(exc)) from None
    clock = Clock(at, True) if at is not None else snapshot_clock(snapshot)
    try:
        view = budgets_view(snapshot, catalog, clock, hours=hours, gates=gates)
    except WindowPastCalendar as exc:
        where = "--at" if at is not None else snapshot.meta.source or "the snapshot's capture time"
        raise InputError(where, str(exc)) from None
    return view, warnings_with_catalog(snapshot, catalog)


def budgets_document(view, warnings: list[str]) -> dict:
    """``budgets -o json``'s document (docs/budgets-json.md)."""
    doc = budgets_json(view)
    if warnings:
        doc["warnings"] = warnings
    return doc
