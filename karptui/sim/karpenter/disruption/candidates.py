"""Which nodes Karpenter may disrupt, and what disrupting each would cost and save.

A candidate is an initialized node Karpenter launched (it has a NodeClaim and
a NodePool that still exists), not already being deleted, whose node carries
no ``karpenter.sh/do-not-disrupt`` annotation and whose pods may all be
evicted: none has an active do-not-disrupt annotation and no
PodDisruptionBudget guarding one of them allows zero disruptions (a pod two
PDBs guard cannot be evicted at all). The rest are reported as blocked, with
Karpenter's reason. Follows Karpenter's ``NewCandidate`` and the StateNode
validations.

Each candidate knows its price (its own offering), its reschedulable pods
(not DaemonSet or static pods, not finished) and the cost of moving them:
1 + the pods' eviction costs (pod deletion cost and priority). Consolidation
tries the candidates with the best savings per cost first; a node whose pods
cost nothing to move counts as empty.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime

from ....catalog import Catalog, InstanceType
from ....catalog.pricing import node_price
from ....model import Node, NodeClaim, NodePool, Pod, Snapshot
from ....model import labels as L
from ...state import ClusterState

DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"
NODE_BASE_COST = 1.0


def eviction_cost(pod: Pod) -> float:
    """Karpenter's EvictionCost: 1, plus the pod deletion cost / 2^27 and priority / 2^25, within ±10."""
    cost = 1.0
    raw = pod.annotations.get(DELETION_COST)
    if raw is not None:
        try:
            cost += float(raw) / 2**27
        except ValueError:
            pass
    cost += pod.priority / 2**25
    return min(10.0, max(-10.0, cost))


def reschedulable(pods) -> list[Pod]:
    """Pods that need a new home when their node goes (Karpenter's IsReschedulable)."""
    return [p for p in pods if not p.is_daemonset_pod and not p.is_mirror and not p.is_terminal
            and (p.deleted is None or p.owner_kind == "StatefulSet")]


@dataclass
class Candidate:
    index: int                      # the node's position in ClusterState.nodes
    node: Node
    claim: NodeClaim | None
    pool: NodePool
    instance_type: InstanceType | None
    price: float
    pods: list[Pod] = field(default_factory=list)          # reschedulable pods
    reschedule_cost: float = NODE_BASE_COST
    disruption_cost: float = 0.0

    @property
    def name(self) -> str:
        return self.node.name

    @property
    def capacity_type(self) -> str:
        return self.node.labels.get(L.CAPACITY_TYPE, "")

    @property
    def empty(self) -> bool:
        return self.reschedule_cost <= NODE_BASE_COST

    @property
    def savings_ratio(self) -> float:
        return self.price / self.reschedule_cost

    @property
    def legacy(self) -> bool:
        return self.pool.kind == "Provisioner"


class CandidateFinder:
    """Builds candidates from the cluster as it now stands, noting why other nodes are blocked."""

    def __init__(self, snapshot: Snapshot, catalog: Catalog, now: datetime | None,
                 replacements: set[str]) -> None:
        self.snapshot, self.catalog, self.now = snapshot, catalog, now
        self.pools = {p.name: p for p in snapshot.nodepools}
        self.replacements = replacements  # nodes launched by earlier commands: not candidates until they settle
        self._allowance: dict[str, int] | None = None
        self._guards: dict[str, list] = {}   # pod key -> the PDBs guarding it (labels do not change)
        self._pdbs: dict[str, list] = {}
        for pdb in snapshot.pdbs:
            self._pdbs.setdefault(pdb.namespace, []).append(pdb)

    def find(self, state: ClusterState, blocked: dict[str, str]) -> list[Candidate]:
        claims = self.snapshot.nodeclaim_by_node
        if self._allowance is None:
            # what each PDB allows: carrying out a command rebinds every pod it moves, so the
            # healthy counts, and with them the allowances, stay as they are
            by_namespace: dict[str, list[Pod]] = {}
            for pods in state.pods:
                for pod in pods:
                    by_namespace.setdefault(pod.namespace, []).append(pod)
            self._allowance = {pdb.key: pdb.allowed(by_namespace.get(pdb.namespace, ())) for pdb in self.snapshot.pdbs}
        allowance = self._allowance
        out = []
        for i, node in enumerate(state.nodes):
            if state.excluded[i] or node.name in self.replacements:
                continue
            pool = self.pools.get(node.nodepool)
            if pool is None:
                continue  # not Karpenter's, or its NodePool is gone
            claim = claims.get(node.name)
            if node.labels.get(L.NODE_INITIALIZED) != "true" and pool.kind != "Provisioner":
                continue  # not initialized yet
            why = self._blocker(node, pool, state.pods[i], allowance)
            if why:
                blocked[node.name] = why
                continue
            blocked.pop(node.name, None)
            out.append(self._candidate(i, node, claim, pool, state.pods[i]))
        return out

    def _blocker(self, node: Node, pool: NodePool, pods: list[Pod], allowance: dict[str, int]) -> str | None:
        legacy = pool.kind == "Provisioner"
        if node.deleted is not None:
            return "node is deleting or marked for deletion"
        keys = (L.DO_NOT_DISRUPT,) + ((L.DO_NOT_CONSOLIDATE,) if legacy else ())
        for key in keys:
            if node.annotations.get(key) == "true":
                return f'disruption is blocked through the "{key}" annotation'
        for pod in pods:
            if pod.blocks_disruption(self.now, legacy):
                if legacy:
                    return f"pod {pod.namespace}/{pod.name} has do not evict annotation"
                return f'pod has "karpenter.sh/do-not-disrupt" annotation (Pod={pod.key})'
        for pod in pods:
            if pod.is_terminal or pod.deleted is not None or pod.is_mirror:
                continue
            guards = self._guards.get(pod.key)
            if guards is None:
                guards = self._guards[pod.key] = [pdb for pdb in self._pdbs.get(pod.namespace, ()) if pdb.selects(pod)]
            if len(guards) > 1:
                return f"eviction does not support multiple PDBs (PodDisruptionBudget(s)={[g.key for g in guards]})"
            if guards and allowance[guards[0].key] == 0:
                if legacy:
                    return f"pdb {guards[0].key} prevents pod evictions"
                return f"pdb prevents pod evictions (PodDisruptionBudget={guards[0].key})"
        return None

    def _candidate(self, i: int, node: Node, claim: NodeClaim | None, pool: NodePool, pods: list[Pod]) -> Candidate:
        itype = self.catalog.get(node.instance_type) if node.instance_type else None
        price = node_price(node, self.catalog) if itype is not None else None
        moving = reschedulable(pods)
        reschedule = NODE_BASE_COST + sum(max(0.0, eviction_cost(p)) for p in moving)
        active = [p for p in pods if not p.is_terminal and p.deleted is None]
        cost = sum(eviction_cost(p) for p in active) * self._lifetime_left(node, claim, pool)
        return Candidate(i, node, claim, pool, itype, price if price is not None and not math.isnan(price) else 0.0,
                         moving, reschedule, cost)

    def _lifetime_left(self, node: Node, claim: NodeClaim | None, pool: NodePool) -> float:
        expiry = claim.expire_after if claim is not None and claim.expire_after else pool.expire_after
        created = (claim.created if claim is not None else None) or node.created
        if not expiry or created is None or self.now is None:
            return 1.0
        return min(1.0, max(0.0, (expiry - (self.now - created).total_seconds()) / expiry))

    def settled_for(self, candidate: Candidate, state: ClusterState) -> float | None:
        """Seconds since the node's pods last changed: the NodeClaim's lastPodEventTime, else its
        newest pod or the node itself."""
        if self.now is not None and candidate.claim is not None and candidate.claim.last_pod_event is not None:
            return (self.now - candidate.claim.last_pod_event).total_seconds()
        pods = state.pods[candidate.index]
        stamps = [p.created for p in pods if p.created] + ([candidate.node.created] if candidate.node.created else [])
        if not stamps or self.now is None:
            return None
        return (self.now - max(stamps)).total_seconds()

    def consolidatable(self, candidate: Candidate, state: ClusterState) -> str | None:
        """None when consolidateAfter has passed (the NodeClaim's Consolidatable condition), else why not."""
        claim = candidate.claim
        if claim is not None and claim.last_pod_event is None and "Consolidatable" in claim.conditions:
            return None if claim.conditions["Consolidatable"] == "True" else "not consolidatable yet"
        after = candidate.pool.consolidate_after
        settled = self.settled_for(candidate, state)
        if after and settled is not None and settled < after:
            return (f"not consolidatable yet: consolidateAfter is {after:g}s and the node's "
                    f"pods last changed {settled:g}s before the snapshot")
        return None
