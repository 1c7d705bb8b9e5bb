"""``karptui check [SNAPSHOT] (--whatif FILE | --apply MANIFEST...) [--at TIME] [--fail-on COND,...]
[--output table|markdown|json] [simulate's flags]``: a change reviewed for CI.

The change runs as ``simulate --whatif`` runs it (a manifest is first turned into what-if
edits, :mod:`karptui.whatif.manifests`); the budgets are ``budgets --whatif``'s over the next
24 hours; :mod:`karptui.views.check` assembles the review from both documents. Exit status 0
when no ``--fail-on`` threshold is crossed, 3 when one is (2 bad input, 1 internal error).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..errors import InputError
from ..sources import load_snapshot, resolve_snapshot_path
from ..sources.collector import settle_for_simulation
from ..text import visible_doc
from ..views.check import check_document, held_back_times, check_markdown, check_sections, summary_line, verdict_line
from ..views.thresholds import parse_thresholds
from .budgets import budgets_answer, budgets_document, parse_at
from .karpenter_settings import flags_given, with_flags
from .karpenter_version import flag_text, with_flag
from .output import json_text, say, table_console
from .simulate import feature_gates, simulation_catalog, simulation_document

HOURS = 24


def run_check(args: argparse.Namespace) -> int:
    try:
        thresholds = parse_thresholds(args.fail_on)
    except ValueError as exc:
        raise InputError("--fail-on", str(exc)) from None
    at = parse_at(args.at) if args.at else None
    gates = feature_gates(args.feature_gates)
    if bool(args.whatif) == bool(args.apply):
        raise InputError(None, "give the change: --whatif FILE or --apply MANIFEST... (one of them)")
    if args.whatif:  # the change's files first: a bad one is one line before a live cluster is listed
        from ..whatif import load_whatif

        whatif, read = load_whatif(args.whatif), None
    else:
        from ..whatif.manifests import read_manifests, whatif_from_manifests

        read = read_manifests(args.apply)
    snapshot = with_flags(with_flag(_cluster(args), flag_text(args)), flags_given(args))
    if at is not None:  # the change lands then: Karpenter's budgets (and node ages) are the simulation's then too
        snapshot = replace(snapshot, meta=replace(snapshot.meta, captured_at=at))
    settle_for_simulation()
    catalog = simulation_catalog(snapshot, args.instance_types, getattr(args, "discounts", None))
    if args.whatif:
        notes = []
        change = {"whatif": args.whatif, "apply": []}
    else:
        whatif, notes = whatif_from_manifests(snapshot, args.apply, read)
        change = {"whatif": None, "apply": list(args.apply)}
    change.update({"name": whatif.name, "edits": [edit.describe() for edit in whatif.edits], "notes": notes})
    sim, _ = simulation_document(snapshot, catalog, gates=gates, consolidate=args.consolidate, whatif=whatif,
                                 whatif_file=args.whatif or whatif.source, edits_catalog=bool(args.instance_types),
                                 namespace=getattr(args, "namespace", None))
    view, warnings = budgets_answer(snapshot, catalog, at=at, hours=HOURS, whatif=whatif, gates=gates)
    budgets = budgets_document(view, warnings)
    doc = check_document(sim, budgets, change=change, consolidated=args.consolidate, thresholds=thresholds)
    later = {}
    for when in held_back_times(doc):  # what replaces the NodeClaims budgets hold back, once they let it
        then = replace(snapshot, meta=replace(snapshot.meta, captured_at=parse_at(when)))
        later[when], _ = simulation_document(then, catalog, gates=gates, consolidate=args.consolidate, whatif=whatif,
                                             whatif_file=args.whatif or whatif.source,
                                             edits_catalog=bool(args.instance_types),
                                             namespace=getattr(args, "namespace", None))
    if later:
        doc = check_document(sim, budgets, change=change, consolidated=args.consolidate, thresholds=thresholds,
                             later=later)
    for warning in doc.get("warnings", ()):
        say(f"karptui: warning: {warning}")
    if args.output == "json":
        sys.stdout.write(json_text(doc) + "\n")
    elif args.output == "markdown":
        sys.stdout.write(check_markdown(doc))
    else:
        _print_table(visible_doc(doc), table_console())
    if doc["crossed"]:
        say(f"karptui: check: threshold crossed: {', '.join(doc['crossed'])}")
    return doc["exit_status"]


def _cluster(args: argparse.Namespace):
    """The cluster as it is: SNAPSHOT, else the live cluster read once as ``snapshot save`` reads it
    (read-only, the same caps), without Karpenter's log unless ``--logs-since`` asks for it: the
    review reads none of it."""
    if args.snapshot:
        return load_snapshot(resolve_snapshot_path(args.snapshot))
    from .live import captured_snapshot

    return captured_snapshot(args, getattr(args, "namespace", None), logs_default=0.0)


def _print_table(doc: dict, console: Console) -> None:
    console.print(Text(f"karptui check: {doc['change']['name']}", style="bold"))
    console.print(summary_line(doc))
    console.print(Text(verdict_line(doc), style="red bold" if doc["crossed"] else "green"))
    for section in check_sections(doc):
        if not section.rows:
            console.print(Text.assemble("\n", (section.title, "bold"), f": {section.empty}"))
            continue
        table = Table(title=section.title, title_justify="left")
        for header in section.headers:
            table.add_column(header, overflow="fold")
        for row in section.rows:
            table.add_row(*row)
        console.print(table)
        if section.note:
            console.print(Text(section.note, style="dim"))
    for note in [*doc["change"]["notes"], *doc["whatif"].get("notes", [])]:
        console.print(Text.assemble(("note:", "yellow"), f" {note}"))
