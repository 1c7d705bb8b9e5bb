"""kube-scheduler's pass over a snapshot's pending pods, kept as it ended, to go on from.

Why: a what-if that only adds pods (``+`` on a Deployment, ``scale: 21``) leaves every pod the
unedited cluster had exactly where it was, and kube-scheduler takes the new pods after all of them
when they come later in its queue (PrioritySort: higher priority first, then older). Its pass over
the old pending pods then goes exactly as the baseline's did, so the what-if goes on from where the
baseline's pass ended and schedules only the new pods: on 5,000 nodes that pass was a third of a run.

Only kube-scheduler's pass is taken up again. Karpenter's provisioning is not: Karpenter packs
every pod left pending in one batch, sorted by size, so one more pod can change the NodeClaims
it launches for all of them; that part is simulated afresh, as Karpenter would.

The answer is the same as simulating the edited snapshot from scratch, or no pass is offered
(:meth:`SchedulerPass.new_pods` says None): when a preemption moved pods (their victims were
queued again, after the rest), when anything but pending pods was added, or when a new pod would
be queued before one the pass took.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from ..model import Pod, Snapshot
from .plugins.queue_sort import queue_key
from .state import ClusterState

# the snapshot's parts kube-scheduler's and Karpenter's simulations read besides pods and workloads:
# a what-if that changes any of them is simulated afresh
_UNCHANGED = tuple(f.name for f in fields(Snapshot) if f.name not in ("pods", "workloads", "events", "meta", "warnings"))


@dataclass(frozen=True)
class SchedulerPass:
    """The pass as it ended: every attempt, the cluster then (a copy nothing changes), where the
    search for feasible nodes would start next, the pods it queued and the last one's queue key,
    and the failed signatures still valid when it ended (see simulate's ``batch``)."""

    snapshot: Snapshot
    attempts: tuple
    state: ClusterState
    start: int
    queued: frozenset[int]          # id() of each pod the pass queued
    last: tuple                     # the queue key of the last of them (plugins.queue_sort)
    preempted: bool
    failed: dict

    def holds_for(self, snapshot: Snapshot) -> bool:
        """Whether a simulation of ``snapshot`` can go on from this pass (see :meth:`new_pods`)."""
        return self.new_pods(snapshot, list(snapshot.pending_pods)) is not None

    def new_pods(self, snapshot: Snapshot, pending: list[Pod]) -> list[Pod] | None:
        """``pending`` (the edited snapshot's pods kube-scheduler would queue) less those this pass
        took, when the pass holds for ``snapshot``; None when it must be simulated afresh."""
        if self.preempted or snapshot is self.snapshot:
            return None if self.preempted else []
        before = self.snapshot
        if any(getattr(snapshot, name) is not getattr(before, name) and getattr(snapshot, name) != getattr(before, name)
               for name in _UNCHANGED):
            return None
        if not _same_workloads(before.workloads, snapshot.workloads):
            return None
        if {id(p) for p in snapshot.bound_pods} != {id(p) for p in before.bound_pods}:
            return None
        ids = {id(p) for p in pending}
        if not self.queued <= ids:
            return None   # a pod the pass took is gone (scaled down, or changed)
        new = [p for p in pending if id(p) not in self.queued]
        if any(queue_key(p) <= self.last for p in new):
            return None   # kube-scheduler would take it before a pod the pass took
        return new

    def state_for(self, snapshot: Snapshot) -> ClusterState:
        """The cluster as the pass left it, for ``snapshot``'s simulation to change."""
        return self.state.copy(snapshot, label_groups=True)


def _same_workloads(before, after) -> bool:
    """The same workloads, their replica counts aside (a scale changes only those)."""
    if len(before) != len(after):
        return False
    return all(a is b or (a.kind == b.kind and a.key == b.key and a.selector == b.selector
                          and (a.template is b.template or a.template == b.template)) for a, b in zip(before, after))
