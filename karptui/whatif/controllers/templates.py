"""Pods made from a workload's template, as the API server admits them.

Every controller that creates pods (ReplicaSet, StatefulSet, DaemonSet, Job) makes them here,
so a new pod of any kind carries what admission gives a real one: the Priority plugin turns
``priorityClassName`` (or the global default class) into ``priority``; DefaultTolerationSeconds
adds the not-ready / unreachable tolerations; the DaemonSet controller its own tolerations; and
what mutating webhooks gave the running pods (a Fargate profile's scheduler, a toleration) is
carried over, since no template shows it.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from ... import limits
from ...model.pod import PENDING, Pod, build_pod
from ...model.taints import parse_tolerations
from ...model.workloads import Workload
from ..edits import Target
from .common import BUILD_ERRORS, EditError

if TYPE_CHECKING:
    from ..apply import Run

NOT_READY = "node.kubernetes.io/not-ready"
UNREACHABLE = "node.kubernetes.io/unreachable"
UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
NO_SCHEDULE, NO_EXECUTE = "NoSchedule", "NoExecute"
DEFAULT_TOLERATION_SECONDS = 300
# What the DaemonSet controller adds to every daemon pod (network-unavailable
# only with hostNetwork), in its order.
DAEMON_TOLERATIONS = (
    (NOT_READY, NO_EXECUTE), (UNREACHABLE, NO_EXECUTE),
    ("node.kubernetes.io/disk-pressure", NO_SCHEDULE), ("node.kubernetes.io/memory-pressure", NO_SCHEDULE),
    ("node.kubernetes.io/pid-pressure", NO_SCHEDULE), (UNSCHEDULABLE, NO_SCHEDULE),
)
NETWORK_UNAVAILABLE = ("node.kubernetes.io/network-unavailable", NO_SCHEDULE)
ADMISSION_KEYS = frozenset(key for key, _ in DAEMON_TOLERATIONS + (NETWORK_UNAVAILABLE,))
# Classes every cluster has even when a dump leaves them out.
BUILTIN_PRIORITY = {"system-node-critical": 2000001000, "system-cluster-critical": 2000000000}
STS_POD_NAME = "statefulset.kubernetes.io/pod-name"
# Labels a controller gives each pod its own value of: never carried over.
PER_POD_LABELS = frozenset({STS_POD_NAME, "apps.kubernetes.io/pod-index", "batch.kubernetes.io/job-completion-index"})
_UID_SPACE = uuid.UUID("6c1f4b8e-2f4a-5a57-9d0e-6b61727074a1")

_AFFINITY_LISTS = (
    ("nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"),
    ("nodeAffinity", "preferredDuringSchedulingIgnoredDuringExecution", None),
    ("podAffinity", "requiredDuringSchedulingIgnoredDuringExecution", None),
    ("podAffinity", "preferredDuringSchedulingIgnoredDuringExecution", None),
    ("podAntiAffinity", "requiredDuringSchedulingIgnoredDuringExecution", None),
    ("podAntiAffinity", "preferredDuringSchedulingIgnoredDuringExecution", None),
)


class PodTemplate:
    """A workload's pod template, admitted once, ready to stamp out pods.

    ``old`` and ``running`` are the workload as it was and its pods: what admission gave them is
    carried over (see :meth:`_carry_over`).
    """

    def __init__(self, run: Run, workload: Workload, raw: Mapping, target: Target, *,
                 old: Workload | None = None, running: Sequence[Pod] = ()) -> None:
        self.run, self.workload, self.target = run, workload, target
        template = (raw.get("spec") or {}).get("template")
        if not isinstance(template, Mapping):
            raise EditError(f"{target}: no pod template (spec.template), so no pods to make")
        meta = template.get("metadata") or {}
        self.labels, self.annotations = dict(meta.get("labels") or {}), dict(meta.get("annotations") or {})
        daemon = workload.kind == "DaemonSet"
        self.spec = self._admit(template.get("spec") or {}, daemon)
        self._carry_over(old or workload, running)

    # ------------------------------------------------------------------ pods

    def pod(self, name: str, owner: dict, *, labels: Mapping[str, str] | None = None,
            spec: Mapping | None = None) -> Pod:
        """A new pending pod called ``name``, owned by ``owner`` (a controller reference)."""
        ns = self.workload.namespace
        meta: dict = {"name": name, "namespace": ns, "uid": str(uuid.uuid5(_UID_SPACE, f"{ns}/{name}")),
                      "labels": dict(labels if labels is not None else self.labels),
                      "ownerReferences": [owner], "creationTimestamp": self.run.created}
        if self.annotations:
            meta["annotations"] = self.annotations
        try:
            return build_pod({"apiVersion": "v1", "kind": "Pod", "metadata": meta,
                              "spec": spec if spec is not None else self.spec, "status": {"phase": PENDING}})
        except BUILD_ERRORS as exc:
            raise EditError(f"{self.target}: its pods cannot be made from the template: {exc}") from None

    def probe(self) -> Pod:
        """One pod of the template, to ask what it tolerates and selects (nothing keeps it)."""
        return build_pod({"metadata": {"name": self.workload.name, "namespace": self.workload.namespace},
                          "spec": self.spec})

    # ------------------------------------------------------------------ admission

    def _admit(self, template_spec: Mapping, daemon: bool) -> dict:
        """The template spec as admission leaves it: daemon and default tolerations, priority."""
        spec = dict(template_spec)
        check_constraints(spec, self.target)
        tolerations = spec.get("tolerations") or []
        if not isinstance(tolerations, list):
            raise EditError(f"{self.target}: spec.template.spec.tolerations must be a list")
        if daemon:
            tolerations = _with_daemon_tolerations(tolerations, spec.get("hostNetwork") is True)
        tolerations = _with_default_toleration_seconds(tolerations)
        if tolerations:
            spec["tolerations"] = tolerations
        if spec.get("priority") is None:
            value, class_name, policy = self._priority(spec.get("priorityClassName"))
            spec["priority"] = value
            if class_name:
                spec["priorityClassName"] = class_name
            if policy and "preemptionPolicy" not in spec:
                spec["preemptionPolicy"] = policy
        return spec

    def _priority(self, name: object) -> tuple[int, str, str]:
        """What the Priority admission plugin resolves: (value, class name, preemption policy)."""
        snapshot = self.run.snapshot
        classes = {c.name: c for c in snapshot.priority_classes}
        if name:
            name = str(name)
            if name in classes:
                return classes[name].value, name, classes[name].preemption_policy
            if name in BUILTIN_PRIORITY:
                return BUILTIN_PRIORITY[name], name, "PreemptLowerPriority"
            admitted = next((p for p in snapshot.pods if p.priority_class_name == name), None)
            if admitted is not None:  # the dump left the class out; its pods say what it was
                return admitted.priority, name, ""
            self.run.notes.append(f"{self.target}: PriorityClass {name} is not in the snapshot; priority 0 assumed")
            return 0, name, ""
        default = next((c for c in classes.values() if c.global_default), None)
        if default is not None:
            return default.value, default.name, default.preemption_policy
        return 0, "", ""

    def _carry_over(self, old: Workload, old_pods: Sequence[Pod]) -> None:
        """What mutating admission gave the running pods, given to the new ones too.

        Webhooks (EKS Fargate's sets ``schedulerName: fargate-scheduler`` and a
        toleration) and controllers (``controller-revision-hash``) add fields
        no template shows. Whatever every current pod has that the old
        template lacked is kept, unless the edited template now sets it.
        """
        pods = [p for p in old_pods if not p.is_terminal]
        if not pods or old.template is None:
            return
        before, spec = old.template, self.spec
        self.labels = {**_common([p.labels for p in pods], skip=before.labels, per_pod=PER_POD_LABELS), **self.labels}
        self.annotations = {**_common([p.annotations for p in pods], skip=before.annotations), **self.annotations}
        carried = []
        selector = _common([p.node_selector for p in pods], skip=before.node_selector)
        template_selector = spec.get("nodeSelector") if isinstance(spec.get("nodeSelector"), Mapping) else {}
        selector = {k: v for k, v in selector.items() if k not in template_selector}
        if selector:
            spec = {**spec, "nodeSelector": {**template_selector, **selector}}
            carried.append(f"nodeSelector {', '.join(f'{k}={v}' for k, v in selector.items())}")
        present = {repr(t.to_dict()) for t in parse_tolerations(spec.get("tolerations"), "tolerations")}
        extra = [t.to_dict() for t in pods[0].tolerations
                 if all(t in p.tolerations for p in pods[1:]) and t not in before.tolerations
                 and t.key not in ADMISSION_KEYS and repr(t.to_dict()) not in present]
        if extra:
            spec = {**spec, "tolerations": list(spec.get("tolerations") or []) + extra}
            carried.append(f"{len(extra)} toleration(s)")
        names = {p.scheduler_name for p in pods}
        template_scheduler = spec.get("schedulerName") or "default-scheduler"
        if len(names) == 1 and template_scheduler == before.scheduler_name and names != {before.scheduler_name}:
            spec = {**spec, "schedulerName": names.pop()}
            carried.append(f"schedulerName {spec['schedulerName']}")
        self.spec = spec
        if carried:
            self.run.notes.append(f"{self.target}: kept what admission gave its pods: {'; '.join(carried)}")


def fresh_names(run: Run, workload: Workload, count: int) -> list[str]:
    """``<workload>-whatif-<n>`` names no pod of the namespace has: a what-if's new pods are easy
    to tell from the cluster's (a real controller adds five random characters)."""
    taken = {p.name for p in run.snapshot.pods if p.namespace == workload.namespace}
    names: list[str] = []
    n = 0
    while len(names) < count:
        n += 1
        name = f"{workload.name}-whatif-{n}"
        if name not in taken:
            names.append(name)
    return names


def check_constraints(spec: Mapping, target: Target) -> None:
    """No pod template with spread constraints the API server would refuse (two with the same
    topologyKey and whenUnsatisfiable) or more than karptui's cap, nor more affinity terms than
    etcd could store."""
    spread = spec.get("topologySpreadConstraints")
    if isinstance(spread, list) and len(spread) > limits.MAX_SPREAD_CONSTRAINTS:
        raise EditError(f"{target}: {len(spread):,} topologySpreadConstraints, over karptui's cap of "
                        f"{limits.MAX_SPREAD_CONSTRAINTS:,} (two per label key, for a node with "
                        f"{limits.MAX_SPREAD_CONSTRAINTS // 2} label keys)")
    seen: set[tuple[object, object]] = set()
    for i, constraint in enumerate(spread if isinstance(spread, list) else ()):
        if not isinstance(constraint, Mapping):
            continue
        pair = (constraint.get("topologyKey"), constraint.get("whenUnsatisfiable") or "DoNotSchedule")
        if pair in seen:  # the API server's own rule: one constraint per key and action
            raise EditError(f"{target}: spec.template.spec.topologySpreadConstraints[{i}]: Duplicate value: "
                            f"\"{{{pair[0]}, {pair[1]}}}\" (the API server refuses a second constraint with "
                            "the same topologyKey and whenUnsatisfiable)")
        seen.add(pair)
    affinity = spec.get("affinity")
    terms = 0
    for kind, rule, inner in _AFFINITY_LISTS if isinstance(affinity, Mapping) else ():
        found = affinity.get(kind)
        found = found.get(rule) if isinstance(found, Mapping) else None
        if inner is not None:
            found = found.get(inner) if isinstance(found, Mapping) else None
        terms += len(found) if isinstance(found, list) else 0
    if terms > limits.MAX_AFFINITY_TERMS:
        raise EditError(f"{target}: {terms:,} affinity terms, over karptui's cap of "
                        f"{limits.MAX_AFFINITY_TERMS:,} (more than a pod the API server can store)")


def _common(maps: Iterable[Mapping[str, str]], skip: Mapping[str, str],
            per_pod: frozenset[str] = frozenset()) -> dict[str, str]:
    """Entries every map has, with the same value, that ``skip`` does not have."""
    maps = list(maps)
    return {k: v for k, v in maps[0].items()
            if k not in skip and k not in per_pod and all(m.get(k) == v for m in maps[1:])}


def _with_daemon_tolerations(tolerations: list, host_network: bool) -> list:
    out = list(tolerations)
    wanted = DAEMON_TOLERATIONS + ((NETWORK_UNAVAILABLE,) if host_network else ())
    for key, effect in wanted:
        toleration = {"key": key, "operator": "Exists", "effect": effect}
        same = next((i for i, t in enumerate(out) if isinstance(t, Mapping) and t.get("key") == key
                     and t.get("effect") == effect and t.get("operator") == "Exists"), None)
        if same is None:
            out.append(toleration)
        else:
            out[same] = toleration
    return out


def _with_default_toleration_seconds(tolerations: list) -> list:
    """DefaultTolerationSeconds: 300 s on not-ready and unreachable unless already tolerated."""
    out = list(tolerations)
    for key in (NOT_READY, UNREACHABLE):
        covered = any(
            isinstance(t, Mapping) and (t.get("key") or "") in (key, "") and (t.get("effect") or "") in (NO_EXECUTE, "")
            for t in tolerations
        )
        if not covered:
            out.append({"key": key, "operator": "Exists", "effect": NO_EXECUTE,
                        "tolerationSeconds": DEFAULT_TOLERATION_SECONDS})
    return out
