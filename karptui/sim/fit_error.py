"""kube-scheduler's FitError text: ``0/N nodes are available: <count> <reason>, ...``.

Each node contributes each of its reasons once; the "<count> <reason>"
strings are sorted as plain strings (so "10 ..." sorts before "2 ..."), as
upstream does. Kubernetes 1.25-1.29 closed the PostFilter part with a full stop
of its own, after the preemption message's own: hence the ".." operators know
from those releases; 1.30 dropped it.
"""

from __future__ import annotations

from collections.abc import Mapping

NO_NODES = "no nodes available to schedule pods"


def histogram(counts: Mapping[str, int]) -> str:
    return ", ".join(sorted(f"{count} {reason}" for reason, count in counts.items() if count))


def fit_error(total_nodes: int, counts: Mapping[str, int], post_filter: str = "",
              version: tuple[int, int] = (1, 33), pre_filter: str = "") -> str:
    if total_nodes == 0:
        return NO_NODES
    text = f"0/{total_nodes} nodes are available"
    if pre_filter:
        text += f": {pre_filter}."
    else:
        reasons = histogram(counts)
        if reasons:
            text += f": {reasons}."
    if post_filter:
        text += f" {post_filter}." if (1, 25) <= version <= (1, 29) else f" {post_filter}"
    return text


def preemption_message(total_nodes: int, counts: Mapping[str, int]) -> str:
    """The PostFilter part when preemption finds no candidate node."""
    return f"preemption: {fit_error(total_nodes, counts)}"
