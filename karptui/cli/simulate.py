"""``karptui simulate SNAPSHOT [--whatif FILE] [--instance-types FILE] [--consolidate] [--explain]
[--feature-gates K=V,...] [--output table|json]``."""

from __future__ import annotations

import argparse
import json
import sys

from rich.console import Console
from rich.table import Table

from ..catalog import catalog_from_snapshot_region, load_catalog_file
from ..catalog.pricing import hourly_cost
from ..errors import InputError
from ..sim import simulate
from ..sources import load_snapshot, resolve_snapshot_path
from ..views.simulation import simulation_json

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
    parse_feature_gates(args.feature_gates)
    catalog = load_catalog_file(args.instance_types) if args.instance_types else catalog_from_snapshot_region(snapshot)
    extra = {}
    if args.whatif:
        from ..whatif import apply_whatif, load_whatif

        whatif = load_whatif(args.whatif)
        snapshot = apply_whatif(snapshot, whatif).snapshot
        extra["whatif"] = {"name": whatif.name, "file": str(args.whatif)}
    result = simulate(snapshot, explain=args.explain)
    before, _ = hourly_cost(snapshot.nodes, catalog)
    doc = simulation_json(result, explain=args.explain, cost_before=before, cost_after=before, extra=extra)
    if args.output == "json":
        json.dump(doc, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        _print_table(doc, Console())
    return 0


def _print_table(doc: dict, console: Console) -> None:
    table = Table(title="scheduling attempts, in queue order", title_justify="left", show_lines=False)
    table.add_column("pod", no_wrap=True)
    table.add_column("node")
    table.add_column("reason", overflow="fold")
    for pod in doc["pods"]:
        node = pod["node"] or "[red]pending[/]"
        if pod.get("preempted"):
            node += f" (preempting {len(pod['preempted'])})"
        table.add_row(pod["pod"], node, pod["reason"] or "")
    console.print(table)
    s = doc["summary"]
    console.print(
        f"[bold]{s['scheduled']}[/] scheduled, [bold]{s['pending']}[/] pending, {s['new_nodes']} new nodes; "
        f"hourly cost ${s['hourly_cost_before']:.4f} -> ${s['hourly_cost_after']:.4f}", highlight=False)
    for note in doc.get("notes", []):
        console.print(f"[yellow]note:[/] {note}", highlight=False)
