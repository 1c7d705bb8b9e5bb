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


class Signature(tuple):
    """The fields as a tuple that hashes them once. A signature is looked up several times per
    pod (the failed pods' answers, the equivalence classes, Karpenter's groups), and hashing it
    afresh each time hashed the pod's requests, tolerations and affinity all over again."""

    def __hash__(self) -> int:
        found = self.__dict__.get("hash")
        if found is None:
            found = self.__dict__["hash"] = tuple.__hash__(self)
        return found

    def __reduce__(self):
        return Signature, (tuple(self),)   # never the kept hash: another process hashes strings apart


# the last pod asked about and its signature: kube-scheduler's loop and the pod's equivalence
# class ask about the same pod one after the other (a pod is frozen: its answer cannot change)
_last: tuple[Pod | None, Hashable | None] = (None, None)


def signature(pod: Pod) -> Hashable | None:
    global _last
    last, found = _last
    if last is pod:
        return found
    key = Signature((
        pod.namespace, frozenset(pod.labels.items()), pod.requests, pod.priority, pod.preemption_policy,
        pod.node_name, frozenset(pod.node_selector.items()), pod.affinity, pod.tolerations,
        pod.spread_constraints, pod.host_ports, pod.pvc_names, pod.deleted is None,
    ))
    try:
        hash(key)
    except TypeError:
        key = None
    _last = (pod, key)
    return key
