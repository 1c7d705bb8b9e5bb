"""``karptui simulate`` output: the DESIGN §4.1 JSON document and table rows."""

from __future__ import annotations

from ..catalog.pricing import hourly_cost
from ..sim import Attempt, SimResult


def cost_after(result: SimResult, catalog, nodes_cost: float | None = None) -> float:
    """The cluster's hourly cost once Karpenter has launched and consolidated as simulated
    (``nodes_cost``: what its nodes cost, when the caller already knows)."""
    before = hourly_cost(result.snapshot.nodes, catalog)[0] if nodes_cost is None else nodes_cost
    launched = sum((c.launch or {}).get("price") or 0.0 for c in result.nodeclaims)
    return round(before + launched - sum(d.savings for d in result.disruptions), 6)


def attempt_json(attempt: Attempt, explain: bool) -> dict:
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
    if explain:
        out["filters"] = {node: list(reasons) for node, reasons in (attempt.filters or {}).items()}
    return out


def simulation_json(result: SimResult, *, explain: bool, cost_before: float, cost_after: float,
                    extra: dict | None = None) -> dict:
    """The whole document; Karpenter keys appear when the snapshot has NodePools or Provisioners."""
    doc: dict = {"pods": [attempt_json(a, explain) for a in result.attempts]}
    if result.snapshot.nodepools:
        doc["nodeclaims"] = [
            {"name": c.name, "nodepool": c.nodepool, "requirements": {k: list(v) for k, v in c.requirements.items()},
             "instance_types": list(c.instance_types), "launch": c.launch, "pods": list(c.pods)}
            for c in result.nodeclaims
        ]
        doc["disruptions"] = [
            {"method": d.method, "action": d.action, "reason": d.reason, "nodes": list(d.nodes), "pods": d.pods,
             "replacement": d.replacement.to_dict() if d.replacement else None,
             "replacement_types": list(d.replacement_types[:60]), "savings_per_hour": d.savings,
             "replacement_name": d.replacement_name or None, "moves": dict(d.moves)}
            for d in result.disruptions
        ]
        doc["blocked"] = [{"node": b.node, "reason": b.reason} for b in result.blocked]
        doc["unconsolidatable"] = [{"node": b.node, "reason": b.reason} for b in result.unconsolidatable]
    doc["summary"] = {
        "scheduled": result.scheduled,
        "pending": result.pending,
        "new_nodes": len(result.nodeclaims),
        "hourly_cost_before": round(cost_before, 4),
        "hourly_cost_after": round(cost_after, 4),
    }
    if result.notes:
        doc["notes"] = list(result.notes)
    if extra:
        doc.update(extra)
    return doc
