"""The whole cluster at one instant: what every later layer reads.

Frozen with ``eq=False``: identity is equality, because Textual reactives
compare old and new values with ``!=`` and a deep comparison of 50,000 pods on
every refresh would be wasted work. Indexes are computed on first use.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property

from typing import TYPE_CHECKING

from .as_of import as_of as snapshot_as_of

if TYPE_CHECKING:  # the kinds' modules load when a dump holds their kind (build.builder_of), not with the Snapshot
    from .capacitybuffer import CapacityBuffer, PodTemplate
    from .classes import PriorityClass, StorageClass
    from .crd import KarpenterCRD
    from .csi import CSINode
    from .disruption import PodDisruptionBudget
    from .events import Event
    from .meta import KubeObject
    from .namespace import Namespace
    from .node import Node
    from .nodeclaim import NodeClaim
    from .nodeclass import NodeClass
    from .nodeoverlay import NodeOverlay
    from .nodepool import NodePool
    from .pod import Pod
    from .service import Service
    from .volumes import PersistentVolume, PersistentVolumeClaim
    from .workloads import Workload

NO_ZONE = "<none>"


@dataclass(frozen=True)
class SnapshotMeta:
    """Where a snapshot came from; the karptui metadata document when one was saved."""

    source: str = ""
    name: str = ""
    captured_at: datetime | None = None
    context: str = ""
    cluster: str = ""
    karptui_version: str = ""
    kubernetes_version: str = ""
    logs_source: str = ""
    logs_text: str = ""
    # the Karpenter version the file says it shows (``karpenterVersion:`` in its KarptuiSnapshot document)
    karpenter_version: str = ""


@dataclass(frozen=True)
class VolumeIndex:
    """Claims by (namespace, name), volumes and storage classes by name, and the default class."""

    claims: Mapping[tuple[str, str], PersistentVolumeClaim]
    volumes: Mapping[str, PersistentVolume]
    classes: Mapping[str, StorageClass]
    default_class: str = ""   # what a claim naming no class gets (classes.default_storage_class)

    def class_name(self, claim: PersistentVolumeClaim) -> str:
        """The StorageClass a claim is of: the one it names, "" when it names "" (no class), the
        cluster's default when it leaves the field out. The API server's admission writes the
        default into a claim created without one, and the PV controller into an unbound claim
        once a default appears; a snapshot may show the claim before either. Every reader of a
        claim's class asks here."""
        return self.default_class if claim.storage_class is None else claim.storage_class

    def class_of(self, claim: PersistentVolumeClaim) -> StorageClass | None:
        return self.classes.get(self.class_name(claim))


@dataclass(frozen=True, eq=False)
class Snapshot:
    nodes: tuple[Node, ...] = ()
    pods: tuple[Pod, ...] = ()
    workloads: tuple[Workload, ...] = ()
    pdbs: tuple[PodDisruptionBudget, ...] = ()
    pvs: tuple[PersistentVolume, ...] = ()
    pvcs: tuple[PersistentVolumeClaim, ...] = ()
    events: tuple[Event, ...] = ()
    namespaces: tuple[Namespace, ...] = ()
    services: tuple[Service, ...] = ()
    priority_classes: tuple[PriorityClass, ...] = ()
    storage_classes: tuple[StorageClass, ...] = ()
    csinodes: tuple[CSINode, ...] = ()
    nodepools: tuple[NodePool, ...] = ()
    nodeclaims: tuple[NodeClaim, ...] = ()
    nodeclasses: tuple[NodeClass, ...] = ()
    nodeoverlays: tuple[NodeOverlay, ...] = ()
    capacity_buffers: tuple[CapacityBuffer, ...] = ()   # autoscaling.x-k8s.io (Karpenter's CapacityBuffer gate)
    pod_templates: tuple[PodTemplate, ...] = ()
    karpenter_crds: tuple[KarpenterCRD, ...] = ()
    # Karpenter feature gates a what-if set (``featureGates:``); they override the caller's
    feature_gates: Mapping[str, bool] = field(default_factory=dict)
    # NodeClaims a what-if's edits drift (marked Drifted): a simulation then runs Karpenter's drift
    # method even without consolidation, as Karpenter does, so the what-if says what replaces them
    whatif_drifted: frozenset[str] = frozenset()
    # the Karpenter version the simulation models, when set (``--karpenter-version``, a what-if's
    # ``karpenterVersion:``); empty: found in the snapshot (karptui.sim.karpenter.versions)
    karpenter_version: str = ""
    # who set it: "--karpenter-version", "what-if <name>" (karptui.sim.karpenter.versions says it so)
    karpenter_version_set_by: str = ""
    # Karpenter controller settings the user set (``--preference-policy`` ...), by Karpenter's variable
    # name, and which flag set each; they override the controller's Deployment
    # (karptui.sim.karpenter.settings)
    karpenter_settings: Mapping[str, str] = field(default_factory=dict)
    karpenter_settings_set_by: Mapping[str, str] = field(default_factory=dict)
    meta: SnapshotMeta = field(default_factory=SnapshotMeta)
    warnings: tuple[str, ...] = ()
    ignored: Mapping[str, int] = field(default_factory=dict)

    @cached_property
    def as_of(self) -> datetime | None:
        """When this snapshot shows the cluster (:mod:`.as_of`): the capture time, else its newest timestamp."""
        return snapshot_as_of(self)

    @cached_property
    def node_by_name(self) -> dict[str, Node]:
        return {n.name: n for n in self.nodes}

    @cached_property
    def pod_by_key(self) -> dict[str, Pod]:
        return {p.key: p for p in self.pods}

    @cached_property
    def bound_pods(self) -> tuple[Pod, ...]:
        """Pods bound to a node and not finished, in the snapshot's order.

        That is the order they were read in, close to the order they lie in memory: a walk over
        every bound pod in this order reads memory roughly front to back, where a walk node by node
        jumps about the heap (on 20,000 nodes, 1.4x the cost per pod it has on 5,000)."""
        return tuple(pod for pod in self.pods if pod.node_name and not pod.is_terminal)

    @cached_property
    def pods_by_node(self) -> dict[str, list[Pod]]:
        """Pods bound to each node (every node present, maybe with no pods), each node's in the
        snapshot's order."""
        index: dict[str, list[Pod]] = {n.name: [] for n in self.nodes}
        for pod in self.bound_pods:
            index.setdefault(pod.node_name, []).append(pod)
        return index

    @cached_property
    def pdbs_by_namespace(self) -> dict[str, tuple[PodDisruptionBudget, ...]]:
        """Each namespace's PDBs, in the snapshot's order: a PDB selects only pods of its own
        namespace, so a pod is compared with these rather than with every PDB of the cluster."""
        index: dict[str, list[PodDisruptionBudget]] = {}
        for pdb in self.pdbs:
            index.setdefault(pdb.namespace, []).append(pdb)
        return {namespace: tuple(pdbs) for namespace, pdbs in index.items()}

    @cached_property
    def volume_index(self) -> VolumeIndex:
        from .classes import default_storage_class

        return VolumeIndex({(c.namespace, c.name): c for c in self.pvcs}, {v.name: v for v in self.pvs},
                           {s.name: s for s in self.storage_classes}, default_storage_class(self.storage_classes))

    @cached_property
    def csinode_by_name(self) -> dict[str, CSINode]:
        """Each node's CSINode (named like the node)."""
        return {c.name: c for c in self.csinodes}

    @cached_property
    def pending_pods(self) -> tuple[Pod, ...]:
        return tuple(p for p in self.pods if p.is_pending)

    @cached_property
    def zones(self) -> dict[str, int]:
        """Zone -> node count, sorted by zone name; nodes without a zone under ``<none>``."""
        counts = Counter(n.zone or NO_ZONE for n in self.nodes)
        return dict(sorted(counts.items()))

    @cached_property
    def workload_by_uid(self) -> dict[str, Workload]:
        return {w.uid: w for w in self.workloads if w.uid}

    @cached_property
    def _workload_by_ref(self) -> dict[tuple[str, str, str], Workload]:
        return {(w.kind, w.namespace, w.name): w for w in self.workloads}

    def owner_of(self, obj: KubeObject) -> Workload | None:
        """The controlling workload of a pod or workload, matched by uid, else by name."""
        owner = obj.controller
        if owner is None:
            return None
        found = self.workload_by_uid.get(owner.uid) if owner.uid else None
        return found or self._workload_by_ref.get((owner.kind, obj.namespace, owner.name))

    def owner_chain(self, obj: KubeObject) -> list[Workload]:
        """Pod -> ReplicaSet -> Deployment, as far as the snapshot holds the owners.

        Worked out once per controller: a workload's pods share their chain.
        """
        owner = obj.controller
        if owner is None:
            return []
        key = (owner.uid, owner.kind, owner.name, obj.namespace)
        chains = self._owner_chains
        found = chains.get(key)
        if found is None:
            chain: list[Workload] = []
            current = self.owner_of(obj)
            while current is not None and current not in chain:
                chain.append(current)
                current = self.owner_of(current)
            found = chains[key] = tuple(chain)
        return list(found)

    @cached_property
    def _owner_chains(self) -> dict[tuple[str, str, str, str], tuple[Workload, ...]]:
        return {}

    def pods_of(self, workload: Workload) -> list[Pod]:
        """Pods with ``workload`` anywhere in their owner chain (a Deployment's, via its ReplicaSets)."""
        return list(self._pods_by_owner.get(id(workload), ()))

    @cached_property
    def _pods_by_owner(self) -> dict[int, list[Pod]]:
        index: dict[int, list[Pod]] = {}
        for pod in self.pods:
            for owner in self.owner_chain(pod):
                index.setdefault(id(owner), []).append(pod)
        return index

    def top_owner(self, pod: Pod) -> Workload | None:
        chain = self.owner_chain(pod)
        return chain[-1] if chain else None

    @cached_property
    def nodeclaim_by_node(self) -> dict[str, NodeClaim]:
        """Each NodeClaim by its node name, or by provider ID for v1alpha5 Machines."""
        by_provider = {n.provider_id: n.name for n in self.nodes if n.provider_id}
        index = {}
        for claim in self.nodeclaims:
            node = claim.node_name or by_provider.get(claim.provider_id, "")
            if node:
                index[node] = claim
        return index
