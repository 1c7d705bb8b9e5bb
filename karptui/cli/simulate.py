"""``karptui simulate SNAPSHOT [--whatif FILE] [--instance-types FILE] [--consolidate] [--explain]
[--feature-gates K=V,...] [--output table|json]``."""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..catalog import catalog_from_snapshot_region, load_catalog_file
from ..catalog.pricing import hourly_cost
from ..errors import InputError
from ..sim import simulate
from ..sources import load_snapshot, resolve_snapshot_path
from ..views.info import warnings_with_catalog
from ..views.simulation import cost_after, simulation_json
from .output import emit, say
from .progress import StderrProgress

# Karpenter's feature gates and their defaults (settings.featureGates / --feature-gates).
FEATURE_GATES = {"SpotToSpotConsolidation": False, "NodeRepair": False, "ReservedCapacity": False,
                 "StaticCapacity": False, "NodeOverlay": False}


def parse_feature_gates(text: str | None) -> dict[str, bool]:
    gates = dict(FEATURE_GATES)
    for item in filter(None, (part.strip() for part in (text or "").split(","))):
        name, sep, value = item.partition("=")
        if not sep or value.lower() not in ("true", "false"):
            raise InputError("--feature-gates", f"{item!r} is not NAME=true|false")
        if name not in FEATURE_GATES:
            raise InputError("--feature-gates", f"unknown Karpenter feature gate {name!r} "
                                                f"(known: {', '.join(FEATURE_GATES)})")
        gates[name] = value.lower() == "true"
    return gates


def run_simulate(args: argparse.Namespace) -> int:
    snapshot = load_snapshot(resolve_snapshot_path(args.snapshot))
    gates = parse_feature_gates(args.feature_gates)
    options = {"catalog": None, "consolidate": args.consolidate, "spot_to_spot": gates["SpotToSpotConsolidation"]}
    catalog = load_catalog_file(args.instance_types) if args.instance_types else catalog_from_snapshot_region(snapshot)
    extra = {}
    if args.whatif:
        result, snapshot, extra["whatif"] = _run_whatif(args, snapshot, catalog, options)
    else:
        with StderrProgress() as progress:
            result = simulate(snapshot, explain=args.explain, progress=progress, **{**options, "catalog": catalog})
    before, _ = hourly_cost(snapshot.nodes, catalog)
    doc = simulation_json(result, explain=args.explain, cost_before=before, cost_after=cost_after(result, catalog),
                          extra=extra)
    warnings = warnings_with_catalog(snapshot, catalog)
    if warnings:  # what the loader skipped (a NodePool with a bad requirement, say) changes the answer
        doc["warnings"] = warnings
        for warning in warnings:
            say(f"karptui: warning: {warning}")
    return emit(doc, args.output, _print_table)


def _run_whatif(args: argparse.Namespace, snapshot, catalog, options: dict) -> tuple:
    """``--whatif FILE`` through the what-if session the TUI's panel uses: the what-if's result,
    its snapshot, and the document's ``whatif`` object."""
    from ..whatif import load_whatif
    from ..whatif.session import WhatIfSession

    whatif = load_whatif(args.whatif)
    session = WhatIfSession(snapshot, catalog, edits_catalog=catalog if args.instance_types else None,
                            spot_to_spot=options["spot_to_spot"])
    with StderrProgress() as progress:
        def told(phase: str, done: int, total: int) -> None:  # "baseline, kube-scheduler": the run is the label
            run, _, phase = phase.partition(", ")
            progress.label = "the snapshot as it is" if run == "baseline" else f"what-if {whatif.name}"
            progress(phase, done, total)

        run = session.run(whatif, consolidate=options["consolidate"], explain=args.explain, progress=told)
    if not run.done:  # a bad edit: the file and the edit, as load_whatif says them
        raise InputError(None, run.error)
    changes = run.diff.to_dict()
    changes["hourly_cost"] = {"before": cost_after(run.baseline, catalog), "after": cost_after(run.result, catalog)}
    return run.result, run.applied.snapshot, {"name": whatif.name, "file": str(args.whatif),
                                              "notes": list(run.applied.notes), "diff": changes}


def _print_table(doc: dict, console: Console) -> None:
    table = Table(title="scheduling attempts, in queue order", title_justify="left", show_lines=False)
    table.add_column("pod", no_wrap=True)
    table.add_column("node")
    table.add_column("reason", overflow="fold")
    for pod in doc["pods"]:
        node = Text(pod["node"]) if pod["node"] else Text("pending", style="red")
        if pod.get("preempted"):
            node.append(f" (preempting {len(pod['preempted'])})")
        table.add_row(pod["pod"], node, pod["reason"] or "")
    console.print(table)
    s = doc["summary"]
    console.print(Text.assemble(
        (str(s["scheduled"]), "bold"), " scheduled, ", (str(s["pending"]), "bold"),
        f" pending, {s['new_nodes']} new nodes; "
        f"hourly cost ${s['hourly_cost_before']:.4f} -> ${s['hourly_cost_after']:.4f}"))
    for note in doc.get("notes", []):
        console.print(Text.assemble(("note:", "yellow"), f" {note}"))
    for claim in doc.get("nodeclaims", []):
        launch = claim["launch"] or {}
        estimated = " (estimated)" if launch.get("price_estimated") else ""
        console.print(f"launch {claim['name']} ({claim['nodepool']}): {launch.get('instance_type')} "
                      f"{launch.get('capacity_type')} in {launch.get('zone')} ${launch.get('price')}/h{estimated} "
                      f"for {len(claim['pods'])} pod(s)")
    for d in doc.get("disruptions", []):
        replacement = d["replacement"]
        then = (f" -> {replacement['instance_type']} {replacement['capacity_type']}"
                + (" (price estimated)" if replacement.get("price_estimated") else "") if replacement else "")
        console.print(f"consolidation {d['action']} ({d['reason']}): {', '.join(d['nodes'])}{then}, "
                      f"saves ${d['savings_per_hour']:.4f}/h")
    for b in doc.get("blocked", []):
        console.print(Text.assemble(("blocked:", "yellow"), f" {b['node']}: {b['reason']}"))
    if "whatif" in doc:
        _print_diff(doc["whatif"], console)


def _print_diff(whatif: dict, console: Console) -> None:
    d = whatif["diff"]
    c = d["counts"]
    console.print(Text.assemble(
        "\n", (f"what-if {whatif['name']}", "bold"),
        f": scheduled {c['scheduled_before']} -> {c['scheduled_after']}, "
        f"pending {c['pending_before']} -> {c['pending_after']} "
        f"({c['newly_scheduled']} newly scheduled, {c['newly_pending']} newly pending, {c['moved']} moved)"))
    cost = d.get("hourly_cost")
    if cost:
        console.print(f"  hourly cost ${cost['before']:.4f} -> ${cost['after']:.4f}")
    for label in ("nodeclaims", "disruptions"):
        for sign, key in (("+", "added"), ("-", "removed")):
            for item in d.get(label, {}).get(key, []):
                console.print(f"  {sign} {label[:-1]}: {item}")
    for w in d["workloads"]:
        zones = ", ".join(f"{z} {w['zones_before'].get(z, 0)}->{w['zones_after'].get(z, 0)}"
                          for z in sorted(set(w["zones_before"]) | set(w["zones_after"])))
        console.print(f"  {w['workload']}: {zones}")
