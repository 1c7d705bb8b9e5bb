"""What a simulation returns: one attempt per pending pod, in queue order."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from ..model import Pod, Snapshot


@dataclass(frozen=True)
class Attempt:
    """One scheduling attempt (docs/simulate-json.md ``pods[]``).

    ``counts`` is the FitError histogram (reason -> nodes) kept as data;
    ``filters`` (explain only) maps every node to its reasons, empty if it fit.
    ``scheduler_reason`` is kube-scheduler's FitError for a pod it left to Karpenter, kept
    when Karpenter places the pod (``reason`` is then None) and ``summary`` with it.
    ``nodepools`` (explain only, pods Karpenter tried): every NodePool's verdict, in Karpenter's
    order (karpenter.nodepool_verdicts.PoolVerdict).
    """

    pod: Pod
    node: str | None
    new_node: bool = False
    reason: str | None = None
    counts: Mapping[str, int] = field(default_factory=dict)
    filters: Mapping[str, tuple[str, ...]] | None = None
    preempted: tuple[str, ...] = ()
    summary: str = ""
    karpenter_reason: str | None = None
    scheduler_reason: str | None = None
    nodepools: tuple | None = None

    @property
    def scheduled(self) -> bool:
        return self.node is not None


@dataclass(frozen=True)
class NodeClaimPlan:
    """A node Karpenter would launch (docs/simulate-json.md ``nodeclaims[]``)."""

    name: str
    nodepool: str
    requirements: Mapping[str, tuple[str, ...]]
    instance_types: tuple[str, ...]
    launch: Mapping | None
    pods: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class SimResult:
    snapshot: Snapshot
    attempts: tuple[Attempt, ...]
    placements: Mapping[str, str]   # pod key -> node or NodeClaim, for every pod bound at the end
    notes: tuple[str, ...] = ()
    nodeclaims: tuple[NodeClaimPlan, ...] = ()
    disruptions: tuple = ()   # karpenter.consolidate.Disruption, in the order Karpenter would act
    blocked: tuple = ()       # karpenter.consolidate.Blocked
    unconsolidatable: tuple = ()  # Blocked: candidates consolidation tried alone and left (not cheaper, ...)
    scores: tuple = ()        # karpenter.disruption.balanced.Score: each Balanced candidate's last score
    # node -> karpenter.disruption.verdicts.NodeVerdicts: each disruption method's verdict on every
    # Karpenter node, with its reason (with consolidation only)
    verdicts: Mapping = field(default_factory=dict)

    @property
    def scheduled(self) -> int:
        return sum(1 for a in self.attempts if a.scheduled)

    @property
    def pending(self) -> int:
        return sum(1 for a in self.attempts if not a.scheduled)

    def detached(self) -> SimResult:
        """This result without its snapshot, and each attempt's pod as its key (when the snapshot
        holds it): small enough to pickle from the process that simulated to the one that shows
        it, which holds the same snapshot (:meth:`attached`)."""
        pods = self.snapshot.pod_by_key
        return replace(self, snapshot=None, attempts=tuple(
            replace(a, pod=a.pod.key) if pods.get(a.pod.key) is a.pod else a for a in self.attempts))

    def attached(self, snapshot: Snapshot) -> SimResult:
        """A :meth:`detached` result joined again to the snapshot it was simulated on."""
        pods = snapshot.pod_by_key
        return replace(self, snapshot=snapshot, attempts=tuple(
            replace(a, pod=pods[a.pod]) if isinstance(a.pod, str) else a for a in self.attempts))
