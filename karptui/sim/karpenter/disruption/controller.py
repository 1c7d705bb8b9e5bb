"""Karpenter's disruption controller, one command at a time until none is left.

Each pass asks the methods in Karpenter's order — emptiness, drift, multi-node
consolidation, single-node consolidation — for a command over the candidates
each accepts; the first command found is carried out (its nodes go, their
pods move where the simulation put them, a replacement joins as a new node)
and the search starts again. Budgets are counted afresh every pass.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from ....catalog import Catalog, node_manifest
from ....model import Pod, Snapshot
from ....model.node import build_node
from ...state import ClusterState
from ..existingnode import BASE, ONE_POD, ExistingPool, base_vector, existing_nodes
from ..scheduler import Prepared
from ..launch import Launch
from . import drift, emptiness, multinode, singlenode
from .budgets import budget_mapping, blocked_by_budget
from .candidates import Candidate, CandidateFinder
from .command import Command, REPLACE
from .simulation import Simulation, simulate

METHODS = (emptiness, drift, multinode, singlenode)
MAX_COMMANDS = 200


@dataclass(frozen=True)
class Disruption:
    """One command as the simulation reports it (docs/simulate-json.md ``disruptions[]``)."""

    action: str                       # "delete" or "replace"
    reason: str                       # "empty", "drifted" or "underutilized"
    nodes: tuple[str, ...]
    pods: int
    replacement: Launch | None
    replacement_types: tuple[str, ...]
    savings: float
    method: str = "consolidation"     # "consolidation" or "drift"
    moves: tuple[tuple[str, str], ...] = ()   # (pod, node it moves to: an existing one or the replacement)
    replacement_name: str = ""        # the name the simulation gives the replacement node


@dataclass(frozen=True)
class Blocked:
    node: str
    reason: str


class Disruptor:
    def __init__(self, snapshot: Snapshot, catalog: Catalog, spot_to_spot: bool = False,
                 max_commands: int = MAX_COMMANDS, pending: list[Pod] | None = None,
                 progress: Callable[[str, int, int], None] | None = None) -> None:
        self.snapshot, self.catalog = snapshot, catalog
        # told ("consolidation", commands so far, nodes) before every pass and every simulation: a
        # caller's cancel raises from it, so a cancelled run stops between two simulations
        self.progress = progress
        self.commands = 0
        self.spot_to_spot = spot_to_spot
        self.max_commands = max_commands
        self.prepared = Prepared(snapshot, catalog)
        self.types = self.prepared.types
        self.pools = {p.name: p for p in snapshot.nodepools}
        self.now = snapshot.meta.captured_at or max((p.created for p in snapshot.pods if p.created), default=None)
        self.launched: set[str] = set()
        self.finder = CandidateFinder(snapshot, catalog, self.now, self.launched)
        self.pending = list(pending or [])  # still pending after provisioning: scheduled alongside
        self.state: ClusterState | None = None
        self.blocked: dict[str, str] = {}
        # Candidates single-node consolidation tried and left, with why (Karpenter publishes these
        # as Unconsolidatable events on the node): the last pass's, the one that found nothing.
        self.unconsolidatable: dict[str, str] = {}
        # Balanced NodePools' scores (balanced.Score), the last one per set of nodes, for the report
        self.scores: dict[tuple[str, ...], object] = {}
        self._pool: ExistingPool | None = None
        self._memo: dict = {}  # answers about node labels and taints, kept across cluster states
        self._price_index = None
        self._room = None
        self._settled: frozenset[str] | None = None

    # ---- what the methods call ------------------------------------------------------------------
    def simulate(self, candidates: list[Candidate]) -> Simulation:
        if self.progress is not None:
            self.progress("consolidation", self.commands, len(self.state.nodes))
        return simulate(self.snapshot, self.state, self.catalog, self.prepared, candidates, self.pending,
                        self._settling(), self._existing())

    def _existing(self) -> ExistingPool:
        """The nodes as the scheduler sees them, built once per cluster state (every simulation
        over it takes its candidates out by itself)."""
        if self._pool is None:
            self._pool = ExistingPool(existing_nodes(self.state, self.snapshot, self.prepared.daemon_checks,
                                                     self.catalog, set(), self._memo))
        return self._pool

    def _settling(self) -> frozenset[str]:
        if self._settled is None:
            self._settled = self._nodes_settling()
        return self._settled

    def _nodes_settling(self) -> frozenset[str]:
        out = set()
        for i, node in enumerate(self.state.nodes):
            pool = self.pools.get(node.nodepool)
            if pool is None or not pool.consolidate_after or self.state.excluded[i]:
                continue
            probe = Candidate(i, node, self.snapshot.nodeclaim_by_node.get(node.name), pool, None, 0.0)
            if self.finder.consolidatable(probe, self.state) is not None:
                out.add(node.name)
        return frozenset(out)

    def disabled(self, c: Candidate) -> str:
        owner = "Provisioner" if c.legacy else "NodePool"
        return f'{owner} "{c.pool.name}" has consolidation disabled'

    def budget_reason(self, reason: str) -> str:
        return blocked_by_budget(reason)

    def block(self, c: Candidate, why: str) -> None:
        self.blocked.setdefault(c.name, why)

    def unconsolidatable_because(self, c: Candidate, why: str) -> None:
        self.unconsolidatable[c.name] = why

    def scored(self, score) -> None:
        self.scores[score.nodes] = score

    def hopeless(self, candidates: list[Candidate]) -> bool:
        """True when no simulation could consolidate these candidates, by arithmetic alone: their
        pods' cpu, memory and pod count exceed the room left on the other initialized nodes plus
        the largest instance type cheaper than they cost together. Skipping the simulation then
        changes no answer, only its cost (multi-node consolidation probes up to 100 candidates)."""
        pool = self._existing()
        if self._room is None:
            settling = self._settling()
            usable = np.array([n.initialized and (n.index is None or not self.state.excluded[n.index])
                               and n.name not in settling for n in pool.nodes], dtype=bool)
            rows = {n.index: k for k, n in enumerate(pool.nodes) if usable[k] and n.index is not None}
            free = np.clip(pool.free, 0, None)
            self._room = (free[usable].sum(axis=0) if usable.any() else np.zeros(3, dtype=np.int64), rows, free)
        room, rows, free = self._room
        need = np.zeros(len(BASE), dtype=np.int64)
        for c in candidates:
            for pod in c.pods:
                need += base_vector(pod.requests + ONE_POD)
            if c.index in rows:
                room = room - free[rows[c.index]]
        prices, largest = self._by_price()
        cheaper = bisect.bisect_left(prices, sum(c.price for c in candidates))
        if cheaper:
            room = room + largest[cheaper - 1]
        return bool((need > room).any())

    def _by_price(self):
        if self._price_index is None:
            columns = [self.types.columns[r] for r in BASE]  # a TypeSet always has these
            rows = sorted((price, tuple(self.types.allocatable[i, columns]))
                          for t in self.prepared.templates for i in t.rows.tolist()
                          if (price := self.types.cheapest_price(i, t.reqs)) != float("inf"))
            prices = [p for p, _ in rows]
            largest = np.maximum.accumulate(np.array([r for _, r in rows], dtype=np.int64).reshape(len(rows), 3), axis=0) \
                if rows else np.zeros((0, 3), dtype=np.int64)
            self._price_index = (prices, largest)
        return self._price_index

    # ---- the loop -----------------------------------------------------------------------------------
    def run(self, state: ClusterState) -> tuple[list[Disruption], list[Blocked]]:
        self.state = state
        commands: list[Disruption] = []
        for _ in range(self.max_commands):
            if self.progress is not None:
                self.progress("consolidation", self.commands, len(state.nodes))
            command = self._next()
            if command is None:
                break
            commands.append(self._report(command, len(commands) + 1))
            self._execute(command, len(commands))
            self.commands = len(commands)
        return commands, [Blocked(n, r) for n, r in sorted(self.blocked.items())]

    def candidates_by_reason(self, state: ClusterState) -> dict[tuple[str, str], list[str]]:
        """(NodePool, reason) -> the nodes that reason's method would take up now, best savings per
        cost first: the ones a budget holds back when it allows fewer (the budgets view)."""
        self.state = state
        candidates = sorted(self.finder.find(state, {}), key=lambda c: -c.savings_ratio)
        out: dict[tuple[str, str], list[str]] = {}
        for method in (emptiness, drift, singlenode):
            for c in candidates:
                if method.should_disrupt(self, c) is None:
                    out.setdefault((c.pool.name, method.REASON), []).append(c.name)
        return out

    def unconsolidatable_nodes(self) -> list[Blocked]:
        """After :meth:`run`: the candidates left because consolidating them alone would not do
        (not cheaper, pods with no place), not because something blocks them."""
        return [Blocked(n, r) for n, r in sorted(self.unconsolidatable.items()) if n not in self.blocked]

    def _next(self) -> Command | None:
        candidates = self.finder.find(self.state, self.blocked)
        self.unconsolidatable.clear()
        for method in METHODS:
            accepted = []
            for c in candidates:
                why = method.should_disrupt(self, c)
                if why is None:
                    accepted.append(c)
                elif method in (emptiness, singlenode) and _worth_reporting(why):
                    self.block(c, why)
            if not accepted:
                continue
            budgets = budget_mapping(self.pools, self.state, method.REASON, self.now)
            command = method.compute(self, accepted, budgets)
            if command is not None:
                for c in command.candidates:
                    self.blocked.pop(c.name, None)
                return command
        return None

    def _replacement_name(self, command: Command, number: int, k: int) -> str:
        pool = command.replacements[k].claim.template.name
        return f"{pool}-replacement-{number}" + (f"-{k}" if k else "")

    def _report(self, command: Command, number: int) -> Disruption:
        price = sum(c.price for c in command.candidates)
        launch = command.replacements[0].launch if command.replacements else None
        names = tuple(self.types.types[i].name for i in command.replacements[0].rows) if command.replacements else ()
        launched = sum((r.launch.price or 0.0) for r in command.replacements if r.launch)
        moves = []
        if command.simulation is not None:
            moves += [(pod.key, self.state.nodes[i].name) for pod, i in command.simulation.moved]
            for k, replacement in enumerate(command.replacements):
                moves += [(pod.key, self._replacement_name(command, number, k)) for pod in replacement.claim.pods
                          if pod.node_name]
        return Disruption(command.decision, command.reason.lower(), tuple(c.name for c in command.candidates),
                          sum(len(c.pods) for c in command.candidates), launch, names, round(price - launched, 6),
                          "drift" if command.method == drift.NAME else "consolidation", tuple(sorted(moves)),
                          self._replacement_name(command, number, 0) if command.replacements else "")

    def _execute(self, command: Command, number: int) -> None:
        """The cluster after the command: its nodes gone, their pods where the simulation put them,
        each replacement running as a new node."""
        state = self.state
        self._settled = self._room = None
        indices = [c.index for c in command.candidates]
        if command.decision != REPLACE:
            moved = command.simulation.moved if command.simulation is not None else []
            for i in indices:
                for pod in list(state.pods[i]):
                    state.evict(pod, i)
            state.excluded[indices] = True
            for pod, target in moved:
                state.place(pod, target)
            if self._pool is not None:  # the same nodes, some fuller: no need to build them again
                self._pool.settle(moved)
            return
        self._pool = None
        removed = {c.name for c in command.candidates} | {n.name for i, n in enumerate(state.nodes) if state.excluded[i]}
        where = {pod.key: state.nodes[target].name for pod, target in command.simulation.moved}
        nodes = [n for n in state.nodes if n.name not in removed]
        for k, replacement in enumerate(command.replacements):
            launch = replacement.launch
            if launch is None:
                continue
            pool = replacement.claim.template.name
            name = self._replacement_name(command, number, k)
            manifest = node_manifest(self.catalog.get(launch.instance_type), launch.zone, launch.capacity_type,
                                     name, nodepool=pool)
            nodes.append(build_node(manifest))
            self.launched.add(name)
            where.update({pod.key: name for pod in replacement.claim.pods})
        pods = []
        for i, bound in enumerate(state.pods):
            for pod in bound:
                if pod.key in where:
                    pods.append(replace(pod, node_name=where[pod.key]))
                elif state.nodes[i].name not in removed:
                    pods.append(replace(pod, node_name=state.nodes[i].name) if not pod.node_name else pod)
        self.snapshot = replace(self.snapshot, nodes=tuple(nodes), pods=tuple(pods))
        self.finder.snapshot = self.snapshot
        self.state = ClusterState(self.snapshot)


def _worth_reporting(why: str) -> bool:
    """Reasons an operator should see against a node (not "empty" or "not empty")."""
    return why not in ("empty", "not empty", "static", "not drifted")
