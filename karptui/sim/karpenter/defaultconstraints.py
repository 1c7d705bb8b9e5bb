"""Karpenter v1.15's default pod topology spread (``--scheduler-config``, kubernetes-sigs/karpenter#3205).

kube-scheduler spreads a pod that declares no topology spread constraints by the cluster's
``defaultConstraints``, if its PodTopologySpread plugin is configured with some. Before v1.15
Karpenter did not know, so it packed such pods onto new nodes kube-scheduler then would not fill
evenly. From v1.15 the operator hands Karpenter the same constraints (``SCHEDULER_CONFIG``,
:mod:`.settings`), and Karpenter gives them, as kube-scheduler does, to every pod it schedules that
has none of its own, all or nothing, each with the selector kube-scheduler works out for the pod
(:mod:`karptui.sim.default_selector`). A pod nothing selects gets none. The constraints are then
ordinary ones: a ScheduleAnyway default is relaxed like any other preference.
"""

from __future__ import annotations

from dataclasses import replace

from ...model import Pod, Snapshot
from ..default_selector import default_selector


def with_default_constraints(snapshot: Snapshot, pod: Pod, defaults: tuple) -> Pod:
    """``pod`` as Karpenter schedules it: with the defaults when it declares no constraints."""
    if not defaults or pod.spread_constraints:
        return pod
    selector = default_selector(snapshot, pod)
    if selector is None:
        return pod
    return replace(pod, spread_constraints=tuple(replace(c, label_selector=selector) for c in defaults))
