"""Node repair: which nodes Karpenter finds unhealthy, when it may act on them, and how each release does.

A node is unhealthy when one of its conditions matches one of the cloud provider's repair policies
(type and status, :mod:`karptui.catalog.repairpolicies`); Karpenter acts once the condition has held
for the policy's toleration (from its ``lastTransitionTime``). With several matching, the one whose
toleration ends first counts (core ``pkg/controllers/node/health/controller.go``,
``findUnhealthyConditions``, the same at v1.9.1, v1.14.1 and ``main``).

How Karpenter acts depends on the release (:func:`repair_mode`), and only with the ``NodeRepair``
feature gate (default off on every line):

* **legacy** (v1.9, v1.14, and v1.15 with ``--legacy-node-repair``): the ``node.health`` controller
  deletes the unhealthy node's NodeClaim at once, whatever the NodePool's disruption budgets, a
  ``karpenter.sh/do-not-disrupt`` annotation or a PDB say (its termination grace is cut to now); no
  replacement is launched first, the pods wait for provisioning.
* **voluntary** (v1.15): repair is the first disruption method, before drift and consolidation. It
  takes one candidate at a time, oldest past its toleration first, under the NodePool's disruption
  budgets for reason ``Unhealthy``, and replaces the node before terminating it, like drift. Sources:
  kubernetes-sigs/karpenter#3311 (``pkg/controllers/disruption/repair.go`` in its review threads),
  the RFC ``designs/making-node-repair-voluntary.md`` (#3192) and karpenter.sh's v1.15 disruption
  page ("first doing Node Repair (when enabled), then Drift, then Consolidation"); v1.15's tag could
  not be fetched, and #3311 was still open on the newest ``main`` (2026-08-20) karptui could read.

Both keep the guard of the original controller: no repair in a NodePool where more than 20% of the
nodes (rounded up, as a PDB's percentage) are unhealthy, counting every node whose condition matches a
policy however long it has; a node outside any NodePool is weighed against the whole cluster.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from ...catalog.repairpolicies import RepairPolicy
from ...model import labels as L
from .settings import karpenter_settings
from .versions import V1_15, karpenter_version

OFF, LEGACY, VOLUNTARY = "off", "legacy", "voluntary"
UNHEALTHY_THRESHOLD_PERCENT = 20   # allowedUnhealthyPercent (node.health), repairUnhealthyThreshold (#3311)
DO_NOT_REPAIR = "karpenter.sh/do-not-repair"   # the node-level veto #3311 names (RFC #3277)


def repair_mode(snapshot, gates) -> str:
    """How the release simulated repairs nodes: :data:`OFF` without the NodeRepair gate, else
    :data:`LEGACY` or :data:`VOLUNTARY` (the module's docstring)."""
    if gates is None or not gates.NodeRepair:
        return OFF
    if karpenter_version(snapshot) < V1_15 or karpenter_settings(snapshot).legacy_node_repair:
        return LEGACY
    return VOLUNTARY


@dataclass(frozen=True, slots=True)
class Unhealthy:
    """The condition that makes a node unhealthy, since when, and the policy's toleration."""

    condition: str
    status: str
    since: datetime | None          # its lastTransitionTime (None: not recorded, read as long ago)
    toleration_seconds: float

    def remaining(self, now: datetime | None) -> float:
        """Seconds until the toleration ends (<= 0: repair may act now)."""
        if self.since is None:   # Go's zero time: the toleration ended long ago
            return -math.inf
        if now is None:          # no time to ask at: not yet, the stricter answer
            return self.toleration_seconds
        return self.toleration_seconds - (now - self.since).total_seconds()

    def past(self, now: datetime | None) -> float:
        """Seconds since the toleration ended (what v1.15 orders candidates by: the oldest first)."""
        return -self.remaining(now) if self.since is not None else math.inf

    @property
    def words(self) -> str:
        return f"{self.condition}={self.status}"

    def facts(self, now: datetime | None) -> tuple[tuple[str, object], ...]:
        return (("condition", self.condition), ("status", self.status),
                ("toleration_seconds", self.toleration_seconds),
                ("remaining_seconds", round(max(0.0, self.remaining(now)), 3)))


def matching(node, policies: Iterable[RepairPolicy]) -> list[RepairPolicy]:
    """The policies whose condition the node shows with their status."""
    return [p for p in policies if node.conditions.get(p.condition_type) == p.condition_status]


def unhealthy(node, policies: Iterable[RepairPolicy]) -> Unhealthy | None:
    """The node's unhealthy condition whose toleration ends first, or None when it is healthy."""
    best: tuple | None = None
    for policy in matching(node, policies):
        since = node.condition_since.get(policy.condition_type)
        ends = since.timestamp() + policy.toleration_seconds if since is not None else -math.inf
        if best is None or ends < best[0]:
            best = (ends, Unhealthy(policy.condition_type, policy.condition_status, since, policy.toleration_seconds))
    return best[1] if best is not None else None


def threshold(nodes: int) -> int:
    """How many of ``nodes`` may be unhealthy before repair stops: 20%, rounded up."""
    return math.ceil(UNHEALTHY_THRESHOLD_PERCENT * nodes / 100)


@dataclass(frozen=True, slots=True)
class Health:
    """A NodePool's nodes (or the cluster's, for ``scope == ""``) and how many are unhealthy."""

    scope: str
    nodes: int
    unhealthy: int

    @property
    def over(self) -> bool:
        return self.unhealthy > threshold(self.nodes)

    @property
    def words(self) -> str:
        where = f'NodePool "{self.scope}"' if self.scope else "the cluster"
        return (f"{self.unhealthy} of {where}'s {self.nodes} nodes are unhealthy, more than "
                f"{UNHEALTHY_THRESHOLD_PERCENT}% ({threshold(self.nodes)})")

    def facts(self) -> tuple[tuple[str, object], ...]:
        return (("unhealthy_nodes", self.unhealthy), ("nodes", self.nodes),
                ("threshold_percent", UNHEALTHY_THRESHOLD_PERCENT), ("threshold_nodes", threshold(self.nodes)))


def health(nodes: Iterable, policies: Iterable[RepairPolicy]) -> dict[str, Health]:
    """Per NodePool (by name) and for the cluster (key ``""``): nodes and unhealthy nodes, as the
    controller lists them (every Node carrying the NodePool label, whatever its state)."""
    policies = tuple(policies)
    counts: dict[str, list[int]] = {"": [0, 0]}
    for node in nodes:
        bad = bool(matching(node, policies))
        for scope in {"", node.labels.get(L.NODEPOOL, "")}:
            entry = counts.setdefault(scope, [0, 0])
            entry[0] += 1
            entry[1] += bad
    return {scope: Health(scope, n, bad) for scope, (n, bad) in counts.items()}


def scope_of(node) -> str:
    """Which count guards the node: its NodePool's, or the cluster's for a node outside any."""
    return node.labels.get(L.NODEPOOL, "")
