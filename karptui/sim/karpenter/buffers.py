"""Capacity buffers: the virtual pods Karpenter provisions room for (the ``CapacityBuffer`` gate).

With the gate on, Karpenter's buffer controller resolves each CapacityBuffer's pod shape and
count, and its provisioner adds that many virtual pods to the pods it schedules. They are never
API objects: they exist inside Karpenter's scheduling only. Where they fit on a node that exists,
Karpenter counts the room as taken (and the emptiness method leaves such a node alone); where they
fit nowhere, it launches NodeClaims for them. Consolidation keeps room for them too, as its
simulation schedules every pod the provisioner would (``GetPendingPods`` adds them).

How many (the controller's ``computeReplicas``): the largest of ``spec.replicas`` and
``spec.percentage`` of the scalable ref's replicas (rounded up, at least 1 when both are above
0); ``spec.limits`` bound it to the chunks whose requests fit in them (each resource both name,
floor of limit / request, the smallest); with neither replicas nor percentage, the limits alone.
The shape: a PodTemplate of the buffer's namespace (``podTemplateRef``), or the pod template of an
``apps`` Deployment / StatefulSet / ReplicaSet (``scalableRef``); anything else resolves to nothing.

The provisioner reads the buffer's status, which the controller writes from the spec at every
reconcile (every 30 s and on each change): a buffer counts when its ``ReadyForProvisioning``
condition is True, ``status.replicas`` is above 0 and its spec names a podTemplateRef or
scalableRef; it makes ``status.replicas`` pods, their shape resolved from the spec at that moment
(not from ``status.podTemplateRef``, which may be stale), and none when that no longer resolves
(``virtualpods/utilities.go`` ``isBufferReadyForProvisioning``, ``resolveVirtualPodSpec``,
``BuildVirtualPods`` at v1.14.1; ``provisioning/buffers.go`` at v1.14.0, the same rule). Where
the snapshot shows that status (the condition is there), the simulation reads it so; where it
does not (a buffer the controller has not reconciled yet, one a what-if creates or edits: the API
server keeps no status across an edit), it computes what the controller's next reconcile writes,
from the spec. Where the two differ (a scaled workload the controller has not caught up with),
``notes`` say so (:func:`stale_status`).

What the virtual pod carries changed in v1.14.1 (core#3174, cherry-picked in #3238):
v1.14.0 labels it ``karpenter.sh/capacity-buffer-name`` / ``-namespace`` and nothing else, so its
template's labels are lost (a topology spread or anti-affinity selecting them does not see the
buffer's pods); from v1.14.1 those names are annotations and the pod has the template's labels.

Sources (core): ``pkg/controllers/capacitybuffer/{controller,helpers}.go``,
``pkg/state/virtualpods/utilities.go`` and ``pkg/utils/apps/resolve.go`` at v1.14.1 and main;
``pkg/controllers/provisioning/buffers.go`` at v1.14.0 (the labels).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace

from ...model.capacitybuffer import CapacityBuffer
from ...model.pod import Pod
from .featuregates import FeatureGates
from .versions import V1_14_1, KarpenterVersion

FAKE_POD = "karpenter.sh/capacity-buffer-fake-pod"     # annotation "true": a virtual pod
BUFFER_NAME = "karpenter.sh/capacity-buffer-name"      # a label before v1.14.1, an annotation from it
BUFFER_NAMESPACE = "karpenter.sh/capacity-buffer-namespace"
VIRTUAL_POD_PRIORITY = -(2 ** 31)                       # math.MinInt32, stamped on every virtual pod
SCALABLE_KINDS = ("Deployment", "StatefulSet", "ReplicaSet")
UNSCHEDULABLE = "Unschedulable"


@dataclass(frozen=True, slots=True)
class BufferResolution:
    """What the buffer controller makes of one CapacityBuffer: its chunk shape and count, or why none."""

    buffer: CapacityBuffer
    template: Pod | None
    replicas: int
    reason: str = "Resolved"        # the ReadyForProvisioning reason the controller would write (or wrote)
    message: str = ""
    # read from the status the controller last wrote (else computed from the spec, as its next
    # reconcile would), and then what the spec resolves to now (None: it does not resolve)
    from_status: bool = False
    spec_replicas: int | None = None

    @property
    def ready(self) -> bool:
        return self.template is not None

    @property
    def ready_for_provisioning(self) -> bool:
        """The condition the provisioner reads: the status's, else the one the next reconcile writes."""
        return self.buffer.ready_for_provisioning == "True" if self.from_status else self.ready


def is_virtual(pod: Pod) -> bool:
    """A pod Karpenter made for a capacity buffer (IsVirtualPod)."""
    return pod.annotations.get(FAKE_POD) == "true"


def buffer_key(pod: Pod, version: KarpenterVersion) -> str:
    """``namespace/name`` of the buffer a virtual pod belongs to, "" for any other pod or one missing
    either name (bufferKeyOf): read from the annotations from v1.14.1, from the labels before."""
    if not is_virtual(pod):
        return ""
    names = pod.annotations if version >= V1_14_1 else pod.labels
    namespace, name = names.get(BUFFER_NAMESPACE, ""), names.get(BUFFER_NAME, "")
    return f"{namespace}/{name}" if namespace and name else ""


def limit_replicas(limits, requests) -> int | None:
    """How many chunks fit in ``limits`` (calculateLimitReplicas); None when no resource is in both."""
    counts = [limit // requests[name] for name, limit in limits.items() if requests.get(name)]
    return min(counts) if counts else None


def percentage_replicas(scalable: int, percentage: int) -> int:
    """``percentage`` of ``scalable`` replicas, rounded up, at least 1 when both are above 0."""
    count = math.ceil(scalable * percentage / 100)
    return max(count, 1) if percentage > 0 and scalable > 0 else count


def resolve(snapshot, buffer: CapacityBuffer) -> BufferResolution:
    """What the provisioner makes of ``buffer``: its status, where the controller has written one
    (the module says how), else what the controller's next reconcile writes (:func:`reconcile`)."""
    computed = reconcile(snapshot, buffer)
    if not buffer.ready_for_provisioning:
        return computed
    status = buffer.ready_for_provisioning
    spec_replicas = computed.replicas if computed.ready else None
    if status != "True":
        return BufferResolution(buffer, None, 0, buffer.ready_reason or "NotReadyForProvisioning",
                                f"its status says ReadyForProvisioning {status}"
                                + (f" ({buffer.ready_reason})" if buffer.ready_reason else ""),
                                from_status=True, spec_replicas=spec_replicas)
    replicas = buffer.status_replicas or 0
    if not computed.ready:  # ready by its status, but its spec no longer resolves: no pods this pass
        return replace(computed, replicas=replicas, from_status=True, spec_replicas=None)
    return BufferResolution(buffer, computed.template, replicas, buffer.ready_reason or "Resolved",
                            from_status=True, spec_replicas=spec_replicas)


def stale_status(r: BufferResolution) -> str:
    """A note when the provisioner counts a different number of pods from the buffer's status than its
    spec resolves to now (the controller has not reconciled since), else ""."""
    if not r.from_status or not r.ready_for_provisioning or r.spec_replicas is None or r.spec_replicas == r.replicas:
        return ""
    return (f"CapacityBuffer {r.buffer.key}: Karpenter provisions for {r.replicas} virtual pod(s), its status.replicas "
            f"as the buffer controller last wrote it; its spec resolves to {r.spec_replicas} at the controller's "
            "next reconcile (every 30 s)")


def reconcile(snapshot, buffer: CapacityBuffer) -> BufferResolution:
    """The controller's reconcile of ``buffer`` over the snapshot's PodTemplates and workloads."""
    candidates: list[int] = []
    if buffer.pod_template_ref:
        template = next((t for t in snapshot.pod_templates
                         if t.namespace == buffer.namespace and t.name == buffer.pod_template_ref), None)
        if template is None or template.template is None:
            return BufferResolution(buffer, None, 0, "PodTemplateNotFound",
                                    f"PodTemplate {buffer.namespace}/{buffer.pod_template_ref} not found")
        pod = template.template
    elif buffer.scalable_ref is not None:
        ref = buffer.scalable_ref
        if (ref.api_group or "apps") != "apps":
            return BufferResolution(buffer, None, 0, "ResolutionFailed",
                                    f"unsupported scalableRef API group {ref.api_group!r}")
        if ref.kind not in SCALABLE_KINDS:
            return BufferResolution(buffer, None, 0, "ResolutionFailed", f"unsupported kind {ref.kind!r}")
        workload = next((w for w in snapshot.workloads if w.kind == ref.kind and w.namespace == buffer.namespace
                         and w.name == ref.name), None)
        if workload is None or workload.template is None:
            return BufferResolution(buffer, None, 0, "ScalableRefNotFound",
                                    f"{ref.kind} {buffer.namespace}/{ref.name} not found")
        pod = workload.template
        scalable = workload.replicas if workload.replicas is not None else 1
        if buffer.percentage is not None and scalable > 0:
            candidates.append(percentage_replicas(scalable, buffer.percentage))
    else:
        return BufferResolution(buffer, None, 0, "ResolutionFailed", "Neither podTemplateRef nor scalableRef is set")
    if buffer.replicas is not None:
        candidates.append(buffer.replicas)
    count = max(candidates, default=0)
    if buffer.limits:
        fit = limit_replicas(buffer.limits, pod.requests)
        if fit is not None:
            count = min(count, fit) if candidates else fit
    return BufferResolution(buffer, pod, count)


def virtual_pods(resolution: BufferResolution, version: KarpenterVersion) -> tuple[Pod, ...]:
    """The buffer's virtual pods (BuildVirtualPods): ``capacity-buffer-<name>-<i>`` for i from 1, the
    template's scheduling constraints and requests, no PVC or ephemeral volumes (they would need
    claims that never exist), the lowest priority, unschedulable."""
    if not resolution.ready or resolution.replicas <= 0:
        return ()
    cb, template = resolution.buffer, resolution.template
    names = {BUFFER_NAME: cb.name, BUFFER_NAMESPACE: cb.namespace}
    marks = {FAKE_POD: "true"}
    if version >= V1_14_1:
        labels, annotations = dict(template.labels), {**marks, **names}
    else:
        labels, annotations = names, marks
    base = replace(template, namespace=cb.namespace, labels=labels, annotations=annotations, owners=(),
                   node_name="", phase="Pending", priority=VIRTUAL_POD_PRIORITY, pvc_names=(),
                   scheduled_reason=UNSCHEDULABLE, scheduled_message="", nominated_node="",
                   created=None, deleted=None, started=None)
    return tuple(replace(base, name=f"capacity-buffer-{cb.name}-{i}", uid=f"{cb.uid}-{i}")
                 for i in range(1, resolution.replicas + 1))


def resolutions(snapshot) -> tuple[BufferResolution, ...]:
    """Every CapacityBuffer of the snapshot as the controller resolves it (deleted ones left out)."""
    return tuple(resolve(snapshot, cb) for cb in snapshot.capacity_buffers if cb.deleted is None)


def buffer_pods(snapshot, gates: FeatureGates, version: KarpenterVersion) -> tuple[Pod, ...]:
    """The virtual pods Karpenter's provisioner adds to the pods it schedules: none with the gate off.
    (Karpenter reads no ``provisioningStrategy``: every buffer its controller resolved counts.)"""
    if not gates.CapacityBuffer or not snapshot.capacity_buffers:
        return ()
    return tuple(pod for r in resolutions(snapshot) for pod in virtual_pods(r, version))


# where a provisioning pass put a virtual pod (BufferTally.placed)
NODE, COMING, NEW, NOWHERE = "node", "coming", "new", "nowhere"


class BufferTally:
    """Where one provisioning pass put each buffer's virtual pods (classifyBufferPods), and the nodes
    that hold any (the cluster state's buffer pod counts, which the emptiness method reads)."""

    def __init__(self, version: KarpenterVersion, found: Iterable[BufferResolution] = ()) -> None:
        self.version = version
        self.found = {r.buffer.key: r for r in found}
        self.existing: dict[str, int] = {}
        self.new: dict[str, int] = {}
        self.failed: dict[str, int] = {}
        self.nodes: dict[str, int] = {}   # existing node -> virtual pods placed on it
        # each virtual pod, in order: (pod key, its buffer's key, where: NODE / COMING / NEW / NOWHERE,
        # the node's or NodeClaim's name, or why it has no place), for the panes
        self.placed: list[tuple[str, str, str, str]] = []
        self.pods: dict[str, Pod] = {}    # pod key -> the virtual pod (its requests, for the panes)

    def count(self, virtual: Iterable[Pod], result) -> None:
        for pod in virtual:
            key = buffer_key(pod, self.version)
            node = result.on_existing.get(pod.key)
            claim = result.on_claim.get(pod.key)
            if node is not None:
                if node.index is not None:   # a node that exists (not one on its way)
                    self.nodes[node.name] = self.nodes.get(node.name, 0) + 1
                bucket = self.existing
                where, name = (NODE if node.index is not None else COMING), node.name
            elif claim is not None:
                bucket = self.new
                where, name = NEW, claim.name
            else:
                bucket = self.failed
                where, name = NOWHERE, result.errors.get(pod.key, "")
            self.placed.append((pod.key, key, where, name))
            self.pods[pod.key] = pod
            if key:
                bucket[key] = bucket.get(key, 0) + 1

    def provisioning(self, r: BufferResolution) -> tuple[str, str, str]:
        """The ``Provisioning`` condition the provisioner writes on the buffer after this pass
        (computeProvisioningCondition): (status, reason, message); ("", "", "") where it leaves it as is."""
        key = r.buffer.key
        if not r.ready_for_provisioning:
            return "False", "NotReadyForProvisioning", "Buffer is not ReadyForProvisioning"
        if r.replicas == 0:
            return "False", "BufferEmpty", "Buffer has zero desired replicas"
        existing, new, failed = self.existing.get(key, 0), self.new.get(key, 0), self.failed.get(key, 0)
        if not existing and not new and not failed:
            return "", "", ""
        if new or failed:
            return "False", "RequiresNewCapacity", \
                f"{new}/{r.replicas} virtual pods required new capacity, {failed} failed"
        if existing == r.replicas:
            return "True", "FitsExistingCapacity", f"All {r.replicas} virtual pods fit on existing capacity"
        return "", "", ""

    def to_json(self) -> list[dict]:
        out = []
        for key, r in self.found.items():
            status, reason, message = self.provisioning(r)
            out.append({"buffer": key, "ready_for_provisioning": r.ready_for_provisioning, "reason": r.reason,
                        "message": r.message, "replicas": r.replicas if r.ready_for_provisioning else None,
                        "from_status": r.from_status, "spec_replicas": r.spec_replicas if r.from_status else
                        (r.replicas if r.ready else None),
                        "on_existing_nodes": self.existing.get(key, 0), "on_new_nodeclaims": self.new.get(key, 0),
                        "failed": self.failed.get(key, 0),
                        "provisioning": {"status": status, "reason": reason, "message": message} if status else None})
        return out
