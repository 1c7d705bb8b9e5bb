"""A what-if's drift preview: the NodeClaims its edits would drift, why, and what replacing them costs.

The simulator says which NodeClaims drift (:func:`karptui.sim.karpenter.disruption.drift.drift_preview`)
and, when the what-if is consolidated, replaces them as Karpenter's drift method would (the what-if
session marks them Drifted first). Here that is turned into the ``whatif.drift`` object of
``simulate --whatif FILE --output json`` and the what-if panel's lines, priced by the one cost
model (:mod:`karptui.views.cost`). Headless.
"""

from __future__ import annotations

from ..sim.karpenter.disruption.drift import Drifting
from .cost import ESTIMATED_MARK, Cost, node_cost, node_costs_total


def drift_json(drifting: tuple[Drifting, ...] | list[Drifting], result, catalog, consolidated: bool) -> dict:
    """``whatif.drift``: each drifting NodeClaim with its reasons, its node's cost and what the
    simulation did to it; the drifted nodes' cost and, consolidated, what replaces them."""
    nodes = result.snapshot.node_by_name if result is not None else {}
    commands = {node: (number, d) for number, d in enumerate(result.disruptions if result else (), 1)
                for node in d.nodes}
    items, costs, replacing = [], [], {}
    for x in drifting:
        node = nodes.get(x.node)
        cost = node_cost(node, catalog) if node is not None and catalog is not None else None
        if cost is not None:
            costs.append(cost)
        found = commands.get(x.node)
        disruption = None
        if found is not None:
            number, d = found
            disruption = {"command": number, "method": d.method, "action": d.action, "reason": d.reason,
                          "replacement": d.replacement.to_dict() if d.replacement else None}
            replacing[number] = d
        items.append({"nodeclaim": x.claim, "node": x.node, "nodepool": x.nodepool, "already_drifted": x.already,
                      "reasons": [{"reason": r.reason, "detail": r.detail, "certain": r.certain} for r in x.reasons],
                      "hourly_cost": cost.to_dict() if cost is not None else None, "disruption": disruption})
    total = node_costs_total(costs)
    replacements = None
    if consolidated and catalog is not None:
        hourly, estimated, unpriced = 0.0, 0, 0
        for d in replacing.values():
            price = sum(node_cost(nodes[n], catalog).hourly for n in d.nodes if n in nodes)
            hourly += price - d.savings  # the command's launches: what it removes less what it saves
            estimated += int(bool(d.replacement is not None and d.replacement.price_estimated))
            unpriced += int(d.replacement is not None and d.replacement.price is None)
        replacements = Cost(round(hourly, 6), unpriced, estimated)
    return {"nodeclaims": items, "hourly_cost_of_drifted_nodes": total.to_dict(),
            "hourly_cost_of_replacements": replacements.to_dict() if replacements is not None else None}


def drift_lines(drift: dict) -> list[str]:
    """The preview as the what-if panel shows it: one line per NodeClaim and reason, then the cost."""
    items = drift.get("nodeclaims") or []
    if not items:
        return []
    lines = [f"drift: {len(items)} NodeClaim{'s' if len(items) != 1 else ''} would drift"]
    for item in items:
        then = ""
        if item["disruption"]:
            d = item["disruption"]
            r = d["replacement"]
            then = f" → #{d['command']} {d['action']}" + (f" by {r['instance_type']} {r['capacity_type']} in "
                                                         f"{r['zone']}" if r else "")
        already = " (already drifted)" if item["already_drifted"] else ""
        lines.append(f"  {item['nodeclaim']} on {item['node']}{already}{then}")
        for reason in item["reasons"]:
            maybe = "maybe " if not reason["certain"] else ""
            lines.append(f"    {maybe}{reason['reason']}: {reason['detail']}")
    nodes = Cost.from_dict(drift["hourly_cost_of_drifted_nodes"])
    line = f"  drifted nodes cost {nodes.text()}"
    if drift.get("hourly_cost_of_replacements"):
        line += f"; their replacements {Cost.from_dict(drift['hourly_cost_of_replacements']).text()}"
    else:
        line += "; consolidate the what-if to price their replacements"
    if ESTIMATED_MARK in line:
        line += f" ({ESTIMATED_MARK}: estimated)"
    return lines + [line]
