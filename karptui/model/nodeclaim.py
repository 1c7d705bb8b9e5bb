"""Karpenter NodeClaim (v1, v1beta1) and v1alpha5 Machine, in one shape."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from . import labels as L
from .errors import ModelError
from .fields import as_list, as_map, as_str, parse_duration, parse_time, shared
from .meta import KubeObject, meta_fields
from .nodeclass import NodeClassRef, parse_node_class_ref
from .resources import EMPTY, Resources, shared_parse
from .selectors import Requirement, parse_requirements
from .taints import Taint, parse_taints


@dataclass(frozen=True, slots=True, kw_only=True)
class NodeClaim(KubeObject):
    api_version: str
    kind: str  # "NodeClaim" or "Machine"
    requirements: tuple[Requirement, ...] = ()
    requests: Resources = EMPTY
    taints: tuple[Taint, ...] = ()
    startup_taints: tuple[Taint, ...] = ()
    node_class_ref: NodeClassRef | None = None
    expire_after: float | None = None
    provider_id: str = ""
    node_name: str = ""
    image_id: str = ""
    capacity: Resources = EMPTY
    allocatable: Resources = EMPTY
    conditions: Mapping[str, str]  # Launched/Registered/Initialized/Ready/... -> status
    last_pod_event: datetime | None = None  # status.lastPodEventTime: when a pod last came or went
    # type -> the condition's lastTransitionTime, where it has one: drift takes the NodeClaim that
    # drifted first (its Drifted condition's time)
    condition_since: Mapping[str, datetime] = field(default_factory=dict)

    @property
    def ref(self) -> str:
        return f"{self.kind}/{self.name}"

    @property
    def nodepool(self) -> str:
        return self.labels.get(L.NODEPOOL) or self.labels.get(L.PROVISIONER_NAME, "")

    @property
    def instance_type(self) -> str:
        return self.labels.get(L.INSTANCE_TYPE, "")

    @property
    def zone(self) -> str:
        return self.labels.get(L.ZONE, "")

    @property
    def capacity_type(self) -> str:
        return self.labels.get(L.CAPACITY_TYPE, "")

    @property
    def launched(self) -> bool:
        return self.conditions.get("Launched") == "True"

    @property
    def registered(self) -> bool:
        return self.conditions.get("Registered") == "True"

    @property
    def initialized(self) -> bool:
        return self.conditions.get("Initialized") == "True"


# NodeClaims of one NodePool and instance type carry the same requirements and resource lists: each
# distinct one is read once (fields.shared)
_REQUIREMENTS = shared(lambda raw: parse_requirements(raw, "spec.requirements"))
_REQUESTS = shared_parse("spec.resources.requests")
_CAPACITY = shared_parse("status.capacity")
_ALLOCATABLE = shared_parse("status.allocatable")


def build_nodeclaim(obj: Mapping, api_version: str, kind: str) -> NodeClaim:
    spec = as_map(obj.get("spec"), "spec")
    status = as_map(obj.get("status"), "status")
    conditions, since = {}, {}
    for i, raw in enumerate(as_list(status.get("conditions"), "status.conditions")):
        cond = as_map(raw, f"status.conditions[{i}]")
        # v1alpha5 Machines prefix their conditions: MachineLaunched -> Launched
        ctype = as_str(cond.get("type"), "type").removeprefix("Machine")
        conditions[ctype] = as_str(cond.get("status"), "status")
        try:
            stamp = parse_time(cond.get("lastTransitionTime"), f"status.conditions[{i}].lastTransitionTime")
        except ModelError:  # only an ordering hint: a bad one costs the order, not the NodeClaim
            stamp = None
        if stamp is not None:
            since[ctype] = stamp
    ref_key = "machineTemplateRef" if kind == "Machine" else "nodeClassRef"
    return NodeClaim(
        **meta_fields(obj, keep_raw=False),  # thousands of them, never a what-if target
        api_version=api_version,
        kind=kind,
        requirements=_REQUIREMENTS(spec.get("requirements")),
        requests=_REQUESTS(as_map(spec.get("resources"), "spec.resources").get("requests")),
        taints=parse_taints(spec.get("taints"), "spec.taints"),
        startup_taints=parse_taints(spec.get("startupTaints"), "spec.startupTaints"),
        node_class_ref=parse_node_class_ref(
            spec.get(ref_key), f"spec.{ref_key}", "AWSNodeTemplate" if kind == "Machine" else "EC2NodeClass"
        ),
        expire_after=parse_duration(spec.get("expireAfter"), "spec.expireAfter"),
        provider_id=as_str(status.get("providerID"), "status.providerID"),
        node_name=as_str(status.get("nodeName"), "status.nodeName"),
        image_id=as_str(status.get("imageID"), "status.imageID"),
        capacity=_CAPACITY(status.get("capacity")),
        allocatable=_ALLOCATABLE(status.get("allocatable")),
        conditions=conditions,
        condition_since=since,
        last_pod_event=parse_time(status.get("lastPodEventTime"), "status.lastPodEventTime"),
    )
