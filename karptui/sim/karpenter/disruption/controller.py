"""Karpenter's disruption controller, one command at a time until none is left.

Each pass asks the methods in Karpenter's order — repair (v1.15, with the NodeRepair
gate), emptiness, drift, multi-node consolidation, single-node consolidation — for a
command over the candidates each accepts (before v1.15, or with ``--legacy-node-repair``,
the NodeRepair gate's controller deletes unhealthy nodes first, outside the methods:
:mod:`.repair`); the first command found is carried out (its nodes go, their
pods move where the simulation put them, a replacement joins as a new node)
and the search starts again. Budgets are counted afresh every pass.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

import numpy as np

from ..consolidate_after import missing_words, pools_as_read
from ....catalog import Catalog, node_manifest
from ....model import Pod, Snapshot
from ....model.node import build_node
from ...state import ClusterState
from ..existingnode import BASE, NODE_REQS, ExistingPool, existing_nodes
from ..scheduler import Prepared
from ..launch import Launch
from ..unplaceable import unplaceable
from . import drift, emptiness, multinode, repair, singlenode, terminatefirst
from .. import repair as node_repair
from ..featuregates import DEFAULT_GATES, FeatureGates
from .budgets import applying, budget_mapping, blocked_by_budget
from .candidates import Candidate, CandidateFinder, reschedulable
from .command import Command, REPLACE
from .savings import estimated_savings, leaked
from ..versions import V1_14, karpenter_version
from .consolidation import consolidate
from .newclaims import NewClaims
from .simulation import PendingRun, Simulation, pending_run, simulate
from .verdicts import (BLOCKED, DELETE, METHOD_ORDER, REPAIR_FIRST, REPLACE as REPLACED, SKIPPED, Ledger,
                       NodeVerdicts, Why, span)

METHODS = (emptiness, drift, multinode, singlenode)
WITH_REPAIR = (repair,) + METHODS   # v1.15 with the NodeRepair gate: repair first
MAX_COMMANDS = 200
# A bound on the work per decision, like Karpenter's timeouts (single-node consolidation abandons
# after 3 minutes, multi-node returns its last valid command after 1 minute): counted here in
# simulations, so that a plan is the same on any machine. The generated 1,000-node cluster of
# bench/gen_cluster.py meets neither (its plan of 95 commands is the same with and without them).
SINGLE_NODE_SIMULATIONS = 1000
MULTI_NODE_SIMULATIONS = 100
# simulations over one cluster state before the pending pods' run is shared (simulation.pending_run): it
# costs one simulation, and a pass that finds its command at the first candidates never pays it back
SHARED_AFTER = 3
EXPLAINED = 10  # candidates left for want of room simulated once more to name the pod (see verdicts())


@dataclass(frozen=True)
class Disruption:
    """One command as the simulation reports it (docs/simulate-json.md ``disruptions[]``)."""

    action: str                       # "delete" or "replace"
    reason: str                       # "unhealthy", "empty", "drifted" or "underutilized"
    nodes: tuple[str, ...]
    pods: int
    replacement: Launch | None
    replacement_types: tuple[str, ...]
    savings: float
    method: str = "consolidation"     # "consolidation", "drift" or "repair"
    moves: tuple[tuple[str, str], ...] = ()   # (pod, node it moves to: an existing one or the replacement)
    replacement_name: str = ""        # the name the simulation gives the replacement node
    # every NodeClaim the command launches, as (its NodePool, its offering: None when none fits):
    # drift launches as many as its pods need, ``replacement`` is the first
    launches: tuple[tuple[str, Launch | None], ...] = ()
    # what Karpenter estimates the command saves (its log lines' and events' "savings: $"; Balanced
    # scores by it), and, when the release's estimate counts an offering the replacement cannot
    # launch, which (savings.leaked)
    estimated_savings: float = 0.0
    estimate_counts: str = ""
    # the legacy repair controller's deletion (outside budgets, nothing launched first); and v1.15's
    # terminate-first (no room for a replacement: the node goes first, provisioning refills it)
    forceful: bool = False
    terminate_first: bool = False
    # the name the simulation gives each NodeClaim of ``launches``, in that order
    replacement_names: tuple[str, ...] = ()
    # a terminate-first's capacity reservation: full, its replacement fits only in the instance the
    # node frees ("" otherwise, and for a static NodePool's terminate-first)
    reservation: str = ""


@dataclass(frozen=True)
class Blocked:
    node: str
    reason: str


class Disruptor:
    def buffer_nodes_pods(self, node: str) -> int:
        return self.buffer_nodes.get(node, 0)

    def __init__(self, snapshot: Snapshot, catalog: Catalog, spot_to_spot: bool = False,
                 max_commands: int = MAX_COMMANDS, pending: list[Pod] | None = None,
                 progress: Callable[[str, int, int], None] | None = None,
                 found: Callable[[Disruption], None] | None = None,
                 simulations: dict[str, int] | None = None, methods: tuple = METHODS,
                 phase: str = "consolidation", nominated: frozenset[str] = frozenset(),
                 planned: frozenset[str] = frozenset(), skip_unplaceable: bool = True,
                 gates: FeatureGates | None = None, share_pending: bool = True,
                 buffer_nodes: Mapping[str, int] | None = None) -> None:
        self.snapshot, self.catalog = snapshot, catalog
        # nodes the provisioning pass put capacity buffers' virtual pods on: the emptiness method
        # leaves them alone (HasBufferPods); consolidation keeps room for those pods as pending ones
        self.buffer_nodes = dict(buffer_nodes or {})
        # how the release simulated repairs unhealthy nodes (NodeRepair gate): off, legacy or voluntary
        self.repair = node_repair.repair_mode(snapshot, gates or DEFAULT_GATES)
        if self.repair == node_repair.VOLUNTARY and methods is METHODS:
            methods = WITH_REPAIR
        # the methods asked, in Karpenter's order: all of them, or drift alone (:func:`drift_alone`)
        self.methods = methods
        # the legacy controller deletes unhealthy nodes before any method looks (not with drift alone)
        self.forceful_repair = self.repair == node_repair.LEGACY and drift in methods and len(methods) > 1
        # told each command as soon as a pass finds it, before the next pass starts: a caller shows
        # the first decision while the rest of the plan computes
        self.found = found
        # method name -> the most simulations one decision of that method may run (see SINGLE_NODE_SIMULATIONS)
        self.simulations = {singlenode.NAME: SINGLE_NODE_SIMULATIONS, multinode.NAME: MULTI_NODE_SIMULATIONS,
                            **(simulations or {})}
        self.simulated = 0  # simulations run in the decision under way
        self.simulations_run = 0  # and in the whole run (the benchmark prints it)
        self.timeouts: list[str] = []  # each bound met, said the way Karpenter logs its timeout
        # told ("consolidation", commands so far, nodes) before every pass and every simulation: a
        # caller's cancel raises from it, so a cancelled run stops between two simulations
        self.progress = progress
        self.phase = phase
        self.commands = 0
        self.spot_to_spot = spot_to_spot
        self.max_commands = max_commands
        self.prepared = Prepared(snapshot, catalog)
        self.types = self.prepared.types
        self.pools = pools_as_read(snapshot)  # consolidateAfter as the version simulated reads it
        self.now = snapshot.as_of  # the capture time, else the newest timestamp: the time ages count from
        self.launched: set[str] = set()
        self.finder = CandidateFinder(snapshot, catalog, self.now, self.launched, nominated)
        # the pods pending when disruption looks (those planned for new NodeClaims included): every
        # simulation schedules them alongside the candidates' pods (see simulation.py)
        self.pending = list(pending or [])
        # those of them the provisioning plan launches NodeClaims for (pod keys): drift leaves them out
        self.planned = planned
        self.state: ClusterState | None = None
        self.blocked: dict[str, Why] = {}
        # Candidates single-node consolidation tried and left, with why (Karpenter publishes these
        # as Unconsolidatable events on the node): the last pass's, the one that found nothing.
        self.unconsolidatable: dict[str, Why] = {}
        # every method's verdict on every Karpenter node, recorded where each decides (:meth:`verdicts`)
        self.ledger = Ledger(methods=REPAIR_FIRST if self.repair != node_repair.OFF and len(methods) > 1
                             else METHOD_ORDER)
        # Balanced NodePools' scores (balanced.Score), the last one per set of nodes, for the report
        self.scores: dict[tuple[str, ...], object] = {}
        self._pool: ExistingPool | None = None
        self._memo: dict = {}  # answers about node labels and taints, kept across cluster states
        self._price_index = None
        self._room = None
        self._settled: frozenset[str] | None = None
        self._never: frozenset[str] | None = None
        self._health: dict | None = None
        # static NodePool -> replacements launched in this run whose candidates Karpenter would still be
        # terminating: they hold their slot under limits.nodes (NodePoolState.ReserveNodeCount)
        self.static_reserved: dict[str, int] = {}
        # capacity reservation -> instances terminate-first commands of this run gave back (their nodes
        # gone): later simulations may launch into them (:mod:`.terminatefirst`)
        self.freed: dict[str, int] = {}
        # leave the pending pods no simulation can place out of its queue (the same answers; False
        # runs every pending pod through every simulation, as tests compare)
        self.skip_unplaceable = skip_unplaceable
        # schedule the pending pods once per cluster state, not in every simulation, where the
        # answer is provably the same (simulation.pending_run; False: in every one, as tests compare)
        self.share_pending = share_pending
        self._shared: PendingRun | None = None
        self._state_simulations = 0  # simulations over the cluster state as it now stands
        self._splits: NewClaims | None = None   # see needs_two_claims
        self._budget_words: dict[tuple, tuple] = {}   # see budget_reason
        self._layout: tuple | None = None   # see _pool_layout
        self.new_nodes_said: dict = {}   # see consolidation.new_nodes

    # ---- what the methods call ------------------------------------------------------------------
    def simulate(self, candidates: list[Candidate], planned: bool = True, consolidating: bool = True,
                 freed: Mapping[str, int] | None = None, most_claims: int | None = None) -> Simulation:
        """Karpenter's SimulateScheduling for ``candidates``. ``planned=False`` (drift) leaves out the
        pending pods the provisioning plan already launches NodeClaims for: drift takes every new
        NodeClaim its simulation needs, so with them in, the plan would launch their node twice
        (karptui's divergence, said in docs/simulate-json.md). ``consolidating``: a consolidation's
        simulation, which may not move pods onto a node still within its consolidateAfter (the
        scheduler's IsConsolidationSimulation option); drift's passes none (``drift.go``), so its
        pods may go to any node. ``freed``: reservation instances taken as given back besides those
        terminate-first commands of this run gave back (:mod:`.terminatefirst`). ``most_claims``: the run
        may stop once more NodeClaims than this are open (:func:`.simulation.simulate`)."""
        self.simulated += 1
        self.simulations_run += 1
        if self.progress is not None:
            self.progress(self.phase, self.commands, len(self.state.nodes))
        pending = self.pending if planned or not self.planned else \
            [p for p in self.pending if p.key not in self.planned]
        if self.freed:
            freed = {rid: self.freed.get(rid, 0) + (freed or {}).get(rid, 0) for rid in {*self.freed, *(freed or {})}}
        return simulate(self.snapshot, self.state, self.catalog, self.prepared, candidates, pending,
                        self._settling() if consolidating else frozenset(), self._existing(),
                        self._unplaceable() if self.skip_unplaceable else frozenset(),
                        # the shared run was made with consolidation's settling nodes: drift's own
                        # simulations (which may use them) schedule their pending pods themselves
                        self._pending_run() if consolidating and pending is self.pending and self._sharing()
                        else None, freed=freed, most_claims=most_claims)

    def needs_two_claims(self, candidates: list[Candidate]) -> bool:
        """True when every simulation taking out ``candidates`` needs two new NodeClaims or leaves a
        moved pod without a place, known without one (:mod:`.newclaims`): multi-node consolidation,
        which keeps no reason for a prefix that cannot go, then takes no command from it. Counted as a
        simulation run, as it stands for one: the bounds on simulations per decision are met where they were."""
        if self._splits is None:
            self._splits = NewClaims(self.snapshot, self.state, self.catalog, self.prepared, self._existing(),
                                     self._settling(), self.pending)
        if not self._splits.two_claims(candidates):
            return False
        self.simulated += 1
        self.simulations_run += 1
        if self.progress is not None:
            self.progress(self.phase, self.commands, len(self.state.nodes))
        return True

    def _sharing(self) -> bool:
        """Whether this simulation takes the pending pods' shared run where it may: once the cluster
        state has had SHARED_AFTER simulations (a choice of cost only: either way the answer is the same)."""
        self._state_simulations += 1
        return self.share_pending and self._state_simulations > SHARED_AFTER

    def _pending_run(self) -> PendingRun:
        """The pending pods scheduled alone, once per cluster state (every simulation over it that
        the conditions of :func:`.simulation.pending_run` allow takes their answer from it)."""
        if self._shared is None:
            self._shared = pending_run(self.snapshot, self.state, self.catalog, self.prepared, self.pending,
                                       self._settling(), self._existing(),
                                       self._unplaceable() if self.skip_unplaceable else frozenset())
        return self._shared

    def _unplaceable(self) -> frozenset[str]:
        """The pending pods no simulation over this cluster state can place (see :mod:`..unplaceable`),
        worked out once per cluster state and set of pending pods."""
        if self._never is None:
            self._never = unplaceable(self.pending, self.prepared, self._existing())
        return self._never

    def _existing(self) -> ExistingPool:
        """The nodes as the scheduler sees them, built once per cluster state (every simulation
        over it takes its candidates out by itself)."""
        if self._pool is None:
            self._pool = ExistingPool(existing_nodes(self.state, self.snapshot, self.prepared.daemon_checks,
                                                     self.catalog, set(), self._memo))
        return self._pool

    def node_health(self) -> dict:
        """Per NodePool (and ``""``, the cluster): its nodes and how many are unhealthy now, the
        repair guard's count (:func:`..repair.health`), once per cluster state."""
        if self._health is None:
            self._health = node_repair.health((n for i, n in enumerate(self.state.nodes) if not self.state.excluded[i]),
                                              self.catalog.repair_policies)
        return self._health

    def _settling(self) -> frozenset[str]:
        if self._settled is None:
            self._settled = self._nodes_settling()
        return self._settled

    def _nodes_settling(self) -> frozenset[str]:
        """The nodes a consolidation may not move pods onto: still within their NodePool's consolidateAfter
        by the clock (kubernetes-sigs/karpenter#3006, from v1.14.0; before it any node took them). Upstream's
        scheduler asks ``IsUnderConsolidateAfter``, not the NodeClaim's Consolidatable condition."""
        if karpenter_version(self.snapshot) < V1_14:
            return frozenset()
        out = set()
        for i, node in enumerate(self.state.nodes):
            pool = self.pools.get(node.nodepool)
            if pool is None or not pool.consolidate_after or self.state.excluded[i]:
                continue
            probe = Candidate(i, node, self.snapshot.nodeclaim_by_node.get(node.name), pool, None, 0.0)
            if self.finder.under_consolidate_after(probe, self.state) is not None:
                out.add(node.name)
        return frozenset(out)

    def disabled(self, c: Candidate) -> Why:
        owner = "Provisioner" if c.legacy else "NodePool"
        missing = ("consolidationPolicy is not set" if c.pool.consolidation_policy is None
                   else missing_words(c.pool) if c.pool.consolidate_after_missing else "consolidateAfter is Never")
        return Why(SKIPPED, "disabled", f'{owner} "{c.pool.name}" has consolidation disabled', missing)

    def budget_reason(self, c: Candidate, reason: str) -> Why:
        """The NodePool's budgets for ``reason`` allow no more now: which budgets (those active now), and
        their schedules. It reads the NodePool, the reason and the capture time alone, so it is made once
        per NodePool and reason (multi-node consolidation gives it to every candidate a budget holds back,
        every pass)."""
        key = (id(c.pool), reason)
        found = self._budget_words.get(key)
        if found is None or found[0] is not c.pool:
            found = self._budget_words[key] = (c.pool, self._budget_reason(c, reason))   # the pool kept: its id stays its own
        return found[1]

    def _budget_reason(self, c: Candidate, reason: str) -> Why:
        budgets = applying(c.pool, reason, self.now)  # the ones in force now
        said = "; ".join(f'nodes "{b.nodes}"' + (f' on schedule "{b.schedule}" for {span(b.duration)}'
                                                  if b.schedule and b.duration is not None else "")
                         + (f", for {', '.join(b.reasons)}" if b.reasons else "") for b in budgets)
        detail = (f'NodePool "{c.pool.name}" allows no more {reason} disruptions now'
                  + (f" (its budgets: {said})" if said else ""))
        return Why(BLOCKED, "budget", blocked_by_budget(reason), detail,
                   (("nodepool", c.pool.name), ("reason", reason), ("allowed", 0),
                    ("budgets", [{"nodes": b.nodes, "schedule": b.schedule or None, "duration_seconds": b.duration,
                                  "reasons": list(b.reasons)} for b in budgets])))

    def block(self, c: Candidate, why: Why, method: str) -> None:
        self.blocked.setdefault(c.name, why)
        self.note(c, method, why)

    def note(self, c: Candidate, method: str, why: Why) -> None:
        """``method``'s reason for leaving ``c`` (the first it gives in a pass counts)."""
        self.ledger.note(c.name, c.pool.name, method, why)

    def unconsolidatable_because(self, c: Candidate, why: Why) -> None:
        self.unconsolidatable[c.name] = why
        self.note(c, singlenode.NAME, why)

    def out_of_time(self, method: str) -> bool:
        """True once the decision under way has run the simulations ``method`` may (its timeout)."""
        return self.simulated >= self.simulations.get(method, self.simulated + 1)

    def bound(self, method: str) -> str:
        n = self.simulations[method]
        return f"{n} simulation{'s' if n != 1 else ''}"

    def timed_out(self, words: str) -> None:
        if words not in self.timeouts:
            self.timeouts.append(words)

    def scored(self, score) -> None:
        self.scores[score.nodes] = score

    def hopeless(self, candidates: list[Candidate]) -> bool:
        """True when no simulation could consolidate these candidates, by arithmetic alone: their
        pods' cpu, memory and pod count exceed the room left on the other initialized nodes plus
        the largest instance type cheaper than they cost together. Skipping the simulation then
        changes no answer, only its cost (multi-node consolidation probes up to 100 candidates)."""
        pool = self._existing()
        if self._room is None:
            initialized, indices, names = self._pool_layout(pool)
            usable = initialized.copy()
            known = indices >= 0
            usable[known] &= ~self.state.excluded[indices[known]]
            settling = self._settling()
            if settling:
                usable &= np.array([name not in settling for name in names], dtype=bool)
            rows = np.full(len(self.state.nodes), -1, dtype=np.intp)   # a node's row in the pool where usable
            rows[indices[usable & known]] = np.flatnonzero(usable & known)
            free = np.clip(pool.free, 0, None)
            self._room = (free[usable].sum(axis=0) if usable.any() else np.zeros(3, dtype=np.int64), rows, free)
        room, rows, free = self._room
        need = np.zeros(len(BASE), dtype=np.int64)
        for c in candidates:
            need += c.need
            k = rows[c.index]
            if k >= 0:
                room = room - free[k]
        prices, largest = self._by_price()
        cheaper = bisect.bisect_left(prices, sum(c.price for c in candidates))
        if cheaper:
            room = room + largest[cheaper - 1]
        return bool((need > room).any())

    def _pool_layout(self, pool: ExistingPool) -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
        """Per node of ``pool``: whether it is initialized, its index in the cluster state (-1: a
        NodeClaim without its Node) and its name: what :meth:`hopeless` reads of every node, read once
        per pool (a delete carried out keeps the pool, only fuller: ExistingPool.settle)."""
        found = self._layout
        if found is None or found[0] is not pool:
            peek = pool.nodes.peek
            items = [peek(k) for k in range(len(pool.nodes))]
            found = self._layout = (pool, np.array([n.initialized for n in items], dtype=bool), pool.indices,
                                    tuple(n.name for n in items))
        return found[1:]

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
        self._shared = self._splits = None
        commands: list[Disruption] = []
        for _ in range(self.max_commands):
            if self.progress is not None:
                self.progress(self.phase, self.commands, len(state.nodes))
            command = self._next()
            if command is None:
                break
            commands.append(self._report(command, len(commands) + 1))
            if self.found is not None:
                self.found(commands[-1])
            self._taken(command, commands[-1], len(commands))
            self._execute(command, len(commands))
            self.commands = len(commands)
        return commands, [Blocked(n, r.karpenter) for n, r in sorted(self.blocked.items())]

    def candidates_by_reason(self, state: ClusterState) -> dict[tuple[str, str], list[str]]:
        """(NodePool, reason) -> the nodes that reason's method would take up now, in the order it takes
        them (repair and drift have their own; the others best savings per cost first): the ones a
        budget holds back when it allows fewer (the budgets view)."""
        self.state = state
        self._shared = None
        candidates = sorted(self.finder.find(state, {}), key=lambda c: -c.savings_ratio)
        out: dict[tuple[str, str], list[str]] = {}
        for method in ((repair,) if self.repair == node_repair.VOLUNTARY else ()) + (emptiness, drift, singlenode):
            mine = [c for c in candidates if method.should_disrupt(self, c) is None]
            for c in method.order(self, mine) if method in (repair, drift) else mine:
                out.setdefault((c.pool.name, method.REASON), []).append(c.name)
        return out

    def unconsolidatable_nodes(self) -> list[Blocked]:
        """After :meth:`run`: the candidates left because consolidating them alone would not do
        (not cheaper, pods with no place), not because something blocks them."""
        return [Blocked(n, r.karpenter) for n, r in sorted(self.unconsolidatable.items()) if n not in self.blocked]

    def verdicts(self) -> dict[str, NodeVerdicts]:
        """After :meth:`run`: every Karpenter node's verdict from each method, by node name."""
        stopped = (f"the simulation stops after {self.max_commands} commands"
                   if self.commands >= self.max_commands else "")
        if not stopped:
            self._name_the_pods_with_no_place()
        return self.ledger.finish(stopped)

    def _name_the_pods_with_no_place(self) -> None:
        """Single-node consolidation skips the simulation of a candidate whose pods cannot fit by
        arithmetic (:meth:`hopeless`); to say which pod meets what where (or, when a pricier node
        would hold them, both prices), the last pass's such candidates (the first EXPLAINED of them)
        are consolidated after all, on the cluster the run left."""
        hopeless = [node for node, seen in self.ledger.current.items() if node not in self.ledger.settled
                    and (why := seen.get(singlenode.NAME)) is not None and why.kind == "no-room"
                    and dict(why.facts).get("simulated") is False][:EXPLAINED]
        if not hopeless:
            return
        for c in self.finder.find(self.state, {}):
            if c.name in hopeless:
                command, why = consolidate(self, singlenode.NAME, [c])
                if command is None and why is not None:
                    self.ledger.current[c.name][singlenode.NAME] = why

    def _next(self) -> Command | None:
        candidates = self.finder.find(self.state, self.blocked)
        self.unconsolidatable.clear()
        self.ledger.start_pass()
        if self.forceful_repair:
            command = repair.forceful(self, self.state)
            if command is not None:
                return command
        for i, node in enumerate(self.state.nodes):
            why = self.blocked.get(node.name) or self.finder.skipped.get(node.name)
            if why is not None and not self.state.excluded[i] and node.name not in self.launched:
                self.ledger.note_all(node.name, node.nodepool, why)
        # multi- and single-node consolidation share one candidate filter: asked once per candidate and
        # pass (what it reads, the candidate, the NodePool and its pods' timestamps, a method's search
        # leaves as it found them)
        asked, answers = None, []
        for method in self.methods:
            accepted = []
            again = answers if method.should_disrupt is asked else None
            asked, answers = method.should_disrupt, []
            for k, c in enumerate(candidates):
                why = again[k] if again is not None else method.should_disrupt(self, c)
                answers.append(why)
                if why is None:
                    accepted.append(c)
                    continue
                self.note(c, method.NAME, why)
                if method in (emptiness, singlenode) and _worth_reporting(why):
                    self.blocked.setdefault(c.name, why)
            if not accepted:
                continue
            budgets = budget_mapping(self.pools, self.state, method.REASON, self.now)
            self.simulated = 0
            command = method.compute(self, accepted, budgets)
            if command is not None:
                for c in command.candidates:
                    self.blocked.pop(c.name, None)
                return command
        return None

    def _taken(self, command: Command, done: Disruption, number: int) -> None:
        """The positive verdict for the command's nodes: deleted, or replaced by what, saving what."""
        others = len(command.candidates) - 1
        together = f" with {others} other node{'s' if others > 1 else ''}" if others else ""
        saving = f"saving ${done.savings:.4f}/h" + (" together" if others else "")
        for c in command.candidates:
            if command.forceful:
                self.ledger.taken(c.name, command.method, repair.forceful_verdict(self, c), number)
                continue
            facts = [("command", number), ("price_per_hour", round(c.price, 6)), ("savings_per_hour", done.savings)]
            keys = {p.key for p in c.pods}
            mine = [(pod, to) for pod, to in done.moves if pod in keys]
            guarded = self.finder.guarded(self.state.pods[c.index])
            if guarded:
                facts.append(("pdbs", [{"pdb": k, "disruptions_allowed": n, "pods": p} for k, n, p in guarded]))
            pdbs = "".join(f"; PDB {k} guards {len(p)} of its pods and allows {n} disruption{'s' if n != 1 else ''} "
                           "now (evictions wait for it)" for k, n, p in guarded)
            if done.action == "replace" and done.replacement is not None:
                r = done.replacement
                price = f"${r.price:.4f}/h" if r.price is not None else "unpriced"
                words = (f"would be replaced{together} by {r.instance_type} {r.capacity_type} in {r.zone} at {price}, "
                         f"{saving}{pdbs}")
                why = Why(REPLACED, "replace", "", words, (*facts, ("replacement", r.to_dict()), ("moves", dict(mine))))
            elif command.terminate_first and command.reservation:
                why = Why(DELETE, "terminate-first", "",
                          f"would be deleted before its replacement{together}: it runs in capacity reservation "
                          f"{command.reservation}, which is full, and its pods fit only in the instance it frees, "
                          f"so its {len(c.pods)} pod(s) go pending and provisioning launches into the reservation"
                          f"{pdbs}", (*facts, ("terminate_first", True), ("reservation", command.reservation)))
            elif command.terminate_first:
                why = Why(DELETE, "terminate-first", "",
                          f"would be deleted before its replacement{together}: its NodePool has no room for a "
                          f"replacement first, so its {len(c.pods)} pod(s) go pending and provisioning refills "
                          f"the NodePool{pdbs}", (*facts, ("terminate_first", True)))
            else:
                held = "it is empty" if not c.pods else f"its {len(c.pods)} pod(s) fit on other nodes"
                why = Why(DELETE, "delete", "", f"would be deleted{together} ({held}), {saving}{pdbs}",
                          (*facts, ("moves", dict(mine))))
            self.ledger.taken(c.name, command.method, why, number)

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
                          _METHOD_REPORTED.get(command.method, "consolidation"), tuple(sorted(moves)),
                          self._replacement_name(command, number, 0) if command.replacements else "",
                          tuple((r.claim.template.name, r.launch) for r in command.replacements),
                          *self._estimate(command, price), command.forceful, command.terminate_first,
                          tuple(self._replacement_name(command, number, k) for k in range(len(command.replacements))),
                          command.reservation)

    def _estimate(self, command: Command, price: float) -> tuple[float, str]:
        """Karpenter's estimated savings of the command, and what its release's estimate counted
        that the replacements cannot launch ("" when nothing)."""
        version = karpenter_version(self.snapshot)
        estimate = estimated_savings(self.types, price, [(r.rows, r.reqs) for r in command.replacements], version)
        counts = next((w for w in (leaked(self.types, r.rows, r.reqs, version) for r in command.replacements) if w), "")
        return round(estimate, 6), counts

    def _execute(self, command: Command, number: int) -> None:
        """The cluster after the command: its nodes gone, their pods where the simulation put them,
        each replacement running as a new node."""
        state = self.state
        self._settled = self._room = self._never = self._health = self._shared = self._splits = None
        self._state_simulations = 0
        indices = [c.index for c in command.candidates]
        if command.decision != REPLACE:
            moved = command.simulation.moved if command.simulation is not None else []
            if command.forceful or command.terminate_first:  # nothing was found for them: they wait
                self.pending += [replace(pod, node_name="") for i in indices for pod in reschedulable(state.pods[i])]
            if command.reservation:  # its instance is back in the reservation, for what comes next
                for rid, count in terminatefirst.freed_by(command.candidates).items():
                    self.freed[rid] = self.freed.get(rid, 0) + count
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
        moved = command.simulation.moved if command.simulation is not None else []
        where = {pod.key: state.nodes[target].name for pod, target in moved}
        if command.simulation is None:  # a static NodePool's replacement: the evicted pods find their own way
            self.pending += [replace(pod, node_name="") for c in command.candidates
                             for pod in reschedulable(state.pods[c.index])]
        landed: dict[str, str] = {}
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
            landed.update({pod.key: name for pod in replacement.claim.pods if not pod.node_name})
        pods = [replace(pod, node_name=landed[pod.key]) for pod in self.pending if pod.key in landed]
        # pending pods the replacement was launched with run there: no longer pending
        self.pending = [pod for pod in self.pending if pod.key not in landed]
        for i, bound in enumerate(state.pods):
            for pod in bound:
                if pod.key in where:
                    pods.append(replace(pod, node_name=where[pod.key]))
                elif state.nodes[i].name not in removed:
                    pods.append(replace(pod, node_name=state.nodes[i].name) if not pod.node_name else pod)
        # the removed nodes' NodeClaims go with them (Karpenter deletes the NodeClaim, its Node follows)
        claims = self.snapshot.nodeclaim_by_node
        gone = {claims[name].name for name in removed if name in claims}
        self.snapshot = replace(self.snapshot, nodes=tuple(nodes), pods=tuple(pods),
                                nodeclaims=tuple(c for c in self.snapshot.nodeclaims if c.name not in gone))
        self.finder.snapshot = self.snapshot
        self.state = ClusterState(self.snapshot)
        _keep_node_reqs(state, self.state)


@dataclass(frozen=True)
class DriftRun:
    """What Karpenter's drift method alone does to the drifted NodeClaims: its commands, one at a time
    as :class:`Disruptor` carries them out, and its verdict on every Karpenter node (why a drifted one
    stays: the pod, the PDB or the budget that blocks it, pods with no place), by node name."""

    commands: tuple[Disruption, ...] = ()
    verdicts: Mapping[str, Why] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


def drift_alone(snapshot: Snapshot, catalog: Catalog, state: ClusterState, *, spot_to_spot: bool = False,
                pending: list[Pod] | None = None, nominated: frozenset[str] = frozenset(),
                planned: frozenset[str] = frozenset(),
                progress: Callable[[str, int, int], None] | None = None) -> DriftRun:
    """Karpenter's drift method without consolidation: drift is a disruption method of its own, run
    whatever the NodePool's ``consolidationPolicy`` (Karpenter's ``drift.go`` replaces every Drifted
    NodeClaim its candidate filter and budgets let go). The same controller, asked only for drift, so
    the candidates, blockers, budgets and replacements are the ones a consolidated run finds;
    ``state`` (the cluster after provisioning) is changed as the commands are carried out."""
    disruptor = Disruptor(snapshot, catalog, spot_to_spot, pending=pending, progress=progress,
                          methods=(drift,), phase=drift.NAME, nominated=nominated, planned=planned)
    commands, _ = disruptor.run(state)
    verdicts = {node: why for node, seen in disruptor.verdicts().items() if (why := seen.of(drift.NAME)) is not None}
    stopped = ([f"drift alone stops after {disruptor.max_commands} commands"]
               if disruptor.commands >= disruptor.max_commands else [])
    return DriftRun(tuple(commands), verdicts, tuple(disruptor.timeouts) + tuple(stopped))


_METHOD_REPORTED = {drift.NAME: "drift", repair.NAME: "repair"}


def _keep_node_reqs(old: ClusterState, new: ClusterState) -> None:
    """The nodes a replace keeps carry their labels, so their requirements, into the cluster after
    it: built again for every node, they cost more than the rest of the new cluster state."""
    before = old.shared(NODE_REQS, dict)
    after = new.shared(NODE_REQS, dict)
    for i, node in enumerate(new.nodes):
        j = old.index.get(node.name)
        if j is not None and j in before and old.nodes[j] is node:
            after[i] = before[j]


def _worth_reporting(why: Why) -> bool:
    """Reasons an operator should see against a node (not "empty" or "not empty")."""
    return why.kind not in ("empty", "not-empty", "static", "not-drifted")
