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
    labels: Mapping[str, str] = field(default_factory=dict)   # what Karpenter writes on it (claimlabels)
    min_values: Mapping[str, int] = field(default_factory=dict)   # requirement key -> its minValues
    annotations: Mapping[str, str] = field(default_factory=dict)  # what Karpenter writes on it
    buffer_pods: tuple[str, ...] = ()   # capacity buffers' virtual pods it is launched for (never API pods)


class Placements(Mapping[str, str]):
    """Pod key -> node (or NodeClaim) for every pod bound at the end, read off each node's pods as
    the run left them and made into a map when first read.

    The command line never reads it (the what-if diff does); on 20,000 nodes the map, 180,000
    keys made afresh from names, was one more walk over every pod per simulation. Pickled, it is
    the plain map (a result crossing processes carries no pods)."""

    __slots__ = ("_nodes", "_pods", "_more", "_map")

    def __init__(self, nodes: list[str], pods: list[tuple[Pod, ...]]) -> None:
        self._nodes, self._pods = nodes, pods   # node names, and each node's pods then (copies)
        self._more: list[Mapping[str, str]] = []
        self._map: dict[str, str] | None = None

    def including(self, more: Mapping[str, str]) -> None:
        """These placements too (later ones win), as ``dict.update`` would."""
        if self._map is not None:
            self._map.update(more)
        else:
            self._more.append(more)

    def _built(self) -> dict[str, str]:
        if self._map is None:
            self._map = {p.key: name for name, pods in zip(self._nodes, self._pods) for p in pods}
            for more in self._more:
                self._map.update(more)
            self._nodes, self._pods, self._more = [], [], []
        return self._map

    def __getitem__(self, key: str) -> str:
        return self._built()[key]

    def __iter__(self):
        return iter(self._built())

    def __len__(self) -> int:
        return len(self._built())

    def __contains__(self, key: object) -> bool:
        return key in self._built()

    def get(self, key: str, default=None):
        return self._built().get(key, default)

    # the map's own views: the what-if diff takes set differences of 180,000 items
    def keys(self):
        return self._built().keys()

    def items(self):
        return self._built().items()

    def values(self):
        return self._built().values()

    def __reduce__(self):
        return dict, (self._built(),)


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
    # karpenter.disruption.DriftRun: without consolidation, what Karpenter's drift method alone does
    # to the NodeClaims a what-if drifted (with consolidation, its commands are among ``disruptions``)
    drift: object = None
    # karpenter.buffers.BufferTally: where the capacity buffers' virtual pods went (gate on, buffers present)
    buffers: object = None

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
