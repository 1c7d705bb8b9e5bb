"""``karptui simulate SNAPSHOT [--whatif FILE] [--instance-types FILE] [--consolidate] [--explain]
[--feature-gates K=V,...] [--output table|json]``."""

from __future__ import annotations

import argparse
from functools import partial

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..catalog import catalog_from_snapshot_region, load_catalog_file
from ..catalog.discounts import find_discounts
from ..errors import InputError
from ..sim import simulate
from ..sources import load_snapshot, resolve_snapshot_path
from ..views.info import warnings_with_catalog
from ..views.cost import Cost, cost_path, whatif_cost
from ..views.nodepool_table import nodepool_lines
from ..views.simulation import only_namespace, simulation_json
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
    catalog = catalog.with_discounts(find_discounts(getattr(args, "discounts", None)))
    extra = {}
    if args.whatif:
        result, snapshot, extra["whatif"] = _run_whatif(args, snapshot, catalog, options)
    else:
        with StderrProgress() as progress:
            result = simulate(snapshot, explain=args.explain, progress=progress, **{**options, "catalog": catalog})
    cost = cost_path(result, catalog, consolidated=args.consolidate)
    doc = simulation_json(result, explain=args.explain, cost=cost, extra=extra, catalog=catalog)
    namespace = getattr(args, "namespace", None)
    if namespace:
        only_namespace(doc, namespace)
    warnings = warnings_with_catalog(snapshot, catalog)
    if warnings:  # what the loader skipped (a NodePool with a bad requirement, say) changes the answer
        doc["warnings"] = warnings
        for warning in warnings:
            say(f"karptui: warning: {warning}")
    return emit(doc, args.output, partial(_print_table, cost=cost.line()))


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
    changes["hourly_cost"] = whatif_cost(run.baseline, run.result, catalog, args.consolidate)
    return run.result, run.applied.snapshot, {"name": whatif.name, "file": str(args.whatif),
                                              "notes": list(run.applied.notes), "diff": changes}


def _print_table(doc: dict, console: Console, cost: str = "") -> None:
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
    shown = f" in namespace {doc['namespace']}" if doc.get("namespace") else ""
    console.print(Text.assemble(
        (str(s["scheduled"]), "bold"), " scheduled, ", (str(s["pending"]), "bold"),
        f" pending{shown}, {s['new_nodes']} new nodes"))
    if cost:
        console.print(f"cost: {cost}")
    if any("verdict" in pod for pod in doc["pods"]):
        _print_verdicts(doc["pods"], console)
    for note in doc.get("notes", []):
        console.print(Text.assemble(("note:", "yellow"), f" {note}"))
    for claim in doc.get("nodeclaims", []):
        launch = claim["launch"] or {}
        console.print(f"launch {claim['name']} ({claim['nodepool']}): {launch.get('instance_type')} "
                      f"{launch.get('capacity_type')} in {launch.get('zone')} {_price(launch)} "
                      f"for {len(claim['pods'])} pod(s)")
    for d in doc.get("disruptions", []):
        replacement = d["replacement"]
        then = (f" -> {replacement['instance_type']} {replacement['capacity_type']} {_price(replacement)}"
                if replacement else "")
        console.print(f"consolidation {d['action']} ({d['reason']}): {', '.join(d['nodes'])}{then}, "
                      f"saves {_saves(d)}")
    for b in doc.get("blocked", []):
        console.print(Text.assemble(("blocked:", "yellow"), f" {b['node']}: {b['reason']}"))
    for b in doc.get("unconsolidatable", []):
        console.print(Text.assemble(("unconsolidatable:", "yellow"), f" {b['node']}: {b['reason']}"))
    if "whatif" in doc:
        _print_diff(doc["whatif"], console)


def _price(launch: dict) -> str:
    """``$0.1504/h``, marked as every estimated (``~``) or discounted (``*``) figure is."""
    if launch.get("price") is None:
        return "(unpriced)"
    after = launch.get("price_after_discount")
    return Cost(launch["price"] if after is None else after, estimated_prices=int(bool(launch.get("price_estimated"))),
                discounted=after is not None).rate_text()


def _saves(disruption: dict) -> str:
    after = disruption.get("savings_per_hour_after_discount")
    return Cost(disruption["savings_per_hour"] if after is None else after, discounted=after is not None).rate_text()


def _print_verdicts(pods: list[dict], console: Console) -> None:
    """``--explain``: each pod's verdict in a few lines, below the table."""
    console.print(Text("\nwhy, pod by pod (--explain)", style="bold"))
    for pod in pods:
        verdict = pod["verdict"]
        console.print(Text(pod["pod"], style="bold"))
        for key, label in (("kube_scheduler", "kube-scheduler"), ("why", "in short"), ("karpenter", "Karpenter")):
            if verdict.get(key):
                console.print(Text.assemble("  ", (f"{label}:", "cyan"), f" {verdict[key]}"))
        if "nodepools" in pod:
            console.print(Text.assemble("  ", ("NodePools, in the order Karpenter tries them:", "cyan")))
            for line in nodepool_lines(pod["nodepools"]):
                console.print(Text(f"    {line}"))


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
        before, after = (Cost.from_dict(cost[key]) for key in ("cost_before", "cost_after"))
        console.print(f"  cost {before.text()} -> {after.text()}")
    for label in ("nodeclaims", "disruptions"):
        for sign, key in (("+", "added"), ("-", "removed")):
            for item in d.get(label, {}).get(key, []):
                console.print(f"  {sign} {label[:-1]}: {item}")
    for w in d["workloads"]:
        zones = ", ".join(f"{z} {w['zones_before'].get(z, 0)}->{w['zones_after'].get(z, 0)}"
                          for z in sorted(set(w["zones_before"]) | set(w["zones_after"])))
        console.print(f"  {w['workload']}: {zones}")
