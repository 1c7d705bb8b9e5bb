"""Workload controllers: what creates pods, how many, from which template."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .fields import as_int, as_map
from .meta import KubeObject, meta_fields
from .pod import Pod, build_pod
from .selectors import LabelSelector, parse_label_selector

WORKLOAD_KINDS = ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job")


@dataclass(frozen=True, slots=True, kw_only=True)
class Workload(KubeObject):
    """Deployment, ReplicaSet, StatefulSet, DaemonSet or Job, in one shape.

    ``replicas`` is the desired count (a Job's parallelism; ``None`` for a
    DaemonSet, whose count is its eligible nodes). ``template`` is the pod
    template as a Pod, so the simulator can stamp out replicas from it.
    """

    kind: str
    replicas: int | None
    ready_replicas: int = 0
    selector: LabelSelector | None
    template: Pod | None

    @property
    def ref(self) -> str:
        return f"{self.kind}/{self.key}"


def template_pod(raw: object, owner: Mapping) -> Pod | None:
    """The pod template as a Pod named after its owner (a workload, a PodTemplate), in its namespace."""
    if raw is None:
        return None
    template = as_map(raw, "spec.template")
    meta = as_map(template.get("metadata"), "spec.template.metadata")
    fields = meta_fields({"metadata": {**meta, "name": owner["name"], "namespace": owner["namespace"]}}, keep_raw=False)
    return build_pod({"spec": template.get("spec")}, meta=fields)


def build_workload(obj: Mapping, kind: str) -> Workload:
    fields = meta_fields(obj)
    if kind == "ReplicaSet" and fields["owners"]:
        fields["raw"] = None  # a Deployment's ReplicaSets: edits go to the Deployment
    spec = as_map(obj.get("spec"), "spec")
    status = as_map(obj.get("status"), "status")
    if kind == "DaemonSet":
        replicas = None
    elif kind == "Job":
        replicas = as_int(spec.get("parallelism"), "spec.parallelism", 1)
    else:
        replicas = as_int(spec.get("replicas"), "spec.replicas", 1)
    ready = as_int(status.get("readyReplicas") if kind != "DaemonSet" else status.get("numberReady"), "status.ready", 0)
    return Workload(
        **fields,
        kind=kind,
        replicas=replicas,
        ready_replicas=ready or 0,
        selector=parse_label_selector(spec.get("selector"), "spec.selector"),
        template=template_pod(spec.get("template"), fields),
    )
