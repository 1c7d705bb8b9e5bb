"""PodTopologySpread: keep matching pods within maxSkew across topology domains.

Filter (DoNotSchedule constraints): for a node in domain D,
``skew = matching pods in D + (1 if the pod matches itself) - global minimum``
must not exceed maxSkew. The minimum is over eligible domains: those with a
node that has every constraint's key and passes nodeAffinityPolicy (Honor by
default) and nodeTaintsPolicy (Ignore by default); it counts as 0 when fewer
than minDomains domains are eligible. matchLabelKeys add the pod's own label
values to the selector. Terminating pods do not count.

Score (ScheduleAnyway constraints, or the system defaults - hostname maxSkew 3,
zone maxSkew 5 - for a pod with no constraints that belongs to a ReplicaSet or
StatefulSet): fewer matching pods in the node's domains scores higher.
"""

from __future__ import annotations

import math

import numpy as np

from ...model.affinity import DO_NOT_SCHEDULE, HONOR, SCHEDULE_ANYWAY, TopologySpreadConstraint
from ...model.selectors import IN, LabelSelector, Requirement
from ..cycle import Failure, PodCycle
from ..skew import allows, global_minimum
from ..status import UNRESOLVABLE, UNSCHEDULABLE
from ..topology import MISSING
from . import node_affinity, taint_toleration

NAME = "PodTopologySpread"
WEIGHT = 2
REASON = "node(s) didn't match pod topology spread constraints"
REASON_MISSING_LABEL = "node(s) didn't match pod topology spread constraints (missing required label)"
HOSTNAME = "kubernetes.io/hostname"
SYSTEM_DEFAULTS = (
    TopologySpreadConstraint(3, HOSTNAME, SCHEDULE_ANYWAY, None),
    TopologySpreadConstraint(5, "topology.kubernetes.io/zone", SCHEDULE_ANYWAY, None),
)


def effective_selector(constraint: TopologySpreadConstraint, labels) -> LabelSelector | None:
    """labelSelector AND, for each matchLabelKeys key the pod has, key In [its value]."""
    selector = constraint.label_selector
    if selector is None or not constraint.match_label_keys:
        return selector
    extra = tuple(Requirement(k, IN, (labels[k],)) for k in constraint.match_label_keys if k in labels)
    return LabelSelector(selector.match_labels, selector.match_expressions + extra)


def _eligible(ctx: PodCycle, constraint: TopologySpreadConstraint, keys: tuple[str, ...]) -> np.ndarray:
    """Nodes whose pods count toward the constraint's domains."""
    state = ctx.state
    kept = ctx.cycle.get("spread-keys")
    if kept is None or kept[0] is not keys:  # the same for every constraint of a call: once, not per constraint
        has_keys = ~state.excluded
        for key in keys:
            has_keys &= state.domains(key).ids != MISSING
        kept = ctx.cycle["spread-keys"] = (keys, has_keys)
    mask = kept[1].copy()
    if constraint.node_affinity_policy == HONOR:
        mask &= node_affinity.required_mask(ctx)
    if constraint.node_taints_policy == HONOR:
        for failure in taint_toleration.filter(ctx):
            mask &= ~failure.nodes
    return mask


def domain_counts(ctx: PodCycle, constraint: TopologySpreadConstraint, keys: tuple[str, ...]):
    pod = ctx.pod
    selector = effective_selector(constraint, pod.labels)
    per_node = ctx.state.counts(((selector, frozenset((pod.namespace,))),), skip_terminating=True)
    eligible = _eligible(ctx, constraint, keys)
    domains = ctx.state.domains(constraint.topology_key)
    return domains, domains.per_domain(per_node, eligible), domains.present(eligible), selector


def filter(ctx: PodCycle) -> list[Failure]:
    hard = tuple(c for c in ctx.pod.spread_constraints if c.when_unsatisfiable == DO_NOT_SCHEDULE)
    if not hard:
        return []
    keys = tuple(dict.fromkeys(c.topology_key for c in hard))
    undecided = np.ones(ctx.size, dtype=bool)
    missing = np.zeros(ctx.size, dtype=bool)
    skewed = np.zeros(ctx.size, dtype=bool)
    for constraint in hard:
        domains, counts, present, selector = domain_counts(ctx, constraint, keys)
        floor = global_minimum(counts[present], constraint.min_domains)
        self_match = 1 if selector is not None and selector.matches(ctx.pod.labels) else 0
        ids = domains.ids
        lacks = undecided & (ids == MISSING)
        node_counts = np.where(ids == MISSING, 0, counts[np.maximum(ids, 0)] if counts.size else 0)
        too_skewed = undecided & ~lacks & ~allows(node_counts, self_match, floor, constraint.max_skew)
        missing |= lacks
        skewed |= too_skewed
        undecided &= ~(lacks | too_skewed)
    failures = []
    if missing.any():
        failures.append(Failure(missing, REASON_MISSING_LABEL, UNRESOLVABLE))
    if skewed.any():
        failures.append(Failure(skewed, REASON, UNSCHEDULABLE))
    return failures


def _soft_constraints(ctx: PodCycle) -> tuple[tuple[TopologySpreadConstraint, LabelSelector | None], ...]:
    pod = ctx.pod
    if pod.spread_constraints:
        return tuple((c, effective_selector(c, pod.labels))
                     for c in pod.spread_constraints if c.when_unsatisfiable == SCHEDULE_ANYWAY)
    selector = default_selector(ctx)
    return tuple((c, selector) for c in SYSTEM_DEFAULTS) if selector is not None else ()


def default_selector(ctx: PodCycle) -> LabelSelector | None:
    """The selector of the ReplicaSet or StatefulSet that owns the pod (Services are not in snapshots)."""
    owner = ctx.state.snapshot.owner_of(ctx.pod)
    if owner is None or owner.kind not in ("ReplicaSet", "StatefulSet") or owner.selector is None:
        return None
    return None if owner.selector.is_empty else owner.selector


def score(ctx: PodCycle, feasible: np.ndarray) -> np.ndarray:
    """Sum over soft constraints of count x log(domains + 2) + (maxSkew - 1), reversed to 0..100."""
    soft = _soft_constraints(ctx)
    if not soft:
        return np.zeros(int(feasible.size), dtype=np.int64)
    state, pod = ctx.state, ctx.pod
    keys = tuple(dict.fromkeys(c.topology_key for c, _ in soft))
    has_keys = np.ones(ctx.size, dtype=bool)
    for key in keys:
        has_keys &= state.domains(key).ids != MISSING
    ignored = ~has_keys[feasible]
    total = np.zeros(int(feasible.size), dtype=np.float64)
    for constraint, selector in soft:
        per_node = state.counts(((selector, frozenset((pod.namespace,))),), skip_terminating=True)
        domains = state.domains(constraint.topology_key)
        ids = domains.ids[feasible]
        if constraint.topology_key == HOSTNAME:
            size = int((~ignored).sum())
            counts = per_node[feasible]
        else:
            scored = np.zeros(domains.size, dtype=bool)
            scored[ids[~ignored & (ids != MISSING)]] = True
            size = int(scored.sum())
            by_domain = domains.per_domain(per_node, _eligible(ctx, constraint, keys))
            counts = np.where(ids == MISSING, 0, by_domain[np.maximum(ids, 0)] if by_domain.size else 0)
        weight = math.log(size + 2)
        total += np.where(ids == MISSING, 0.0, counts * weight + (constraint.max_skew - 1))
    raw = np.where(ignored, -1, np.round(total).astype(np.int64))
    valid = raw[~ignored]
    if valid.size == 0:
        return np.zeros(int(feasible.size), dtype=np.int64)
    low, high = int(valid.min()), int(valid.max())
    if high == 0:
        return np.where(ignored, 0, 100).astype(np.int64)
    return np.where(ignored, 0, 100 * (high + low - raw) // high).astype(np.int64)
