"""kube-scheduler's ``helper.DefaultSelector``: whose pods a pod's default spread counts.

A default topology spread constraint carries no selector of its own (kube-scheduler refuses one):
for each pod the scheduler works one out from the Services in the pod's namespace that select it
(their selectors' labels, merged, a later Service winning a shared key) and the selector of the
ReplicaSet or StatefulSet that controls it (ANDed on). A pod neither gives anything to is not
spread at all: an empty selector would count every pod of the namespace.

Both users follow this one rule: kube-scheduler's scoring of its system default spread
(:mod:`.plugins.pod_topology_spread`) and Karpenter v1.15's ``podTopologySpread.defaultConstraints``
(:mod:`.karpenter.defaultconstraints`). ReplicationControllers, the third kind kube-scheduler
reads, are not in snapshots.
"""

from __future__ import annotations

import weakref

from ..model import Pod, Snapshot
from ..model.selectors import IN, LabelSelector, Requirement

OWNER_KINDS = ("ReplicaSet", "StatefulSet")


_cache: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # snapshot -> (services by namespace, answers)


def default_selector(snapshot: Snapshot, pod: Pod) -> LabelSelector | None:
    """The selector, or None when nothing selects the pod (then it gets no default spread).

    Worked out once per (namespace, controller, labels): a workload's pods share the answer."""
    found = _cache.get(snapshot)
    if found is None:
        by_namespace: dict[str, list] = {}
        for service in snapshot.services:
            by_namespace.setdefault(service.namespace, []).append(service)
        found = _cache[snapshot] = (by_namespace, {})
    by_namespace, answers = found
    controller = pod.controller
    key = (pod.namespace, controller, tuple(sorted(pod.labels.items())))
    if key not in answers:
        answers[key] = _deduce(snapshot, pod, by_namespace.get(pod.namespace, ()))
    return answers[key]


def _deduce(snapshot: Snapshot, pod: Pod, services) -> LabelSelector | None:
    labels: dict[str, str] = {}
    for service in services:
        if service.selects(pod.labels):
            labels.update(service.selector)
    expressions: tuple[Requirement, ...] = ()
    controller = pod.controller
    owner = snapshot.owner_of(pod) if controller is not None and controller.kind in OWNER_KINDS else None
    if owner is not None and owner.kind in OWNER_KINDS and owner.selector is not None:
        expressions = tuple(Requirement(k, IN, (v,)) for k, v in owner.selector.match_labels) + \
            owner.selector.match_expressions
    if not labels and not expressions:
        return None
    return LabelSelector(tuple(sorted(labels.items())), expressions)
