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
from typing import NamedTuple

import numpy as np

from ...model import Pod
from ...model.affinity import DO_NOT_SCHEDULE, HONOR, SCHEDULE_ANYWAY, TopologySpreadConstraint
from ...model.selectors import IN, LabelSelector, Requirement
from ..cycle import Failure, PodCycle, Undecided, either
from ..default_selector import default_selector as deduce_default_selector
from ..skew import ceiling, global_minimum
from ..status import UNRESOLVABLE, UNSCHEDULABLE
from ..topology import MISSING, Domains
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


def _eligible(ctx: PodCycle, constraint: TopologySpreadConstraint, keys: tuple[str, ...]) -> tuple[tuple, np.ndarray]:
    """Nodes whose pods count toward the constraint's domains, and a key naming them: the same
    for every pod of a template while no node is taken out, so computed once per template."""
    pod, state = ctx.pod, ctx.state
    affinity = constraint.node_affinity_policy == HONOR
    taints = constraint.node_taints_policy == HONOR
    key = (NAME, "eligible", keys, state.taken_out(),
           (tuple(sorted(pod.node_selector.items())), pod.affinity.node_required) if affinity else None,
           pod.tolerations if taints else None)

    def compute() -> np.ndarray:
        mask = ~state.excluded
        for topology_key in keys:
            mask &= state.domains(topology_key).ids != MISSING
        if affinity:
            mask &= node_affinity.required_mask(ctx)
        if taints:
            for failure in taint_toleration.filter(ctx):
                mask &= ~failure.nodes
        return mask

    return key, ctx.static(key, compute)


def _per_domain(ctx: PodCycle, constraint: TopologySpreadConstraint, selector: LabelSelector | None,
                keys: tuple[str, ...]):
    """Matching pods per domain of the constraint's key over its eligible nodes (kept up to date
    between pods by ClusterState.domain_totals), which domains have an eligible node, and
    whether every domain does (the key naming the eligible nodes is in the last two's)."""
    state = ctx.state
    counter = ((selector, frozenset((ctx.pod.namespace,))),)
    per_node = state.counts(counter, skip_terminating=True)
    eligible_key, eligible = _eligible(ctx, constraint, keys)
    domains = state.domains(constraint.topology_key)
    counts = state.domain_totals((counter, constraint.topology_key, eligible_key), per_node, domains, eligible)
    present = ctx.static((NAME, "present", constraint.topology_key, eligible_key), lambda: domains.present(eligible))
    everywhere = ctx.static((NAME, "present everywhere", constraint.topology_key, eligible_key),
                            lambda: bool(present.all()))
    return domains, counts, present, everywhere


class DomainCounts(NamedTuple):
    """What the filter (and ``--explain``) reads of one hard constraint for one pod."""

    domains: Domains
    counts: np.ndarray    # matching pods per domain, over the eligible nodes
    present: np.ndarray   # per domain: has an eligible node
    selector: LabelSelector | None
    floor: int            # the global minimum over the present domains (see ..skew)


def domain_counts(ctx: PodCycle, constraint: TopologySpreadConstraint, keys: tuple[str, ...]) -> DomainCounts:
    selector = effective_selector(constraint, ctx.pod.labels)
    domains, counts, present, everywhere = _per_domain(ctx, constraint, selector, keys)
    # where every domain is present (the usual case) the counts are read whole: picking the
    # present ones out is a copy per pod of a vector as long as the cluster (per hostname)
    floor = global_minimum(counts if everywhere else counts[present], constraint.min_domains)
    return DomainCounts(domains, counts, present, selector, floor)


def _hard(ctx: PodCycle) -> tuple[TopologySpreadConstraint, ...]:
    return tuple(c for c in ctx.pod.spread_constraints if c.when_unsatisfiable == DO_NOT_SCHEDULE)


def blind_to_evictions(ctx: PodCycle, leaving: list[Pod]) -> bool:
    """Whether taking the bound pods ``leaving`` away cannot change this filter's verdict on the
    pod (see ``framework.only_resources_see_evictions``): only DoNotSchedule constraints filter,
    and only on the pods they count (``_per_domain``'s counter). Preemption asks this of node
    after node in one cycle: the counters' tests are looked up once per cycle."""
    tests = ctx.cycle.get((NAME, "counted"))
    if tests is None:
        tests = ctx.cycle[(NAME, "counted")] = [
            ctx.state.counted_by(((effective_selector(constraint, ctx.pod.labels), frozenset((ctx.pod.namespace,))),),
                                 skip_terminating=True) for constraint in _hard(ctx)]
    for counted in tests:
        if any(counted(pod) for pod in leaving):
            return False
    return True


def filter(ctx: PodCycle) -> list[Failure]:
    hard = _hard(ctx)
    if not hard:
        return []
    keys = tuple(dict.fromkeys(c.topology_key for c in hard))
    # each constraint rules out only the nodes the ones before it left undecided
    undecided = Undecided()
    missing = skewed = None
    for constraint in hard:
        found = domain_counts(ctx, constraint, keys)
        domains = found.domains
        if domains.some_missing:
            missing = either(missing, undecided.rule_out(domains.missing))
        self_match = 1 if found.selector is not None and found.selector.matches(ctx.pod.labels) else 0
        # decided per domain, then read off per node; nodes without the key are not refused for skew
        refused = found.counts > ceiling(self_match, found.floor, constraint.max_skew)
        if refused.any():
            skewed = either(skewed, undecided.rule_out(domains.on_nodes(refused)))
    failures = []
    if missing is not None and missing.any():
        failures.append(Failure(missing, REASON_MISSING_LABEL, UNRESOLVABLE))
    if skewed is not None and skewed.any():
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
    """helper.DefaultSelector: the Services and the ReplicaSet or StatefulSet that select the pod."""
    return deduce_default_selector(ctx.state.snapshot, ctx.pod)


def score(ctx: PodCycle, feasible: np.ndarray) -> np.ndarray | int:
    """Sum over soft constraints of count x log(domains + 2) + (maxSkew - 1), reversed to 0..100;
    a plain 0 for a pod with none (see framework.run_scores)."""
    soft = _soft_constraints(ctx)
    if not soft:
        return 0
    state, pod = ctx.state, ctx.pod
    keys = tuple(dict.fromkeys(c.topology_key for c, _ in soft))

    def lacks_keys() -> np.ndarray:
        lacking = np.zeros(ctx.size, dtype=bool)
        for key in keys:
            lacking |= state.domains(key).missing
        return lacking

    lacking = ctx.static((NAME, "lacks keys", keys), lacks_keys)
    if not ctx.static((NAME, "any lacks keys", keys), lambda: bool(lacking.any())):
        return _scores(ctx, feasible, soft, keys)  # the usual cluster: every node has every key
    ignored = lacking[feasible]
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
            by_domain = _per_domain(ctx, constraint, selector, keys)[1]
            weight = math.log(size + 2)
            # per domain, then read off per node (the extra last entry: nodes without the key, id -1)
            total += np.append(by_domain * weight + (constraint.max_skew - 1), 0.0)[ids]
            continue
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


def _scores(ctx: PodCycle, feasible: np.ndarray, soft, keys: tuple[str, ...]) -> np.ndarray:
    """score() when no node lacks a key: nothing ignored, so nothing to mask out. A single
    constraint over zones or the like is scored per domain and read off per node at the end."""
    state, pod = ctx.state, ctx.pod
    tables = []
    for constraint, selector in soft:
        domains = state.domains(constraint.topology_key)
        ids = domains.ids[feasible]
        if constraint.topology_key == HOSTNAME:
            per_node = state.counts(((selector, frozenset((pod.namespace,))),), skip_terminating=True)
            tables.append((per_node[feasible] * math.log(int(feasible.size) + 2) + (constraint.max_skew - 1), None))
        else:
            scored = np.zeros(domains.size, dtype=bool)
            scored[ids] = True
            by_domain = _per_domain(ctx, constraint, selector, keys)[1]
            tables.append((by_domain * math.log(int(scored.sum()) + 2) + (constraint.max_skew - 1), ids))
    if len(tables) == 1 and tables[0][1] is not None:
        table, ids = tables[0]
        if not ids.size:
            return np.zeros(0, dtype=np.int64)
        raw = np.round(table).astype(np.int64)
        on_nodes = raw[ids]
        low, high = int(on_nodes.min()), int(on_nodes.max())
        return np.full(int(ids.size), 100, dtype=np.int64) if high == 0 else (100 * (high + low - raw) // high)[ids]
    total = np.zeros(int(feasible.size), dtype=np.float64)
    for table, ids in tables:
        total += table if ids is None else table[ids]
    raw = np.round(total).astype(np.int64)
    if raw.size == 0:
        return np.zeros(0, dtype=np.int64)
    low, high = int(raw.min()), int(raw.max())
    if high == 0:
        return np.full(int(raw.size), 100, dtype=np.int64)
    return (100 * (high + low - raw) // high).astype(np.int64)
