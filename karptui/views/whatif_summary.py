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
from .cost import DISCOUNT_MARK, cost_after, discount_note, discount_of


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
                                             "pending_after", "newly_scheduled", "newly_pending", "moved")})
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
    out["pending"] = [{"pod": a.pod.key, "reason": a.reason or ""} for a in result.attempts if not a.scheduled]
    if catalog is not None:
        out["cost_before"] = cost_after(baseline, catalog)
        out["cost_after"] = cost_after(result, catalog)
        out["cost_change"] = round(out["cost_after"] - out["cost_before"], 6)
        out["cost_discount"] = discount_of(catalog)  # the figures are after it ("": none)
    else:
        out["cost_before"] = out["cost_after"] = out["cost_change"] = None
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
    """The run's headline numbers, launches and consolidation changes, pending reasons, notes."""
    if s.get("error") or s.get("cancelled") or "scheduled_after" not in s:
        return []
    lines = [f"scheduled {s['scheduled_before']} → {s['scheduled_after']} · "
             f"pending {s['pending_before']} → {s['pending_after']}",
             f"on existing nodes {s['on_existing_before']} → {s['on_existing_after']} · "
             f"on new NodeClaims {s['on_new_nodes_before']} → {s['on_new_nodes_after']}",
             f"{s['newly_scheduled']} newly scheduled · {s['newly_pending']} newly pending · {s['moved']} moved"]
    if s["cost_before"] is not None:
        after = DISCOUNT_MARK if s.get("cost_discount") else ""
        lines.append(f"hourly cost ${s['cost_before']:.4f}{after} → ${s['cost_after']:.4f}{after} "
                     f"({s['cost_change']:+.4f}{after})"
                     + (f" ({DISCOUNT_MARK}: {discount_note(s['cost_discount'])})" if after else ""))
    lines += [f"+ launch {x}" for x in s["nodeclaims_added"]] + [f"- launch {x}" for x in s["nodeclaims_removed"]]
    lines += [f"pending {p['pod']}: {p['reason']}" for p in s["pending"][:5]]
    return lines + [f"note: {n}" for n in s["notes"]]


def _zone_count(w: Mapping, when: str, zone: str) -> str:
    """Pods on nodes that exist, ``+N new`` on NodeClaims Karpenter would launch."""
    existing, launched = w[f"existing_{when}"].get(zone, 0), w[f"launched_{when}"].get(zone, 0)
    return f"{existing}" + (f" +{launched} new" if launched else "")


def result_rows(s: Mapping) -> dict[str, list[tuple[str, ...]]]:
    """Rows of the results tables: ``zones`` (workload, then each zone before/after), ``claims``
    (the launches of the what-if run), ``actions`` (consolidation, and nodes it cannot touch)."""
    zones: list[tuple[str, ...]] = []
    for w in s.get("workloads", []):
        zones.append((w["workload"], "", ""))
        zones += [(f"· {z}", _zone_count(w, "before", z), _zone_count(w, "after", z))
                  for z in sorted({*w["zones_before"], *w["zones_after"]})]
    claims = [(c["nodepool"], c["instance_type"] or "?", c["zone"] or "?", c["capacity_type"] or "?",
               f"{c['price'] or 0:.4f}", str(c["pods"])) for c in s.get("nodeclaims", [])]
    actions = [(d["action"], ", ".join(d["nodes"]), d["replacement"] or "-", f"{d['savings']:.4f}")
               for d in s.get("consolidation", [])]
    actions += [("blocked", b["node"], b["reason"], "") for b in s.get("blocked", [])]
    return {"zones": zones, "claims": claims, "actions": actions}
