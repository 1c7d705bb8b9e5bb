"""``simulate(snapshot) -> SimResult``: schedule every pending pod as kube-scheduler would."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import replace
from functools import wraps

import numpy as np

from ..model import Pod, Snapshot
from .cycle import PodCycle
from .equivalence import Equivalence
from .explain import summarize
from .fit_error import NO_NODES, fit_error, preemption_message
from .framework import run_filters, run_prefilters, run_scores, select_host
from .plugins.default_preemption import NOT_HELPFUL, preempt
from .plugins.queue_sort import queue_key, queue_order
from .result import Attempt, Placements, SimResult
from .sampling import NodeSearch
from .scheduler_pass import SchedulerPass
from .signature import signature
from .state import ClusterState
from .version import cluster_version

DEFAULT_SCHEDULER = "default-scheduler"


def _int64_wraps(run: Callable) -> Callable:
    """``run`` with numpy's overflow warnings off: int64 sums of capped quantities wrap, as Go's int64 does
    (the snapshot warns where a quantity was capped)."""
    @wraps(run)
    def wrapped(*args, **kwargs):
        with np.errstate(over="ignore"):
            return run(*args, **kwargs)
    return wrapped


@_int64_wraps
def simulate(snapshot: Snapshot, *, explain: bool = False, version: tuple[int, int] | None = None,
             catalog=None, consolidate: bool = False, spot_to_spot: bool = False, batch: bool = True,
             state: ClusterState | None = None,
             progress: Callable[[str, int, int], None] | None = None, gates=None,
             found: Callable | None = None, equivalence: bool = True,
             skip_unplaceable: bool = True, after: SchedulerPass | None = None,
             keep_pass: Callable[[SchedulerPass], None] | None = None) -> SimResult:
    """kube-scheduler over the pending pods; then, given a catalog and NodePools, Karpenter
    provisioning and (with ``consolidate``) consolidation.

    ``batch`` answers a pod from an earlier failed one with its signature when nothing
    changed in between (see :mod:`.signature`); False tries every pod (tests compare).
    ``state`` starts from that cluster (this snapshot's, as ClusterState.rebound gives;
    it is changed in place) instead of building one. ``progress(phase, done, total)`` is
    called after every pod (kube-scheduler: pods tried; Karpenter: pods placed) and before
    every consolidation pass and simulation (commands found so far, nodes), on this thread: keep
    it cheap (the CLI and the TUI store the numbers and show them a few times a second). An
    exception it raises ends the run there (how the TUI's workers and the what-if panel cancel).
    ``gates`` are Karpenter's feature gates (v1.14 defaults when None; ``spot_to_spot`` turns on
    SpotToSpotConsolidation); a what-if's ``featureGates`` edit, kept on the snapshot, overrides them.
    ``found(disruption)`` is told each consolidation command as soon as it is found, before the
    next is looked for: a caller shows the first decision while the rest of the plan computes.
    ``equivalence`` lets pods of one signature share their cycles' work (see :mod:`.equivalence`;
    the same answers); False runs every plugin afresh for every pod (tests compare).
    ``skip_unplaceable`` leaves the pending pods no consolidation simulation can place out of
    those simulations' queues (see :mod:`.karpenter.unplaceable`; the same answers), and
    schedules the pending pods once per cluster state where the simulations can take that answer
    (see :func:`.karpenter.disruption.simulation.pending_run`); False schedules every pending pod
    in every simulation (tests compare).
    ``keep_pass(p)`` is given kube-scheduler's pass as it ended, before Karpenter's part; ``after``
    (such a pass, of a snapshot this one only adds pending pods to) goes on from it instead of
    scheduling its pods again, when :meth:`SchedulerPass.new_pods` says it holds (the same answers;
    ``state`` is then not used).
    """
    version = version or cluster_version(snapshot)
    cache: dict = {}
    if equivalence and not explain:
        cache[Equivalence] = Equivalence()  # what pods of one signature share (schedule_one reads it)
    search = cache[NodeSearch] = NodeSearch()  # where the next pod's search for feasible nodes starts
    mine = [p for p in snapshot.pending_pods if p.scheduler_name == DEFAULT_SCHEDULER]
    # kube-scheduler skips a pod being deleted, and Karpenter provisions for none
    pending = [p for p in mine if p.deleted is None]
    notes = []
    others = len(snapshot.pending_pods) - len(mine)
    if others:
        notes.append(f"{others} pending pod(s) name another scheduler and were not simulated")
    if len(mine) > len(pending):
        notes.append(f"{len(mine) - len(pending)} pending pod(s) are being deleted and were not simulated")
    claiming = sum(1 for p in pending if p.resource_claims)
    if claiming:
        notes.append(f"{claiming} pending pod(s) ask for DRA ResourceClaims: not modelled (karptui does not simulate "
                     "device allocation; Karpenter v1.14 by default does not provision for such pods)")
    new = after.new_pods(snapshot, pending) if after is not None and not explain else None
    if new is not None:   # the pass over the pods before the new ones went as it did then
        state = after.state_for(snapshot)
        search.start = after.start
        attempts, failed, queued = list(after.attempts), dict(after.failed), after.queued | {id(p) for p in new}
        pending = new
    else:
        state = state if state is not None else ClusterState(snapshot)
        attempts, failed, queued = [], {}, frozenset(id(p) for p in pending)
    # failed: signature -> (state.changes when it failed, that attempt)
    queue = deque(queue_order(pending))
    preempted = after.preempted if new is not None else False
    while queue:
        pod = queue.popleft()
        key = signature(pod) if batch else None
        earlier = failed.get(key) if key is not None else None
        if earlier is not None and earlier[0] == state.changes:
            attempts.append(replace(earlier[1], pod=pod))
        else:
            attempt, victims = schedule_one(PodCycle(pod, state, version, cache), explain)
            attempts.append(attempt)
            if key is not None and not attempt.scheduled:
                failed[key] = (state.changes, attempt)
            queue.extend(queue_order(replace(v, node_name="", phase="Pending") for v in victims))
            preempted = preempted or bool(victims)
        if progress is not None:
            progress("kube-scheduler", len(attempts), len(attempts) + len(queue))
    if keep_pass is not None:
        last = max((queue_key(p) for p in pending), default=after.last if new is not None else ())
        # failed signatures stay valid in the copy only if nothing changed since (its count starts again)
        keep_pass(SchedulerPass(snapshot, tuple(attempts), state.copy(label_groups=True), search.start, queued, last, preempted,
                                {k: (0, a) for k, (changes, a) in failed.items() if changes == state.changes}))
    placements = Placements([n.name for n in state.nodes], [tuple(pods) for pods in state.pods])
    plans: tuple = ()
    disruptions: tuple = ()
    blocked: tuple = ()
    unconsolidatable: tuple = ()
    scores: tuple = ()
    verdicts: dict = {}
    drift = None
    buffers = None   # where the capacity buffers' virtual pods went (Karpenter's pass only)
    if catalog is not None and snapshot.nodepools:
        from .karpenter.overlays import karpenter_catalog
        from .karpenter.settings import controller_gates
        from .karpenter.simulate import provision_pending

        # the caller's (--feature-gates), else what the controller's Deployment runs with
        gates = (gates or controller_gates(snapshot)).with_({"SpotToSpotConsolidation": True} if spot_to_spot else {})
        gates = gates.with_(snapshot.feature_gates)
        catalog, told = karpenter_catalog(snapshot, catalog, gates)
        notes.extend(told)
        virtual, buffers = capacity_buffers(snapshot, gates, notes)
        attempts, plans = provision_pending(snapshot, state, catalog, attempts, batch, progress, explain,
                                            virtual=virtual, buffers=buffers)
        # Karpenter's placements: on the NodeClaims it launches, and on existing nodes its scheduler
        # found room on after kube-scheduler had given up on the pod
        placements.including({a.pod.key: a.node for a in attempts if a.scheduled and not a.new_node})
        placements.including({key: plan.name for plan in plans for key in plan.pods})
        if consolidate:
            from .karpenter.disruption import Disruptor

            disruptor = Disruptor(snapshot, catalog, gates.SpotToSpotConsolidation,
                                  pending=disruption_pending(attempts) + list(virtual), progress=progress,
                                  found=found, nominated=nominated(attempts),
                                  planned=planned(attempts), skip_unplaceable=skip_unplaceable, gates=gates,
                                  share_pending=skip_unplaceable,
                                  buffer_nodes=buffers.nodes if buffers is not None else None)
            commands, stuck = disruptor.run(state)
            disruptions, blocked = tuple(commands), tuple(stuck)
            notes.extend(disruptor.timeouts)
            unconsolidatable = tuple(disruptor.unconsolidatable_nodes())
            scores = tuple(disruptor.scores.values())
            verdicts = disruptor.verdicts()
        elif snapshot.whatif_drifted:
            # drift is no consolidation: Karpenter replaces drifted NodeClaims whatever the setting
            from .karpenter.disruption import drift_alone

            drift = drift_alone(snapshot, catalog, state, spot_to_spot=gates.SpotToSpotConsolidation,
                                pending=disruption_pending(attempts) + list(virtual), nominated=nominated(attempts),
                                planned=planned(attempts), progress=progress)
            notes.extend(drift.notes)
    return SimResult(snapshot, tuple(attempts), placements, tuple(notes), plans, disruptions, blocked,
                     unconsolidatable, scores=scores, verdicts=verdicts, drift=drift, buffers=buffers)


def capacity_buffers(snapshot: Snapshot, gates, notes: list[str]):
    """The capacity buffers' virtual pods Karpenter schedules with the pending pods, and the tally
    that says where they went (None when the snapshot has no CapacityBuffer); a note when the gate
    is off and buffers are there (:mod:`.karpenter.buffers`)."""
    from .karpenter.buffers import BufferTally, buffer_pods, resolutions, stale_status
    from .karpenter.versions import karpenter_version

    if not snapshot.capacity_buffers:
        return (), None
    if not gates.CapacityBuffer:
        notes.append(f"{len(snapshot.capacity_buffers)} CapacityBuffer(s) ignored: the CapacityBuffer feature gate "
                     "is off (Karpenter's default)")
        return (), None
    version = karpenter_version(snapshot)
    found = resolutions(snapshot)
    notes.extend(note for r in found if (note := stale_status(r)))
    return buffer_pods(snapshot, gates, version), BufferTally(version, found)


def disruption_pending(attempts) -> list[Pod]:
    """The pending pods Karpenter's disruption simulation schedules with a candidate's pods
    (SimulateScheduling asks the provisioner for every pending pod it provisions for): those
    kube-scheduler leaves pending and Karpenter does not bind to a node that exists, the pods its
    NodeClaims are planned for included, as those NodeClaims are not created yet."""
    from .karpenter.simulate import provisionable

    return [a.pod for a in attempts if (not a.scheduled or a.new_node) and provisionable(a.pod)]


def planned(attempts) -> frozenset[str]:
    """The pending pods the provisioning plan launches NodeClaims for (their keys)."""
    return frozenset(a.pod.key for a in attempts if a.new_node)


def nominated(attempts) -> frozenset[str]:
    """Nodes Karpenter's provisioning counted on for a pod kube-scheduler had left pending: it
    nominates them, and disruption leaves a nominated node alone (``node is nominated for a pending pod``)."""
    return frozenset(a.node for a in attempts if a.scheduled and not a.new_node and a.scheduler_reason)


def schedule_one(ctx: PodCycle, explain: bool) -> tuple[Attempt, tuple[Pod, ...]]:
    """One cycle; the pod's equivalence class, when the simulation keeps them (never with
    ``explain``), saves repeating what pods of its signature did before."""
    pod, state, size = ctx.pod, ctx.state, ctx.size
    if size == 0:
        return Attempt(pod, None, reason=NO_NODES), ()
    rejection = run_prefilters(ctx)
    if rejection is not None:
        counts = {rejection.message: size}
        reason = fit_error(size, counts, preemption_message(size, {NOT_HELPFUL: size}), ctx.version,
                           pre_filter=rejection.message)
        filters = {n.name: (rejection.message,) for n in state.nodes} if explain else None
        return Attempt(pod, None, reason=reason, counts=counts, filters=filters), ()
    classes = ctx.cache.get(Equivalence)
    kept = classes.of(pod) if classes is not None and not explain else None
    verdicts = kept.filters(ctx) if kept is not None else run_filters(ctx, explain)
    filters = _explained(ctx, verdicts.per_node) if explain else None
    search = ctx.cache.get(NodeSearch)
    feasible = search.found(state, verdicts.feasible) if search is not None else np.flatnonzero(verdicts.feasible)
    if feasible.size:
        known = (lambda plugin, nodes: kept.score(ctx, plugin, nodes)) if kept is not None else None
        i = select_host(feasible, run_scores(ctx, feasible, known))
        state.place(pod, i)
        return Attempt(pod, state.nodes[i].name, counts=dict(verdicts.counts), filters=filters), ()
    candidate, post_filter = preempt(ctx, verdicts)
    if candidate is not None:
        for victim in candidate.victims:
            state.evict(victim, candidate.node)
        state.place(pod, candidate.node)
        return Attempt(pod, state.nodes[candidate.node].name, counts=dict(verdicts.counts), filters=filters,
                       preempted=tuple(v.key for v in candidate.victims)), candidate.victims
    reason = fit_error(size, verdicts.counts, post_filter, ctx.version)
    return Attempt(pod, None, reason=reason, counts=dict(verdicts.counts), filters=filters,
                   summary=summarize(ctx, verdicts) if explain else ""), ()


def filter_error(pod: Pod, state: ClusterState, version: tuple[int, int]) -> tuple[str, dict[str, tuple[str, ...]]]:
    """kube-scheduler's FitError for ``pod`` on the nodes ``state`` still has (its excluded ones left
    out), from the Filter phase alone (nothing placed, nothing preempted), with each node's reasons:
    the words a pod that Karpenter finds no other home for meets on every other node. ("", {}) when
    some node would take it."""
    pod = replace(pod, node_name="")
    size = int((~state.excluded).sum())
    if size == 0:
        return NO_NODES, {}
    ctx = PodCycle(pod, state, version, {})
    rejection = run_prefilters(ctx)
    if rejection is not None:
        names = {n.name: (rejection.message,) for i, n in enumerate(state.nodes) if not state.excluded[i]}
        return fit_error(size, {rejection.message: size}, version=version, pre_filter=rejection.message), names
    verdicts = run_filters(ctx, explain=True)
    if verdicts.feasible.any():
        return "", {}
    return fit_error(size, verdicts.counts, version=version), {
        state.nodes[i].name: tuple(reasons) for i, reasons in sorted((verdicts.per_node or {}).items())}


def _explained(ctx: PodCycle, per_node: dict[int, list[str]] | None) -> dict[str, tuple[str, ...]]:
    per_node = per_node or {}
    return {node.name: tuple(per_node.get(i, ())) for i, node in enumerate(ctx.state.nodes)}
