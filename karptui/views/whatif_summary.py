"""A what-if run as the panel shows it: headline numbers, per-zone placement, launches, consolidation.

:func:`summary` turns a session's :class:`~karptui.whatif.session.RunResult` into a plain dict
(what the panel and the tests read); :func:`summary_lines` and :func:`result_rows` make text
and table rows of it. Pure (no textual).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from ..model.snapshot import NO_ZONE
from ..whatif import WhatIf
from ..whatif.session import CANCELLED, ERROR, RunResult, WhatIfSession
from .cost import DISCOUNT_MARK, ESTIMATED_MARK, HOURS_PER_MONTH, Cost, CostPath, cost_path, discount_of, signed
from .drift import drift_json, drift_lines
from .nodes import short_names_in


def summary(run: RunResult, catalog: Any) -> dict:
    """The run as the panel's summary dict; a bad edit gives ``{"error": "...", ...}``, a
    cancelled run ``{"cancelled": True, ...}``. ``catalog`` prices the cluster (None: no cost)."""
    out: dict = {"name": run.name, "error": None, "cancelled": False, "consolidated": run.consolidated}
    if run.status == ERROR:
        return {**out, "error": run.error}
    if run.status == CANCELLED:
        return {**out, "cancelled": True}
    baseline, result, applied, changes = run.baseline, run.result, run.applied, run.diff
    counts = changes.counts
    out.update({key: counts[key] for key in ("scheduled_before", "pending_before", "scheduled_after",
                                             "pending_after", "newly_scheduled", "newly_pending", "moved",
                                             "added", "added_scheduled", "added_pending", "removed",
                                             "still_pending")})
    for when, sim in (("before", baseline), ("after", result)):  # where the scheduled ones went
        out[f"on_new_nodes_{when}"] = sum(1 for a in sim.attempts if a.scheduled and a.new_node)
        out[f"on_existing_{when}"] = out[f"scheduled_{when}"] - out[f"on_new_nodes_{when}"]
    out["notes"] = list(applied.notes) + list(result.notes)
    out["workloads"] = [
        {"workload": w.workload, "zones_before": w.zones_before, "zones_after": w.zones_after,
         **_split_zones("before", w.nodes_before, baseline), **_split_zones("after", w.nodes_after, result)}
        for w in changes.workloads if w.changed or w.workload in applied.resimulated
    ]
    out["nodeclaims"] = [{"nodepool": c.nodepool, **{k: (c.launch or {}).get(k) for k in
                                                     ("instance_type", "zone", "capacity_type", "price")},
                          "pods": len(c.pods)} for c in result.nodeclaims]
    out["nodeclaims_added"] = changes.nodeclaims.get("added", [])
    out["nodeclaims_removed"] = changes.nodeclaims.get("removed", [])
    out["consolidation"] = [
        {"action": d.action, "reason": d.reason, "nodes": list(d.nodes), "savings": d.savings,
         "replacement": (f"{d.replacement.instance_type} {d.replacement.capacity_type} in {d.replacement.zone}"
                         if d.replacement else "")}
        for d in result.disruptions
    ]
    out["blocked"] = [{"node": b.node, "reason": b.reason} for b in result.blocked]
    # only the pods the edits touched: pending pods whose lot did not change are a count (still_pending)
    touched = {c.pod for c in (*changes.newly_pending, *changes.reason_changed, *changes.added) if c.after is None}
    out["pending"] = [{"pod": a.pod.key, "reason": a.reason or ""} for a in result.attempts
                      if not a.scheduled and a.pod.key in touched]
    out["rollouts"] = run.rollouts_json()
    out["drains"] = [d.to_dict() for d in applied.drains]
    out["drift"] = drift_json(run.drifting, result, catalog, run.consolidated)
    out["cost_before"] = out["cost_after"] = out["cost_change"] = out["cost"] = None
    if catalog is not None:  # the cost model's path, with and without the edits
        before, after = (cost_path(sim, catalog, consolidated=run.consolidated) for sim in (baseline, result))
        out["cost_before"], out["cost_after"] = round(before.final.hourly, 6), round(after.final.hourly, 6)
        out["cost_change"] = round(out["cost_after"] - out["cost_before"], 6)
        out["cost"] = {"with_edits": after.to_dict(), "without_edits": before.final.to_dict()}
        out["cost_discount"] = discount_of(catalog)  # the figures are after it ("": none)
    return out


def run_whatif(snapshot: Any, catalog: Any, whatif: WhatIf, *, consolidate: bool = True,
               cancelled: Callable[[], bool] | None = None,
               progress: Callable[[str, int, int], None] | None = None) -> dict:
    """One what-if from scratch (baseline included), as the summary dict: for tests and scripts;
    the panel keeps a :class:`WhatIfSession` so the baseline is simulated once."""
    run = WhatIfSession(snapshot, catalog).run(whatif, consolidate=consolidate, cancelled=cancelled, progress=progress)
    return summary(run, catalog)


def _split_zones(when: str, nodes: Mapping[str, int], result: Any) -> dict:
    """Per-zone counts on nodes that exist (or a what-if added) vs. on NodeClaims Karpenter would launch."""
    zone_of = {n.name: n.zone or NO_ZONE for n in result.snapshot.nodes}
    claim_zone = {c.name: (c.launch or {}).get("zone") or NO_ZONE for c in result.nodeclaims}
    existing: Counter = Counter()
    launched: Counter = Counter()
    for node, count in nodes.items():
        if node in zone_of:
            existing[zone_of[node]] += count
        else:
            launched[claim_zone.get(node, NO_ZONE)] += count
    return {f"existing_{when}": dict(sorted(existing.items())), f"launched_{when}": dict(sorted(launched.items()))}


# ------------------------------------------------------------------ the summary as text and table rows

def summary_lines(s: Mapping) -> list[str]:
    """The run's headline numbers, launches and consolidation changes, pending reasons, notes; node
    names without EC2's region suffix, as the panes show them (the JSON keeps them whole)."""
    if s.get("error") or s.get("cancelled") or "scheduled_after" not in s:
        return []
    lines = [f"scheduled {s['scheduled_before']} → {s['scheduled_after']} · "
             f"pending {s['pending_before']} → {s['pending_after']}",
             f"on existing nodes {s['on_existing_before']} → {s['on_existing_after']} · "
             f"on new NodeClaims {s['on_new_nodes_before']} → {s['on_new_nodes_after']}",
             f"{s['added']} added ({s['added_scheduled']} placed, {s['added_pending']} pending) · "
             f"{s['removed']} removed · {s['newly_scheduled']} newly scheduled · {s['newly_pending']} newly pending · "
             f"{s['moved']} moved"]
    if s.get("cost"):
        lines += _cost_lines(s["cost"])
    lines += [_rollout_line(r) for r in s.get("rollouts", [])]
    lines += [line for d in s.get("drains", []) for line in _drain_lines(d)]
    lines += [f"+ launch {x}" for x in s["nodeclaims_added"]] + [f"- launch {x}" for x in s["nodeclaims_removed"]]
    lines += [f"pending {p['pod']}: {p['reason']}" for p in s["pending"][:5]]
    if len(s["pending"]) > 5:
        lines.append(f"… and {len(s['pending']) - 5} more pending pod(s) the edits touched")
    if s.get("still_pending"):
        lines.append(f"{s['still_pending']} pod(s) pending before and after, for reasons the edits did not touch")
    lines += drift_lines(s.get("drift") or {})
    return [short_names_in(line) for line in lines + [f"note: {n}" for n in s["notes"]]]


def _rollout_line(r: Mapping) -> str:
    """``rollout Deployment/default/web (RollingUpdate, maxSurge 5, maxUnavailable 5): 4 steps; peak 25 pods
    (20 old + 5 new): 2 NodeClaim(s) launched, 1 more than the end state needs; old and new overlap in 3 steps``."""
    peak = r["peak"]
    head = f"rollout {r['workload']} ({r['strategy']}"
    if r["strategy"] == "RollingUpdate":
        head += f", maxSurge {r['max_surge']}, maxUnavailable {r['max_unavailable']}"
    head += f"): {len(r['steps'])} step(s); peak {peak['pods']} pods ({peak['old_pods']} old + {peak['new_pods']} new)"
    if "nodeclaims" in peak:
        head += f": {len(peak['nodeclaims'])} NodeClaim(s) launched"
        if peak["nodeclaims_beyond_end"]:
            head += f", {peak['nodeclaims_beyond_end']} more than the end state needs"
        if peak["pending"]:
            head += f", {peak['pending']} pod(s) pending"
    head += f"; old and new overlap in {r['overlap_steps']} step(s)"
    if r.get("min_ready_seconds"):
        head += f", each at least minReadySeconds {r['min_ready_seconds']}s"
    return head


def _drain_lines(d: Mapping) -> list[str]:
    """A drain's outcome: removed, or which evictions block it and why."""
    if d["removed"]:
        return [f"drain {d['node']}: {len(d['evicted'])} pod(s) evicted; the node goes"]
    return ([f"drain {d['node']}: blocked, the node stays (cordoned); {len(d['evicted'])} pod(s) evicted"]
            + [f"  blocked {b['pod']}: {b['why']}" for b in d["blocked"]])


def _cost_lines(cost: Mapping) -> list[str]:
    """The cost model's path with the edits (``now … → after provisioning … → after consolidation …``), then
    the end of the path without them and the change, each amount marked ``~`` when estimated and ``*``
    after a discount (the legend is the path's)."""
    path = cost["with_edits"]
    steps = [Cost.from_dict(path[key]) if path.get(key) else None
             for key in ("now", "after_provisioning", "after_consolidation")]
    with_edits = CostPath(*steps, discount=path.get("discount", ""))
    without = Cost.from_dict(cost["without_edits"])
    change = with_edits.final.hourly - without.hourly
    mark = ESTIMATED_MARK if with_edits.final.estimated or without.estimated else ""
    after = DISCOUNT_MARK if with_edits.final.discounted or without.discounted else ""
    change_text = (f"change {mark}{signed(change)}/h{after} ({mark}{signed(change * HOURS_PER_MONTH, 0)}/mo{after})"
                   if round(change, 3) else "no change")
    return [f"cost {with_edits.line(arrow='→', changes_only=True)}",
            f"without the edits {without.text()}: {change_text}"]


def _zone_count(w: Mapping, when: str, zone: str) -> str:
    """Pods on nodes that exist, ``+N new`` on NodeClaims Karpenter would launch."""
    existing, launched = w[f"existing_{when}"].get(zone, 0), w[f"launched_{when}"].get(zone, 0)
    return f"{existing}" + (f" +{launched} new" if launched else "")


def _launch_rows(nodeclaims: list[Mapping]) -> list[tuple[str, ...]]:
    """One row per kind of launch (NodePool, type, zone, capacity type, price), first seen first, with
    its NodeClaims counted (``default ×13``) and their pods summed: at 5,000 nodes a run launches
    hundreds of NodeClaims, mostly alike, and one row each buried the few that differ."""
    groups: dict[tuple, list[int]] = {}
    for c in nodeclaims:
        key = (c["nodepool"], c["instance_type"] or "?", c["zone"] or "?", c["capacity_type"] or "?",
               f"{c['price'] or 0:.4f}")
        groups.setdefault(key, []).append(c["pods"])
    return [((pool if len(pods) == 1 else f"{pool} ×{len(pods)}"), *rest, str(sum(pods)))
            for (pool, *rest), pods in groups.items()]


def result_rows(s: Mapping) -> dict[str, list[tuple[str, ...]]]:
    """Rows of the results tables: ``zones`` (workload, then each zone before/after), ``claims``
    (the launches of the what-if run, alike ones on one row), ``actions`` (consolidation, and nodes it cannot touch)."""
    zones: list[tuple[str, ...]] = []
    for w in s.get("workloads", []):
        zones.append((w["workload"], "", ""))
        zones += [(f"· {z}", _zone_count(w, "before", z), _zone_count(w, "after", z))
                  for z in sorted({*w["zones_before"], *w["zones_after"]})]
    claims = _launch_rows(s.get("nodeclaims", []))
    actions = [(d["action"], ", ".join(d["nodes"]), d["replacement"] or "-", f"{d['savings']:.4f}")
               for d in s.get("consolidation", [])]
    actions += [("blocked", b["node"], b["reason"], "") for b in s.get("blocked", [])]
    return {"zones": zones, "claims": claims, "actions": actions}
