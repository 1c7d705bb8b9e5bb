"""``karptui simulate SNAPSHOT [--whatif FILE] [--instance-types FILE] [--consolidate] [--explain]
[--feature-gates K=V,...] [--output table|json]``."""

from __future__ import annotations

import argparse
from functools import partial
from typing import TYPE_CHECKING

from ..catalog import snapshot_catalog
from ..catalog.discounts import find_discounts
from ..errors import InputError
from ..sim import simulate
from ..sim.karpenter.featuregates import FeatureGates, parse_feature_gates
from ..sim.karpenter.settings import controller_gates
from ..sources import load_snapshot, resolve_snapshot_path
from ..sources.collector import collector_paused, settle_for_simulation
from ..views.info import warnings_with_catalog
from ..views.cost import Cost, CostPath, cost_path, whatif_cost
from ..views.simulation import only_namespace, simulation_json
from .karpenter_settings import flags_given, with_flags
from .karpenter_version import flag_text, with_flag
from .output import RecurringText, emit, end_at_once, say
from .progress import StderrProgress

if TYPE_CHECKING:
    from rich.console import Console

# Rich, and the views that only a table prints (drift, disruption verdicts, NodePool tables), are
# imported by the functions that print one: ``-o json`` never loads them (issue 28: what ``simulate``
# imports beyond ``snapshot info`` is time the user waits for on every run).

def feature_gates(text: str | None) -> FeatureGates | None:
    """``--feature-gates``, Karpenter's syntax over its defaults (a flag replaces the controller's
    ``FEATURE_GATES``, as in Karpenter); None when not given: the snapshot's controller Deployment
    says (:func:`karptui.sim.karpenter.settings.controller_gates`). A bad one is an InputError."""
    if text is None:
        return None
    try:
        return parse_feature_gates(text)
    except ValueError as exc:
        raise InputError("--feature-gates", str(exc)) from None


def run_simulate(args: argparse.Namespace) -> int:
    version = flag_text(args)
    settings = flags_given(args)
    gates = feature_gates(args.feature_gates)
    # the snapshot stays to the end of this command: out of the collector's sight before it is back on
    # (re-enabled first, its next allocation walked every object the load made: 0.4 s at 5,000 nodes)
    with collector_paused():
        snapshot = with_flags(with_flag(load_snapshot(resolve_snapshot_path(args.snapshot)), version), settings)
        settle_for_simulation()
    catalog = simulation_catalog(snapshot, args.instance_types, getattr(args, "discounts", None))
    whatif = None
    if args.whatif:
        from ..whatif import load_whatif

        whatif = load_whatif(args.whatif)
    doc, cost = simulation_document(snapshot, catalog, gates=gates, consolidate=args.consolidate,
                                    explain=args.explain, whatif=whatif, whatif_file=args.whatif,
                                    edits_catalog=bool(args.instance_types),
                                    namespace=getattr(args, "namespace", None))
    for warning in doc.get("warnings", ()):
        say(f"karptui: warning: {warning}")
    code = emit(doc, args.output, partial(_print_table, cost=cost.line(), explain=args.explain))
    end_at_once(snapshot, doc)   # as snapshot info does: the answer is out, the picture need not be freed piece by piece
    return code


def simulation_catalog(snapshot, instance_types: str | None, discounts: str | None):
    """The catalog ``simulate`` runs with: ``--instance-types FILE`` (else the bundled one in the
    snapshot's region), less ``--discounts`` (else the config dir's discounts.yaml)."""
    return snapshot_catalog(snapshot, instance_types).with_discounts(find_discounts(discounts))


def simulation_document(snapshot, catalog, *, gates: FeatureGates | None, consolidate: bool = False,
                        explain: bool = False, whatif=None, whatif_file: str | None = None,
                        edits_catalog: bool = False, namespace: str | None = None) -> tuple[dict, CostPath]:
    """``simulate -o json``'s document (docs/simulate-json.md) and its cost path: the one answer the
    command line prints and ``karptui mcp``'s tools return. ``whatif``: a loaded WhatIf, run through
    the what-if session (``whatif_file`` names it in the document); ``edits_catalog``: its
    ``addNodes`` take types from ``catalog`` (an ``--instance-types`` file) rather than the bundled one."""
    gates = gates or controller_gates(snapshot)
    options = {"catalog": None, "consolidate": consolidate, "gates": gates}
    extra = {}
    if whatif is not None:
        result, snapshot, extra["whatif"] = _run_whatif(whatif, whatif_file or whatif.source, snapshot, catalog,
                                                        options, explain=explain, edits_catalog=edits_catalog)
    else:
        with StderrProgress() as progress:
            result = simulate(snapshot, explain=explain, progress=progress, **{**options, "catalog": catalog})
    cost = cost_path(result, catalog, consolidated=consolidate)
    doc = simulation_json(result, explain=explain, cost=cost, extra=extra, catalog=catalog)
    if snapshot.nodepools:  # the gates this run used: the flag's, then a what-if's featureGates
        doc["feature_gates"] = gates.with_(snapshot.feature_gates).to_dict()
    if namespace:
        only_namespace(doc, namespace)
    warnings = warnings_with_catalog(snapshot, catalog, namespace)
    if warnings:  # what the loader skipped (a NodePool with a bad requirement, say) changes the answer
        doc["warnings"] = warnings
    return doc, cost


def _run_whatif(whatif, file: str, snapshot, catalog, options: dict, *, explain: bool,
                edits_catalog: bool) -> tuple:
    """A what-if through the what-if session the TUI's panel uses: the what-if's result, its
    snapshot, and the document's ``whatif`` object."""
    from ..views.drift import drift_json
    from ..whatif.session import WhatIfSession

    session = WhatIfSession(snapshot, catalog, edits_catalog=catalog if edits_catalog else None,
                            gates=options["gates"])
    with StderrProgress() as progress:
        def told(phase: str, done: int, total: int) -> None:  # "baseline, kube-scheduler": the run is the label
            run, _, phase = phase.partition(", ")
            progress.label = "the snapshot as it is" if run == "baseline" else f"what-if {whatif.name}"
            progress(phase, done, total)

        run = session.run(whatif, consolidate=options["consolidate"], explain=explain, progress=told)
    if not run.done:  # a bad edit: the file and the edit, as load_whatif says them
        raise InputError(None, run.error)
    changes = run.diff.to_dict()
    changes["hourly_cost"] = whatif_cost(run.baseline, run.result, catalog, options["consolidate"])
    return run.result, run.applied.snapshot, {"name": whatif.name, "file": str(file),
                                              "notes": list(run.applied.notes), "diff": changes,
                                              "rollouts": run.rollouts_json(),
                                              "drains": [d.to_dict() for d in run.applied.drains],
                                              "drift": drift_json(run.drifting, run.result, catalog, run.consolidated)}


def _print_table(doc: dict, console: Console, cost: str = "", explain: bool = False) -> None:
    from rich.table import Table
    from rich.text import Text

    from ..views.format import counted

    table = Table(title="scheduling attempts, in queue order", title_justify="left", show_lines=False)
    table.add_column("pod", no_wrap=True)
    table.add_column("node")
    table.add_column("reason", overflow="fold")
    reasons: dict = {}   # every pod of a Job pending for the same reason: laid out once
    for pod in doc["pods"]:
        node = Text(pod["node"]) if pod["node"] else Text("pending", style="red")
        if pod.get("preempted"):
            node.append(f" (preempting {len(pod['preempted'])})")
        table.add_row(pod["pod"], node, RecurringText(pod["reason"] or "", reasons))
    console.print(table)
    s = doc["summary"]
    shown = f" in namespace {doc['namespace']}" if doc.get("namespace") else ""
    console.print(Text.assemble(
        (str(s["scheduled"]), "bold"), " scheduled, ", (str(s["pending"]), "bold"),
        f" pending{shown}, {counted(s['new_nodes'], 'new node')}"))
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
    if explain:
        _print_node_verdicts(doc.get("nodes", []), console)
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
    from rich.text import Text

    from ..views.nodepool_table import nodepool_lines

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


def _print_node_verdicts(nodes: list[dict], console: Console) -> None:
    """``--consolidate --explain``: each Karpenter node, every disruption method's verdict and why."""
    if not nodes:
        return
    from rich.text import Text

    from ..views.disruption import verdict_lines

    console.print(Text("\nwhy each Karpenter node stays or goes, method by method (--explain)", style="bold"))
    for node in nodes:
        command = f", command #{node['command']}" if node["command"] else ""
        console.print(Text.assemble((node["node"], "bold"), f" (NodePool {node['nodepool']}{command})"))
        for line in verdict_lines(node["disruption"]):
            console.print(Text(f"  {line}"))
        said = node.get("karpenter_said")
        if said:
            console.print(Text.assemble("  ", ("Karpenter said:", "cyan"), f" {said['words']} ({said['where']})"))


def _print_diff(whatif: dict, console: Console) -> None:
    from rich.text import Text

    from ..views.drift import drift_lines

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
    for line in drift_lines(whatif.get("drift") or {}):
        console.print(line)
    for w in d["workloads"]:
        zones = ", ".join(f"{z} {w['zones_before'].get(z, 0)}->{w['zones_after'].get(z, 0)}"
                          for z in sorted(set(w["zones_before"]) | set(w["zones_after"])))
        console.print(f"  {w['workload']}: {zones}")
