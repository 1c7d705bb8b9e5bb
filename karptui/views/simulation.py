"""``karptui simulate`` output: the JSON document of docs/simulate-json.md."""

from __future__ import annotations

from collections.abc import Mapping

from ..sim import Attempt, SimResult
from ..sim.karpenter.settings import karpenter_settings
from ..sim.karpenter.versions import version_found
from ..sim.result import NodeClaimPlan
from .cost import CostPath, disruption_savings, launch_cost
from .prediction import predict

# The parts of the document a plain run leaves out (--explain's verdicts and NodePool tables,
# consolidation's commands and node verdicts, -n's filter) import their views where they are made:
# those pull in the log readers and the disruption controller, which ``simulate -o json`` otherwise
# never runs (issue 28).


def attempt_json(attempt: Attempt, explain: bool, claims: Mapping[str, NodeClaimPlan] | None = None,
                 has_nodepools: bool = False, catalog=None) -> dict:
    out = {
        "pod": attempt.pod.key,
        "node": attempt.node,
        "new_node": attempt.new_node,
        "reason": attempt.reason,
    }
    if attempt.preempted:
        out["preempted"] = list(attempt.preempted)
    if attempt.summary:
        out["summary"] = attempt.summary
    if attempt.karpenter_reason:
        out["karpenter_reason"] = attempt.karpenter_reason
    # the batch's answer, made once: the verdict and the NodePool table both say it
    prediction = predict(attempt, claims or {}, catalog) if explain or attempt.nodepools is not None else None
    if explain:
        from .verdict import verdict

        out["filters"] = {node: list(reasons) for node, reasons in (attempt.filters or {}).items()}
        out["verdict"] = verdict(attempt, claims or {}, has_nodepools, catalog, prediction)
    if attempt.nodepools is not None:
        from .nodepool_table import nodepools_json

        out["nodepools"] = nodepools_json(attempt.nodepools, catalog, prediction)
    return out


def simulation_json(result: SimResult, *, explain: bool, cost: CostPath, extra: dict | None = None,
                    catalog=None) -> dict:
    """The whole document; Karpenter keys appear when the snapshot has NodePools or Provisioners.
    ``catalog``: the one simulated with; its discounts (if any) add the ``*_after_discount`` figures."""
    claims = {c.name: c for c in result.nodeclaims}
    has_nodepools = bool(result.snapshot.nodepools)
    doc: dict = {"pods": [attempt_json(a, explain, claims, has_nodepools, catalog) for a in result.attempts]}
    # which Karpenter the run followed and where that came from (docs/simulate-json.md)
    doc["karpenter_version"] = version_found(result.snapshot).to_dict()
    # the controller settings that change scheduling answers, and where each came from
    doc["karpenter_settings"] = karpenter_settings(result.snapshot).to_dict()
    if result.snapshot.nodepools:
        doc["nodeclaims"] = [
            {"name": c.name, "nodepool": c.nodepool, "requirements": {k: list(v) for k, v in c.requirements.items()},
             "labels": dict(c.labels), "min_values": dict(c.min_values), "annotations": dict(c.annotations),
             "instance_types": list(c.instance_types), "launch": _launch(c.launch, catalog),
             "pods": list(c.pods), "buffer_pods": list(c.buffer_pods)}
            for c in result.nodeclaims
        ]
        if result.buffers is not None:
            doc["capacity_buffers"] = result.buffers.to_json()
        if result.disruptions:
            from .drift import launch_json
        doc["disruptions"] = [
            {"method": d.method, "action": d.action, "reason": d.reason, "nodes": list(d.nodes), "pods": d.pods,
             "replacement": d.replacement.to_dict() if d.replacement else None,
             "replacement_types": list(d.replacement_types[:60]), "savings_per_hour": d.savings,
             "estimated_savings_per_hour": d.estimated_savings, "estimate_counts": d.estimate_counts or None,
             "replacement_name": d.replacement_name or None, "moves": dict(d.moves),
             "forceful": d.forceful, "terminate_first": d.terminate_first,
             "terminate_first_reservation": d.reservation or None,
             # every NodeClaim the command launches (drift launches as many as its pods need)
             "replacements": [{"name": name, **launch_json(pool, launch, catalog)}
                              for name, (pool, launch) in zip(d.replacement_names, d.launches)],
             **_savings(d, result, catalog)}
            for d in result.disruptions
        ]
        doc["blocked"] = [{"node": b.node, "reason": b.reason} for b in result.blocked]
        doc["unconsolidatable"] = [{"node": b.node, "reason": b.reason} for b in result.unconsolidatable]
        doc["consolidation_scores"] = [s.to_dict() for s in result.scores]
        if result.verdicts:
            doc["nodes"] = nodes_json(result)
    doc["summary"] = {
        "scheduled": result.scheduled,
        "pending": result.pending,
        "new_nodes": len(result.nodeclaims),
        "hourly_cost_before": round(cost.now.hourly, 4),
        "hourly_cost_after": round(cost.final.hourly, 4),
        "cost": cost.to_dict(),
    }
    if result.notes:
        doc["notes"] = list(result.notes)
    if extra:
        doc.update(extra)
    return doc


def nodes_json(result: SimResult) -> list[dict]:
    """``nodes[]``: every Karpenter node, each disruption method's verdict on it, and what Karpenter's
    own events in the snapshot said about it last."""
    from ..logs.timeline import snapshot_events
    from .disruption import said_json

    said = said_json(result.snapshot, snapshot_events(result.snapshot))
    return [{"node": node, "nodepool": v.nodepool, "command": v.command or None, "disruption": v.to_dict(),
             "karpenter_said": said.get(node)} for node, v in result.verdicts.items()]


def _launch(launch, catalog):
    """A launch as Karpenter prices it (list ``price``), plus ``price_after_discount`` when discounted."""
    if launch is None:
        return None
    cost = launch_cost(launch, catalog)
    return {**launch, "price_after_discount": cost.hourly} if cost.discounted else launch


def _savings(disruption, result: SimResult, catalog) -> dict:
    cost = disruption_savings(disruption, result.snapshot, catalog)
    return {"savings_per_hour_after_discount": cost.hourly} if cost.discounted else {}


def only_namespace(doc: dict, namespace: str) -> None:
    """``-n NS``: ``pods[]`` and its counts keep that namespace's pods; the simulation itself ran on the
    whole cluster (other namespaces' pods take room too), so NodeClaims, disruptions and cost are the
    cluster's."""
    from .overview import in_namespace

    doc["pods"] = [p for p in doc["pods"] if in_namespace(p["pod"], namespace)]
    doc["namespace"] = namespace
    summary = doc["summary"]
    summary["scheduled"] = sum(1 for p in doc["pods"] if p["node"])
    summary["pending"] = len(doc["pods"]) - summary["scheduled"]
