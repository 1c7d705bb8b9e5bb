"""Candidates whose pods need two new NodeClaims in any multi-node simulation that takes them out, known without one.

A moved pod that no existing node left in the cluster could take goes to a NodeClaim or finds no
place, in every simulation that takes out its node: a run only takes more nodes out and fills the
others (while no pod of the run requests a negative amount), and nodes still within their
NodePool's consolidateAfter take no moved pod. Two such pods that can never share a NodeClaim, in
one simulation, open two NodeClaims or leave one of them without a place: no command either way.
Two reasons keep them apart:

- the same host port: a NodeClaim keeps the ports of every pod it took and refuses a pod whose
  port is taken. No existing node means none, for the pod as given and for every step of relaxing
  its preferences, that tolerates it, admits it, has room as the cluster stands and its port free;
- anti-affinity over hostnames, each pod's term selecting the other (a workload's replicas that
  prefer a node each): the first one's NodeClaim counts it, so the second may not join. The
  preference holds as long as the pod is not relaxed, which happens only when it fails on every
  node and NodeClaim: the rule is taken only where a NodeClaim of its own always takes it — no
  other topology decides it (no spread, no pod affinity, no anti-affinity over another key
  selects it), no tracked reservation, and a fresh NodeClaim takes it under the NodePools' limits
  less every node they hold and one NodeClaim's largest type (multi-node's simulations stop at
  the second NodeClaim, so the pod meets at most one). No existing node then means none that
  tolerates, admits, has room and its port free, or already runs a pod the term selects (counts
  only grow in a run).

Multi-node consolidation keeps no reason for a prefix of candidates that cannot go, so it need not
simulate such a prefix (on the benchmark's classic cluster at 2,000 nodes the best candidate holds
replicas that prefer a node each, with no room for them on the others, and every prefix of every
pass ran to its second NodeClaim).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ....model import Pod
from ....model import labels as L
from ....model.resources import Resources
from ...plugins.inter_pod_affinity import term_index, term_namespaces, term_selector
from ...plugins.node_ports import conflicts
from ..existingnode import ExistingPool, base_vector
from ..nodeclaim import SchedulingError
from ..preferences import PodData, relax
from ..scheduler import Scheduler
from ..topologygroup import ANTI_AFFINITY, TopologyGroup
from ..unplaceable import any_negative
from .candidates import Candidate


def _room(pod: Pod, data: PodData, pool: ExistingPool, alive: np.ndarray) -> np.ndarray:
    """The nodes among ``alive`` that tolerate, admit and have room for the pod, and its ports free."""
    need = base_vector(data.requests)
    mask = alive & pool.room_for(data.requests, need) & pool.masks.tolerated(pod.tolerations) \
        & pool.masks.admitted(data.reqs)
    if pod.host_ports:
        for k in np.flatnonzero(mask).tolist():
            if any(conflicts(w, u) for w in pod.host_ports for u in pool.nodes[k].ports):
                mask[k] = False
    return mask


def homeless(pod: Pod, prepared, pool: ExistingPool, alive: np.ndarray) -> bool:
    """True when no node of ``pool`` at the positions ``alive`` could take ``pod`` (with its host
    ports) or any relaxation of it, in any run that starts from the pool as it stands."""
    current: Pod | None = prepared.scheduled_as([pod])[0]
    data = prepared.pod_data(current)
    while current is not None:
        if _room(current, data, pool, alive).any():
            return False
        current = relax(current, prepared.tolerate_prefer_no_schedule)
        if current is not None:
            data = PodData.of(current, prepared.settings.respect_preferences)
    return True


class NewClaims:
    """Per candidate, its pods that need a NodeClaim of their own (see the module), for one cluster
    state; and whether a set of candidates holds two of them that can never share one."""

    def __init__(self, snapshot, state, catalog, prepared, pool: ExistingPool, settling: frozenset[str],
                 pending: Sequence[Pod]) -> None:
        self.snapshot, self.state, self.catalog, self.prepared, self.pool = snapshot, state, catalog, prepared, pool
        indices = pool.indices
        known = indices >= 0
        alive = np.ones(len(indices), dtype=bool)
        alive[known] = ~state.excluded[indices[known]]
        # moved pods never go to a node still settling (the scheduler's IsConsolidationSimulation)
        alive &= np.array([n.name not in settling for n in pool.nodes], dtype=bool)
        self._alive = alive
        self._rows = {int(i): k for k, i in enumerate(indices.tolist()) if i >= 0}
        self._negative = any_negative(pending)
        self._pending = pending
        self._found: dict[str, tuple[tuple[Pod, tuple], ...]] = {}
        self._repelling: list[TopologyGroup] | None = None   # see _repelled
        self._fresh: dict = {}   # pod signature -> whether a NodeClaim of its own always takes it

    def _of(self, c: Candidate) -> tuple[tuple[Pod, tuple], ...]:
        """The candidate's pods that need a NodeClaim of their own, each with its hostname anti-affinity
        groups (empty when it is kept apart by its ports only)."""
        found = self._found.get(c.name)
        if found is None:
            alive = self._alive
            row = self._rows.get(c.index)
            if row is not None and alive[row]:
                alive = alive.copy()
                alive[row] = False
            out = []
            for p in c.pods:
                groups = self._apart_by_host(p, alive)
                if groups is not None:
                    out.append((p, groups))
                elif p.host_ports and homeless(p, self.prepared, self.pool, alive):
                    out.append((p, ()))
            found = self._found[c.name] = tuple(out)
        return found

    def two_claims(self, candidates: Sequence[Candidate]) -> bool:
        """Whether every simulation taking out ``candidates`` that stops at its second NodeClaim opens
        two new NodeClaims or leaves a moved pod without a place."""
        if self._negative or any_negative(p for c in candidates for p in c.pods):
            return False
        seen: list[tuple[Pod, tuple]] = []
        for c in candidates:
            for pod, groups in self._of(c):
                for other, others in seen:
                    if pod.host_ports and other.host_ports and \
                            any(conflicts(w, u) for w in pod.host_ports for u in other.host_ports):
                        return True
                    if groups and others and any(g.selects(other) for g in groups) \
                            and any(g.selects(pod) for g in others):
                        return True
                seen.append((pod, groups))
        return False

    # ---- anti-affinity over hostnames ------------------------------------------------------------
    def _apart_by_host(self, pod: Pod, alive: np.ndarray) -> tuple[TopologyGroup, ...] | None:
        """The pod's hostname anti-affinity groups when it needs a NodeClaim of its own by them (see
        the module), else None."""
        prepared = self.prepared
        if pod.resource_claims or prepared.reservations_named:
            return None
        current = prepared.scheduled_as([pod])[0]
        affinity = current.affinity
        terms = list(affinity.anti_required)
        if prepared.settings.respect_preferences:
            terms += [w.term for w in affinity.anti_preferred]
        if not terms or current.spread_constraints or affinity.pod_required or affinity.pod_preferred \
                or any(t.topology_key != L.HOSTNAME for t in terms) or self._repelled(current):
            return None
        state = self.state
        groups = tuple(TopologyGroup(ANTI_AFFINITY, L.HOSTNAME, current, term_namespaces(t, current.namespace, state),
                                     term_selector(t, current.labels)) for t in terms)
        mask = _room(current, prepared.pod_data(current), self.pool, alive)
        if mask.any():   # nodes that run a pod one of its terms selects refuse it, as long as it is not relaxed
            held = np.zeros(len(state.nodes), dtype=bool)
            for g in groups:
                if g.selector is not None:
                    held |= state.counts(((g.selector, g.namespaces),), skip_terminating=True) > 0
            indices = self.pool.indices
            known = indices >= 0
            mask[known] &= ~held[indices[known]]
            if mask.any():
                return None
        return groups if self._always_fresh(current) else None

    def _repelled(self, pod: Pod) -> bool:
        """Whether required anti-affinity over a key other than the hostname, a bound pod's or a
        pending pod's, selects ``pod`` (it could then refuse a fresh NodeClaim's zone)."""
        if self._repelling is None:
            state = self.state
            repelling = [TopologyGroup(ANTI_AFFINITY, key, pod, namespaces, selector)
                         for (selector, namespaces), key in term_index(state).anti if key != L.HOSTNAME]
            repelling += [TopologyGroup(ANTI_AFFINITY, t.topology_key, p, term_namespaces(t, p.namespace, state),
                                        term_selector(t, p.labels))
                          for p in self._pending for t in p.affinity.anti_required if t.topology_key != L.HOSTNAME]
            self._repelling = repelling
        return any(g.selects(pod) for g in self._repelling)

    def _always_fresh(self, pod: Pod) -> bool:
        """Whether some NodePool opens a NodeClaim of its own for the pod (as given) in any run that
        has opened at most one NodeClaim: its limits taken as they stand less every node of the pool
        (none taken out) and the largest capacity of one of its types."""
        from ...signature import signature

        key = signature(pod)
        found = self._fresh.get(key) if key is not None else None
        if found is None:
            scheduler = Scheduler(self.snapshot, self.state, self.catalog, [pod], prepared=self.prepared,
                                  existing=self.pool)
            types = scheduler.types
            for template in scheduler.templates:
                left = scheduler.remaining.get(template.name)
                if not left:
                    continue
                largest = types.capacity[template.rows].max(axis=0) if len(template.rows) else None
                out = {}
                for name, amount in left.items():
                    column = types.columns.get(name)
                    most = int(largest[column]) if column is not None and largest is not None else 0
                    out[name] = amount - (1 if name == "nodes" else most)
                scheduler.remaining[template.name] = Resources(out)
            data = scheduler.data(pod)
            found = any(not isinstance(scheduler.open_claim(t, pod, data), SchedulingError)
                        for t in scheduler.templates)
            if key is not None:
                self._fresh[key] = found
        return found
