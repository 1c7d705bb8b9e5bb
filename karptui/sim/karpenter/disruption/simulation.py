"""Where the candidates' pods would go if the candidates were gone (Karpenter's SimulateScheduling).

The candidates leave the cluster; their reschedulable pods, together with the
cluster's pending pods (every pod Karpenter provisions for, those whose
NodeClaims are not created yet included), go through the provisioning
scheduler against the rest of the cluster and new NodeClaims. A moved pod may
not land on a node that is not initialized yet (it would wait there), nor on
one still within its NodePool's consolidateAfter. Pods that were pending before
do not count when they still fail: a pod nothing could place must not block
consolidation. The NodeClaims the pending pods need do count: a command is
only taken when all of them together are none (delete) or one (replace), as
Karpenter's ``computeConsolidation`` counts ``NewNodeClaims``.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field

from ....model import Pod
from ...simulate import filter_error
from ...state import ClusterState
from ...version import cluster_version
from ..scheduler import Prepared, Results, Scheduler
from ..unplaceable import any_negative
from .candidates import Candidate


@dataclass
class Simulation:
    results: Results
    moved: list[tuple[Pod, int]]     # (pod, existing node index) placements on existing nodes
    all_scheduled: bool
    errors: dict[str, str]           # moved pods that found no place -> why
    # the first of them -> kube-scheduler's FitError on the nodes left, and each node's reasons
    fit_errors: dict[str, tuple[str, dict[str, tuple[str, ...]]]] = field(default_factory=dict)

    @property
    def claims(self):
        return self.results.claims


def simulate(snapshot, state: ClusterState, catalog, prepared: Prepared, candidates: list[Candidate],
             pending: list[Pod], settling: frozenset[str], existing=None,
             unplaceable: frozenset[str] = frozenset()) -> Simulation:
    """The candidates are taken out of the cluster (``excluded``) for the run. Their pods stay
    bound to them meanwhile: Karpenter's scheduler and topology only count pods on nodes not
    taken out, so evicting and binding them again per simulation (a tenth of a 2,000-node plan)
    changed nothing. kube-scheduler's filters count pods wherever they run, so they are evicted
    for the one question asked of those (why a moved pod found no place).

    ``unplaceable``: keys of pending pods no run over ``existing`` can place
    (:mod:`..unplaceable`); they stay out of the queue (still known to the topology, as the
    scheduler is built with every pod), which changes no placement, only what the run costs."""
    indices = [c.index for c in candidates]
    state.excluded[indices] = True
    try:
        moving = [p for c in candidates for p in c.pods]
        scheduler = Scheduler(snapshot, state, catalog, pending + moving, prepared=prepared, settling=settling,
                              existing=existing)
        if unplaceable and not any_negative(moving):
            queued = [p for p in pending if p.key not in unplaceable]
        else:
            queued = pending
        results = scheduler.solve(queued + moving)
        keyed = [(p, p.key) for p in moving]  # a pod's key is made afresh each time it is read
        errors = {key: results.errors[key] for _, key in keyed if key in results.errors}
        moved = []
        for p, key in keyed:
            node = results.on_existing.get(key)
            if node is None:
                continue
            if not node.initialized:
                errors[key] = uninitialized_error(node)
            if node.index is not None:
                moved.append((p, node.index))
        fits = {}
        first = next((p for p, key in keyed if key in errors), None)
        if first is not None:  # what it meets on each node left, while the candidates are gone
            with _evicted(state, candidates):
                fits[first.key] = filter_error(first, state, cluster_version(snapshot))
        return Simulation(results, moved, not errors, errors, fits)
    finally:
        state.excluded[indices] = False


def uninitialized_error(node) -> str:
    """Karpenter's UninitializedNodeError: a moved pod would land on a node (or a NodeClaim with no
    Node yet) that is not initialized, so the decision would rest on a node that may never come up."""
    names = ([f"nodeclaim/{node.nodeclaim}"] if node.nodeclaim else []) + \
        ([f"node/{node.name}"] if node.index is not None else [])
    return f"would schedule against uninitialized {', '.join(names)}"


@contextmanager
def _evicted(state: ClusterState, candidates: list[Candidate]):
    """The candidates' pods off their nodes, and back after."""
    evicted = [(pod, c.index) for c in candidates for pod in list(state.pods[c.index])]
    for pod, i in evicted:
        state.evict(pod, i)
    try:
        yield
    finally:
        for pod, i in evicted:
            state.place(pod, i)
