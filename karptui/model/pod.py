"""Pod, with its effective requests computed once by Kubernetes' rules."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from . import labels as L
from .affinity import NO_AFFINITY, Affinity, TopologySpreadConstraint, parse_affinity, parse_spread_constraints
from .errors import ModelError
from .fields import (MISS, Memo, as_int, as_int32, as_list, as_map, as_str, as_str_map, parse_duration, parse_time,
                     shared)
from .meta import KubeObject, meta_fields
from .resources import EMPTY, Resources
from .taints import Toleration, parse_tolerations

PENDING, RUNNING, SUCCEEDED, FAILED = "Pending", "Running", "Succeeded", "Failed"


@dataclass(frozen=True, slots=True)
class HostPort:
    port: int
    protocol: str = "TCP"
    host_ip: str = "0.0.0.0"


@dataclass(frozen=True, slots=True, kw_only=True)
class Pod(KubeObject):
    node_name: str = ""
    phase: str = PENDING
    priority: int = 0
    priority_class_name: str = ""
    preemption_policy: str = "PreemptLowerPriority"
    scheduler_name: str = "default-scheduler"
    requests: Resources = EMPTY
    node_selector: Mapping[str, str]
    affinity: Affinity = NO_AFFINITY
    tolerations: tuple[Toleration, ...] = ()
    spread_constraints: tuple[TopologySpreadConstraint, ...] = ()
    host_ports: tuple[HostPort, ...] = ()
    pvc_names: tuple[str, ...] = ()
    # ResourceClaims (DRA) the pod or any of its containers asks for: Karpenter v1.14 does not provision
    # for such a pod (its IGNORE_DRA_REQUESTS default), and karptui does not model device allocation
    resource_claims: tuple[str, ...] = ()
    scheduled_reason: str = ""
    scheduled_message: str = ""
    nominated_node: str = ""
    started: datetime | None = None  # status.startTime: when the kubelet started it
    # The Ready condition and the restarts, which decide which pod a controller deletes first
    # when it scales down (controller_utils.go ActivePodsWithRanks): ``ready_since`` is the
    # condition's lastTransitionTime while it is True (None: not ready, or no time given).
    ready: bool = False
    ready_since: datetime | None = None
    # a Ready condition whose status is False (not merely absent): a PDB whose unhealthyPodEvictionPolicy
    # is AlwaysAllow lets such a pod be evicted whatever it allows (PodDisruptionBudget.evicts_regardless)
    unready: bool = False
    restarts: int = 0
    # the containers' images, as written: which Karpenter runs is read from its controller's image tag
    # (karptui.sim.karpenter.versions); replicas share one tuple
    images: tuple[str, ...] = ()

    KIND = "Pod"

    @property
    def is_terminal(self) -> bool:
        return self.phase in (SUCCEEDED, FAILED)

    @property
    def is_pending(self) -> bool:
        """Waiting for a node: not bound and not finished."""
        return not self.node_name and not self.is_terminal

    @property
    def owner_kind(self) -> str:
        owner = self.controller
        return owner.kind if owner else ""

    @property
    def is_daemonset_pod(self) -> bool:
        return self.owner_kind == "DaemonSet"

    @property
    def is_mirror(self) -> bool:
        """A static pod's mirror; the kubelet owns it, nobody can evict it."""
        return L.MIRROR_POD in self.annotations or self.owner_kind == "Node"

    def blocks_disruption(self, now=None, legacy: bool = False, durations: bool = True) -> bool:
        """Whether this pod's annotation stops Karpenter disrupting its node right now.

        ``karpenter.sh/do-not-disrupt: "true"``, or (``durations``: the releases that read them, see
        :mod:`karptui.sim.karpenter.donotdisrupt`) a duration ("5m") the pod has not yet run for since its
        ``status.startTime`` (a pod not started yet is kept); ``legacy`` reads v1alpha5's
        ``karpenter.sh/do-not-evict`` instead. Finished and terminating pods block nothing.
        """
        if self.is_terminal or self.deleted is not None:
            return False
        if legacy:
            return self.annotations.get(L.DO_NOT_EVICT) == "true"
        value = self.annotations.get(L.DO_NOT_DISRUPT)
        if value is None:
            return False
        if value == "true":
            return True
        if not durations:  # anything else holds nothing in a release that reads only "true"
            return False
        try:  # a duration: blocks until the pod has run that long
            seconds = parse_duration(value, L.DO_NOT_DISRUPT)
        except ModelError:
            return False  # Karpenter ignores a malformed value
        if not seconds or seconds < 0:
            return False  # Karpenter refuses a duration that is not positive
        if now is None or self.started is None:
            return True  # no start time: Karpenter fails safe and keeps the pod
        return (now - self.started).total_seconds() < seconds


def _container_requests(container: Mapping, where: str) -> Resources:
    """Requests, defaulting each missing request to its limit as the API server does."""
    resources = as_map(container.get("resources"), f"{where}.resources")
    requests = as_map(resources.get("requests"), f"{where}.resources.requests")
    limits = as_map(resources.get("limits"), f"{where}.resources.limits")
    if limits:
        requests = {**limits, **requests}
    return Resources.parse(requests, f"{where}.resources.requests") if requests else EMPTY


def effective_requests(spec: Mapping) -> Resources:
    """What the scheduler reserves for a pod (k8s.io/component-helpers PodRequests).

    Regular containers add up; restartable (sidecar) init containers add to
    them and keep running under every later init container; each ordinary
    init container needs its own request plus the sidecars started before it;
    the pod needs the larger of the two, then pod-level resources and overhead.
    """
    total = EMPTY
    for i, raw in enumerate(as_list(spec.get("containers"), "spec.containers")):
        total = total + _container_requests(as_map(raw, f"spec.containers[{i}]"), f"spec.containers[{i}]")
    sidecars = EMPTY
    init_peak = EMPTY
    for i, raw in enumerate(as_list(spec.get("initContainers"), "spec.initContainers")):
        where = f"spec.initContainers[{i}]"
        container = as_map(raw, where)
        own = _container_requests(container, where)
        if container.get("restartPolicy") == "Always":
            total = total + own
            sidecars = sidecars + own
            init_peak = init_peak.max(sidecars)
        else:
            init_peak = init_peak.max(own + sidecars)
    total = total.max(init_peak)
    pod_level = as_map(as_map(spec.get("resources"), "spec.resources").get("requests"), "spec.resources.requests")
    if pod_level:
        total = total.override(Resources.parse(pod_level, "spec.resources.requests"))
    overhead = spec.get("overhead")
    if overhead:
        total = total + Resources.parse(overhead, "spec.overhead")
    return total


def _scheduling_parts(spec: Mapping) -> tuple:
    """The parts of a pod spec those depend on (raises if malformed, so the parser names the field).

    Replicas share them, so one memo lookup (:func:`.fields.shared`) replaces four parses;
    per-pod details (names, volumes, env) stay out of the key. Affinity has its
    own memo: DaemonSet pods each pin their own node there.
    """
    return (
        spec.get("tolerations"),
        spec.get("topologySpreadConstraints"),
        spec.get("nodeSelector"),
        [c["resources"] if "resources" in c else None for c in spec["containers"]],
        [(c.get("resources"), c.get("restartPolicy")) for c in spec.get("initContainers") or ()],
        spec.get("resources"),
        spec.get("overhead"),
    )


def _parse_scheduling(spec: Mapping) -> tuple[Resources, Mapping[str, str], tuple[Toleration, ...],
                                                 tuple[TopologySpreadConstraint, ...]]:
    """The scheduling-relevant parts of a pod spec, parsed together: requests, nodeSelector,
    tolerations, spread constraints (a plain tuple: a private class cost its methods' generation
    at every start)."""
    return (
        effective_requests(spec),
        as_str_map(spec.get("nodeSelector"), "spec.nodeSelector"),
        parse_tolerations(spec.get("tolerations"), "spec.tolerations"),
        parse_spread_constraints(spec.get("topologySpreadConstraints")),
    )


_shared_scheduling = shared(_parse_scheduling, parts=_scheduling_parts)
_shared_affinity = shared(parse_affinity)
# A workload's replicas carry the same labels: one mapping for all of them (a large cluster's
# pods share a few hundred label sets), which selectors then meet again and again.
_shared_labels = shared(lambda labels: labels)


_IMAGE_SETS: dict[tuple[str, ...], tuple[str, ...]] = {}


def _images(spec: Mapping) -> tuple[str, ...]:
    """The images of the containers (init containers run before and are gone: not the pod's program).

    One tuple per distinct list: a large cluster's pods run a few hundred image lists."""
    containers = spec.get("containers") or ()
    if type(containers) is list and len(containers) == 1 and type(containers[0]) is dict:
        image = containers[0].get("image")  # most pods: one container, no generator to run
        images: tuple[str, ...] = (image,) if type(image) is str else ()
    else:
        images = tuple(c["image"] for c in containers if isinstance(c, Mapping) and type(c.get("image")) is str)
    found = _IMAGE_SETS.get(images)
    if found is None:
        if len(_IMAGE_SETS) >= 4096:
            _IMAGE_SETS.clear()
        found = _IMAGE_SETS[images] = images
    return found


def _containers(spec: Mapping, section: str) -> list:
    """``spec.containers`` or ``spec.initContainers`` (empty for none); an error names a field that is
    not a list. Each item is still to be read with :func:`_container`."""
    listed = spec.get(section)
    if type(listed) is list:
        return listed
    return as_list(listed, f"spec.{section}")


def _container(raw: object, section: str, i: int) -> Mapping:
    """One container of :func:`_containers`; its field path is only spelt out when it is not an object."""
    return raw if type(raw) is dict else as_map(raw, f"spec.{section}[{i}]")


def _host_ports(spec: Mapping) -> tuple[HostPort, ...]:
    """hostPorts of the containers and of restartable (sidecar) init containers."""
    ports = []
    for section in ("containers", "initContainers"):
        for i, raw in enumerate(_containers(spec, section)):
            container = _container(raw, section, i)
            declared = container.get("ports")
            if not declared or (section == "initContainers" and container.get("restartPolicy") != "Always"):
                continue
            for j, port_raw in enumerate(as_list(declared, f"spec.{section}[{i}].ports")):
                port = port_raw if type(port_raw) is dict else as_map(port_raw, f"spec.{section}[{i}].ports[{j}]")
                if port.get("hostPort"):
                    ports.append(_host_port(port, f"spec.{section}[{i}].ports[{j}]"))
    return tuple(ports) if ports else ()


def _host_port(port: Mapping, where: str) -> HostPort:
    return HostPort(
        as_int(port.get("hostPort"), f"{where}.hostPort", 0),
        as_str(port.get("protocol"), f"{where}.protocol", "TCP") or "TCP",
        as_str(port.get("hostIP"), f"{where}.hostIP", "0.0.0.0") or "0.0.0.0",
    )


def _resource_claims(spec: Mapping) -> tuple[str, ...]:
    """The DRA claims named by the pod (spec.resourceClaims) and by its containers' resources.claims."""
    names = [as_str(as_map(c, "spec.resourceClaims[]").get("name"), "spec.resourceClaims[].name")
             for c in as_list(spec.get("resourceClaims"), "spec.resourceClaims")]
    for section in ("initContainers", "containers"):
        for i, raw in enumerate(_containers(spec, section)):
            resources = _container(raw, section, i).get("resources") or {}
            if type(resources) is not dict:
                resources = as_map(resources, f"spec.{section}[{i}].resources")
            claims = resources.get("claims")
            if claims is None:
                continue
            for claim in as_list(claims, f"spec.{section}[{i}].resources.claims"):
                names.append(as_str(as_map(claim, "claim").get("name"), f"spec.{section}[{i}].resources.claims[].name"))
    return tuple(dict.fromkeys(names)) if names else ()


def _pvc_names(spec: Mapping, pod_name: str) -> tuple[str, ...]:
    volumes = spec.get("volumes")
    if not volumes:
        return () if volumes is None or type(volumes) is list else tuple(as_list(volumes, "spec.volumes"))
    names = []
    for i, raw in enumerate(as_list(volumes, "spec.volumes")):
        volume = raw if type(raw) is dict else as_map(raw, f"spec.volumes[{i}]")
        claim = volume.get("persistentVolumeClaim")
        if claim:
            names.append(as_str(as_map(claim, "claim").get("claimName"), f"spec.volumes[{i}].claimName"))
        elif volume.get("ephemeral"):
            # generic ephemeral volumes get a PVC named <pod>-<volume>
            names.append(f"{pod_name}-{as_str(volume.get('name'), 'name')}")
    return tuple(names) if names else ()


def _conditions(status: Mapping, bound: bool) -> tuple[str, str, bool, datetime | None, bool]:
    """PodScheduled's reason and message (unbound pods only: a bound pod's is True), whether the pod
    is Ready and since when, and whether its Ready condition is False, in one pass over
    ``status.conditions``."""
    reason = message = ""
    ready, since, unready = False, None, False
    conditions = status.get("conditions")
    if type(conditions) is not list:
        conditions = as_list(conditions, "status.conditions")
    for i, raw in enumerate(conditions):
        cond = raw if type(raw) is dict else as_map(raw, f"status.conditions[{i}]")
        kind = cond.get("type")
        if kind == "Ready":
            ready = cond.get("status") == "True"
            unready = cond.get("status") == "False"
            if ready:
                since = parse_time(cond.get("lastTransitionTime"), f"status.conditions[{i}].lastTransitionTime")
        elif kind == "PodScheduled" and not bound and cond.get("status") != "True":
            reason, message = as_str(cond.get("reason"), "reason"), as_str(cond.get("message"), "message")
    return reason, message, ready, since, unready


def _restarts(status: Mapping) -> int:
    """The most restarts of any container (what the ReplicaSet controller compares)."""
    statuses = status.get("containerStatuses")
    if not statuses:
        return 0
    most = 0
    for i, raw in enumerate(as_list(statuses, "status.containerStatuses")):
        count = (raw if type(raw) is dict else as_map(raw, f"status.containerStatuses[{i}]")).get("restartCount")
        if type(count) is int and count > most:
            most = count
    return most


def _template_parts(spec: Mapping) -> tuple:
    """Every part of a pod spec that :data:`_TEMPLATE_FIELDS` depend on, as written.

    A workload's replicas share them; what differs from one replica to the next (the node,
    the volumes and their mounts, the affinity a DaemonSet pins to its node) stays out. A
    ``containers`` or ``initContainers`` that is not a list, or a container that is not an
    object, raises (TypeError, AttributeError): such a pod is built the long way, which names
    the field."""
    containers, inits = spec["containers"], spec.get("initContainers")
    if type(containers) is not list or (inits is not None and type(inits) is not list):
        raise TypeError("unusual containers")
    return (
        spec.get("priority"), spec.get("priorityClassName"), spec.get("preemptionPolicy"),
        spec.get("schedulerName"), spec.get("tolerations"), spec.get("topologySpreadConstraints"),
        spec.get("nodeSelector"), spec.get("resources"), spec.get("overhead"), spec.get("resourceClaims"),
        [(c.get("image"), c.get("resources"), c.get("ports")) for c in containers],
        [(c.get("resources"), c.get("restartPolicy"), c.get("ports")) for c in inits] if inits else inits,
    )


# The Pod fields a spec's :func:`_template_parts` decide, in one tuple per distinct template.
_TEMPLATE_FIELDS = ("priority", "priority_class_name", "preemption_policy", "scheduler_name", "requests",
                    "node_selector", "tolerations", "spread_constraints", "host_ports", "resource_claims", "images")
_TEMPLATES = Memo()


def build_pod(obj: Mapping, meta: dict | None = None) -> Pod:
    """A Pod from its JSON; ``meta`` overrides metadata (pods made from templates).

    A pod whose spec has the template of one built before (:func:`_template_parts`: a
    workload's replicas) takes that pod's :data:`_TEMPLATE_FIELDS` and reads only what is
    its own; any other is built in full (:func:`_build_pod`), which then lends its template."""
    if meta is None:
        fields = meta_fields(obj, keep_raw=False)
        fields["labels"] = _shared_labels(fields["labels"])
    else:
        fields = meta
    spec = obj.get("spec")
    keyed = _TEMPLATES.key(_template_parts, spec) if type(spec) is dict else None
    template = MISS if keyed is None else _TEMPLATES.find(*keyed)
    if template is MISS:
        pod = _build_pod(obj, fields)
        if keyed is not None:
            _TEMPLATES.keep(*keyed, tuple(getattr(pod, name) for name in _TEMPLATE_FIELDS))
        return pod
    # The template's fields parsed before from the same parts: only the pod's own can fail here,
    # read in the order _build_pod reads them, so a pod with two faults names the same one.
    status = as_map(obj.get("status"), "status")
    node_name = sys.intern(as_str(spec.get("nodeName"), "spec.nodeName"))
    conditions = _conditions(status, bool(node_name))
    priority, priority_class_name, preemption_policy, scheduler_name, requests, node_selector, tolerations, \
        spread_constraints, host_ports, resource_claims, images = template  # type: ignore[misc]
    return Pod(
        **fields,
        node_name=node_name,
        phase=as_str(status.get("phase"), "status.phase", PENDING) or PENDING,
        priority=priority,
        priority_class_name=priority_class_name,
        preemption_policy=preemption_policy,
        scheduler_name=scheduler_name,
        requests=requests,
        node_selector=node_selector,
        affinity=_shared_affinity(spec.get("affinity")),
        tolerations=tolerations,
        spread_constraints=spread_constraints,
        host_ports=host_ports,
        pvc_names=_pvc_names(spec, fields["name"]),
        resource_claims=resource_claims,
        **_status_fields(status, conditions),
        images=images,
    )


def _status_fields(status: Mapping, conditions: tuple) -> dict:
    """A pod's own status fields, whichever way its spec was read: its conditions (read before the
    spec, :func:`_conditions`), then the rest of its status, read where both builds read them."""
    reason, message, ready, ready_since, unready = conditions
    return {"scheduled_reason": reason, "scheduled_message": message,
            "nominated_node": as_str(status.get("nominatedNodeName"), "status.nominatedNodeName"),
            "started": parse_time(status.get("startTime"), "status.startTime"),
            "ready": ready, "ready_since": ready_since, "unready": unready, "restarts": _restarts(status)}


def _build_pod(obj: Mapping, fields: dict) -> Pod:
    """A Pod read field by field from its JSON (:func:`build_pod` without a template to share)."""
    spec = as_map(obj.get("spec"), "spec")
    status = as_map(obj.get("status"), "status")
    # one string per node name, the node's own (build_node interns it too): the simulator finds
    # each bound pod's node by it, and equal names that are one object compare without a read
    node_name = sys.intern(as_str(spec.get("nodeName"), "spec.nodeName"))
    # a bound pod's PodScheduled is True: only unbound pods can carry a scheduler reason
    conditions = _conditions(status, bool(node_name))
    requests, node_selector, tolerations, spread_constraints = _shared_scheduling(spec)
    return Pod(
        **fields,
        node_name=node_name,
        phase=as_str(status.get("phase"), "status.phase", PENDING) or PENDING,
        priority=as_int32(spec.get("priority"), "spec.priority", 0),
        priority_class_name=as_str(spec.get("priorityClassName"), "spec.priorityClassName"),
        preemption_policy=as_str(spec.get("preemptionPolicy"), "spec.preemptionPolicy", "PreemptLowerPriority"),
        scheduler_name=as_str(spec.get("schedulerName"), "spec.schedulerName", "default-scheduler"),
        requests=requests,
        node_selector=node_selector,
        affinity=_shared_affinity(spec.get("affinity")),
        tolerations=tolerations,
        spread_constraints=spread_constraints,
        host_ports=_host_ports(spec),
        pvc_names=_pvc_names(spec, fields["name"]),
        resource_claims=_resource_claims(spec),
        **_status_fields(status, conditions),
        images=_images(spec),
    )
