"""VolumeBinding: claims must exist; a bound volume's node affinity must admit the node.

Zonal EBS volumes carry node affinity on ``topology.ebs.csi.aws.com/zone`` (or
``topology.kubernetes.io/zone``), so a pod with a bound claim can only go to its
volume's zone. An unbound WaitForFirstConsumer claim follows the pod anywhere.
"""

from __future__ import annotations

import numpy as np

from ...model import Pod
from ...model.volumes import PersistentVolume, PersistentVolumeClaim
from ..cycle import Failure, PodCycle, Rejection
from ..state import ClusterState
from ..status import UNRESOLVABLE

NAME = "VolumeBinding"
REASON_NODE_CONFLICT = "node(s) had volume node affinity conflict"  # until 1.32
REASON_NODE_CONFLICT_NEW = "node(s) didn't match PersistentVolume's node affinity"  # 1.33 on
REASON_UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"


class Volumes:
    """Claims by namespace/name and volumes by name, indexed once per simulation."""

    def __init__(self, state: ClusterState) -> None:
        snapshot = state.snapshot
        self.index = snapshot.volume_index
        self.claims = self.index.claims
        self.volumes = self.index.volumes
        self.wait_for_consumer = {s.name for s in snapshot.storage_classes if s.volume_binding_mode == "WaitForFirstConsumer"}


def volumes(ctx: PodCycle) -> Volumes:
    return ctx.state.shared(Volumes, lambda: Volumes(ctx.state))


def bound_volumes(ctx: PodCycle, pod: Pod) -> list[PersistentVolume]:
    index = volumes(ctx)
    found = []
    for name in pod.pvc_names:
        claim = index.claims.get((pod.namespace, name))
        if claim is not None and claim.volume_name in index.volumes:
            found.append(index.volumes[claim.volume_name])
    return found


def prefilter(ctx: PodCycle) -> Rejection | None:
    index = volumes(ctx)
    for name in ctx.pod.pvc_names:
        claim: PersistentVolumeClaim | None = index.claims.get((ctx.pod.namespace, name))
        if claim is None:
            return Rejection(NAME, f'persistentvolumeclaim "{name}" not found')
        if not claim.volume_name and index.index.class_name(claim) not in index.wait_for_consumer:
            return Rejection(NAME, REASON_UNBOUND_IMMEDIATE)
    return None


def filter(ctx: PodCycle) -> list[Failure]:
    affinities = [v.node_affinity for v in bound_volumes(ctx, ctx.pod) if v.node_affinity is not None]
    if not affinities:
        return []

    def compute() -> np.ndarray:
        return np.array([not all(a.matches(n.labels, n.name) for a in affinities) for n in ctx.state.nodes], dtype=bool)

    mask = ctx.static((NAME, tuple(affinities)), compute)
    text = REASON_NODE_CONFLICT_NEW if ctx.version >= (1, 33) else REASON_NODE_CONFLICT
    return [Failure(mask, text, UNRESOLVABLE)] if mask.any() else []
