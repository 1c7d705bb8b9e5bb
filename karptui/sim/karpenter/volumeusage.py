"""Karpenter's volume usage (``pkg/scheduling/volumeusage.go``): volume slots per CSI driver.

Karpenter counts a pod's volumes per CSI driver by claim: each claim (``namespace/name``; a
generic ephemeral volume's claim is ``<pod>-<volume>``) counts once however many pods share it.
The driver is the bound volume's CSI driver (an in-tree ``awsElasticBlockStore`` volume counts
as ``ebs.csi.aws.com``; any other volume that is not CSI is not counted), else the claim's
StorageClass provisioner, an in-tree one translated to its CSI driver. A claim with no class or
an unknown one is not counted.

Limits: an existing node's CSINode gives each driver that reports an ``allocatable`` section a
limit of its ``count`` (no count: 0), as Karpenter's cluster state reads it; a node without a
CSINode, and a NodeClaim not registered yet, has none. From v1.15 (kubernetes-sigs/karpenter
#3202) an instance type may also declare limits, which narrow a new NodeClaim's instance types
(:mod:`.nodeclaim`); the catalog's ``volumeLimits`` holds them.

This is Karpenter's reading, not kube-scheduler's (:mod:`karptui.sim.plugins.node_volume_limits`):
they differ on in-tree volumes other than EBS and on volumes shared across claims.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType

from ...model import Pod, Snapshot
from ...model.csi import AWS_EBS, CSINode, csi_driver_of

Volumes = Mapping[str, frozenset[str]]   # CSI driver -> the claims (namespace/name) using it
NONE: Volumes = MappingProxyType({})   # no volumes (read-only: a default shared by every node)


def pod_volumes(pod: Pod, snapshot: Snapshot) -> Volumes:
    """The volumes ``pod`` would mount, by driver (GetVolumes / ResolveDriver)."""
    if not pod.pvc_names:
        return NONE
    index = snapshot.volume_index
    found: dict[str, set[str]] = {}
    for name in pod.pvc_names:
        claim = index.claims.get((pod.namespace, name))
        if claim is None:
            continue   # a claim gone: Karpenter leaves it out of the count
        driver = ""
        if claim.volume_name:
            volume = index.volumes.get(claim.volume_name)
            if volume is not None:
                driver = volume.driver or (csi_driver_of(AWS_EBS) if volume.in_tree == AWS_EBS else "")
        else:
            storage_class = index.class_of(claim)
            if storage_class is not None:
                driver = csi_driver_of(storage_class.provisioner)
        if driver:
            found.setdefault(driver, set()).add(f"{claim.namespace}/{claim.name}")
    return {driver: frozenset(keys) for driver, keys in found.items()} if found else NONE


def node_limits(csinode: CSINode | None) -> dict[str, int]:
    """A state node's limits from its CSINode (populateVolumeLimits)."""
    if csinode is None:
        return {}
    return {d.name: d.count or 0 for d in csinode.drivers if d.allocatable}


def union(a: Volumes, b: Volumes) -> Volumes:
    if not a:
        return b
    if not b:
        return a
    return {d: a.get(d, frozenset()) | b.get(d, frozenset()) for d in a.keys() | b.keys()}


def union_all(each: Iterable[Volumes]) -> Volumes:
    out: Volumes = NONE
    for volumes in each:
        out = union(out, volumes)
    return out


def limit_error(text: str, driver: str, count: int, limit: int) -> str:
    """Karpenter's error with its structured fields (NewVolumeLimitExceededError)."""
    return f"{text} (provisioner={driver}, volume-count={count}, volume-limit={limit})"


def exceeds(used: Volumes, limits: Mapping[str, int], volumes: Volumes) -> str | None:
    """Why adding ``volumes`` to a node using ``used`` goes over ``limits`` (ExceedsLimits); None if not.
    As upstream, a node already over a limit refuses even a pod without volumes."""
    if not limits:
        return None
    for driver, keys in sorted(union(used, volumes).items()):
        limit = limits.get(driver)
        if limit is not None and len(keys) > limit:
            return limit_error("would exceed volume limit", driver, len(keys), limit)
    return None
