"""A pod's scheduling signature: the fields every filter and score reads.

Two pending pods with one signature, tried on a cluster nothing was placed on or
evicted from in between, get the same verdict from every plugin. A workload's
pending replicas usually fail one after another like that, so the simulator
answers the later ones from the first (kube-scheduler 1.34's opportunistic
batching keys pods the same way). Anything unhashable means "no signature".
"""

from __future__ import annotations

from collections.abc import Hashable

from ..model import Pod


def signature(pod: Pod) -> Hashable | None:
    key = (
        pod.namespace, frozenset(pod.labels.items()), pod.requests, pod.priority, pod.preemption_policy,
        pod.node_name, frozenset(pod.node_selector.items()), pod.affinity, pod.tolerations,
        pod.spread_constraints, pod.host_ports, pod.pvc_names, pod.deleted is None,
    )
    try:
        hash(key)
    except TypeError:
        return None
    return key
