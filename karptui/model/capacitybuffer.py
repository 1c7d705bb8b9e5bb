"""CapacityBuffer (``autoscaling.x-k8s.io/v1beta1``) and the PodTemplates buffers point at.

A CapacityBuffer asks the autoscaler to keep room for some copies ("chunks") of a pod shape: the
shape is a PodTemplate of its namespace (``spec.podTemplateRef``) or the pod template of a
Deployment / StatefulSet / ReplicaSet (``spec.scalableRef``); how many is ``spec.replicas``,
``spec.percentage`` of the referenced workload's replicas, bounded by ``spec.limits``. Karpenter
(core, behind the ``CapacityBuffer`` feature gate) reads them; what it makes of them lives in
:mod:`karptui.sim.karpenter.buffers`. The model keeps the spec as written: the CRD's validation
rules are checked here, so a snapshot holding what the API server would refuse warns once and
skips the object.

Source: kubernetes-sigs/karpenter ``pkg/apis/autoscaling/v1beta1/capacitybuffer.go`` (v1.14.1, main).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .errors import ModelError
from .fields import as_int, as_list, as_map, as_str
from .meta import KubeObject, meta_fields
from .pod import Pod
from .resources import EMPTY, Resources
from .workloads import template_pod

ACTIVE_CAPACITY = "buffer.x-k8s.io/active-capacity"   # the default (and only) provisioning strategy
READY_FOR_PROVISIONING = "ReadyForProvisioning"


@dataclass(frozen=True, slots=True)
class ScalableRef:
    api_group: str   # "" reads as "apps"
    kind: str
    name: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CapacityBuffer(KubeObject):
    KIND = "CapacityBuffer"

    pod_template_ref: str = ""            # spec.podTemplateRef.name
    scalable_ref: ScalableRef | None = None
    replicas: int | None = None           # spec.replicas
    percentage: int | None = None         # spec.percentage (of the scalable ref's replicas)
    limits: Resources = EMPTY             # spec.limits
    provisioning_strategy: str = ACTIVE_CAPACITY
    # status, as the buffer controller last wrote it: what the provisioner reads (sim.karpenter.buffers)
    status_replicas: int | None = None
    ready_for_provisioning: str = ""      # "True" / "False" / "" (no condition yet)
    ready_reason: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class PodTemplate(KubeObject):
    """A core ``PodTemplate``: its ``template`` as a Pod named after it (as a workload's template)."""

    KIND = "PodTemplate"

    template: Pod | None = None


def _count(value: object, where: str) -> int | None:
    count = as_int(value, where)
    if count is not None and count < 0:
        raise ModelError(f"{where}: {count} is below the minimum 0")
    return count


def build_capacity_buffer(obj: Mapping) -> CapacityBuffer:
    spec = as_map(obj.get("spec"), "spec")
    status = as_map(obj.get("status"), "status")
    template_ref = spec.get("podTemplateRef")
    template_name = as_str(as_map(template_ref, "spec.podTemplateRef").get("name"), "spec.podTemplateRef.name") \
        if template_ref is not None else ""
    if template_ref is not None and not template_name:
        raise ModelError("spec.podTemplateRef.name: missing")
    scalable = None
    if spec.get("scalableRef") is not None:
        raw = as_map(spec.get("scalableRef"), "spec.scalableRef")
        scalable = ScalableRef(as_str(raw.get("apiGroup"), "spec.scalableRef.apiGroup"),
                               as_str(raw.get("kind"), "spec.scalableRef.kind"),
                               as_str(raw.get("name"), "spec.scalableRef.name"))
        if not scalable.kind or not scalable.name:
            raise ModelError("spec.scalableRef: kind and name are required")
    replicas = _count(spec.get("replicas"), "spec.replicas")
    limits = Resources.parse(spec.get("limits"), "spec.limits")
    # the CRD's two CEL rules
    if template_name and replicas is None and not limits:
        raise ModelError("spec: If podTemplateRef is set, replicas or limits must also be set")
    if template_name and scalable is not None:
        raise ModelError("spec: You must define either PodTemplateRef or ScalableRef, but not both")
    ready, reason = "", ""
    for i, raw in enumerate(as_list(status.get("conditions"), "status.conditions")):
        cond = as_map(raw, f"status.conditions[{i}]")
        if cond.get("type") == READY_FOR_PROVISIONING:
            ready = as_str(cond.get("status"), f"status.conditions[{i}].status")
            reason = as_str(cond.get("reason"), f"status.conditions[{i}].reason")
    return CapacityBuffer(
        **meta_fields(obj, keep_raw=False),
        pod_template_ref=template_name,
        scalable_ref=scalable,
        replicas=replicas,
        percentage=_count(spec.get("percentage"), "spec.percentage"),
        limits=limits,
        provisioning_strategy=as_str(spec.get("provisioningStrategy"), "spec.provisioningStrategy") or ACTIVE_CAPACITY,
        status_replicas=as_int(status.get("replicas"), "status.replicas"),
        ready_for_provisioning=ready,
        ready_reason=reason,
    )


def build_pod_template(obj: Mapping) -> PodTemplate:
    fields = meta_fields(obj, keep_raw=False)
    return PodTemplate(**fields, template=template_pod(obj.get("template"), fields))
