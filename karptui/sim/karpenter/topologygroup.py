"""One topology Karpenter tracks: pods a selector picks, counted per domain of a key.

A group is a topology spread constraint, a pod affinity term or a pod
anti-affinity term; pods with the same one share it (a Deployment's replicas
own one group, not one each). The group knows every domain it could use —
registered from the NodePools' instance types and requirements, from existing
nodes and from NodeClaims as they are opened — and how many selected pods each
holds, and answers for a pod: which domains of a node (or NodeClaim) it may
land in. The answers follow Karpenter's ``topologygroup.go``:

- spread: a domain is allowed when its count (+1 if the pod selects itself) minus
  the global minimum is at most maxSkew; the emptiest allowed domain is chosen.
  The minimum is over the domains the pod could use, and 0 when fewer of them
  exist than minDomains. For ``kubernetes.io/hostname`` the minimum is always 0:
  a new node is always possible, so an existing node takes a pod only while
  ``count + 1 <= maxSkew``;
- affinity: a domain that already holds a selected pod; a pod that selects itself
  may open a domain when none holds one yet;
- anti-affinity: a domain that holds none (and never one only possibly there).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from ...model import Pod
from ...model import labels as L
from ...model.affinity import HONOR, IGNORE
from ...model.selectors import IN, LabelSelector
from ...model.taints import Taint, Toleration, tolerates_all
from ..skew import allows, global_minimum
from .requirements import Req, Reqs

SPREAD, AFFINITY, ANTI_AFFINITY = "topology spread", "pod affinity", "pod anti-affinity"
UNBOUNDED = 2**31 - 1


@dataclass(frozen=True, slots=True)
class NodeFilter:
    """Which nodes a spread constraint counts (TopologyNodeFilter): with nodeAffinityPolicy
    Honor, those meeting the pod's nodeSelector and one of its required node affinity terms;
    with nodeTaintsPolicy Honor, those whose taints the pod tolerates."""

    requirements: tuple[Reqs, ...] = ()
    taint_policy: str = IGNORE
    affinity_policy: str = HONOR
    tolerations: tuple[Toleration, ...] = ()

    @classmethod
    def for_pod(cls, pod: Pod, taint_policy: str, affinity_policy: str) -> NodeFilter:
        selector = Reqs.from_labels(pod.node_selector)
        required = pod.affinity.node_required
        if required is None:
            sets = (selector,)
        else:
            sets = tuple(selector.plus(Req.of(r) for r in term.match_expressions) for term in required.terms)
        return cls(sets, taint_policy, affinity_policy, pod.tolerations)

    @property
    def trivial(self) -> bool:
        """Every node counts."""
        return self.taint_policy != HONOR and (self.affinity_policy != HONOR or
                                              all(not reqs for reqs in self.requirements))

    def matches(self, taints: Iterable[Taint], reqs: Reqs, allow_undefined: frozenset[str] = frozenset()) -> bool:
        if self.affinity_policy == HONOR and self.requirements and \
                not any(reqs.compatible(r, allow_undefined, why=False) is None for r in self.requirements):
            return False
        return self.taint_policy != HONOR or tolerates_all(taints, self.tolerations)

    def over(self, size: int, admitted: Callable[[Reqs], np.ndarray],
             tolerated: Callable[[tuple[Toleration, ...]], np.ndarray]) -> np.ndarray:
        """:meth:`matches` for ``size`` nodes at once, from per-node answers to its two questions:
        ``admitted(reqs)``, whose labels are compatible with ``reqs``, and ``tolerated(tolerations)``,
        whose taints those tolerate. Workloads share the parts (their tolerations, a pool's node
        selector) far more often than whole filters, so callers keep the answers per part."""
        mask = np.ones(size, dtype=bool)
        if self.affinity_policy == HONOR and self.requirements:
            mask = np.logical_or.reduce([admitted(r) for r in self.requirements])
        if self.taint_policy == HONOR:
            mask = mask & tolerated(self.tolerations)
        return mask


class DomainGroup:
    """The domains of one key that NodePools could launch into, with the taints of each
    (a domain only tainted NodePools offer is no domain for a pod with nodeTaintsPolicy Honor)."""

    __slots__ = ("_taints",)

    def __init__(self) -> None:
        self._taints: dict[str, list[tuple[Taint, ...]]] = {}

    def insert(self, domain: str, taints: tuple[Taint, ...]) -> None:
        present = self._taints.get(domain)
        if present is None or not taints:
            self._taints[domain] = [taints]
        elif present[0]:
            present.append(taints)

    def domains(self, pod: Pod, taint_policy: str) -> Iterable[str]:
        for domain, groups in self._taints.items():
            if taint_policy != HONOR or any(tolerates_all(t, pod.tolerations) for t in groups):
                yield domain


EMPTY_DOMAINS = DomainGroup()


class TopologyGroup:
    """Pods a selector picks per domain of ``key``, and the pods whose constraint it is."""

    __slots__ = ("kind", "key", "max_skew", "min_domains", "namespaces", "selector", "node_filter", "owners",
                 "domains", "empty", "identity")

    def __init__(self, kind: str, key: str, pod: Pod, namespaces: frozenset[str] | None,
                 selector: LabelSelector | None, max_skew: int = UNBOUNDED, min_domains: int | None = None,
                 node_filter: NodeFilter | None = None, domain_group: DomainGroup = EMPTY_DOMAINS) -> None:
        self.kind, self.key, self.max_skew, self.min_domains = kind, key, max_skew, min_domains
        self.namespaces, self.selector, self.node_filter = namespaces, selector, node_filter
        self.owners: set[str] = set()
        self.domains: dict[str, int] = {}
        self.empty: set[str] = set()
        policy = node_filter.taint_policy if node_filter is not None else IGNORE
        for domain in domain_group.domains(pod, policy):
            self.domains[domain] = 0
            self.empty.add(domain)
        self.identity = self.identity_of(kind, key, namespaces, max_skew, node_filter, selector)

    @staticmethod
    def identity_of(kind: str, key: str, namespaces, max_skew: int, node_filter, selector) -> tuple:
        """What makes two constraints one group (minDomains is not part of it, as upstream)."""
        return kind, key, namespaces, max_skew, node_filter, selector

    # ---- bookkeeping -----------------------------------------------------------------------------
    def selects(self, pod: Pod) -> bool:
        return self.selector is not None and (self.namespaces is None or pod.namespace in self.namespaces) \
            and self.selector.matches(pod.labels)

    def counts_on(self, taints: Iterable[Taint], reqs: Reqs, allow: frozenset[str] = frozenset()) -> bool:
        """Whether a pod it selects counts here once on a node with these taints and requirements
        (the callers know which groups select the pod: Topology keeps that per label set)."""
        return self.node_filter is None or self.node_filter.matches(taints, reqs, allow)

    def record(self, *domains: str) -> None:
        for domain in domains:
            self.domains[domain] = self.domains.get(domain, 0) + 1
            self.empty.discard(domain)

    def add(self, domain: str, count: int) -> None:
        """``count`` selected pods more in ``domain`` (the cluster's, counted once per group)."""
        self.domains[domain] = self.domains.get(domain, 0) + count
        self.empty.discard(domain)

    def add_all(self, counts: Mapping[str, int], owned: bool = False) -> None:
        """:meth:`add` for each domain and (positive) count in turn. A group that knows no domain
        yet takes a copy, or the dict itself when the caller made it for this group (``owned``): a
        hostname group holds one per node with its pods, and consolidation builds hundreds of them
        per simulation."""
        if not self.domains:
            self.domains = counts if owned else dict(counts)
            return
        for domain, count in counts.items():
            self.add(domain, count)

    def register(self, *domains: str) -> None:
        for domain in domains:
            if domain not in self.domains:
                self.domains[domain] = 0
                self.empty.add(domain)

    # ---- the answer --------------------------------------------------------------------------------
    def next_domains(self, pod: Pod, pod_domains: Req, node_domains: Req) -> Req:
        """The domains of ``node_domains`` the pod may take (an empty requirement: none)."""
        if self.kind == SPREAD:
            return self._spread(pod, pod_domains, node_domains)
        if self.kind == AFFINITY:
            return self._affinity(pod, pod_domains, node_domains)
        return self._anti_affinity(pod_domains, node_domains)

    def _node_values(self, node_domains: Req, test: Callable[[str], bool]) -> list[str]:
        """Candidate domains: the node's own when it names them, else every known one it allows.

        In name order: where Karpenter breaks a tie by Go's random map order, the simulation
        takes the first domain by name, so a run repeats exactly.
        """
        if node_domains.operator == IN:
            return [d for d in sorted(node_domains.values) if d in self.domains and test(d)]
        return [d for d in sorted(self.domains) if node_domains.has(d) and test(d)]

    def allows_host(self, pod: Pod, host: str, pod_domains: Req) -> bool:
        """For a hostname group and one node (existing, or a NodeClaim's placeholder): may the pod
        land there? A new node is always another domain, so the global minimum is 0."""
        count = self.domains.get(host, 0)
        if self.kind == SPREAD:
            return allows(count, 1 if self.selects(pod) else 0, 0, self.max_skew)
        if self.kind == ANTI_AFFINITY:
            return count == 0
        if not pod_domains.has(host):
            return False
        return count > 0 or (self.selects(pod) and self._may_open(pod_domains))

    def allowed(self, pod: Pod, pod_domains: Req) -> set[str]:
        """The domains a node already in one domain could be in and still take the pod: what
        :meth:`next_domains` answers for each existing node, all at once (the scheduler tries
        thousands of nodes per pod, so it asks once and compares labels)."""
        if self.kind == SPREAD:
            own = 1 if self.selects(pod) else 0
            floor = self._global_min(pod_domains)
            return {d for d, c in self.domains.items() if allows(c, own, floor, self.max_skew)}
        if self.kind == ANTI_AFFINITY:
            return {d for d in self.empty if pod_domains.has(d)}
        held = {d for d, c in self.domains.items() if c > 0 and pod_domains.has(d)}
        if held:
            return held
        if self.selects(pod) and self._may_open(pod_domains):
            return {d for d in self.domains if pod_domains.has(d)}
        return set()

    def _one_host(self, node_domains: Req) -> str | None:
        if self.key == L.HOSTNAME and node_domains.operator == IN and len(node_domains.values) == 1:
            return next(iter(node_domains.values))
        return None

    def _spread(self, pod: Pod, pod_domains: Req, node_domains: Req) -> Req:
        own = 1 if self.selects(pod) else 0
        host = self._one_host(node_domains)
        if host is not None:
            return Req.one(self.key, host) if self.allows_host(pod, host, pod_domains) else Req(self.key, False)
        floor = self._global_min(pod_domains)
        best, best_count = None, None
        for domain in self._node_values(node_domains, lambda d: True):
            count = self.domains[domain] + own
            if allows(self.domains[domain], own, floor, self.max_skew) and (best_count is None or count < best_count):
                best, best_count = domain, count
        return Req(self.key, False) if best is None else Req.one(self.key, best)

    def _global_min(self, pod_domains: Req) -> int:
        if self.key == L.HOSTNAME:
            return 0  # a new node is always another, empty, hostname domain
        return global_minimum([c for d, c in self.domains.items() if pod_domains.has(d)], self.min_domains)

    def _affinity(self, pod: Pod, pod_domains: Req, node_domains: Req) -> Req:
        host = self._one_host(node_domains)
        if host is not None:
            return Req.one(self.key, host) if self.allows_host(pod, host, pod_domains) else Req(self.key, False)
        options = self._node_values(node_domains, lambda d: pod_domains.has(d) and self.domains[d] > 0)
        if options:
            return Req(self.key, False, frozenset(options))
        if self.selects(pod) and self._may_open(pod_domains):
            # the first of a self-selecting group: a domain both pod and node allow, else any the pod allows
            chosen = [d for d in self.domains if pod_domains.has(d) and node_domains.has(d)][:1]
            chosen += [d for d in self.domains if pod_domains.has(d)][:1]
            return Req(self.key, False, frozenset(chosen))
        return Req(self.key, False)

    def _may_open(self, pod_domains: Req) -> bool:
        """No selected pod anywhere yet, or none in a domain this pod could join."""
        return len(self.domains) == len(self.empty) or \
            not any(c > 0 and pod_domains.has(d) for d, c in self.domains.items())

    def _anti_affinity(self, pod_domains: Req, node_domains: Req) -> Req:
        host = self._one_host(node_domains)
        if host is not None:
            return Req.one(self.key, host) if self.domains.get(host, 0) == 0 else Req(self.key, False)
        if node_domains.operator == IN and len(node_domains.values) < len(self.empty):
            options = [d for d in node_domains.values if d in self.empty and pod_domains.has(d)]
        else:
            options = [d for d in self.empty if node_domains.has(d) and pod_domains.has(d)]
        return Req(self.key, False, frozenset(options))

    def describe(self) -> str:
        counts = dict(sorted(self.domains.items())[:25])
        return f"{self.kind}, key={self.key} (counts = {counts}"
