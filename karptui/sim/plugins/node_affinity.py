"""NodeAffinity: nodeSelector and required node affinity filter; preferred terms score."""

from __future__ import annotations

import numpy as np

from ..cycle import Failure, PodCycle
from ..status import UNRESOLVABLE

NAME = "NodeAffinity"
WEIGHT = 2
REASON = "node(s) didn't match Pod's node affinity/selector"


def required_mask(ctx: PodCycle) -> np.ndarray:
    """Nodes that satisfy the pod's nodeSelector and required node affinity."""
    pod = ctx.pod
    selector, required = pod.node_selector, pod.affinity.node_required

    def compute() -> np.ndarray:
        ok = np.ones(ctx.size, dtype=bool)
        for i, node in enumerate(ctx.state.nodes):
            labels = node.labels
            if selector and any(labels.get(k) != v for k, v in selector.items()):
                ok[i] = False
            elif required is not None and not required.matches(labels, node.name):
                ok[i] = False
        return ok

    key = (NAME, tuple(sorted(selector.items())) if selector else (), required)
    return ctx.static(key, compute)


def filter(ctx: PodCycle) -> list[Failure]:
    if not ctx.pod.node_selector and ctx.pod.affinity.node_required is None:
        return []
    return [Failure(~required_mask(ctx), REASON, UNRESOLVABLE)]


def score(ctx: PodCycle, feasible: np.ndarray) -> np.ndarray:
    """Sum of the weights of matching preferred terms, normalised to 0..100."""
    preferred = ctx.pod.affinity.node_preferred
    if not preferred:
        return np.zeros(int(feasible.size), dtype=np.int64)

    def compute() -> np.ndarray:
        return np.array(
            [sum(p.weight for p in preferred if p.term.matches(n.labels, n.name)) for n in ctx.state.nodes],
            dtype=np.int64,
        )

    raw = ctx.static((NAME, "score", preferred), compute)[feasible]
    top = raw.max() if raw.size else 0
    return raw * 100 // top if top > 0 else raw
