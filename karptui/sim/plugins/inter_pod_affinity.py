"""InterPodAffinity: required pod affinity / anti-affinity, both ways.

Filter, in kube-scheduler's order:
1. the pod's required affinity: every term's topology key on the node, and a pod
   matching all terms in that domain - unless no such pod exists anywhere and the
   pod matches its own terms (the first pod of a group);
2. the pod's required anti-affinity: no matching pod in the node's domain;
3. existing pods' required anti-affinity: no pod whose term matches this pod in
   the node's domain (symmetry).
Score: preferred terms of the pod, and symmetrically the terms of bound pods
that match it.
"""

from __future__ import annotations

from itertools import islice

import numpy as np

from ...model import Pod
from ...model.affinity import PodAffinityTerm
from ...model.selectors import IN, NOT_IN, LabelSelector, Requirement, selected_as
from ..cycle import Failure, PodCycle, Undecided, either
from ..state import ClusterState
from ..status import UNRESOLVABLE, UNSCHEDULABLE
from ..topology import MISSING

NAME = "InterPodAffinity"
WEIGHT = 2
REASON_AFFINITY = "node(s) didn't match pod affinity rules"
REASON_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules"
REASON_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules"


def term_namespaces(term: PodAffinityTerm, namespace: str, state: ClusterState) -> frozenset[str] | None:
    """The namespaces a term looks at; None means all (an empty namespaceSelector)."""
    names = set(term.namespaces)
    if term.namespace_selector is not None:
        if term.namespace_selector.is_empty:
            return None
        names |= {ns.name for ns in state.snapshot.namespaces if term.namespace_selector.matches(ns.labels)}
    elif not names:
        names.add(namespace)
    return frozenset(names)


def term_selector(term: PodAffinityTerm, labels) -> LabelSelector | None:
    """labelSelector plus matchLabelKeys (key In [own value]) and mismatchLabelKeys (NotIn)."""
    selector = term.label_selector
    if selector is None or not (term.match_label_keys or term.mismatch_label_keys):
        return selector
    extra = tuple(Requirement(k, IN, (labels[k],)) for k in term.match_label_keys if k in labels)
    extra += tuple(Requirement(k, NOT_IN, (labels[k],)) for k in term.mismatch_label_keys if k in labels)
    return LabelSelector(selector.match_labels, selector.match_expressions + extra)


def resolved_terms(terms, pod: Pod, state: ClusterState) -> tuple:
    return tuple((term_selector(t, pod.labels), term_namespaces(t, pod.namespace, state)) for t in terms)


def pair_matches(pair, pod: Pod) -> bool:
    selector, namespaces = pair
    return selector is not None and (namespaces is None or pod.namespace in namespaces) and selector.matches(pod.labels)


def _order(entry: tuple) -> int:
    return entry[0]


class GroupCounts:
    """One term group's bound pods per node: kept sparse, as node -> count, because a cluster holds
    a group per workload and most sit on a few nodes (a dense vector per group was O(groups x
    nodes) to set up: 0.31 s of a 20,000-node simulation, and grew 6x from 5,000 nodes). The vector
    the filter and score read is made when a pending pod first matches the group, and then kept
    up to date beside the map."""

    __slots__ = ("size", "on", "_vector")

    def __init__(self, size: int) -> None:
        self.size = size
        self.on: dict[int, int] = {}   # node index -> pods of the group there (never 0)
        self._vector: np.ndarray | None = None

    def add(self, i: int, sign: int) -> None:
        count = self.on.get(i, 0) + sign
        if count:
            self.on[i] = count
        else:
            del self.on[i]
        if self._vector is not None:
            self._vector[i] += sign

    def any(self) -> bool:
        """Whether any node holds a pod of the group (without reading a vector)."""
        return bool(self.on)

    @property
    def vector(self) -> np.ndarray:
        """Pods per node (read only: :meth:`add` keeps it)."""
        if self._vector is None:
            vector = np.zeros(self.size, dtype=np.int32)
            if self.on:
                vector[np.fromiter(self.on, dtype=np.intp, count=len(self.on))] = list(self.on.values())
            self._vector = vector
        return self._vector

    def copy(self) -> GroupCounts:
        new = GroupCounts(self.size)
        new.on = dict(self.on)
        new._vector = None if self._vector is None else self._vector.copy()
        return new


class TermIndex:
    """Bound pods' affinity terms, counted per node and grouped by identical term.

    Replicas share their terms, so a cluster holds few distinct ones; each
    group keeps its per-node counts (:class:`GroupCounts`) updated as pods are placed
    and evicted. ``anti`` groups required anti-affinity terms (the symmetric filter);
    ``scored`` groups what kube-scheduler scores symmetrically: required
    affinity (weight 1, hardPodAffinityWeight), preferred affinity (+weight)
    and preferred anti-affinity (-weight).
    """

    HARD_AFFINITY_WEIGHT = 1

    def __init__(self, state: ClusterState) -> None:
        self.size = len(state.nodes)
        self.anti: dict[tuple, GroupCounts] = {}    # (resolved pair, topology key) -> pods per node
        self.scored: dict[tuple, GroupCounts] = {}  # (resolved pair, topology key, weight) -> pods per node
        self._groups = 0  # groups ever added: a pod's matching groups stay valid while this is unchanged
        self._matching: dict[tuple, tuple[int, list, int]] = {}   # (groups then, the matching ones, groups tested)
        self._groups_of: dict[tuple, tuple] = {}   # see update
        self._filed: dict[str, dict] = {"anti": {}, "scored": {}}   # see _file
        for pod, i in state.bound_with_affinity():  # most pods have none
            self.update(pod, i, +1, state)
        state.listeners.append(lambda pod, i, sign: self.update(pod, i, sign, state))

    def copy_for(self, state: ClusterState) -> TermIndex:
        """The same counts, following ``state`` (a copy of the one this index follows)."""
        new = object.__new__(TermIndex)
        new.size = self.size
        new.anti = {key: counts.copy() for key, counts in self.anti.items()}
        new.scored = {key: counts.copy() for key, counts in self.scored.items()}
        new._groups, new._matching, new._groups_of = self._groups, {}, {}
        new._filed = {"anti": {}, "scored": {}}
        for which, groups in (("anti", new.anti), ("scored", new.scored)):
            for order, (key, counts) in enumerate(groups.items()):
                new._file(which, order, key, counts)
        state.listeners.append(lambda pod, i, sign: new.update(pod, i, sign, state))
        return new

    def _group(self, groups: dict, key: tuple) -> GroupCounts:
        counts = groups.get(key)
        if counts is None:
            counts = groups[key] = GroupCounts(self.size)
            self._groups += 1
            self._file("anti" if groups is self.anti else "scored", len(groups) - 1, key, counts)
        return counts

    def _file(self, which: str, order: int, key: tuple, counts: GroupCounts) -> None:
        """Files a group where the pods its term could select look it up (:meth:`_candidates`):
        under each namespace the term looks at (None: every namespace) and one label its selector
        requires (a matchLabels pair, else each value of an In expression; None when it requires
        none). ``order``: the group's place among its kind, so candidates keep the groups' order."""
        selector, namespaces = key[0]
        if selector is None:
            return   # an absent selector selects no pod
        if selector.match_labels:
            labels = selector.match_labels[:1]
        else:
            first_in = next((r for r in selector.match_expressions if r.operator == IN), None)
            labels = [(first_in.key, v) for v in dict.fromkeys(first_in.values)] if first_in is not None else [None]
        entry = (order, key, counts)
        filed = self._filed[which]
        for namespace in (None,) if namespaces is None else namespaces:
            by_label = filed.setdefault(namespace, {})
            for label in labels:
                by_label.setdefault(label, []).append(entry)

    def _candidates(self, which: str, pod: Pod) -> list[tuple[tuple, GroupCounts]]:
        """The ``which`` groups whose term could select ``pod`` (a superset of those that do), in
        the order they were made: those filed under its namespace or every namespace, and under
        one of its labels or none. A cluster holds a group per workload with a term; a pod is in
        one namespace and carries a few labels, and its workload's terms name those."""
        found = []
        filed = self._filed[which]
        for namespace in (pod.namespace, None):
            by_label = filed.get(namespace)
            if by_label:
                found += by_label.get(None, ())
                for label in pod.labels.items():
                    entries = by_label.get(label)
                    if entries:
                        found += entries
        if len(found) > 1:
            found.sort(key=_order)
        return [(key, counts) for _, key, counts in found]

    def matching(self, which: str, pod: Pod) -> list[tuple[tuple, GroupCounts]]:
        """The ``anti`` or ``scored`` groups whose term selects ``pod``, with their counts.

        Whether a term selects a pod depends only on the pod's namespace and labels, so a
        workload's replicas share one answer, kept until a group is added; the cluster holds
        hundreds of groups and a pending pod matches few, so a cycle tests none of them again.
        A first answer tests only the groups filed under the pod's namespace and labels
        (:meth:`_candidates`): a batch cluster's Job pods carry labels of their own, and testing
        each of their label sets against every group was a twentieth of kube-scheduler's pass.
        Groups are only ever added, in order: when some were, only those are tested (on a batch
        cluster, where placed pods keep adding groups, testing every group again for each
        answer was a tenth of kube-scheduler's pass).
        """
        key = (which, *selected_as(pod))
        found = self._matching.get(key)
        if found is None or found[0] != self._groups:
            groups = self.anti if which == "anti" else self.scored
            if found is None:   # only the groups filed where this pod's labels look
                matched = [(group, counts) for group, counts in self._candidates(which, pod) if pair_matches(group[0], pod)]
            else:
                new = [(group, counts) for group, counts in islice(groups.items(), found[2], None)
                       if pair_matches(group[0], pod)]
                matched = found[1] + new if new else found[1]
            found = self._matching[key] = (self._groups, matched, len(groups))
        return found[1]

    def update(self, pod: Pod, i: int, sign: int, state: ClusterState) -> None:
        affinity = pod.affinity
        if not (affinity.anti_required or affinity.pod_required or affinity.pod_preferred or affinity.anti_preferred):
            return
        # a pod's groups depend on its terms, namespace and labels, which a workload's replicas share
        # (objects kept with the answer, so a reused id is never mistaken; groups are never dropped)
        key = (id(affinity), pod.namespace, id(pod.labels))
        found = self._groups_of.get(key)
        if found is None or found[0] is not affinity or found[1] is not pod.labels:
            found = self._groups_of[key] = (affinity, pod.labels, self._pod_groups(pod, state))
        for counts in found[2]:
            counts.add(i, sign)

    def _pod_groups(self, pod: Pod, state: ClusterState) -> list[GroupCounts]:
        """The groups ``pod``'s terms count in (made when first met, in the order of its terms)."""
        affinity = pod.affinity
        out = [self._group(self.anti, (pair, term.topology_key))
               for term, pair in zip(affinity.anti_required, resolved_terms(affinity.anti_required, pod, state))]
        weighted = [(self.HARD_AFFINITY_WEIGHT, t) for t in affinity.pod_required]
        weighted += [(w.weight, w.term) for w in affinity.pod_preferred]
        weighted += [(-w.weight, w.term) for w in affinity.anti_preferred]
        for weight, term in weighted:
            out.append(self._group(self.scored, (resolved_terms((term,), pod, state)[0], term.topology_key, weight)))
        return out


def term_index(state: ClusterState) -> TermIndex:
    """One index per cluster state (it listens to the state's placements for its whole life);
    kube-scheduler's filter and Karpenter's topology both read it."""
    return state.shared(TermIndex, lambda: TermIndex(state))


def _index(ctx: PodCycle) -> TermIndex:
    return term_index(ctx.state)


def _existing_anti_affinity(ctx: PodCycle, holding: list) -> np.ndarray:
    """Nodes whose domain holds a bound pod whose required anti-affinity selects this pod
    (``holding``, never empty: the index's groups that select it and hold a pod)."""
    blocked = None
    for (_, key), per_node in holding:
        blocked = either(blocked, _domain_has_match(ctx, key, per_node))
    return blocked


def _domain_has_match(ctx: PodCycle, key: str, per_node: np.ndarray) -> np.ndarray:
    domains = ctx.state.domains(key)
    if domains.one_per_node:  # every node its own domain (hostname): its own count decides
        return per_node > 0
    return domains.on_nodes(domains.per_domain(per_node) > 0)  # per domain, then read off per node


def _affinity_fails(ctx: PodCycle) -> np.ndarray:
    terms = ctx.pod.affinity.pod_required
    pairs = resolved_terms(terms, ctx.pod, ctx.state)
    per_node = ctx.state.counts(pairs)  # pods matching every term, as upstream counts them
    has_keys = np.ones(ctx.size, dtype=bool)
    for term in terms:
        has_keys &= ctx.state.domains(term.topology_key).ids != MISSING
    if not per_node.any() and all(pair_matches(p, ctx.pod) for p in pairs):
        return ~has_keys  # the first pod of a group that selects itself
    ok = has_keys.copy()
    for term in terms:
        ok &= _domain_has_match(ctx, term.topology_key, per_node)
    return ~ok


def blind_to_evictions(ctx: PodCycle, leaving: list[Pod]) -> bool:
    """Whether taking the bound pods ``leaving`` away cannot change this filter's verdict on the
    pod (see ``framework.only_resources_see_evictions``): none of them holds a required
    anti-affinity term that selects the pod (the index's groups the filter reads, ``matching``),
    and none counts toward the pod's own required terms (the counters ``_affinity_fails`` and the
    anti-affinity step read).

    Preemption asks this for every node it weighs, with that node's victims, many times a cycle:
    the counters' tests, and whether a workload's anti-affinity terms select the pod, are worked
    out once per cycle (``ctx.cycle``), the pod and the cluster's namespaces being the same."""
    pod, state = ctx.pod, ctx.state
    selecting = ctx.cycle.get((NAME, "selecting"))
    if selecting is None:
        selecting = ctx.cycle[(NAME, "selecting")] = {}
    for other in leaving:
        affinity = other.affinity
        if affinity.anti_required:
            # by the terms and what resolves them (a workload's replicas share both)
            key = (id(affinity), other.namespace, id(other.labels))
            found = selecting.get(key)
            if found is None or found[0] is not affinity or found[1] is not other.labels:
                found = selecting[key] = (affinity, other.labels, any(
                    pair_matches(pair, pod) for pair in resolved_terms(affinity.anti_required, other, state)))
            if found[2]:
                return False
    tests = ctx.cycle.get((NAME, "counted"))
    if tests is None:
        tests = [state.counted_by(resolved_terms(pod.affinity.pod_required, pod, state))] \
            if pod.affinity.pod_required else []
        tests += [state.counted_by((pair,)) for pair in resolved_terms(pod.affinity.anti_required, pod, state)]
        ctx.cycle[(NAME, "counted")] = tests
    for counted in tests:
        if any(counted(p) for p in leaving):
            return False
    return True


def filter(ctx: PodCycle) -> list[Failure]:
    pod = ctx.pod
    holding = [(group, counts.vector) for group, counts in _index(ctx).matching("anti", pod) if counts.any()]
    if not pod.affinity.pod_required and not pod.affinity.anti_required and not holding:
        return []  # nothing of its own, and no bound pod's term keeps it away: no node to refuse
    # each step rules out only the nodes the ones before left undecided
    failures = []
    undecided = Undecided()
    if pod.affinity.pod_required:
        failures.append(Failure(undecided.rule_out(_affinity_fails(ctx)), REASON_AFFINITY, UNRESOLVABLE))
    if pod.affinity.anti_required:
        fails = None
        for term, pair in zip(pod.affinity.anti_required, resolved_terms(pod.affinity.anti_required, pod, ctx.state)):
            fails = either(fails, _domain_has_match(ctx, term.topology_key, ctx.state.counts((pair,))))
        failures.append(Failure(undecided.rule_out(fails), REASON_ANTI_AFFINITY, UNSCHEDULABLE))
    if holding:
        failures.append(Failure(undecided.rule_out(_existing_anti_affinity(ctx, holding)),
                                REASON_EXISTING_ANTI_AFFINITY, UNSCHEDULABLE))
    return [f for f in failures if f.nodes.any()]


def score(ctx: PodCycle, feasible: np.ndarray) -> np.ndarray | int:
    """Preferred terms of the pod and, symmetrically, of the pods already bound; 0..100.

    Each matching pod adds its term's weight to every node in its topology
    domain; scores are normalised with 0 included in the range, as upstream. A plain 0 when
    nothing is preferred (see framework.run_scores).
    """
    pod, state = ctx.pod, ctx.state
    weighted = [(w.weight, w.term) for w in pod.affinity.pod_preferred]
    weighted += [(-w.weight, w.term) for w in pod.affinity.anti_preferred]
    parts = [(weight, term.topology_key, state.counts(resolved_terms((term,), pod, state)))
             for weight, term in weighted]
    parts += [(weight, key, counts.vector) for (_, key, weight), counts in _index(ctx).matching("scored", pod)
              if counts.any()]
    if not parts:  # nothing to prefer: every node scores 0
        return 0
    raw = np.zeros(ctx.size, dtype=np.int64)
    for weight, key, per_node in parts:
        domains = state.domains(key)
        if domains.one_per_node:  # every node its own domain (hostname): no per-domain sum to make
            raw += weight * per_node
        else:  # each domain's weight x matching pods, read off per node (0 without the key)
            raw += domains.read_off(weight * domains.per_domain(per_node))
    values = raw[feasible]
    if not values.size:
        return values
    low, high = min(0, int(values.min())), max(0, int(values.max()))
    if high == low:
        return np.zeros(values.size, dtype=np.int64)
    return (100 * (values - low) // (high - low)).astype(np.int64)
