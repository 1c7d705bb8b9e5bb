"""Karpenter consolidation: which nodes it would delete or replace, and what blocks the rest.

Follows Karpenter's disruption controller: Emptiness (delete empty nodes), then
multi-node consolidation (the longest prefix of candidates, cheapest to
disrupt first, whose pods fit on the rest of the cluster plus at most one
cheaper node), then single-node consolidation (delete, or replace with one
cheaper node). One command at a time; the cluster is updated and the search
starts again. A replacement must be cheaper than what it removes; a spot node
is only ever deleted unless SpotToSpotConsolidation is on (and then needs 15
cheaper instance types). Pods already pending before consolidation are left
out of its simulation.
"""

from __future__ import annotations

import bisect
import itertools
import math
from dataclasses import dataclass, replace

import numpy as np

from ...catalog import Catalog, node_manifest
from ...catalog.pricing import node_price
from ...model.node import build_node
from ...model import Node, NodePool, Pod, Snapshot
from ...model.resources import CPU, MEMORY
from ...model.nodepool import WHEN_EMPTY_OR_UNDERUTILIZED
from ..cycle import PodCycle
from ..framework import run_filters
from ..state import ClusterState
from .launch import Launch
from .provision import Provisioner
from .templates import offering_ok, templates

MIN_SPOT_TO_SPOT_TYPES = 15
MAX_PARALLEL = 100
MAX_COMMANDS = 200
DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"


@dataclass(frozen=True)
class Disruption:
    action: str                       # "delete" or "replace"
    reason: str                       # "empty" or "underutilized"
    nodes: tuple[str, ...]
    pods: int
    replacement: Launch | None
    replacement_types: tuple[str, ...]
    savings: float
    method: str = "consolidation"


@dataclass(frozen=True)
class Blocked:
    node: str
    reason: str


def reschedulable(pods) -> list[Pod]:
    return [p for p in pods if not p.is_daemonset_pod and not p.is_mirror and not p.is_terminal]


def eviction_cost(pod: Pod) -> float:
    try:
        deletion = float(pod.annotations.get(DELETION_COST, 0))
    except ValueError:
        deletion = 0.0
    return min(10.0, max(-10.0, 1 + deletion / 2**27 + pod.priority / 2**25))


def pdb_allowed(pdb, pods: list[Pod]) -> int:
    """disruptionsAllowed for ``pdb`` given the pods of its namespace (or all pods)."""
    return _pdb_allowed(pdb, [p for p in pods if p.namespace == pdb.namespace])


def _pdb_allowed(pdb, pods: list[Pod]) -> int:
    """disruptionsAllowed from the spec and the bound pods now (so a what-if on the PDB counts).

    Every bound, non-terminal pod counts as healthy: a simulation binds pods
    it places, and a snapshot says nothing more about readiness than its phase.
    """
    selected = [p for p in pods if p.namespace == pdb.namespace and pdb.selector is not None
                and not pdb.selector.is_empty and pdb.selector.matches(p.labels) and not p.is_terminal]
    healthy = len(selected)

    def scaled(value: str, of: int, up: bool) -> int:
        if value.endswith("%"):
            share = int(value[:-1]) * of / 100
            return math.ceil(share) if up else math.floor(share)
        return int(value)

    if pdb.min_available is not None:
        desired = scaled(pdb.min_available, healthy, True)
    elif pdb.max_unavailable is not None:
        desired = healthy - scaled(pdb.max_unavailable, healthy, True)
    else:
        return pdb.disruptions_allowed if pdb.disruptions_allowed is not None else 1
    return max(0, healthy - desired)


def _budget_reason(reason: str) -> str:
    return f"No allowed disruptions for disruption reason {reason.capitalize()} due to blocking budget"


class Consolidator:
    def __init__(self, snapshot: Snapshot, catalog: Catalog, spot_to_spot: bool = False,
                 max_commands: int = MAX_COMMANDS) -> None:
        self.max_commands = max_commands
        self.snapshot = snapshot
        self.catalog = catalog
        self.spot_to_spot = spot_to_spot
        self.pools = {p.name: p for p in snapshot.nodepools}
        self.templates = templates(snapshot, catalog)
        self.launched: set[str] = set()
        self._by_price = None
        self.now = snapshot.meta.captured_at or max((p.created for p in snapshot.pods if p.created), default=None)

    # ---- candidates -------------------------------------------------------------------
    def _legacy(self, pool: NodePool) -> bool:
        return pool.kind == "Provisioner"

    def blocker(self, node: Node, pods: list[Pod], allowance: dict[str, int]) -> str | None:
        pool = self.pools[node.nodepool]
        legacy = self._legacy(pool)
        if node.deleted is not None:
            return "node is deleting or marked for deletion"
        for key in ("karpenter.sh/do-not-disrupt",) + (("karpenter.sh/do-not-consolidate",) if legacy else ()):
            if node.annotations.get(key) == "true":
                return f'disruption is blocked through the "{key}" annotation'
        for pod in pods:
            if pod.is_terminal or pod.deleted is not None:
                continue
            if legacy and pod.annotations.get("karpenter.sh/do-not-evict") == "true":
                return f"pod {pod.namespace}/{pod.name} has do not evict annotation"
            if not legacy and pod.annotations.get("karpenter.sh/do-not-disrupt") == "true":
                return f'pod has "karpenter.sh/do-not-disrupt" annotation (Pod={pod.key})'
        movable = reschedulable(pods)
        for pdb in self.snapshot.pdbs:
            if allowance[pdb.key] != 0:
                continue
            covered = [p for p in movable if p.namespace == pdb.namespace and pdb.selector is not None
                       and not pdb.selector.is_empty and pdb.selector.matches(p.labels)]
            if covered:
                if legacy:
                    return f"pdb {pdb.key} prevents pod evictions"
                return f"pdb prevents pod evictions (PodDisruptionBudget={pdb.key})"
        if node.instance_type and self.catalog.get(node.instance_type) is None:
            return f'Instance Type "{node.instance_type}" not found'
        owner = "Provisioner" if legacy else "NodePool"
        if pool.consolidation_policy is None or pool.consolidate_after is None:
            return f'{owner} "{pool.name}" has consolidation disabled'
        if pool.consolidation_policy != WHEN_EMPTY_OR_UNDERUTILIZED and movable:
            return f'{owner} "{pool.name}" has non-empty consolidation disabled'
        settled = self._since_last_change(node, pods)
        if settled is not None and settled < pool.consolidate_after:
            return (f"not consolidatable yet: consolidateAfter is {pool.consolidate_after:g}s and the node's "
                    f"pods last changed {settled:g}s before the snapshot")
        return None

    def _since_last_change(self, node: Node, pods: list[Pod]) -> float | None:
        """Seconds from the newest pod (or the node itself) to the capture time, as a stand-in
        for the NodeClaim's lastPodEventTime."""
        stamps = [p.created for p in pods if p.created] + ([node.created] if node.created else [])
        if not stamps or self.now is None:
            return None
        return (self.now - max(stamps)).total_seconds()

    def disruption_cost(self, node: Node, pods: list[Pod]) -> float:
        cost = sum(eviction_cost(p) for p in pods)
        expiry = self.pools[node.nodepool].expire_after
        if expiry and node.created is not None and self.now is not None:
            age = (self.now - node.created).total_seconds()
            cost *= min(1.0, max(0.0, (expiry - age) / expiry))
        return cost

    def budgets(self, state: ClusterState, reason: str) -> dict[str, int]:
        allowed = {}
        for name, pool in self.pools.items():
            count = sum(1 for i, n in enumerate(state.nodes) if n.nodepool == name and not state.excluded[i])
            limits = []
            for budget in pool.budgets:
                if budget.reasons and reason not in budget.reasons:
                    continue
                text = budget.nodes.strip()
                limits.append(math.ceil(int(text[:-1]) * count / 100) if text.endswith("%") else int(text))
            allowed[name] = min(limits) if limits else 1_000_000
        return allowed

    # ---- simulation -----------------------------------------------------------------------
    def _simulate(self, state: ClusterState, indices: list[int]):
        """Where the candidates' pods would go without them: (fits, new claims, placed)."""
        moved = [(pod, i) for i in indices for pod in list(state.pods[i])]
        for pod, i in moved:
            state.evict(pod, i)
        state.excluded[indices] = True
        placed, leftover = [], []
        cache = state.shared("template-masks", dict)  # node masks per template: the nodes do not change
        try:
            for bound, _ in moved:
                if bound.is_daemonset_pod or bound.is_mirror or bound.is_terminal:
                    continue
                pod = replace(bound, node_name="")  # evicted: up for scheduling again
                ctx = PodCycle(pod, state, (1, 33), cache)
                feasible = np.flatnonzero(run_filters(ctx).feasible)
                if feasible.size:
                    target = int(feasible[0])  # Karpenter's own simulation: the first node that fits
                    state.place(pod, target)
                    placed.append((pod, target))
                else:
                    leftover.append(pod)
            claims = []
            if leftover:
                result = Provisioner(self.snapshot, state, self.catalog, self.templates).solve(leftover)
                if result.errors:
                    return False, [], placed
                claims = result.claims
            return True, claims, placed
        finally:
            for pod, target in placed:
                state.evict(pod, target)
            state.excluded[indices] = False
            for pod, i in moved:
                state.place(pod, i)

    def _price(self, nodes: list[Node]) -> float | None:
        prices = [node_price(n, self.catalog) for n in nodes]
        return None if any(p is None for p in prices) else sum(prices)

    def _replacement(self, claim, candidates: list[Node], price: float) -> tuple[Launch, tuple[str, ...]] | None:
        reqs = claim.reqs
        allow_spot = "karpenter.sh/capacity-type" not in reqs or reqs["karpenter.sh/capacity-type"].has("spot")
        all_spot = all(n.capacity_type == "spot" for n in candidates)
        kinds = ["spot"] if allow_spot else ["on-demand"]
        if all_spot and allow_spot and not self.spot_to_spot:
            return None
        options = []
        for t in claim.types:
            offers = [o for o in t.offerings if offering_ok(o, reqs) and o.capacity_type in kinds and o.price is not None]
            if not offers:
                continue
            worst = max(o.price for o in offers)
            if worst < price:
                options.append((min(o.price for o in offers), t, min(offers, key=lambda o: (o.price, o.zone))))
        if all_spot and len(candidates) == 1 and len(options) < MIN_SPOT_TO_SPOT_TYPES:
            return None
        if not options:
            return None
        options.sort(key=lambda x: (x[0], x[1].name))
        _, best, offer = options[0]
        launch = Launch(best.name, offer.zone, offer.capacity_type, offer.price, offer.price_estimated)
        return launch, tuple(t.name for _, t, _ in options)

    def _command(self, state: ClusterState, indices: list[int], reason: str) -> Disruption | None:
        nodes = [state.nodes[i] for i in indices]
        price = self._price(nodes)
        fits, claims, _ = self._simulate(state, indices)
        if not fits or len(claims) > 1 or price is None:
            return None
        pods = sum(len(reschedulable(state.pods[i])) for i in indices)
        names = tuple(n.name for n in nodes)
        if not claims:
            return Disruption("delete", reason, names, pods, None, (), round(price, 6))
        chosen = self._replacement(claims[0], nodes, price)
        if chosen is None:
            return None
        launch, types = chosen
        return Disruption("replace", reason, names, pods, launch, types, round(price - (launch.price or 0.0), 6))

    # ---- the loop -------------------------------------------------------------------------
    def run(self, state: ClusterState) -> tuple[list[Disruption], list[Blocked]]:
        commands: list[Disruption] = []
        blocked: dict[str, str] = {}
        for _ in range(self.max_commands):
            command = self._next(state, blocked)
            if command is None:
                break
            commands.append(command)
            state = self._execute(state, command, len(commands))
        return commands, [Blocked(n, r) for n, r in sorted(blocked.items())]

    def _candidates(self, state: ClusterState, blocked: dict[str, str]) -> list[int]:
        by_namespace: dict[str, list[Pod]] = {}
        for pods in state.pods:
            for pod in pods:
                by_namespace.setdefault(pod.namespace, []).append(pod)
        allowance = {pdb.key: _pdb_allowed(pdb, by_namespace.get(pdb.namespace, [])) for pdb in self.snapshot.pdbs}
        out = []
        for i, node in enumerate(state.nodes):
            if state.excluded[i] or node.nodepool not in self.pools or node.name in self.launched:
                continue  # a replacement is not consolidatable until it has run for consolidateAfter
            why = self.blocker(node, state.pods[i], allowance)
            if why:
                blocked[node.name] = why
            else:
                blocked.pop(node.name, None)
                out.append(i)
        return sorted(out, key=lambda i: (self.disruption_cost(state.nodes[i], state.pods[i]), state.nodes[i].name))

    def _within_budget(self, state, indices, reason, blocked) -> list[int]:
        allowed = self.budgets(state, reason)
        kept = []
        for i in indices:
            pool = state.nodes[i].nodepool
            if allowed[pool] > 0:
                allowed[pool] -= 1
                kept.append(i)
            else:
                blocked.setdefault(state.nodes[i].name, _budget_reason(reason))
        return kept

    def _next(self, state: ClusterState, blocked: dict[str, str]) -> Disruption | None:
        candidates = self._candidates(state, blocked)
        movable = {i: reschedulable(state.pods[i]) for i in candidates}
        empty = [i for i in candidates if not movable[i]]
        empty = self._within_budget(state, empty, "empty", blocked)
        if empty:
            price = self._price([state.nodes[i] for i in empty]) or 0.0
            return Disruption("delete", "empty", tuple(state.nodes[i].name for i in empty), 0, None, (),
                              round(price, 6))
        busy = [i for i in candidates if movable[i]
                and self.pools[state.nodes[i].nodepool].consolidation_policy == WHEN_EMPTY_OR_UNDERUTILIZED]
        multi = self._multi(state, self._within_budget(state, busy, "underutilized", {})[:MAX_PARALLEL])
        if multi is not None:
            return multi
        allowed = self.budgets(state, "underutilized")
        for i in busy:  # one node at a time: each needs only its pool's budget to allow one
            if allowed[state.nodes[i].nodepool] < 1:
                blocked.setdefault(state.nodes[i].name, _budget_reason("underutilized"))
                continue
            command = self._command(state, [i], "underutilized")
            if command is not None:
                return command
        return None

    def _largest_prefix(self, state: ClusterState, busy: list[int]) -> int:
        """An upper bound on how many candidates could go at once (spares most full simulations).

        Their pods' cpu and memory must fit in the other nodes' free room plus
        one replacement, which must cost less than the nodes it replaces.
        """
        if self._by_price is None:
            rows = sorted((o.price, t.allocatable.get(CPU, 0), t.allocatable.get(MEMORY, 0))
                          for tpl in self.templates for t in tpl.instance_types for o in t.offerings
                          if o.available and o.price is not None)
            prices = [r[0] for r in rows]
            cpu = list(itertools.accumulate((r[1] for r in rows), max))
            memory = list(itertools.accumulate((r[2] for r in rows), max))
            self._by_price = (prices, cpu, memory)
        prices, top_cpu, top_memory = self._by_price
        free = {r: np.where(state.excluded, 0, state.allocatable[r] - state.requested[r]) for r in (CPU, MEMORY)}
        total = {r: int(free[r].sum()) for r in (CPU, MEMORY)}
        need = {CPU: 0, MEMORY: 0}
        freed = {CPU: 0, MEMORY: 0}
        cost, best = 0.0, 1
        for k, i in enumerate(busy):
            for p in reschedulable(state.pods[i]):
                need[CPU] += p.requests.get(CPU, 0)
                need[MEMORY] += p.requests.get(MEMORY, 0)
            for r in (CPU, MEMORY):
                freed[r] += int(free[r][i])
            cost += node_price(state.nodes[i], self.catalog) or 0.0
            cheaper = bisect.bisect_left(prices, cost)
            room = {CPU: top_cpu[cheaper - 1] if cheaper else 0, MEMORY: top_memory[cheaper - 1] if cheaper else 0}
            if all(need[r] <= total[r] - freed[r] + room[r] for r in (CPU, MEMORY)):
                best = max(best, k)
        return best

    def _multi(self, state: ClusterState, busy: list[int]) -> Disruption | None:
        if len(busy) < 2:
            return None
        low, high, best = 1, min(len(busy) - 1, self._largest_prefix(state, busy)), None
        while low <= high:
            mid = (low + high) // 2
            command = self._command(state, busy[: mid + 1], "underutilized")
            if command is not None and self._not_same_type(state, busy[: mid + 1], command):
                best, low = command, mid + 1
            else:
                high = mid - 1
        return best

    def _not_same_type(self, state, indices, command: Disruption) -> bool:
        if command.replacement is None:
            return True
        removed = {state.nodes[i].instance_type for i in indices}
        return command.replacement.instance_type not in removed

    def _execute(self, state: ClusterState, command: Disruption, number: int) -> ClusterState:
        """The cluster after the command: nodes gone, pods moved, the replacement running.

        A delete updates the state in place; a replacement adds a node, so the
        state is rebuilt from a snapshot that has it.
        """
        indices = [state.index[name] for name in command.nodes]
        _, claims, placed = self._simulate(state, indices)
        if command.replacement is None:
            for i in indices:
                for pod in list(state.pods[i]):
                    state.evict(pod, i)
            state.excluded[indices] = True
            for pod, target in placed:
                state.place(pod, target)
            return state
        removed = set(command.nodes) | {n.name for i, n in enumerate(state.nodes) if state.excluded[i]}
        moved = {pod.key: state.nodes[target].name for pod, target in placed}
        nodes = [n for n in state.nodes if n.name not in removed]
        if command.replacement is not None and claims:
            launch = command.replacement
            pool = claims[0].template.name
            name = f"{pool}-replacement-{number}"
            manifest = node_manifest(self.catalog.get(launch.instance_type), launch.zone, launch.capacity_type,
                                     name, nodepool=pool)
            nodes.append(build_node(manifest))
            self.launched.add(name)
            moved.update({pod.key: name for pod in claims[0].pods})
        pods = []
        for i, bound in enumerate(state.pods):
            for pod in bound:
                if pod.key in moved:
                    pods.append(replace(pod, node_name=moved[pod.key]))
                elif state.nodes[i].name not in removed:
                    pods.append(replace(pod, node_name=state.nodes[i].name) if not pod.node_name else pod)
        self.snapshot = replace(self.snapshot, nodes=tuple(nodes), pods=tuple(pods))
        return ClusterState(self.snapshot)
