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
from functools import cached_property

import numpy as np

from ..consolidate_after import pools_as_read
from ....catalog import Catalog, InstanceType
from ....catalog.pricing import node_price
from ....model import Node, NodeClaim, NodePool, Pod, Snapshot
from ....model.disruption import PodDisruptionBudget
from ....model.selectors import selected_as
from ....model import labels as L
from ..deleting import marked_for_deletion
from ..donotdisrupt import reads_durations
from ..existingnode import BASE, ONE_POD, base_vector
from ....model.fields import parse_duration
from ...state import ClusterState
from .verdicts import BLOCKED, SKIPPED, WAITING, Why, span

DELETION_COST = L.DELETION_COST
NOT_INITIALIZED = "node isn't initialized"  # StateNode.ValidateNodeDisruptable's words
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

    @cached_property
    def need(self) -> np.ndarray:
        """The cpu, memory and pod slots its reschedulable pods take (ExistingPool.free's columns, as
        ExistingPool.settle takes them), added up once: multi-node consolidation's arithmetic check
        asks it of the same candidates for every prefix it probes."""
        total = np.zeros(len(BASE), dtype=np.int64)
        for pod in self.pods:
            total += base_vector(pod.requests + ONE_POD)
        return total


class CandidateFinder:
    """Builds candidates from the cluster as it now stands, noting why other nodes are blocked."""

    def __init__(self, snapshot: Snapshot, catalog: Catalog, now: datetime | None,
                 replacements: set[str], nominated: frozenset[str] = frozenset()) -> None:
        self.snapshot, self.catalog, self.now = snapshot, catalog, now
        self.durations = reads_durations(snapshot)  # a do-not-disrupt duration holds a pod (v1.12+)
        # nodes Karpenter's provisioning just counted on for a pending pod (it nominates them)
        self.nominated = nominated
        self.pools = pools_as_read(snapshot)  # consolidateAfter as the version simulated reads it
        self.replacements = replacements  # nodes launched by earlier commands: not candidates until they settle
        self._allowance: dict[str, int] | None = None
        self._guards: dict[tuple, list] = {}   # (namespace, labels) -> the PDBs guarding such pods
        self.skipped: dict[str, Why] = {}
        # node name -> (its Node, its pods, what find made of them, the cluster state's ``touched``
        # and the node's stamp in it when they were its pods): a pass after a command finds most nodes as they were
        # (the same objects), and answers them again without looking; a node no pod came to or left
        # since (ClusterState.touched) holds the same pods, known without comparing them one by one
        self._seen: dict[str, tuple[Node, NodeClaim | None, tuple[Pod, ...], Why | None, tuple,
                                    np.ndarray, int]] = {}

    def find(self, state: ClusterState, blocked: dict[str, Why]) -> list[Candidate]:
        """The candidates; ``blocked`` gets why Karpenter may not touch the others, :attr:`skipped` the
        Karpenter nodes it does not consider yet (not initialized) or any more (their NodePool gone)."""
        claims = self.snapshot.nodeclaim_by_node
        self.skipped = {}
        if self._allowance is None:
            # what each PDB allows: carrying out a command rebinds every pod it moves, so the
            # healthy counts, and with them the allowances, stay as they are. Pods are counted by
            # label set (a workload's replicas share one) and each set asks its PDBs once: a PDB
            # per workload over every pod was quadratic in the cluster (12 s at 20,000 nodes)
            healthy_by_labels: dict[tuple, list] = {}
            for pods in state.pods:
                for pod in pods:
                    found = healthy_by_labels.setdefault(selected_as(pod), [pod, 0])
                    found[1] += PodDisruptionBudget.healthy(pod)
            healthy: dict[str, int] = {}
            for pod, count in healthy_by_labels.values():
                for pdb in self._guarding(pod) if count else ():
                    healthy[pdb.key] = healthy.get(pdb.key, 0) + count
            self._allowance = {pdb.key: pdb.allowed_with(healthy.get(pdb.key, 0)) for pdb in self.snapshot.pdbs}
        allowance = self._allowance
        out = []
        # per node, the change that last brought or took a pod there; the array stands for the state
        # (each ClusterState has its own, and kept in _seen it keeps no whole state alive)
        touched = state.touched
        stamps = touched.tolist()
        for i, node in enumerate(state.nodes):
            if state.excluded[i] or node.name in self.replacements:
                continue
            pool = self.pools.get(node.nodepool)
            if pool is None:  # not Karpenter's, or its NodePool is gone
                if node.nodepool:
                    self.skipped[node.name] = Why(SKIPPED, "nodepool-gone", "",
                                                  f'its NodePool "{node.nodepool}" is not in the snapshot')
                continue
            claim = claims.get(node.name)
            if node.labels.get(L.NODE_INITIALIZED) != "true" and pool.kind != "Provisioner":
                self.skipped[node.name] = Why(SKIPPED, "not-initialized", NOT_INITIALIZED,
                                              f"no {L.NODE_INITIALIZED} label yet: Karpenter disrupts only "
                                              "initialized nodes")
                continue
            pods = state.pods[i]
            seen = self._seen.get(node.name)
            if seen is None or seen[0] is not node or seen[1] is not claim or \
                    not ((seen[5] is touched and seen[6] == stamps[i]) or _same(seen[2], pods)):
                why = self._blocker(node, claim, pool, pods, allowance)
                seen = self._seen[node.name] = (node, claim, tuple(pods), why,
                                                () if why is not None else self._costs(node, claim, pool, pods),
                                                touched, stamps[i])
            elif seen[5] is not touched or seen[6] != stamps[i]:   # the same pods, found by comparing them
                seen = self._seen[node.name] = (*seen[:5], touched, stamps[i])
            why = seen[3]
            if why is not None:
                blocked[node.name] = why
                continue
            blocked.pop(node.name, None)
            out.append(Candidate(i, node, claim, pool, *seen[4]))
        return out

    def _blocker(self, node: Node, claim: NodeClaim | None, pool: NodePool, pods: list[Pod],
                 allowance: dict[str, int]) -> Why | None:
        """Why the node is no candidate at all, or None (Karpenter's words, then the pod, the PDB,
        the annotation's value)."""
        legacy = pool.kind == "Provisioner"
        if marked_for_deletion(node, claim):  # its NodeClaim being deleted is how Karpenter marks it
            return Why(BLOCKED, "deleting", "node is deleting or marked for deletion")
        if node.name in self.nominated:
            return Why(BLOCKED, "nominated", "node is nominated for a pending pod",
                       "Karpenter's provisioning counts on it for a pod kube-scheduler left pending")
        keys = (L.DO_NOT_DISRUPT,) + ((L.DO_NOT_CONSOLIDATE,) if legacy else ())
        for key in keys:
            if node.annotations.get(key) == "true":
                return Why(BLOCKED, "node-annotation", f'disruption is blocked through the "{key}" annotation',
                           f'the node itself carries {key}: "true"', (("annotation", key), ("value", "true")))
        for pod in pods:
            if pod.blocks_disruption(self.now, legacy, self.durations):
                if legacy:
                    return Why(BLOCKED, "do-not-evict", f"pod {pod.namespace}/{pod.name} has do not evict annotation",
                               f'pod {pod.key} carries {L.DO_NOT_EVICT}: "true"',
                               (("pod", pod.key), ("annotation", L.DO_NOT_EVICT), ("value", "true")))
                return self._do_not_disrupt(pod)
        for pod in pods:
            if pod.is_terminal or pod.deleted is not None or pod.is_mirror:
                continue
            guards = self._guarding(pod)
            if len(guards) > 1:
                names = [g.key for g in guards]
                return Why(BLOCKED, "pdbs", f"eviction does not support multiple PDBs (PodDisruptionBudget(s)={names})",
                           f"pod {pod.key} is guarded by {len(names)} PDBs, and the eviction API refuses such a pod",
                           (("pod", pod.key), ("pdbs", names)))
            if guards and allowance[guards[0].key] == 0 and not guards[0].evicts_regardless(pod):
                pdb = guards[0].key
                guarded = [p.key for p in pods if not p.is_terminal and p.deleted is None and not p.is_mirror
                           and [g.key for g in self._guarding(p)] == [pdb]]
                words = (f"pdb {pdb} prevents pod evictions" if legacy
                         else f"pdb prevents pod evictions (PodDisruptionBudget={pdb})")
                return Why(BLOCKED, "pdb", words,
                           f"it allows 0 disruptions now and guards {_pods(guarded)} on this node",
                           (("pdb", pdb), ("pods", guarded), ("disruptions_allowed", 0)))
        return None

    def guarded(self, pods: list[Pod]) -> list[tuple[str, int, list[str]]]:
        """(PDB, disruptions it allows now, the pods of ``pods`` it guards), for a node Karpenter may
        take although PDBs guard its pods: their evictions then wait on what each PDB allows."""
        found: dict[str, list[str]] = {}
        for pod in pods:
            if not (pod.is_terminal or pod.deleted is not None or pod.is_mirror):
                for pdb in self._guarding(pod):
                    if not pdb.evicts_regardless(pod):
                        found.setdefault(pdb.key, []).append(pod.key)
        return [(key, (self._allowance or {}).get(key, 0), keys) for key, keys in sorted(found.items())]

    def _guarding(self, pod: Pod) -> list:
        """The PDBs that select ``pod``: what they read (namespace and labels) is a workload's
        replicas' alike, so asked once per label set."""
        key = selected_as(pod)
        guards = self._guards.get(key)
        if guards is None:
            guards = self._guards[key] = [pdb for pdb in self.snapshot.pdbs_by_namespace.get(pod.namespace, ()) if pdb.selects(pod)]
        return guards

    def _do_not_disrupt(self, pod: Pod) -> Why:
        """The pod's karpenter.sh/do-not-disrupt, with how long a duration still holds the node."""
        value = pod.annotations.get(L.DO_NOT_DISRUPT, "")
        words = f'pod has "{L.DO_NOT_DISRUPT}" annotation (Pod={pod.key})'
        facts: list[tuple[str, object]] = [("pod", pod.key), ("annotation", L.DO_NOT_DISRUPT), ("value", value)]
        detail = 'set to "true": it holds the node until the annotation goes'
        if value != "true":
            detail = f'set to "{value}", a duration'
            seconds = parse_duration(value, L.DO_NOT_DISRUPT)  # blocks_disruption said it is one
            since = pod.started or pod.created
            facts.append(("duration_seconds", seconds))
            if seconds and since is not None and self.now is not None:
                left = seconds - (self.now - since).total_seconds()
                facts.append(("remaining_seconds", round(left, 3)))
                detail += f": it holds the node {span(left)} more (until the pod has run that long)"
        return Why(BLOCKED, "do-not-disrupt", words, detail, tuple(facts))

    def _costs(self, node: Node, claim: NodeClaim | None, pool: NodePool, pods: list[Pod]) -> tuple:
        """A candidate's instance type, price, reschedulable pods and the costs of moving them."""
        itype = self.catalog.get(node.instance_type) if node.instance_type else None
        price = node_price(node, self.catalog) if itype is not None else None
        moving = reschedulable(pods)
        reschedule = NODE_BASE_COST + sum(max(0.0, eviction_cost(p)) for p in moving)
        active = [p for p in pods if not p.is_terminal and p.deleted is None]
        cost = sum(eviction_cost(p) for p in active) * self._lifetime_left(node, claim, pool)
        return (itype, price if price is not None and not math.isnan(price) else 0.0, moving, reschedule, cost)

    def _lifetime_left(self, node: Node, claim: NodeClaim | None, pool: NodePool) -> float:
        expiry = claim.expire_after if claim is not None and claim.expire_after else pool.expire_after
        created = (claim.created if claim is not None else None) or node.created
        if not expiry or created is None or self.now is None:
            return 1.0
        return min(1.0, max(0.0, (expiry - (self.now - created).total_seconds()) / expiry))

    def settled_for(self, candidate: Candidate, state: ClusterState) -> float | None:
        """Seconds since the node's pods last changed, as Karpenter's ``IsUnderConsolidateAfter`` reads
        it: the NodeClaim's lastPodEventTime, else when it was initialized (its Initialized condition's
        lastTransitionTime: "when Karpenter recognizes that pods could have started scheduling"); a
        snapshot with neither stamp falls back to its newest pod or the node itself."""
        if self.now is None:
            return None
        claim = candidate.claim
        if claim is not None and claim.last_pod_event is not None:
            return (self.now - claim.last_pod_event).total_seconds()
        if claim is not None and claim.initialized and "Initialized" in claim.condition_since:
            return (self.now - claim.condition_since["Initialized"]).total_seconds()
        pods = state.pods[candidate.index]
        stamps = [p.created for p in pods if p.created] + ([candidate.node.created] if candidate.node.created else [])
        if not stamps:
            return None
        return (self.now - max(stamps)).total_seconds()

    def under_consolidate_after(self, candidate: Candidate, state: ClusterState) -> Why | None:
        """Why the node is still within its NodePool's consolidateAfter by the clock (Karpenter's
        ``IsUnderConsolidateAfter``: a set, non-zero consolidateAfter not yet run out since the pods last
        changed), else None. The one rule both for a candidate whose Consolidatable condition is not read
        and for a consolidation's destinations (from v1.14, kubernetes-sigs/karpenter#3006), which
        upstream reads from the clock even where the condition says otherwise."""
        after = candidate.pool.consolidate_after
        if not after or (candidate.claim is not None and not candidate.claim.initialized):
            return None
        settled = self.settled_for(candidate, state)
        if settled is not None and settled < after:
            return Why(WAITING, "consolidate-after",
                       f"not consolidatable yet: consolidateAfter is {after:g}s and the node's "
                       f"pods last changed {settled:g}s before the snapshot", f"{span(after - settled)} to go",
                       (("consolidate_after_seconds", after), ("settled_seconds", settled),
                        ("remaining_seconds", round(after - settled, 3))))
        return None

    def consolidatable(self, candidate: Candidate, state: ClusterState) -> Why | None:
        """None when consolidateAfter has passed (the NodeClaim's Consolidatable condition, where the
        snapshot has it and no lastPodEventTime to work it out from), else why not and how long to go."""
        claim = candidate.claim
        if claim is not None and claim.last_pod_event is None and "Consolidatable" in claim.conditions:
            if claim.conditions["Consolidatable"] == "True":
                return None
            return Why(WAITING, "consolidate-after", "not consolidatable yet",
                       "the NodeClaim's Consolidatable condition is not True",
                       (("consolidate_after_seconds", candidate.pool.consolidate_after),))
        return self.under_consolidate_after(candidate, state)


def _same(before: tuple[Pod, ...], now: list[Pod]) -> bool:
    return len(before) == len(now) and all(a is b for a, b in zip(before, now))


def _pods(keys: list[str], shown: int = 5) -> str:
    more = f" and {len(keys) - shown} more" if len(keys) > shown else ""
    return f"pod{'s' if len(keys) != 1 else ''} {', '.join(keys[:shown])}{more}"
