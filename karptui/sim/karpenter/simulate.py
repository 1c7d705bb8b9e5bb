"""Karpenter's turn after kube-scheduler's: the pods still pending go through its scheduler.

Only pods Karpenter provisions for take part (not DaemonSet or static pods, not
pods already nominated to a node by preemption); those it can put on a node
that exists or is on its way are reported on that node, the rest on the
NodeClaims it would launch, or pending with Karpenter's reason after
kube-scheduler's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ...catalog import Catalog
from ...model import Snapshot
from ...model import labels as L
from ...model.pod import Pod
from ..result import Attempt, NodeClaimPlan
from ..state import ClusterState
from .buffers import BufferTally, is_virtual
from .claimlabels import nodeclaim_labels
from .deleting import pods_to_reschedule
from .launch import choose
from .scheduler import Scheduler

KARPENTER = "Karpenter: Failed to schedule pod, "


def provisionable(pod) -> bool:
    """What Karpenter's provisioner picks up once kube-scheduler has given up on a pod."""
    return not pod.is_daemonset_pod and not pod.is_mirror and not pod.is_terminal and not pod.nominated_node


def provision_pending(snapshot: Snapshot, state: ClusterState, catalog: Catalog,
                      attempts: list[Attempt], batch: bool = True, progress=None,
                      explain: bool = False, virtual: Sequence[Pod] = (),
                      buffers: BufferTally | None = None) -> tuple[list[Attempt], tuple[NodeClaimPlan, ...]]:
    """``explain``: each pod Karpenter tried also gets its NodePool decision table (``nodepools``).
    ``virtual``: capacity buffers' virtual pods (:mod:`.buffers`), scheduled after the pending pods as
    Karpenter adds them; they take room on existing nodes for this pass only and are reported on the
    NodeClaims launched for them (``buffer_pods``) and, where ``buffers`` is given, counted there."""
    pending = [a.pod for a in attempts if not a.scheduled and provisionable(a.pod)]
    # the pods of nodes being deleted come after the pending ones, as Karpenter lists them; they are
    # reported only on the NodeClaims launched for them (they are no pending pods of the snapshot)
    moving = pods_to_reschedule(snapshot, state)
    if not pending and not moving and not virtual:
        return attempts, ()
    pods = pending + list(virtual) + moving
    scheduler = Scheduler(snapshot, state, catalog, pods, decide=explain, provisioning=True)
    result = scheduler.solve(pods, batch, progress)
    if buffers is not None:
        buffers.count(virtual, result)
    by_key = {p.key: p for p in pending}
    for key, node in result.on_existing.items():
        if node.index is not None and key in by_key:  # kube-scheduler binds it once the node is ready: count it there
            state.place(by_key[key], node.index)
    updated = []
    for attempt in attempts:
        key = attempt.pod.key
        node = result.on_existing.get(key)
        claim = result.on_claim.get(key)
        if key in scheduler.decisions:
            attempt = replace(attempt, nodepools=scheduler.decisions[key])
        if attempt.scheduled:
            updated.append(attempt)
        elif node is not None:  # kube-scheduler's verdict stays: it is why Karpenter had to act
            updated.append(replace(attempt, node=node.name, new_node=False, reason=None,
                                   scheduler_reason=attempt.reason))
        elif claim is not None:
            updated.append(replace(attempt, node=claim.name, new_node=True, reason=None,
                                   scheduler_reason=attempt.reason))
        else:
            why = result.errors.get(key, "")
            updated.append(replace(attempt, karpenter_reason=why or None, scheduler_reason=attempt.reason,
                                   reason=f"{attempt.reason} {KARPENTER}{why}" if why else attempt.reason))
    return updated, tuple(plan(claim, scheduler) for claim in result.claims)


def plan(claim, scheduler: Scheduler) -> NodeClaimPlan:
    """The NodeClaim as the simulation reports it (docs/simulate-json.md ``nodeclaims[]``)."""
    reqs = claim.final_requirements()
    rows = claim.type_rows()
    launch = choose(scheduler.types, rows, reqs)
    return NodeClaimPlan(
        name=claim.name,
        nodepool=claim.template.name,
        requirements={k: tuple(sorted(r.values)) for k, r in reqs.items()
                      if not r.complement and k not in L.SIMULATION_KEYS},
        instance_types=tuple(scheduler.types.types[i].name for i in rows),
        launch=launch.to_dict() if launch else None,
        pods=tuple(p.key for p in claim.pods if not is_virtual(p)),
        buffer_pods=tuple(p.key for p in claim.pods if is_virtual(p)),
        labels=nodeclaim_labels(reqs, scheduler.types.well_known),
        min_values={k: r.min_values for k, r in reqs.items() if r.min_values is not None},
        annotations={L.NODECLAIM_MIN_VALUES_RELAXED: "true" if claim.min_values_relaxed() else "false"},
    )
