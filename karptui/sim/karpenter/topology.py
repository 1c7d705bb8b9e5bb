"""Topology for NodeClaims that do not exist yet: spread and pod (anti-)affinity.

Like Karpenter's TopologyGroups: domains are those of the existing nodes plus
those the NodePool's requirements and its instance types' offerings allow; a
new NodeClaim is its own hostname domain (empty); counts include pods already
packed into in-flight NodeClaims. A constraint narrows the NodeClaim's
requirement on its key (e.g. ``topology.kubernetes.io/zone In [the emptiest
allowed zone]``) or rejects the pod with Karpenter's reason.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from ...model import Pod
from ...model.affinity import DO_NOT_SCHEDULE
from ..plugins.inter_pod_affinity import pair_matches, resolved_terms
from ..plugins.pod_topology_spread import HOSTNAME, effective_selector
from ..state import ClusterState, pod_matcher
from .requirements import Req, Reqs


class TopologyError(Exception):
    pass


def _existing_counts(state: ClusterState, key: str, per_node: np.ndarray) -> Counter:
    """Per-node counts summed per domain value of ``key`` (every existing domain listed)."""
    domains = state.domains(key)
    by_domain = domains.per_domain(per_node)
    return Counter({domains.values[d]: int(by_domain[d]) for d in range(domains.size)})


def narrow(pod: Pod, reqs: Reqs, claim_pods: list[Pod], claims, state: ClusterState, offered) -> Reqs:
    """The claim's requirements narrowed for ``pod``'s constraints, or TopologyError.

    ``claims`` are the other in-flight NodeClaims (their pods and requirements);
    ``offered()`` maps a topology key to the values new capacity could take
    (called only when a constraint needs it: it walks every offering).
    """
    for constraint in pod.spread_constraints:
        if constraint.when_unsatisfiable != DO_NOT_SCHEDULE:
            continue
        selector = effective_selector(constraint, pod.labels)
        scope = ((selector, frozenset((pod.namespace,))),)
        matches = pod_matcher(*scope[0])
        per_node = state.counts(scope, skip_terminating=True)
        own = 1 if matches(pod) else 0
        key = constraint.topology_key
        if key == HOSTNAME:
            here = sum(1 for p in claim_pods if matches(p))
            counts = [int(per_node.min())] if per_node.size else []
            counts += [sum(1 for p in c.pods if matches(p)) for c in claims]
            if not claim_pods:
                counts.append(0)  # a new NodeClaim is a hostname domain of its own, still empty
            floor = min(counts, default=0)
            if here + own - floor > constraint.max_skew:
                raise TopologyError(f"unsatisfiable topology constraint for topology spread, key={key}")
            continue
        counts = _existing_counts(state, key, per_node)
        for claim in claims:
            value = _decided(claim.reqs, key)
            if value is not None:
                counts[value] += sum(1 for p in claim.pods if matches(p))
        offered_here = offered().get(key, ())
        universe = set(counts) | set(offered_here)
        floor = min((counts.get(d, 0) for d in universe), default=0)
        possible = [d for d in sorted(universe) if (key not in reqs or reqs[key].has(d)) and d in offered_here]
        here = _decided(reqs, key)
        if here is not None:
            possible = [d for d in possible if d == here]
        allowed = [d for d in possible if counts.get(d, 0) + sum(1 for p in claim_pods if matches(p)) * (d == here)
                   + own - floor <= constraint.max_skew]
        if not allowed:
            raise TopologyError(f"unsatisfiable topology constraint for topology spread, key={key} "
                                f"(counts = {dict(sorted(counts.items()))}, podDomains = {sorted(universe)}, "
                                f"nodeDomains = {possible}")  # sic: upstream's message lacks the closing parenthesis
        best = min(allowed, key=lambda d: (counts.get(d, 0), d))
        reqs = reqs.plus([Req(key, False, frozenset((best,)))])
    return _affinity(pod, reqs, claim_pods, claims, state)


def _decided(reqs: Reqs, key: str) -> str | None:
    req = reqs.get(key)
    return next(iter(req.values)) if req is not None and not req.complement and len(req.values) == 1 else None


def _occupied(key: str, pair, claims, state: ClusterState) -> set[str]:
    """Domains of ``key`` holding a pod the term selects: existing nodes and zoned NodeClaims."""
    found = {v for v, n in _existing_counts(state, key, state.counts((pair,))).items() if n}
    found |= {_decided(c.reqs, key) for c in claims if any(pair_matches(pair, p) for p in c.pods)}
    found.discard(None)
    return found


def _affinity(pod: Pod, reqs: Reqs, claim_pods: list[Pod], claims, state: ClusterState) -> Reqs:
    anti = pod.affinity.anti_required
    for term, pair in zip(anti, resolved_terms(anti, pod, state)):
        if term.topology_key == HOSTNAME:
            if any(pair_matches(pair, p) for p in claim_pods):
                raise TopologyError("unsatisfiable topology constraint for anti-affinity, key=" + HOSTNAME)
            continue
        taken = _occupied(term.topology_key, pair, claims, state)
        if taken:
            reqs = reqs.plus([Req(term.topology_key, True, frozenset(taken))])
            if reqs[term.topology_key].empty:
                raise TopologyError(f"unsatisfiable topology constraint for anti-affinity, key={term.topology_key}")
    required = pod.affinity.pod_required
    for term, pair in zip(required, resolved_terms(required, pod, state)):
        if term.topology_key == HOSTNAME:
            if not any(pair_matches(pair, p) for p in claim_pods) and not (
                    pair_matches(pair, pod) and not any(pair_matches(pair, p) for c in claims for p in c.pods)):
                raise TopologyError("unsatisfiable topology constraint for pod affinity, key=" + HOSTNAME)
            continue
        found = _occupied(term.topology_key, pair, claims, state)
        if found:
            reqs = reqs.plus([Req(term.topology_key, False, frozenset(found))])
        elif not pair_matches(pair, pod):
            raise TopologyError(f"unsatisfiable topology constraint for pod affinity, key={term.topology_key}")
    return reqs

