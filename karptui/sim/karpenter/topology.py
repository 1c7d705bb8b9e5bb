"""Karpenter's topology for one scheduling run: every group the pending pods bring, counted.

Built from the cluster as the simulation left it (bound pods per node) and the
NodePools' domains; then kept up to date as the scheduler places pods on
existing nodes and NodeClaims. Existing pods' required anti-affinity terms are
tracked too (inverse groups): a pod they select must stay out of their domains.
A pending pod with required anti-affinity gets an inverse group as well, which
records every domain it *might* land in while its NodeClaim's zone is open —
so a second such pod cannot take any of them in the same batch (late
committal). Follows Karpenter's ``topology.go``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from ...model import Pod
from ...model import labels as L
from ...model.affinity import DO_NOT_SCHEDULE
from ...model.selectors import selected_as
from ...model.taints import Taint
from ..plugins.inter_pod_affinity import term_index, term_namespaces, term_selector
from ..plugins.pod_topology_spread import effective_selector
from ..state import ClusterState
from ..topology import MISSING
from .nodemasks import NodeMasks
from .requirements import Req, Reqs
from .topologygroup import AFFINITY, ANTI_AFFINITY, SPREAD, DomainGroup, NodeFilter, TopologyGroup, UNBOUNDED, \
    EMPTY_DOMAINS


_NOBODY = Pod(name="", labels={}, annotations={}, node_selector={})  # inverse groups register every domain
_TERMS = "karpenter-topology-terms"  # ClusterState.shared: each pod's group terms (Topology._terms)
_TERMS_BY_POD = "karpenter-topology-terms-by-pod"  # the same per pod object
_READ = "karpenter-topology-selected-as"  # ClusterState.shared: what selectors read of a pod (Topology._selecting)


def _scope(group: TopologyGroup) -> str | None:
    """The one namespace a group looks at, or None (several, or all)."""
    return next(iter(group.namespaces)) if group.namespaces is not None and len(group.namespaces) == 1 else None


class TopologyError(Exception):
    """No domain satisfies a group; the text is Karpenter's (built only when shown)."""

    def __init__(self, group: TopologyGroup, pod_domains: Req, node_domains: Req) -> None:
        super().__init__()
        self.group, self.pod_domains, self.node_domains = group, pod_domains, node_domains

    def __str__(self) -> str:
        return (f"unsatisfiable topology constraint for {self.group.describe()}, podDomains = {self.pod_domains}, "
                f"nodeDomains = {self.node_domains}")  # sic: upstream's text lacks the closing parenthesis


def _less(per_domain: np.ndarray, domains, nodes: np.ndarray, amounts: np.ndarray) -> np.ndarray:
    """``per_domain`` less ``amounts`` where ``nodes`` are (a copy; nodes without the key count nowhere)."""
    if not nodes.size:
        return per_domain
    ids = domains.ids[nodes]
    keep = ids != MISSING
    out = per_domain.copy()
    np.subtract.at(out, ids[keep], amounts[keep])
    return out


def domain_groups(sources: Iterable[tuple[Reqs, Iterable[Reqs], tuple[Taint, ...]]]) -> dict[str, DomainGroup]:
    """The domains each key can take in new capacity: per NodePool (its requirements and template
    labels, each of its instance types' requirements laid over them), with the pool's taints.

    Every key of the merged requirements contributes its values — per key, so a pool that
    rules a type out on architecture still offers that type's zones, as upstream does — and the
    pool's own ``In`` requirements add theirs (a custom key only the NodePool names).
    """
    groups: dict[str, DomainGroup] = {}
    for pool_reqs, type_reqs, taints in sources:
        for reqs in type_reqs:
            merged = pool_reqs.plus(reqs.values())
            for key, req in merged.items():
                group = groups.setdefault(key, DomainGroup())
                for value in req.values:
                    group.insert(value, taints)
        for key, req in pool_reqs.items():
            if req.operator == "In":
                group = groups.setdefault(key, DomainGroup())
                for value in req.values:
                    group.insert(value, taints)
    return groups


class Topology:
    def __init__(self, state: ClusterState, groups: Mapping[str, DomainGroup], pods: Iterable[Pod],
                 respect_preferences: bool = True) -> None:
        self.state = state
        self.domain_groups = groups
        self.respect = respect_preferences
        self.groups: dict[tuple, TopologyGroup] = {}
        self.inverse: dict[tuple, TopologyGroup] = {}
        self._owned: dict[str, list[TopologyGroup]] = {}       # pod key -> groups it owns
        self._by_key: dict[str, list[TopologyGroup]] = {}      # topology key -> groups (both kinds)
        self._by_namespace: dict[str | None, list[TopologyGroup]] = {}  # namespace (None: any) -> groups
        self._inverse_scope: dict[str | None, list[TopologyGroup]] = {}  # the same for inverse groups
        self._inverse_owned: dict[str, list[TopologyGroup]] = {}  # pod key -> the inverse groups it owns
        self._groups_made = 0   # groups indexed so far: a cached selection older than this is stale
        self._selected: dict[tuple, tuple[int, list[TopologyGroup]]] = {}
        # (namespace, id(labels)) -> (labels, selected_as(pod)), for the cluster state: see _selecting
        self._read: dict[tuple, tuple] = state.shared(_READ, dict)
        self._made: dict[int, tuple[list, list[TopologyGroup]]] = {}   # id(terms) -> (terms, their groups): see update
        self._out = np.flatnonzero(state.excluded)   # the nodes taken out for this run
        self._besides: tuple[np.ndarray, np.ndarray] | None = None   # see _taken_out_besides
        self._term_cache: dict | None = None   # see _term_domains (the state's, and _out as a list)
        self._out_list: list[int] = []
        self._inverse_from_cluster()
        for pod in pods:
            self.update(pod)

    # ---- building --------------------------------------------------------------------------------
    def _index(self, group: TopologyGroup) -> None:
        self._by_key.setdefault(group.key, []).append(group)
        self._groups_made += 1

    def _selecting(self, pod: Pod, inverse: bool) -> list[TopologyGroup]:
        """The groups (inverse ones, or the pending pods' own) whose selector picks ``pod``.

        A selector reads only a pod's namespace and labels, which a workload's replicas share:
        each placement asks, and the answer is kept until another group is added. What the
        selectors read is itself kept per labels object, for the cluster state: a pod is asked again
        as it is tried and placed, in every run consolidation builds a topology for (a thousand per
        pass), and its relaxed copies share its labels; its label set (a real workload's pods carry
        dozens of labels) would be built each time."""
        labels = pod.labels
        shape = (pod.namespace, id(labels))
        read = self._read.get(shape)
        if read is None or read[0] is not labels:  # kept with its labels: their id stays theirs
            read = self._read[shape] = (labels, selected_as(pod))
        key = (inverse, *read[1])
        found = self._selected.get(key)
        if found is None or found[0] != self._groups_made:
            scoped = self._inverse_scope if inverse else self._by_namespace
            found = self._selected[key] = (self._groups_made, [
                g for scope in (pod.namespace, None) for g in scoped.get(scope, ()) if g.selects(pod)])
        return found[1]

    def _inverse_from_cluster(self) -> None:
        """Inverse groups for the bound pods' required anti-affinity, from the index kube-scheduler's
        InterPodAffinity keeps of them (one count per node and term, maintained as pods move):
        a scan of every pod per run is what this saves, consolidation runs hundreds."""
        state = self.state
        for (pair, key), counts in term_index(state).anti.items():
            selector, namespaces = pair
            group = TopologyGroup(ANTI_AFFINITY, key, _NOBODY, namespaces, selector,
                                  domain_group=self.domain_groups.get(key, EMPTY_DOMAINS))
            found = self.inverse.get(group.identity)
            if found is None:
                found = self.inverse[group.identity] = group
                self._index(group)
                self._inverse_scope.setdefault(_scope(group), []).append(group)
            found.add_all(self._term_domains(key, counts))

    def _term_domains(self, key: str, counts) -> dict[str, int]:
        """Per domain of ``key``, the pods an anti-affinity term's index counts on the nodes this run
        keeps: over every node once while the cluster stands as it was (``changes``), then the nodes
        taken out subtracted (a simulation takes out a few candidates). An anti-affinity group
        answers from its counts and which domains it knows, never from their order."""
        state = self.state
        cache = self._term_cache
        if cache is None:
            cache = self._term_cache = state.shared("karpenter-term-domains", dict)
            # only the nodes taken out that hold a pod can hold a term's pods: the nodes earlier
            # commands deleted stay taken out, emptied, and outnumber a simulation's candidates
            # by thousands late in a large cluster's plan (read once per topology, not per term)
            pods = state.pods
            self._out_list = [i for i in self._out.tolist() if pods[i]]
        found = cache.get((id(counts), key))
        if found is None or found[0] is not counts or found[1] != state.changes:
            per_domain: dict[str, int] = {}
            for i, count in sorted(counts.on.items()):
                domain = state.nodes[i].labels.get(key)
                if domain is not None and count:
                    per_domain[domain] = per_domain.get(domain, 0) + count
            found = cache[(id(counts), key)] = (counts, state.changes, per_domain)
        per_domain = found[2]
        out = [i for i in self._out_list if counts.on.get(i)]
        if not out:
            return per_domain
        per_domain = dict(per_domain)
        for i in out:
            domain = state.nodes[i].labels.get(key)
            if domain is not None:
                left = per_domain[domain] - counts.on[i]
                if left > 0:
                    per_domain[domain] = left
                else:
                    del per_domain[domain]
        return per_domain

    def _inverse_for(self, pod: Pod, labels: Mapping[str, str] | None) -> None:
        for term in pod.affinity.anti_required:
            group = TopologyGroup(ANTI_AFFINITY, term.topology_key, pod,
                                  term_namespaces(term, pod.namespace, self.state), term_selector(term, pod.labels),
                                  domain_group=self.domain_groups.get(term.topology_key, EMPTY_DOMAINS))
            found = self.inverse.get(group.identity)
            if found is None:
                found = self.inverse[group.identity] = group
                self._index(group)
                self._inverse_scope.setdefault(_scope(group), []).append(group)
            if labels is not None and term.topology_key in labels:
                found.record(labels[term.topology_key])
            if pod.key not in found.owners:
                found.owners.add(pod.key)
                self._inverse_owned.setdefault(pod.key, []).append(found)

    def update(self, pod: Pod) -> None:
        """(Re)build the groups ``pod`` owns, after it was relaxed or first seen. Pods of one
        workload share their terms (:meth:`_terms`), and a group once made stays the group of its
        identity: the groups are found once per terms and given to every pod that has them."""
        key = pod.key
        for group in self._owned.pop(key, ()):
            group.owners.discard(key)
        affinity = pod.affinity
        if affinity.anti_required or (self.respect and affinity.anti_preferred):
            self._inverse_for(pod, None)
        terms = self._terms(pod)
        if not terms:   # it owns no group: absent from _owned answers as an empty entry would
            return
        made = self._made.get(id(terms))
        if made is None or made[0] is not terms:
            made = self._made[id(terms)] = (terms, [self._group(pod, *term) for term in terms])
        for group in made[1]:
            group.owners.add(key)
        self._owned[key] = list(made[1])

    def _group(self, pod: Pod, kind: str, key: str, namespaces, selector, max_skew: int, min_domains,
               node_filter) -> TopologyGroup:
        """The group of this identity, made (and its existing pods counted) by the first pod that has it."""
        identity = TopologyGroup.identity_of(kind, key, namespaces, max_skew, node_filter, selector)
        found = self.groups.get(identity)
        if found is None:
            found = TopologyGroup(kind, key, pod, namespaces, selector, max_skew, min_domains, node_filter,
                                  self.domain_groups.get(key, EMPTY_DOMAINS))
            self._count(found)
            self.groups[identity] = found
            self._index(found)
            self._by_namespace.setdefault(_scope(found), []).append(found)
        return found

    def _terms(self, pod: Pod) -> list[tuple]:
        """What each group ``pod`` owns is made of: its spread constraints, then its affinity and
        anti-affinity terms (preferred ones while preferences are respected). They read the pod's
        namespace, labels, spread constraints, node selector, affinity and tolerations alone, which
        a workload's pods share as objects (the loader parses a template once): kept per those
        objects for the cluster state, so the replicas of a workload, and consolidation's
        simulations asking again for the same pods hundreds of times, build selectors and node
        filters once. Those simulations ask about the very same (frozen) pod objects: the answer is
        kept per pod object as well, found without reading the pod's fields."""
        by_pod = self.state.shared(_TERMS_BY_POD, dict)
        found = by_pod.get((id(pod), self.respect))
        if found is not None and found[0] is pod:
            return found[1]
        terms = self._terms_of(pod)
        by_pod[(id(pod), self.respect)] = (pod, terms)   # the pod kept with its id: no id is reused while kept
        return terms

    def _terms_of(self, pod: Pod) -> list[tuple]:
        """:meth:`_terms` per the objects the terms read."""
        cache = self.state.shared(_TERMS, dict)
        read = (pod.labels, pod.spread_constraints, pod.node_selector, pod.affinity, pod.tolerations)
        shape = (pod.namespace, self.respect, *map(id, read))
        found = cache.get(shape)
        if found is not None:  # its objects are kept alive with it: the same ids are the same objects
            return found[1]
        terms = []
        for c in pod.spread_constraints:
            if not self.respect and c.when_unsatisfiable != DO_NOT_SCHEDULE:
                continue
            terms.append((SPREAD, c.topology_key, frozenset((pod.namespace,)), effective_selector(c, pod.labels),
                          c.max_skew, c.min_domains,
                          NodeFilter.for_pod(pod, c.node_taints_policy, c.node_affinity_policy)))
        affinity = pod.affinity
        kinds = [(AFFINITY, t) for t in affinity.pod_required]
        if self.respect:
            kinds += [(AFFINITY, w.term) for w in affinity.pod_preferred]
        kinds += [(ANTI_AFFINITY, t) for t in affinity.anti_required]
        if self.respect:
            kinds += [(ANTI_AFFINITY, w.term) for w in affinity.anti_preferred]
        terms += [(kind, t.topology_key, term_namespaces(t, pod.namespace, self.state), term_selector(t, pod.labels),
                   UNBOUNDED, None, None) for kind, t in kinds]
        cache[shape] = (read, terms)   # the objects kept with their ids: no id is reused while kept
        return terms

    def _domain(self, i: int, key: str) -> str | None:
        node = self.state.nodes[i]
        value = node.labels.get(key)
        if value is None and key == L.HOSTNAME:
            return node.name  # the kubelet's label may lag; Karpenter counts the node by name
        return value

    def _filter_mask(self, node_filter: NodeFilter | None) -> np.ndarray:
        """Nodes a group with this filter counts, taken out or not (worked out once per cluster
        state: consolidation asks again for every candidate set)."""
        state = self.state
        key = node_filter if node_filter is not None and not node_filter.trivial else None
        cache = state.shared("karpenter-filter-masks", dict)
        found = cache.get(key)
        if found is None:
            if key is None:
                found = np.ones(len(state.nodes), dtype=bool)
            else:
                masks = self._masks()
                found = node_filter.over(len(state.nodes), masks.admitted, masks.tolerated)
            cache[key] = found
        return found

    def _masks(self) -> NodeMasks:
        """The cluster's nodes' answers per toleration set and requirement set (once per cluster state)."""
        from .existingnode import node_reqs

        state = self.state
        return state.shared("karpenter-node-masks",
                            lambda: NodeMasks([n.taints for n in state.nodes], lambda i: node_reqs(state, i)))

    def _count(self, group: TopologyGroup) -> None:
        """Register the domains of existing nodes the group may use, and count its pods there.

        Per domain from totals the cluster state keeps up to date over the filter's nodes
        (ClusterState.domain_totals), less what the nodes taken out hold: a simulation takes out
        a few candidates, so a group costs what its domains and those nodes do, not a pass over
        every node (consolidation builds a topology per simulation, hundreds of groups each)."""
        state = self.state
        mask = self._filter_mask(group.node_filter)
        out = self._out[mask[self._out]]   # the nodes taken out that the filter counts
        domains = state.domains(group.key)
        if group.key != L.HOSTNAME:  # an empty hostname domain changes no answer (a new node is another)
            nodes = _less(self._nodes_per_domain(group, mask), domains, out, np.ones(len(out), dtype=np.int64))
            group.register(*(domains.values[d] for d in np.flatnonzero(nodes > 0)))
        if group.selector is None:
            return
        per_node = state.counts(((group.selector, group.namespaces),), skip_terminating=True)
        if group.key == L.HOSTNAME:  # a node is its own domain (by name where the label is missing)
            hosts, made = self._host_counts(group, mask, per_node)
            group.add_all(hosts, owned=made)
            return
        key = ("karpenter-group", "skip terminating", group.selector, group.namespaces, group.key, group.node_filter)
        totals = _less(state.domain_totals(key, per_node, domains, mask), domains, out, per_node[out])
        for d in np.flatnonzero(totals):
            group.add(domains.values[d], int(totals[d]))

    def _nodes_per_domain(self, group: TopologyGroup, mask: np.ndarray) -> np.ndarray:
        """Per domain of the group's key, the nodes its filter counts, none taken out (once per cluster state)."""
        state = self.state
        domains = state.domains(group.key)
        return state.shared(("karpenter-filter-domains", group.key, group.node_filter),
                            lambda: domains.per_domain(np.ones(len(state.nodes), dtype=np.int64), mask))

    def counted_as_without(self, group: TopologyGroup, before: np.ndarray) -> bool:
        """Whether :meth:`_count` gives ``group`` here what it gave in a run over the same cluster
        state that took out only the nodes ``before`` (that run's ``_out``): the nodes this run takes
        out besides hold none of the pods it selects, and each of their domains keeps a node the
        filter counts, so the group registers the same domains with the same counts. Consolidation's
        shared pending run (:mod:`.disruption.simulation`) stands for a simulation's only then."""
        state = self.state
        extra = self._taken_out_besides(before)
        if not extra.size:
            return True
        mask = self._filter_mask(group.node_filter)
        extra = extra[mask[extra]]
        if not extra.size:
            return True
        out = self._out[mask[self._out]]
        if group.selector is not None:
            per_node = state.counts(((group.selector, group.namespaces),), skip_terminating=True)
            if per_node[extra].any():
                return False
        if group.key == L.HOSTNAME:  # hostname domains come from the pods counted alone
            return True
        domains = state.domains(group.key)
        left = _less(self._nodes_per_domain(group, mask), domains, out, np.ones(len(out), dtype=np.int64))
        ids = domains.ids[extra]
        return bool((left[ids[ids != MISSING]] > 0).all())

    def _taken_out_besides(self, before: np.ndarray) -> np.ndarray:
        """The nodes this run takes out that ``before`` does not (sorted), kept for the last ``before``
        asked: :meth:`counted_as_without` is asked about every group of one shared run in turn, and
        each group's filter only narrows this one difference."""
        found = self._besides
        if found is None or found[0] is not before:
            found = self._besides = (before, np.setdiff1d(self._out, before, assume_unique=True))
        return found[1]

    def identities(self, pod: Pod) -> list[tuple]:
        """The identities of the groups ``pod`` would own (see :meth:`update`)."""
        return [TopologyGroup.identity_of(kind, key, namespaces, max_skew, node_filter, selector)
                for kind, key, namespaces, selector, max_skew, _, node_filter in self._terms(pod)]

    @property
    def taken_out(self) -> np.ndarray:
        """The nodes this run takes out (indices)."""
        return self._out

    def _host_counts(self, group: TopologyGroup, mask: np.ndarray, per_node: np.ndarray) -> tuple[dict[str, int], bool]:
        """Per hostname, the group's pods on the nodes its filter counts and this run has not taken out,
        and whether the dict was made for this call (else it is the cluster state's, not to be changed).

        Over every node, kept while the cluster stands as it was (``changes``), then the nodes taken
        out subtracted: consolidation's simulations over one cluster take out different candidates
        and ask for the same groups, each holding pods on a few dozen nodes."""
        state = self.state
        cache = state.shared("karpenter-host-counts", dict)
        key = (group.selector, group.namespaces, group.node_filter)
        found = cache.get(key)
        if found is None or found[0] != state.changes:
            hosts: dict[str, int] = {}
            for i in np.flatnonzero(per_node):
                i = int(i)
                if mask[i]:
                    host = self._domain(i, L.HOSTNAME)
                    hosts[host] = hosts.get(host, 0) + int(per_node[i])
            found = cache[key] = (state.changes, hosts)
        hosts = found[1]
        out = self._out[mask[self._out] & (per_node[self._out] > 0)]
        if not out.size:
            return hosts, False
        hosts = dict(hosts)
        for i in out.tolist():
            host = self._domain(i, L.HOSTNAME)
            left = hosts[host] - int(per_node[i])
            if left:
                hosts[host] = left
            else:
                del hosts[host]
        return hosts, True

    # ---- scheduling ---------------------------------------------------------------------------------
    def register(self, key: str, domain: str) -> None:
        """Make ``domain`` known to the groups of ``key``. Hostname groups skip it: every hostname
        answer is about one node, whose count is its own, and an empty one changes nothing."""
        if key == L.HOSTNAME:
            return
        for group in self._by_key.get(key, ()):
            group.register(domain)

    def record(self, pod: Pod, taints: tuple[Taint, ...], reqs: Reqs, allow: frozenset[str] = frozenset()) -> None:
        """``pod`` lands on a node with these taints and requirements: count it where it is known to be."""
        for group in self._selecting(pod, inverse=False):
            if group.counts_on(taints, reqs, allow):
                domains = reqs.get_or_exists(group.key)
                if group.kind == ANTI_AFFINITY:
                    group.record(*domains.values)  # every domain the pod might still land in
                elif not domains.complement and len(domains.values) == 1:
                    group.record(next(iter(domains.values)))
        for group in self._inverse_owned.get(pod.key, ()):
            group.record(*reqs.get_or_exists(group.key).values)

    def deciding(self, pod: Pod) -> list[TopologyGroup]:
        """The groups that decide where ``pod`` may go among existing nodes: its own, and existing
        pods' anti-affinity terms that select it (those count every node)."""
        return list(self._owned.get(pod.key, ())) + self._selecting(pod, inverse=True)

    def add_requirements(self, pod: Pod, taints: tuple[Taint, ...], pod_reqs: Reqs, node_reqs: Reqs,
                         allow: frozenset[str] = frozenset()) -> Reqs:
        """``node_reqs`` narrowed to the domains every group of the pod allows; TopologyError if one allows none."""
        reqs = node_reqs
        groups = list(self._owned.get(pod.key, ()))
        groups += [g for g in self._selecting(pod, inverse=True)
                   if g.counts_on(taints, node_reqs, allow)]
        for group in groups:
            pod_domains = pod_reqs.get_or_exists(group.key)
            node_domains = node_reqs.get_or_exists(group.key)
            domains = group.next_domains(pod, pod_domains, node_domains)
            if not domains.complement and not domains.values:
                raise TopologyError(group, pod_domains, node_domains)
            reqs = reqs.plus((domains,))
        return reqs
