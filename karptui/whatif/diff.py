"""A what-if's result against the baseline: what an operator looks for first.

Pods are compared by key. A pod only the what-if has was **added** by an edit (a scale up, a
rollout's new ReplicaSet, a DaemonSet's pod for a new node); one only the baseline has was
**removed** (a scale down, a rollout's old pods). Of the pods both have, **moved** ones are on
another node -- only a pod its controller deleted and re-created under the same name (a
StatefulSet's ordinal, an evicted pod) can be: a scale never moves a running pod. Pods pending
in both runs for the same reason are only counted (``still_pending``): the edit did not touch
them. Per-workload counts (by zone and by node) compare whatever the names. A workload is the
pod's top owner (Deployment, StatefulSet, ...).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from weakref import WeakKeyDictionary

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
    added: tuple[PodChange, ...] = ()       # pods the edits created: before "", after a node or None
    removed: tuple[PodChange, ...] = ()     # pods the edits deleted: after ""
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
            "added": [change(c) for c in self.added],
            "removed": [change(c) for c in self.removed],
            "nodeclaims": self.nodeclaims,
            "disruptions": self.disruptions,
            "workloads": [
                {"workload": w.workload, "zones_before": w.zones_before, "zones_after": w.zones_after,
                 "nodes_before": w.nodes_before, "nodes_after": w.nodes_after}
                for w in self.workloads if w.changed
            ],
        }


# Per baseline, kept while the result lives: the what-if panel compares many runs with one.
_OUTCOMES: WeakKeyDictionary = WeakKeyDictionary()
_SPREADS: WeakKeyDictionary = WeakKeyDictionary()

Spread = dict[str, tuple[Counter, Counter]]   # workload -> (pods per zone, pods per node)


class _Outcomes:
    """Where a run left every pod it knows: its placements as the run keeps them (not copied: a
    map of 50,000 pairs made afresh per run was a fifth of a what-if's diff) and its pending pods
    with their reasons (a pending pod's attempt wins over a placement)."""

    __slots__ = ("placed", "pending")

    def __init__(self, result: SimResult) -> None:
        self.placed = result.placements
        self.pending = {a.pod.key: a.reason for a in result.attempts if not a.scheduled}

    def __contains__(self, key: str) -> bool:
        return key in self.pending or key in self.placed

    def __getitem__(self, key: str) -> tuple[str | None, str | None]:
        if key in self.pending:
            return None, self.pending[key]
        return self.placed[key], None

    def differing(self, other: _Outcomes) -> set[str]:
        """The pods whose outcome is not the same in both (only these can have changed)."""
        keys = {key for key, _ in self.placed.items() ^ other.placed.items()}
        keys.update(key for key, _ in self.pending.items() ^ other.pending.items())
        return keys

    def still_pending(self, before: _Outcomes) -> int:
        """Pods pending in both runs for the same reason (:func:`same_reason`)."""
        return sum(1 for key, why in self.pending.items()
                   if key in before.pending and same_reason(before.pending[key], why))


_COUNT = re.compile(r"\d+")


def same_reason(before: str | None, after: str | None) -> bool:
    """Two reasons that differ only in their counts are the same reason: a node removed or added
    turns every pending pod's "0/5000 nodes are available: 4825 node(s) didn't match ..." into
    "0/4999 ...", which is not news about that pod."""
    if before == after:
        return True
    if before is None or after is None:
        return False
    return _COUNT.sub("#", before) == _COUNT.sub("#", after)


def _kept(cache: WeakKeyDictionary, result: SimResult, build):
    found = cache.get(result)
    if found is None:
        found = cache[result] = build(result)
    return found


def _owner(snapshot: Snapshot, key: str) -> str:
    pod = snapshot.pod_by_key.get(key)
    top = snapshot.top_owner(pod) if pod is not None else None
    return top.ref if top else f"Pod/{key}"


def _zones(result: SimResult) -> dict[str, str]:
    zones_of = {n.name: n.zone or NO_ZONE for n in result.snapshot.nodes}
    zones_of.update({c.name: (c.launch or {}).get("zone") or NO_ZONE for c in result.nodeclaims})
    return zones_of


def _add(spread: Spread, result: SimResult, placed, sign: int) -> None:
    zones_of = _zones(result)
    for key, node in placed:
        zones, nodes = spread.setdefault(_owner(result.snapshot, key), (Counter(), Counter()))
        zones[zones_of.get(node, NO_ZONE)] += sign
        nodes[node] += sign


def _spread(result: SimResult) -> Spread:
    spread: Spread = {}
    _add(spread, result, result.placements.items(), +1)
    return spread


def _spread_after(baseline: SimResult, whatif: SimResult) -> tuple[Spread, set[str]]:
    """The what-if's spread as the baseline's with what moved taken out and put back.

    NodeClaim names are made up per run, so pods on them always count as moved.
    Returns the spread and the workloads it touched.
    """
    before, after = baseline.placements.items(), whatif.placements.items()
    claims = {c.name for c in baseline.nodeclaims} | {c.name for c in whatif.nodeclaims}
    gone = [(k, n) for k, n in before - after] + [(k, n) for k, n in before if n in claims]
    came = [(k, n) for k, n in after - before] + [(k, n) for k, n in after if n in claims]
    delta: Spread = {}
    _add(delta, baseline, set(gone), -1)
    _add(delta, whatif, set(came), +1)
    spread = dict(_kept(_SPREADS, baseline, _spread))
    for workload, (zones, nodes) in delta.items():
        old_zones, old_nodes = spread.get(workload, (Counter(), Counter()))
        spread[workload] = (_sum(old_zones, zones), _sum(old_nodes, nodes))
    return spread, set(delta)


def _sum(a: Counter, b: Counter) -> Counter:
    """a + b, negative changes included, zero counts dropped."""
    out = Counter(a)
    for k, v in b.items():
        out[k] += v
    return Counter({k: v for k, v in out.items() if v})


def prepare_baseline(baseline: SimResult) -> None:
    """Work out what every comparison with ``baseline`` needs, ahead of the first one."""
    _kept(_OUTCOMES, baseline, _Outcomes)
    _kept(_SPREADS, baseline, _spread)


def diff(baseline: SimResult, whatif: SimResult) -> WhatIfDiff:
    before, after = _kept(_OUTCOMES, baseline, _Outcomes), _Outcomes(whatif)
    scheduled, pending, moved, reasons, added, removed = [], [], [], [], [], []
    claims_b, claims_a = {c.name for c in baseline.nodeclaims}, {c.name for c in whatif.nodeclaims}
    differing = before.differing(after)
    for key in sorted(differing):
        if key not in before:
            node_a, why_a = after[key]
            added.append(PodChange(key, "", node_a, None, why_a))
            continue
        if key not in after:
            node_b, why_b = before[key]
            removed.append(PodChange(key, node_b, "", why_b, None))
            continue
        (node_b, why_b), (node_a, why_a) = before[key], after[key]
        change = PodChange(key, node_b, node_a, why_b, why_a)
        if node_a and not node_b:
            scheduled.append(change)
        elif node_a is None and node_b:
            pending.append(change)
        elif node_a and node_b and node_a != node_b and not (node_b in claims_b and node_a in claims_a):
            moved.append(change)   # (NodeClaim names are made up per run: new capacity in both is no move)
        elif node_a is None and node_b is None and not same_reason(why_b, why_a):
            reasons.append(change)
    still = after.still_pending(before)
    spread_b = _kept(_SPREADS, baseline, _spread)
    spread_a, touched = _spread_after(baseline, whatif)
    empty = (Counter(), Counter())
    workloads = tuple(
        WorkloadSpread(w, *_sorted_counts(spread_b.get(w, empty), spread_a.get(w, empty)))
        if w in touched else _unchanged(w, spread_b[w])
        for w in sorted(set(spread_b) | set(spread_a))
    )
    counts = {
        "scheduled_before": baseline.scheduled, "pending_before": baseline.pending,
        "scheduled_after": whatif.scheduled, "pending_after": whatif.pending,
        "newly_scheduled": len(scheduled), "newly_pending": len(pending), "moved": len(moved),
        "added": len(added), "added_scheduled": sum(1 for c in added if c.after),
        "added_pending": sum(1 for c in added if c.after is None), "removed": len(removed),
        "reason_changed": len(reasons), "still_pending": still,
    }
    return WhatIfDiff(tuple(scheduled), tuple(pending), tuple(moved), tuple(reasons), tuple(added), tuple(removed),
                      workloads, counts,
                      _changes([launch_words(c) for c in baseline.nodeclaims], [launch_words(c) for c in whatif.nodeclaims]),
                      _changes([_action(d) for d in baseline.disruptions], [_action(d) for d in whatif.disruptions]))


def _sorted_counts(before: tuple[Counter, Counter], after: tuple[Counter, Counter]) -> tuple[dict, ...]:
    return (dict(sorted(before[0].items())), dict(sorted(after[0].items())),
            dict(sorted(before[1].items())), dict(sorted(after[1].items())))


def _unchanged(workload: str, counts: tuple[Counter, Counter]) -> WorkloadSpread:
    zones, nodes = dict(sorted(counts[0].items())), dict(sorted(counts[1].items()))
    return WorkloadSpread(workload, zones, zones, nodes, nodes)


def launch_words(claim) -> str:
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
