"""NodeAffinity: nodeSelector and required node affinity filter; preferred terms score."""

from __future__ import annotations

import numpy as np

from ..cycle import Failure, PodCycle
from ..status import UNRESOLVABLE

NAME = "NodeAffinity"
WEIGHT = 2
REASON = "node(s) didn't match Pod's node affinity/selector"


def node_matches(pod, node) -> bool:
    """Whether one node satisfies the pod's nodeSelector and required node affinity (the rule
    :func:`required_mask` applies to every node; views that look at one node ask here)."""
    labels = node.labels
    if pod.node_selector and any(labels.get(k) != v for k, v in pod.node_selector.items()):
        return False
    required = pod.affinity.node_required
    return required is None or required.matches(labels, node.name)


def required_mask(ctx: PodCycle) -> np.ndarray:
    """Nodes that satisfy the pod's nodeSelector and required node affinity."""
    pod = ctx.pod
    selector, required = pod.node_selector, pod.affinity.node_required

    def compute() -> np.ndarray:
        return np.fromiter((node_matches(pod, node) for node in ctx.state.nodes), dtype=bool, count=ctx.size)

    key = (NAME, tuple(sorted(selector.items())) if selector else (), required)
    return ctx.static(key, compute)


REASON_PRE_FILTER = "node(s) didn't satisfy plugin(s) [NodeAffinity]"


def named_nodes(required) -> frozenset[str] | None:
    """PreFilter's narrowing: when every term pins ``metadata.name In [...]``, only those nodes.

    DaemonSet pods carry such a term for their node; kube-scheduler then never
    runs Filter on the other nodes.
    """
    if required is None or not required.terms:
        return None
    names: set[str] = set()
    for term in required.terms:
        pinned = None
        for req in term.match_fields:
            if req.key == "metadata.name" and req.operator == "In":
                pinned = set(req.values) if pinned is None else pinned & set(req.values)
        if pinned is None:
            return None
        names |= pinned
    return frozenset(names)


def filter(ctx: PodCycle) -> list[Failure]:
    """Nodes a matchFields PreFilter left out count as "didn't satisfy plugin(s)" from 1.32 on
    (before, they appeared in no reason at all: the empty reason is not counted)."""
    pod = ctx.pod
    if not pod.node_selector and pod.affinity.node_required is None:
        return []
    mismatch = ~required_mask(ctx)
    names = named_nodes(pod.affinity.node_required)
    if names is None:
        return [Failure(mismatch, REASON, UNRESOLVABLE)]
    outside = np.array([n.name not in names for n in ctx.state.nodes], dtype=bool)
    return [Failure(outside, REASON_PRE_FILTER if ctx.version >= (1, 32) else "", UNRESOLVABLE),
            Failure(mismatch & ~outside, REASON, UNRESOLVABLE)]


def score(ctx: PodCycle, feasible: np.ndarray) -> np.ndarray | int:
    """Sum of the weights of matching preferred terms, normalised to 0..100; a plain 0 for a pod
    with none (see framework.run_scores)."""
    preferred = ctx.pod.affinity.node_preferred
    if not preferred:
        return 0

    def compute() -> np.ndarray:
        return np.array(
            [sum(p.weight for p in preferred if p.term.matches(n.labels, n.name)) for n in ctx.state.nodes],
            dtype=np.int64,
        )

    raw = ctx.static((NAME, "score", preferred), compute)[feasible]
    top = raw.max() if raw.size else 0
    return raw * 100 // top if top > 0 else raw
