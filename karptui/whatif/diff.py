"""A what-if's result against the baseline: what an operator looks for first.

Pods are compared by key; pods a what-if re-created keep their names where it
could, and per-workload counts (by zone and by node) compare whatever the
names. A workload is the pod's top owner (Deployment, StatefulSet, ...).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..model import Snapshot
from ..model.snapshot import NO_ZONE
from ..sim import SimResult


@dataclass(frozen=True)
class PodChange:
    pod: str
    before: str | None      # node, None = pending, "" = not in that run
    after: str | None
    reason_before: str | None = None
    reason_after: str | None = None


@dataclass(frozen=True)
class WorkloadSpread:
    workload: str
    zones_before: dict[str, int]
    zones_after: dict[str, int]
    nodes_before: dict[str, int]
    nodes_after: dict[str, int]

    @property
    def changed(self) -> bool:
        return self.zones_before != self.zones_after or self.nodes_before != self.nodes_after


@dataclass(frozen=True)
class WhatIfDiff:
    newly_scheduled: tuple[PodChange, ...] = ()
    newly_pending: tuple[PodChange, ...] = ()
    moved: tuple[PodChange, ...] = ()
    reason_changed: tuple[PodChange, ...] = ()
    workloads: tuple[WorkloadSpread, ...] = ()
    counts: dict[str, int] = field(default_factory=dict)
    nodeclaims: dict = field(default_factory=dict)    # launches added / removed by the what-if
    disruptions: dict = field(default_factory=dict)   # consolidation actions added / removed

    def to_dict(self) -> dict:
        def change(c: PodChange) -> dict:
            return {"pod": c.pod, "before": c.before, "after": c.after,
                    "reason_before": c.reason_before, "reason_after": c.reason_after}

        return {
            "counts": self.counts,
            "newly_scheduled": [change(c) for c in self.newly_scheduled],
            "newly_pending": [change(c) for c in self.newly_pending],
            "moved": [change(c) for c in self.moved],
            "reason_changed": [change(c) for c in self.reason_changed],
            "nodeclaims": self.nodeclaims,
            "disruptions": self.disruptions,
            "workloads": [
                {"workload": w.workload, "zones_before": w.zones_before, "zones_after": w.zones_after,
                 "nodes_before": w.nodes_before, "nodes_after": w.nodes_after}
                for w in self.workloads if w.changed
            ],
        }


def _outcomes(result: SimResult) -> dict[str, tuple[str | None, str | None]]:
    """Pod key -> (node or None, reason) for every pod the run knows about."""
    out: dict[str, tuple[str | None, str | None]] = {k: (n, None) for k, n in result.placements.items()}
    for attempt in result.attempts:
        if not attempt.scheduled:
            out[attempt.pod.key] = (None, attempt.reason)
    return out


def _owners(snapshot: Snapshot) -> dict[str, str]:
    owners = {}
    for pod in snapshot.pods:
        top = snapshot.top_owner(pod)
        owners[pod.key] = top.ref if top else f"Pod/{pod.key}"
    return owners


def _spread(result: SimResult, owners: dict[str, str]) -> dict[str, tuple[Counter, Counter]]:
    zones_of = {n.name: n.zone or NO_ZONE for n in result.snapshot.nodes}
    zones_of.update({c.name: (c.launch or {}).get("zone") or NO_ZONE for c in result.nodeclaims})
    spread: dict[str, tuple[Counter, Counter]] = {}
    for key, node in result.placements.items():
        workload = owners.get(key, f"Pod/{key}")
        zones, nodes = spread.setdefault(workload, (Counter(), Counter()))
        zones[zones_of.get(node, NO_ZONE)] += 1
        nodes[node] += 1
    return spread


def diff(baseline: SimResult, whatif: SimResult) -> WhatIfDiff:
    before, after = _outcomes(baseline), _outcomes(whatif)
    scheduled, pending, moved, reasons = [], [], [], []
    for key in sorted(set(before) | set(after)):
        (node_b, why_b), (node_a, why_a) = before.get(key, ("", None)), after.get(key, ("", None))
        change = PodChange(key, node_b, node_a, why_b, why_a)
        if node_a and not node_b:
            scheduled.append(change)
        elif node_a is None and node_b is not None:  # was bound, or is a pod the what-if created
            pending.append(change)
        elif node_a and node_b and node_a != node_b:
            moved.append(change)
        elif node_a is None and node_b is None and why_a != why_b:
            reasons.append(change)
    owners = {**_owners(baseline.snapshot), **_owners(whatif.snapshot)}
    spread_b, spread_a = _spread(baseline, owners), _spread(whatif, owners)
    workloads = tuple(
        WorkloadSpread(w, dict(sorted(spread_b.get(w, (Counter(),) * 2)[0].items())),
                       dict(sorted(spread_a.get(w, (Counter(),) * 2)[0].items())),
                       dict(sorted(spread_b.get(w, (Counter(),) * 2)[1].items())),
                       dict(sorted(spread_a.get(w, (Counter(),) * 2)[1].items())))
        for w in sorted(set(spread_b) | set(spread_a))
    )
    counts = {
        "scheduled_before": baseline.scheduled, "pending_before": baseline.pending,
        "scheduled_after": whatif.scheduled, "pending_after": whatif.pending,
        "newly_scheduled": len(scheduled), "newly_pending": len(pending), "moved": len(moved),
    }
    return WhatIfDiff(tuple(scheduled), tuple(pending), tuple(moved), tuple(reasons), workloads, counts,
                      _changes([_launch(c) for c in baseline.nodeclaims], [_launch(c) for c in whatif.nodeclaims]),
                      _changes([_action(d) for d in baseline.disruptions], [_action(d) for d in whatif.disruptions]))


def _launch(claim) -> str:
    """A NodeClaim as an operator compares them (its name is made up per run)."""
    launch = claim.launch or {}
    return (f"{claim.nodepool}: {launch.get('instance_type')} {launch.get('capacity_type')} "
            f"in {launch.get('zone')} for {len(claim.pods)} pod(s)")


def _action(disruption) -> str:
    then = ""
    if disruption.replacement is not None:
        then = f" -> {disruption.replacement.instance_type} {disruption.replacement.capacity_type}"
    return f"{disruption.action} {', '.join(disruption.nodes)}{then}"


def _changes(before: list[str], after: list[str]) -> dict:
    b, a = Counter(before), Counter(after)
    return {"before": len(before), "after": len(after),
            "added": sorted((a - b).elements()), "removed": sorted((b - a).elements())}
