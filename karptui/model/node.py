"""Node, with the EKS / Karpenter facts an operator groups and sorts by."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from . import labels as L
from .errors import ModelError
from .fields import as_bool_field, as_list, as_map, as_str, parse_time
from .meta import KubeObject, meta_fields
from .resources import Resources, shared_parse
from .taints import Taint, parse_taints

FARGATE, MANAGED_NODE_GROUP, KARPENTER, SELF_MANAGED = (
    "fargate", "managed-node-group", "karpenter", "self-managed",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Node(KubeObject):
    taints: tuple[Taint, ...] = ()
    allocatable: Resources
    capacity: Resources
    unschedulable: bool = False
    ready: bool = False
    provider_id: str = ""
    kubelet_version: str = ""
    conditions: Mapping[str, str]  # type -> status ("True"/"False"/"Unknown")
    status_time: datetime | None = None  # its conditions' newest heartbeat or transition: the kubelet's latest word
    # type -> the condition's lastTransitionTime, where it has one: how long a node has been unhealthy
    # is what node repair waits on (its repair policies' toleration)
    condition_since: Mapping[str, datetime] = field(default_factory=dict)

    KIND = "Node"

    @property
    def zone(self) -> str:
        return self.labels.get(L.ZONE) or self.labels.get(L.ZONE_BETA, "")

    @property
    def region(self) -> str:
        return self.labels.get(L.REGION) or self.labels.get(L.REGION_BETA, "")

    @property
    def instance_type(self) -> str:
        return self.labels.get(L.INSTANCE_TYPE) or self.labels.get(L.INSTANCE_TYPE_BETA, "")

    @property
    def arch(self) -> str:
        return self.labels.get(L.ARCH) or self.labels.get(L.ARCH_BETA, "")

    @property
    def nodepool(self) -> str:
        """The Karpenter NodePool (or v1alpha5 Provisioner) that launched it."""
        return self.labels.get(L.NODEPOOL) or self.labels.get(L.PROVISIONER_NAME, "")

    @property
    def capacity_type(self) -> str:
        """``on-demand``, ``spot`` or ``fargate``; EKS' ON_DEMAND/SPOT normalised."""
        if self.origin == FARGATE:
            return "fargate"
        value = self.labels.get(L.CAPACITY_TYPE) or self.labels.get(L.EKS_CAPACITY_TYPE, "")
        return value.lower().replace("_", "-")

    @property
    def origin(self) -> str:
        """Who manages the node: fargate, karpenter, managed-node-group or self-managed."""
        labels = self.labels
        if labels.get(L.EKS_COMPUTE_TYPE) == "fargate":
            return FARGATE
        if L.NODEPOOL in labels or L.PROVISIONER_NAME in labels:
            return KARPENTER
        if L.EKS_NODEGROUP in labels:
            return MANAGED_NODE_GROUP
        return SELF_MANAGED

    @property
    def group(self) -> str:
        """The NodePool, node group, or origin name: what the nodes pane shows."""
        return (
            self.nodepool
            or self.labels.get(L.EKS_NODEGROUP)
            or self.labels.get(L.EKSCTL_NODEGROUP)
            or self.origin
        )

    @property
    def instance_id(self) -> str:
        """``i-0abc…`` from ``aws:///us-east-1a/i-0abc…``."""
        return self.provider_id.rsplit("/", 1)[-1] if self.provider_id else ""


_CAPACITY = shared_parse("status.capacity")
_ALLOCATABLE = shared_parse("status.allocatable")


def build_node(obj: Mapping) -> Node:
    spec = as_map(obj.get("spec"), "spec")
    status = as_map(obj.get("status"), "status")
    conditions = {}
    since = {}
    newest = None
    for i, raw in enumerate(as_list(status.get("conditions"), "status.conditions")):
        cond = as_map(raw, f"status.conditions[{i}]")
        kind = as_str(cond.get("type"), "type")
        conditions[kind] = as_str(cond.get("status"), "status")
        for key in ("lastHeartbeatTime", "lastTransitionTime"):
            try:
                stamp = parse_time(cond.get(key), key)
            except ModelError:  # only a hint of when the dump was taken: a bad one costs nothing
                continue
            if stamp is not None and (newest is None or stamp > newest):
                newest = stamp
            if stamp is not None and key == "lastTransitionTime":
                since[kind] = stamp
    node_info = as_map(status.get("nodeInfo"), "status.nodeInfo")
    capacity = _CAPACITY(status.get("capacity"))
    allocatable = status.get("allocatable")
    fields = meta_fields(obj)
    fields["name"] = sys.intern(fields["name"])  # the same string as its pods' spec.nodeName (build_pod)
    return Node(
        **fields,
        taints=parse_taints(spec.get("taints"), "spec.taints"),
        allocatable=_ALLOCATABLE(allocatable) if allocatable else capacity,
        capacity=capacity,
        unschedulable=as_bool_field(spec.get("unschedulable"), "spec.unschedulable"),
        ready=conditions.get("Ready") == "True",
        provider_id=as_str(spec.get("providerID"), "spec.providerID"),
        kubelet_version=as_str(node_info.get("kubeletVersion"), "status.nodeInfo.kubeletVersion"),
        conditions=conditions,
        status_time=newest,
        condition_since=since,
    )
