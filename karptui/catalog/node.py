"""A Node object as EKS registers one that Karpenter launched.

The what-if ``add-nodes`` edit and the Karpenter simulation both make nodes
through here, so a simulated node goes through the same model builder as a
real one and looks the same in every view.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping

from ..model import labels as L
from .types import InstanceType
from .wellknown import AWS_PREFIX, EC2NODECLASS, region_of_zone


def instance_id(name: str) -> str:
    """A stable, realistic EC2 instance ID for a node name: ``i-0`` and 16 hex digits."""
    return "i-0" + hashlib.sha256(name.encode("utf-8")).hexdigest()[:16]


def node_labels(instance_type: InstanceType, zone: str, capacity_type: str, name: str,
                nodepool: str | None = None, region: str | None = None,
                nodeclass: str | None = None) -> dict[str, str]:
    """The labels the kubelet, the cloud provider and Karpenter put on the node."""
    region = region or region_of_zone(zone)
    arch, os = instance_type.arch, instance_type.os[0] if instance_type.os else "linux"
    labels = {k: v for k, v in instance_type.labels.items() if k.startswith(AWS_PREFIX)}
    labels.update({
        L.ARCH_BETA: arch, "beta.kubernetes.io/os": os, L.INSTANCE_TYPE_BETA: instance_type.name,
        L.ARCH: arch, L.OS: os, L.HOSTNAME: name, L.INSTANCE_TYPE: instance_type.name,
        L.ZONE: zone, L.ZONE_BETA: zone, L.CAPACITY_TYPE: capacity_type,
    })
    if region:
        labels.update({L.REGION: region, L.REGION_BETA: region})
    if nodepool:
        labels.update({L.NODEPOOL: nodepool, L.NODE_REGISTERED: "true", L.NODE_INITIALIZED: "true"})
    if nodeclass:
        labels[EC2NODECLASS] = nodeclass
    return dict(sorted(labels.items()))


def node_manifest(instance_type: InstanceType, zone: str, capacity_type: str, name: str,
                  nodepool: str | None = None, region: str | None = None,
                  extra_labels: Mapping[str, str] | None = None, taints: Iterable[object] | None = None,
                  created: str | None = None, nodeclass: str | None = None) -> dict:
    """A ready ``v1 Node`` dict for ``instance_type`` launched in ``zone``.

    ``extra_labels`` (a NodePool template's labels) are laid over the
    well-known ones; ``taints`` are model ``Taint`` objects or raw dicts;
    ``created`` is an RFC 3339 creation time.
    """
    labels = node_labels(instance_type, zone, capacity_type, name, nodepool, region, nodeclass)
    labels.update(extra_labels or {})
    metadata: dict = {"name": name, "labels": labels}
    if created:
        metadata["creationTimestamp"] = created
    spec: dict = {"providerID": f"aws:///{zone}/{instance_id(name)}"}
    raw_taints = [t.to_dict() if hasattr(t, "to_dict") else dict(t) for t in taints or ()]
    if raw_taints:
        spec["taints"] = raw_taints
    condition = {"type": "Ready", "status": "True", "reason": "KubeletReady",
                 "message": "kubelet is posting ready status"}
    if created:
        condition.update(lastHeartbeatTime=created, lastTransitionTime=created)
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": metadata,
        "spec": spec,
        "status": {
            "capacity": instance_type.capacity.to_quantities(),
            "allocatable": instance_type.allocatable.to_quantities(),
            "conditions": [condition],
            "addresses": [{"type": "Hostname", "address": name}],
            "nodeInfo": {"architecture": instance_type.arch, "operatingSystem": labels[L.OS]},
        },
    }
