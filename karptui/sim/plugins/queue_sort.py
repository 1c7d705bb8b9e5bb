"""PrioritySort, kube-scheduler's QueueSort plugin: the order pending pods are taken in.

Higher priority first, then the pod that has waited longer (its creation time stands in for the
time it joined the queue), then namespace and name so a simulation is repeatable.
"""

from __future__ import annotations

from ...model import Pod


def queue_key(pod: Pod) -> tuple:
    """A pod's place in the queue: smaller keys are taken first."""
    return -pod.priority, pod.created.timestamp() if pod.created else 0.0, pod.namespace, pod.name


def queue_order(pods) -> list[Pod]:
    """The pods in the order kube-scheduler takes them."""
    return sorted(pods, key=queue_key)
