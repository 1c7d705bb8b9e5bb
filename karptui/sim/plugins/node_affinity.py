"""NodeAffinity: nodeSelector and required node affinity filter; preferred terms score."""

from __future__ import annotations

import numpy as np

from ...model.selectors import NodeSelectorTerm
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
    """Nodes that satisfy the pod's nodeSelector and required node affinity: :func:`node_matches`
    over every node, asked per distinct value of each label it reads (:func:`term_mask`)."""
    pod = ctx.pod
    selector, required = pod.node_selector, pod.affinity.node_required

    def compute() -> np.ndarray:
        state = ctx.state
        mask = np.ones(ctx.size, dtype=bool)
        for key, value in (selector or {}).items():
            mask &= _label_mask(state, key, lambda found: found == value)
        if required is not None:
            mask &= _any_term(state, required.terms)
        return mask

    key = (NAME, tuple(sorted(selector.items())) if selector else (), required)
    return ctx.static(key, compute)


def _label_mask(state, key: str, test) -> np.ndarray:
    """Per node, ``test`` of its value of label ``key`` (None where it has none), asked once per
    distinct value: nodes of one kind share their labels' values (zone, instance type, pool), so
    a selector over 5,000 nodes asks a few dozen values rather than every node's labels."""
    domains = state.domains(key)
    flags = np.fromiter((test(value) for value in domains.values), dtype=bool, count=domains.size)
    return domains.read_off(flags, missing=test(None))


def term_mask(state, term: NodeSelectorTerm) -> np.ndarray:
    """Per node, whether it satisfies one nodeSelectorTerm (``term.matches`` of its labels and name;
    an empty term matches no node): its expressions asked per distinct label value, its fields
    (``metadata.name``) per node."""
    if not term.match_expressions and not term.match_fields:
        return np.zeros(len(state.nodes), dtype=bool)
    mask = np.ones(len(state.nodes), dtype=bool)
    for req in term.match_expressions:
        mask &= _label_mask(state, req.key, lambda value, req=req: req.matches({} if value is None else {req.key: value}))
    for req in term.match_fields:
        mask &= np.fromiter((req.matches({"metadata.name": node.name}) for node in state.nodes), dtype=bool,
                            count=len(state.nodes))
    return mask


def _any_term(state, terms) -> np.ndarray:
    """Nodes that satisfy some term (terms are ORed; none matches no node)."""
    mask = np.zeros(len(state.nodes), dtype=bool)
    for term in terms:
        mask |= term_mask(state, term)
    return mask


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

    def compute() -> np.ndarray:   # each term's weight where it matches (term_mask: per label value)
        total = np.zeros(ctx.size, dtype=np.int64)
        for p in preferred:
            total += p.weight * term_mask(ctx.state, p.term)
        return total

    raw = ctx.static((NAME, "score", preferred), compute)[feasible]
    top = raw.max() if raw.size else 0
    return raw * 100 // top if top > 0 else raw
