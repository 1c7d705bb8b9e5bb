"""A what-if's drift preview: the NodeClaims its edits would drift, why, what replaces them and what blocks them.

The simulator says which NodeClaims drift (:func:`karptui.sim.karpenter.disruption.drift.drift_preview`);
the what-if session marks them Drifted, and the simulation replaces them as Karpenter's drift method
would. Drift is a disruption method of its own, not consolidation: Karpenter replaces a Drifted
NodeClaim whatever the NodePool's ``consolidationPolicy``, so the preview prices replacements
whether or not the what-if was consolidated -- from the consolidated run's commands when it was,
else from the drift method run alone (:func:`karptui.sim.karpenter.disruption.drift_alone`). A
drifted node no command takes says why, in the drift method's own verdict: the do-not-disrupt pod,
the PDB, the disruption budget for reason Drifted, the pods with no place. Here that is turned into
the ``whatif.drift`` object of ``simulate --whatif FILE --output json`` and the what-if panel's lines,
priced by the one cost model (:mod:`karptui.views.cost`). Headless.
"""

from __future__ import annotations

from ..sim.karpenter.disruption import MAX_COMMANDS
from ..sim.karpenter.disruption.drift import NAME as DRIFT, NOT_DRIFTED, Drifting
from ..sim.karpenter.disruption.verdicts import BLOCKED, NOT_REACHED
from .cost import DISCOUNT_MARK, ESTIMATED_MARK, HOURS_PER_MONTH, Cost, launch_cost, node_cost, node_costs_total, signed

def _plan(result, consolidated: bool) -> tuple[tuple, dict]:
    """The commands that took nodes and the drift method's verdict per node: the consolidated run's,
    else the drift method's run alone (none when it did not run: no catalog, or nothing certainly drifts)."""
    if result is None:
        return (), {}
    if consolidated:
        verdicts = {node: why for node, seen in (result.verdicts or {}).items() if (why := seen.of(DRIFT)) is not None}
        return tuple(result.disruptions), verdicts
    run = result.drift
    return (tuple(run.commands), dict(run.verdicts)) if run is not None else ((), {})


def launch_json(nodepool: str, launch, catalog) -> dict:
    """A replacement: its NodePool, its offering (list ``price``; null fields when none fits),
    ``price_after_discount`` when discounted, and ``price_text``, its price as shown (marked)."""
    if launch is None:
        return {"nodepool": nodepool, "instance_type": None, "zone": None, "capacity_type": None, "price": None,
                "price_text": "(unpriced)"}
    cost = launch_cost(launch, catalog)
    return {"nodepool": nodepool, **launch.to_dict(),
            **({"price_after_discount": cost.hourly} if cost.discounted else {}), "price_text": cost.rate_text()}


def drift_json(drifting: tuple[Drifting, ...] | list[Drifting], result, catalog, consolidated: bool) -> dict:
    """``whatif.drift``: each drifting NodeClaim with its reasons, its node's cost, the command that
    takes it and what it launches, or what blocks it; the drifted nodes' cost, what replaces them
    and the change per hour (consolidated or not)."""
    nodes = result.snapshot.node_by_name if result is not None else {}
    commands, verdicts = _plan(result, consolidated)
    by_node = {node: (number, d) for number, d in enumerate(commands, 1) for node in d.nodes}
    items, costs, replacing = [], [], {}
    for x in drifting:
        node = nodes.get(x.node)
        cost = node_cost(node, catalog) if node is not None and catalog is not None else None
        if cost is not None:
            costs.append(cost)
        found, why = by_node.get(x.node), verdicts.get(x.node)
        disruption = blocked = None
        if found is not None:
            number, d = found
            launches = [launch for _, launch in d.launches]
            disruption = {"command": number, "method": d.method, "action": d.action, "reason": d.reason,
                          "replacement": d.replacement.to_dict() if d.replacement else None,
                          "replacements": [launch_json(pool, launch, catalog) for pool, launch in d.launches]}
            replacing[number] = (d, launches)
        elif why is not None and why.kind != NOT_DRIFTED.kind:  # only maybe drifting: not marked, nothing to say
            blocked = {"verdict": why.verdict, "kind": why.kind, "reason": why.text,
                       "karpenter": why.karpenter or None, "details": dict(why.facts)}
        elif why is None and len(commands) >= MAX_COMMANDS and any(r.certain for r in x.reasons):
            blocked = {"verdict": NOT_REACHED, "kind": "not-reached", "karpenter": None, "details": {},
                       "reason": f"the simulation stops after {MAX_COMMANDS} commands, before drift reaches it"}
        items.append({"nodeclaim": x.claim, "node": x.node, "nodepool": x.nodepool, "already_drifted": x.already,
                      "reasons": [{"reason": r.reason, "detail": r.detail, "certain": r.certain} for r in x.reasons],
                      "hourly_cost": cost.to_dict() if cost is not None else None, "disruption": disruption,
                      "blocked": blocked})
    replacements = change = None
    if result is not None and catalog is not None:  # Karpenter ran (or had nothing certainly drifted to take)
        launched = node_costs_total(launch_cost(launch, catalog) for _, launches in replacing.values()
                                    for launch in launches)
        taken = node_costs_total(node_cost(nodes[n], catalog) for d, _ in replacing.values()
                                 for n in d.nodes if n in nodes)
        replacements = launched
        change = Cost(round(launched.hourly - taken.hourly, 6), launched.unpriced + taken.unpriced,
                      launched.estimated_prices + taken.estimated_prices, launched.discounted or taken.discounted)
    return {"nodeclaims": items, "hourly_cost_of_drifted_nodes": node_costs_total(costs).to_dict(),
            "hourly_cost_of_replacements": replacements.to_dict() if replacements is not None else None,
            "hourly_cost_change": change.to_dict() if change is not None else None}


def _then(disruption: dict) -> str:
    """`` → #2 replace by t4g.small on-demand in ap-northeast-2a (NodePool team1) at $0.0168/h``, or
    `` → #1 delete`` (its pods fit on the other nodes); a command of another method names it
    (`` → #1 delete (consolidation: underutilized)``: consolidation took the node before drift)."""
    said = [f"{r['instance_type']} {r['capacity_type']} in {r['zone']} (NodePool {r['nodepool']}) at {r['price_text']}"
            if r["instance_type"] else f"a NodeClaim of NodePool {r['nodepool']} no offering fits"
            for r in disruption["replacements"]]
    method = f" ({disruption['method']}: {disruption['reason']})" if disruption["method"] != DRIFT else ""
    return f" → #{disruption['command']} {disruption['action']}{method}" + (" by " + ", ".join(said) if said else "")


def drift_lines(drift: dict) -> list[str]:
    """The preview as the what-if panel shows it: one line per NodeClaim (what takes it), its reasons
    and what blocks it, then the cost of the drifted nodes, of their replacements and the change."""
    items = drift.get("nodeclaims") or []
    if not items:
        return []
    lines = [f"drift: {len(items)} NodeClaim{'s' if len(items) != 1 else ''} would drift"]
    for item in items:
        then = _then(item["disruption"]) if item["disruption"] else ""
        blocked = item.get("blocked")
        if blocked:
            then = " → stays"
        already = " (already drifted)" if item["already_drifted"] else ""
        lines.append(f"  {item['nodeclaim']} on {item['node']}{already}{then}")
        for reason in item["reasons"]:
            maybe = "maybe " if not reason["certain"] else ""
            lines.append(f"    {maybe}{reason['reason']}: {reason['detail']}")
        if blocked:
            word = "blocked" if blocked["verdict"] == BLOCKED else "not replaced"
            lines.append(f"    {word}: {blocked['reason']}")
    nodes = Cost.from_dict(drift["hourly_cost_of_drifted_nodes"])
    line = f"  drifted nodes cost {nodes.text()}"
    if drift.get("hourly_cost_of_replacements"):
        actions = [item["disruption"]["action"] for item in items if item["disruption"]]
        if actions:
            split = ", ".join(f"{actions.count(a)} {a}d" for a in ("replace", "delete") if a in actions)
            change = Cost.from_dict(drift["hourly_cost_change"])
            mark = ESTIMATED_MARK if change.estimated else ""
            after = DISCOUNT_MARK if change.discounted else ""
            change_text = (f"change {mark}{signed(change.hourly)}/h{after} "
                           f"({mark}{signed(change.hourly * HOURS_PER_MONTH, 0)}/mo{after})"
                           if round(change.hourly, 3) else "no change")
            launched = any(item["disruption"]["replacements"] for item in items if item["disruption"])
            replacements = (f"replacements {Cost.from_dict(drift['hourly_cost_of_replacements']).text()}"
                            if launched else "no replacement")
            line += f"; Karpenter takes {len(actions)} ({split}): {replacements}, {change_text}"
        else:
            line += "; Karpenter takes none of them"
    else:
        line += "; replacements not priced (no instance catalog)"
    if ESTIMATED_MARK in line:
        line += f" ({ESTIMATED_MARK}: estimated)"
    return lines + [line]
