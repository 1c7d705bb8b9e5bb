"""``karptui history [LOG...] [--events FILE] [--snapshot S [--audit]] [--since T] [--until T] [--node X]
[--short-lived 30m] [--output table|json|csv]`` (docs/history.md)."""

from __future__ import annotations

import argparse
import json
import sys

from ..errors import InputError
from ..history.builder import HistoryBuilder
from ..history.finish import DEFAULT_SHORT_LIVED, finish
from ..history.lp4k import write_csv
from ..history.read import feed_lines, feed_log
from ..history.timeline import Timeline
from ..views.history import saving_text
from ..history.times import stamp
from ..history.why import answer, why
from ..history.window import parse_window
from ..model.errors import ModelError
from ..model.fields import parse_duration
from ..sources.collector import collector_paused
from .output import emit, json_text, say


def _short_lived(text: str | None) -> float:
    if text is None:
        return DEFAULT_SHORT_LIVED
    try:
        seconds = parse_duration(text, "--short-lived")
    except ModelError:
        seconds = None
    if seconds is None or seconds <= 0:
        raise InputError("--short-lived", f"{text!r} is not a duration such as 30m or 2h")
    return seconds


def _events(builder: HistoryBuilder, path: str, snapshot=None) -> None:
    """Karpenter's events and kube-scheduler's FailedScheduling from a ``kubectl get events -o json|yaml``
    file or a snapshot (the same loader reads both; ``snapshot``: that file, already loaded)."""
    from ..history.snapshot import feed_snapshot_events
    from ..sources.files import load_snapshot

    feed_snapshot_events(builder, snapshot if snapshot is not None else load_snapshot(path), path)


def _snapshot(arg: str):
    """``--snapshot S``: a file or directory, or a bundled snapshot's name (as ``simulate`` takes it)."""
    from ..sources import load_snapshot, resolve_snapshot_path

    return load_snapshot(resolve_snapshot_path(arg))


def _audit(builder: HistoryBuilder, snapshot, args: argparse.Namespace, window, discounts) -> dict:
    """``--audit``: each decision in the window against karptui's disruption simulation at its moment, on
    the snapshot brought forward by the whole input (docs/history.md, "Decision audit")."""
    from ..history.audit import audit, audit_json
    from ..sources.collector import settle_for_simulation
    from .karpenter_settings import flags_given, with_flags
    from .karpenter_version import flag_text, with_flag
    from .simulate import feature_gates, simulation_catalog

    gates = feature_gates(args.feature_gates)
    snapshot = with_flags(with_flag(snapshot, flag_text(args)), flags_given(args))   # as simulate takes them
    settle_for_simulation()
    catalog = simulation_catalog(snapshot, args.instance_types, discounts)
    whole = finish(builder, catalog=catalog)
    since, until = window.resolve(whole.last)
    from .progress import StderrProgress

    with StderrProgress() as progress:   # one simulation per decision audited: a big cluster's take a while
        progress.label = "decision audit"
        audits = audit(snapshot, whole, catalog, gates=gates, since=since, until=until, progress=progress,
                       recorded=_recorded(args))
    doc = audit_json(audits)
    say(f"audit: {len(audits)} decision(s): {doc['agrees']} agree, {doc['disagrees']} disagree, "
        f"{doc['unknown']} unknown")
    return doc


def _is_recording(arg: str) -> bool:
    from ..recording import is_recording
    from ..sources import resolve_snapshot_path

    return is_recording(resolve_snapshot_path(arg))


def _recorded(args: argparse.Namespace):
    """``--snapshot`` a recording (``karptui record``): its own state at each decision (``Recorded``), the
    Karpenter version and settings given applied to each as to the snapshot; else None."""
    from ..history.state_at import Recorded
    from ..recording import Recording, is_recording
    from ..sources import resolve_snapshot_path
    from .karpenter_settings import flags_given, with_flags
    from .karpenter_version import flag_text, with_flag

    where = resolve_snapshot_path(args.snapshot)
    if not is_recording(where):
        return None
    version, settings = flag_text(args), flags_given(args)
    return Recorded(Recording(where), lambda snapshot: with_flags(with_flag(snapshot, version), settings))


def run_history(args: argparse.Namespace) -> int:
    # A day's log makes hundreds of thousands of events and lives and no reference cycles: the collector's
    # passes over them (each full one walks every life read so far) took as long as the history's own work
    with collector_paused():
        return _history(args)


def _history(args: argparse.Namespace) -> int:
    window = parse_window(args.since, args.until)
    short = _short_lived(args.short_lived)
    if args.audit and not args.snapshot:
        raise InputError("--audit", "needs --snapshot S: the cluster as captured at or before the decisions")
    if args.audit and (args.output == "csv" or args.node):
        raise InputError("--audit", "the audit is in the table and JSON outputs of the whole history, "
                                    "not with --output csv or --node")
    catalog = None
    if args.instance_types:
        from ..catalog import load_catalog_file
        catalog = load_catalog_file(args.instance_types)
    from ..catalog.discounts import find_discounts
    discounts = find_discounts(getattr(args, "discounts", None))
    builder = HistoryBuilder(provisionable=bool(args.audit))   # only the decision audit reads them
    warnings: list[str] = []
    lines = events = 0
    if not args.logs and not (args.snapshot and _is_recording(args.snapshot)):
        raise InputError("LOG", "give Karpenter's controller log (files, or - for stdin); only a recording "
                                "(--snapshot OUT of karptui record) carries its own")
    for path in args.logs:
        read, counted = feed_log(builder, path, path if len(args.logs) > 1 else "", warnings)
        lines += read
        events += counted
    snapshot = _snapshot(args.snapshot) if args.snapshot else None
    if not args.logs:   # the recording's own log, as karptui open shows it
        lines, events = feed_lines(builder, snapshot.meta.logs_text.splitlines(keepends=True), "")
    if args.events:
        _events(builder, args.events)
    if snapshot is not None:
        _events(builder, args.snapshot, snapshot)
    timeline = finish(builder, window, catalog, discounts, short)
    audited = _audit(builder, snapshot, args, window, getattr(args, "discounts", None)) if args.audit else None
    for warning in warnings:
        say(f"karptui: {warning}")
    if args.node:
        return _node(timeline, args.node, args.output)
    say(f"{lines} lines: {events} Karpenter events, {len(timeline.lives)} NodeClaims")
    if args.output == "csv":
        write_csv(timeline.lives, sys.stdout)
        return 0
    extra = {"audit": audited} if audited is not None else {}
    if args.output == "json":
        _json(timeline, sys.stdout, extra)
        return 0
    return emit({**timeline.to_dict(), **extra}, args.output,
                lambda doc, console: _table(timeline, console, audited))


def _json(timeline: Timeline, out, extra: dict | None = None) -> None:
    """One line, by json's C encoder (a day of a large cluster is tens of thousands of NodeClaims; the
    indented form, pure Python, took longer than reading the log -- `jq .` indents it), with the NodeClaims
    written one by one rather than held as one document. ``extra``: more keys (``audit``) before them."""
    dumps = json.JSONEncoder(separators=(",", ":")).encode
    head = dumps({**timeline.to_dict(lives=False), **(extra or {})})
    out.write(head[:-1] + ',"nodeclaims":[')
    for number, life in enumerate(timeline.lives):
        if number:
            out.write(",")
        out.write(dumps(life.to_dict()))
    out.write("]}\n")


def _node(timeline: Timeline, name: str, output: str) -> int:
    life = timeline.life(name)
    if life is None:
        raise InputError("--node", f"no NodeClaim, node or instance named {name!r} in the input"
                                   + (" within --since/--until" if timeline.since or timeline.until else ""))
    if output == "json":
        sys.stdout.write(json_text(answer(life)) + "\n")
    elif output == "csv":
        write_csv([life], sys.stdout)
    else:
        from .output import table_console
        console = table_console()
        console.print(why(life))
        console.print(f"lines: {', '.join(life.lines)}")
    return 0


def _fmt(seconds: float | None) -> str:
    return "" if seconds is None else f"{seconds:.0f}s"


def _table(timeline: Timeline, console, audited: dict | None = None) -> None:
    """Rich tables of the same facts as the JSON; every cell is text from the log, never markup."""
    from rich.table import Table

    from ..text import visible

    if not console.is_terminal:  # a file or a pipe: whole rows, for grep and less -S, not folded at 80 columns
        console.width = max(console.width, 220)

    def cell(value) -> str:
        return visible("" if value is None else str(value))

    lives = Table(title=f"NodeClaims ({len(timeline.lives)})", title_justify="left")
    for name in ("nodeclaim", "nodepool", "type", "zone", "capacity", "$/h", "created", "launch→ready",
                 "end", "disrupt→gone", "lived", "replaced by"):
        lives.add_column(name)
    for life in timeline.lives:
        lives.add_row(*map(cell, (life.nodeclaim, life.nodepool, life.instance_type, life.zone, life.capacity_type,
                                  "" if life.price is None else f"{life.price:.4f}", stamp(life.start),
                                  _fmt(life.launch_to_ready), life.end_reason, _fmt(life.disrupt_to_gone),
                                  _fmt(life.lived), ", ".join(life.replaced_by))))
    console.print(lives)
    if timeline.chains:
        chains = Table(title="Replacement chains", title_justify="left")
        for name in ("chain", "links", "saving $/h"):
            chains.add_column(name)
        for chain in timeline.chains:
            links = "; ".join(f"{link.old} → {', '.join(link.new)} ({link.reason})" for link in chain.links)
            chains.add_row(cell(" → ".join(chain.nodeclaims)), cell(links),
                           cell("" if chain.saving is None else saving_text(chain.saving)))
        console.print(chains)
    if timeline.churn:
        churn = Table(title="Churn per NodePool per hour", title_justify="left")
        for name in ("hour", "nodepool", "created", "disrupted", "terminated"):
            churn.add_column(name)
        for c in timeline.churn:
            churn.add_row(*map(cell, (c.hour, c.nodepool or "(unknown)", c.created, c.disrupted, c.terminated)))
        console.print(churn)
    minutes = timeline.short_lived_seconds / 60
    console.print(cell(f"lived under {minutes:g}m: {', '.join(timeline.short_lived) or 'none'}"))
    if timeline.pending:
        pending = Table(title="Pending pods per hour", title_justify="left")
        for name in ("hour", "batches", "largest batch", "unschedulable pods", "FailedScheduling pods"):
            pending.add_column(name)
        for p in timeline.pending:
            pending.add_row(*map(cell, (p.hour, p.provisionable_batches, p.provisionable_max, p.unschedulable_pods,
                                        p.failed_scheduling_pods)))
        console.print(pending)
    console.print(cell(f"launch failures: {len(timeline.launch_failures)}; interruptions: "
                       f"{len(timeline.interruptions)}"))
    for failure in timeline.launch_failures[:10]:
        console.print(cell(f"  {stamp(failure['time']) or ''} {failure.get('nodeclaim') or failure.get('nodepool') or ''}"
                           f": {failure['error'][:160]}"))
    if timeline.cost:
        cost = Table(title=f"Cost per hour ({timeline.catalog} prices"
                           f"{', after discount ' + timeline.discounts if timeline.discounts else ''})",
                     title_justify="left")
        for name in ("hour", "spent $", "$/h at end", "nodes at end", "unpriced"):
            cost.add_column(name)
        for c in timeline.cost:
            cost.add_row(*map(cell, (c.hour, f"{c.spent:.2f}", f"{c.per_hour_at_end:.3f}", c.nodes_at_end,
                                     c.unpriced_at_end)))
        console.print(cost)
    if audited is not None:
        audit = Table(title=f"Decision audit ({audited['agrees']} agree, {audited['disagrees']} disagree, "
                            f"{audited['unknown']} unknown)", title_justify="left")
        for name in ("time", "method", "nodes", "karptui", "why"):
            audit.add_column(name)
        for a in audited["decisions"]:
            d = a["decision"]
            audit.add_row(*map(cell, (d["time"], f"{d['method']} {d['action'] or ''}".strip(), ", ".join(d["nodes"]),
                                      a["verdict"], a["why"])))
        console.print(audit)
