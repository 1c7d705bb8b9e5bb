"""NodeVolumeLimits: a node attaches at most its CSINode's ``allocatable.count`` volumes per CSI driver.

kube-scheduler counts, per driver, the unique volumes of the pods already on the node plus those
of the incoming pod (a volume several pods share counts once), and refuses the node when any
driver with a count would go over it. A claim's volume is found as kube-scheduler finds it:

- a claim bound to a CSI volume: the volume's driver and handle;
- a claim bound to an in-tree volume (``awsElasticBlockStore``...): the CSI driver its plugin
  migrates to (:mod:`karptui.model.csi`), where the node's CSINode says the plugin is migrated;
- a claim not bound yet (or whose volume is gone): its StorageClass's provisioner (the in-tree
  ones translated, on nodes where migrated), one volume per claim; a claim whose class is "" or
  unknown is not counted (it must be bound before it schedules).

A generic ephemeral volume is the claim named ``<pod>-<volume>``. A node without a CSINode, or
whose drivers give no count, has no limit. Not modelled: inline in-tree volumes in a pod spec,
VolumeAttachments of volumes no pod uses any more, and the ephemeral claim's owner check.
"""

from __future__ import annotations

import numpy as np

from ...model import Pod, Snapshot
from ...model.csi import csi_driver_of
from ...model.snapshot import VolumeIndex
from ...model.volumes import PersistentVolumeClaim
from ..cycle import Failure, PodCycle
from ..state import ClusterState
from ..status import UNSCHEDULABLE

NAME = "NodeVolumeLimits"
REASON = "node(s) exceed max volume count"

Volume = tuple[str, str, str]   # (unique name, CSI driver, in-tree plugin it migrates from or "")


def driver_info(claim: PersistentVolumeClaim, index: VolumeIndex) -> Volume | None:
    """The volume a claim gives its pod, as kube-scheduler names it; None when not counted."""
    if claim.volume_name:
        volume = index.volumes.get(claim.volume_name)
        if volume is not None:
            if volume.driver:
                return (f"{volume.driver}/{volume.handle}", volume.driver, "") if volume.handle else None
            if volume.in_tree and volume.handle:
                driver = csi_driver_of(volume.in_tree)
                return f"{driver}/{volume.handle}", driver, volume.in_tree
            return None
    storage_class = index.class_of(claim)
    if storage_class is None or not storage_class.provisioner:
        return None
    driver = csi_driver_of(storage_class.provisioner)
    plugin = storage_class.provisioner if driver != storage_class.provisioner else ""
    return f"{driver}/~{claim.namespace}/{claim.name}", driver, plugin   # one volume per claim


def pod_volumes(pod: Pod, snapshot: Snapshot) -> tuple[Volume, ...]:
    """The volumes of ``pod`` kube-scheduler may count, each once (claims not found: not counted)."""
    if not pod.pvc_names:
        return ()
    index = snapshot.volume_index
    found: dict[str, Volume] = {}
    for name in pod.pvc_names:
        claim = index.claims.get((pod.namespace, name))
        volume = driver_info(claim, index) if claim is not None else None
        if volume is not None:
            found.setdefault(volume[0], volume)
    return tuple(found.values())


class AttachedVolumes:
    """Per node, the volumes its pods use, and per driver how many count against its limit there.
    Follows placements and evictions (a listener on the state); built when a pod with volumes is
    first filtered, from the pods that have claims (most have none)."""

    def __init__(self, state: ClusterState) -> None:
        self.snapshot = state.snapshot
        self.size = n = len(state.nodes)
        by_name = state.snapshot.csinode_by_name
        self.csinodes = [by_name.get(node.name) for node in state.nodes]
        self.limits: dict[str, np.ndarray] = {}     # driver -> its count per node (-1: no limit there)
        for i, csinode in enumerate(self.csinodes):
            for driver, count in (csinode.limits.items() if csinode is not None else ()):
                self.limits.setdefault(driver, np.full(n, -1, dtype=np.int64))[i] = count
        self.counts: dict[str, np.ndarray] = {}     # driver -> unique volumes counted per node
        self.users: dict[str, dict[int, int]] = {}  # unique name -> node -> pods using it there
        self._migrated: dict[str, np.ndarray] = {}
        self._of: dict[int, tuple[Pod, tuple[Volume, ...]]] = {}
        for i, pods in enumerate(state.pods):
            for pod in pods:
                if pod.pvc_names:
                    self.update(pod, i, +1)
        state.listeners.append(self.update)

    def copy_for(self, state: ClusterState) -> AttachedVolumes:
        if state.snapshot is not self.snapshot:
            return AttachedVolumes(state)   # other claims, maybe: resolve afresh
        new = object.__new__(AttachedVolumes)
        new.snapshot, new.size, new.csinodes, new.limits = self.snapshot, self.size, self.csinodes, self.limits
        new.counts = {d: v.copy() for d, v in self.counts.items()}
        new.users = {u: dict(on) for u, on in self.users.items()}
        new._migrated, new._of = self._migrated, dict(self._of)
        state.listeners.append(new.update)
        return new

    def volumes(self, pod: Pod) -> tuple[Volume, ...]:
        found = self._of.get(id(pod))
        if found is None or found[0] is not pod:
            found = self._of[id(pod)] = (pod, pod_volumes(pod, self.snapshot))
        return found[1]

    def migrated(self, plugin: str) -> np.ndarray:
        """Per node: its CSINode counts ``plugin``'s volumes against the plugin's CSI driver."""
        found = self._migrated.get(plugin)
        if found is None:
            found = self._migrated[plugin] = np.array(
                [c is not None and c.migrated(plugin) for c in self.csinodes], dtype=bool)
        return found

    def update(self, pod: Pod, i: int, sign: int) -> None:
        if not pod.pvc_names:
            return
        for unique, driver, plugin in self.volumes(pod):
            if plugin and not self.migrated(plugin)[i]:
                continue
            on = self.users.setdefault(unique, {})
            before = on.get(i, 0)
            after = before + sign
            if after:
                on[i] = after
            else:
                on.pop(i, None)
            if (before == 0) != (after == 0):
                counts = self.counts.setdefault(driver, np.zeros(self.size, dtype=np.int64))
                counts[i] += 1 if after else -1

    def over(self, pod: Pod) -> np.ndarray | None:
        """The nodes where ``pod``'s volumes would take some driver over its count; None: none."""
        wanted: dict[str, list[Volume]] = {}
        for volume in self.volumes(pod):
            if volume[1] in self.limits:
                wanted.setdefault(volume[1], []).append(volume)
        found = None
        for driver, volumes in wanted.items():
            limit = self.limits[driver]
            need = np.zeros(self.size, dtype=np.int64)
            for unique, _, plugin in volumes:
                adds = np.ones(self.size, dtype=np.int64) if not plugin else self.migrated(plugin).astype(np.int64)
                for i in self.users.get(unique, ()):
                    adds[i] = 0   # already attached there: counted once
                need += adds
            counts = self.counts.get(driver)
            total = need if counts is None else counts + need
            hit = (limit >= 0) & (need > 0) & (total > limit)
            found = hit if found is None else found | hit
        return found if found is not None and found.any() else None


def attached(state: ClusterState) -> AttachedVolumes:
    return state.shared(AttachedVolumes, lambda: AttachedVolumes(state))


def blind_to_evictions(ctx: PodCycle, leaving: list[Pod]) -> bool:
    """Whether taking the bound pods ``leaving`` away cannot change this filter's verdict on the
    pod (see ``framework.only_resources_see_evictions``): without claims, or without CSINodes to
    give limits, the pod is never refused; pods without claims attach no volume (``update``)."""
    return not ctx.pod.pvc_names or not ctx.state.snapshot.csinodes or not any(pod.pvc_names for pod in leaving)


def filter(ctx: PodCycle, nodes: np.ndarray | None = None) -> list[Failure]:
    """``nodes`` (indices) asks about those nodes only, the mask then being over them."""
    if not ctx.pod.pvc_names or not ctx.state.snapshot.csinodes:
        return []
    mask = attached(ctx.state).over(ctx.pod)
    if mask is None:
        return []
    if nodes is not None:
        mask = mask[nodes]
        if not mask.any():
            return []
    return [Failure(mask, REASON, UNSCHEDULABLE)]
