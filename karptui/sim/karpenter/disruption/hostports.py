"""Candidates whose pods need two new NodeClaims in any simulation that takes them out, known without one.

Two pods asking for the same host port never share a node, nor a NodeClaim: a NodeClaim keeps
the ports of every pod it took and refuses a pod whose port is taken. A moved pod that no
existing node left in the cluster could take — its taints not tolerated, its labels not
admitted, too little room as the cluster stands, or its port already taken there, for the pod
as given and for every step of relaxing its preferences — goes to a new NodeClaim or finds no
place, in every simulation that takes out its node: a run only takes more nodes out and fills
the others (while no pod of the run requests a negative amount), and nodes still within their
NodePool's consolidateAfter take no moved pod. Two such pods whose ports conflict, in one
simulation, open two NodeClaims or leave one of them without a place: no command either way.

Multi-node consolidation keeps no reason for a prefix of candidates that cannot go, so it need
not simulate such a prefix (a cluster where the best candidate holds two replicas of a hostPort
workload that fit no other node ran every prefix of every pass to its second NodeClaim).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ....model import Pod
from ...plugins.node_ports import conflicts
from ..existingnode import ExistingPool, base_vector
from ..preferences import PodData, relax
from ..unplaceable import any_negative
from .candidates import Candidate


def homeless(pod: Pod, prepared, pool: ExistingPool, alive: np.ndarray) -> bool:
    """True when no node of ``pool`` at the positions ``alive`` could take ``pod`` (with its host
    ports) or any relaxation of it, in any run that starts from the pool as it stands."""
    current: Pod | None = prepared.scheduled_as([pod])[0]
    data = prepared.pod_data(current)
    while current is not None:
        need = base_vector(data.requests)
        mask = alive & pool.room_for(data.requests, need) & pool.masks.tolerated(current.tolerations) \
            & pool.masks.admitted(data.reqs)
        for k in np.flatnonzero(mask).tolist():
            if not any(conflicts(w, u) for w in pod.host_ports for u in pool.nodes[k].ports):
                return False
        current = relax(current, prepared.tolerate_prefer_no_schedule)
        if current is not None:
            data = PodData.of(current, prepared.settings.respect_preferences)
    return True


class HostPortSplits:
    """Per candidate, its pods with host ports that no other node could take (see the module), for
    one cluster state; and whether a set of candidates holds two of them whose ports conflict."""

    def __init__(self, prepared, pool: ExistingPool, excluded: np.ndarray, settling: frozenset[str],
                 pending: Sequence[Pod]) -> None:
        self.prepared, self.pool = prepared, pool
        indices = pool.indices
        known = indices >= 0
        alive = np.ones(len(indices), dtype=bool)
        alive[known] = ~excluded[indices[known]]
        # moved pods never go to a node still settling (the scheduler's IsConsolidationSimulation)
        alive &= np.array([n.name not in settling for n in pool.nodes], dtype=bool)
        self._alive = alive
        self._rows = {int(i): k for k, i in enumerate(indices.tolist()) if i >= 0}
        self._negative = any_negative(pending)
        self._found: dict[str, tuple[Pod, ...]] = {}

    def _of(self, c: Candidate) -> tuple[Pod, ...]:
        found = self._found.get(c.name)
        if found is None:
            alive = self._alive
            row = self._rows.get(c.index)
            if row is not None and alive[row]:
                alive = alive.copy()
                alive[row] = False
            found = self._found[c.name] = tuple(
                p for p in c.pods if p.host_ports and homeless(p, self.prepared, self.pool, alive))
        return found

    def two_claims(self, candidates: Sequence[Candidate]) -> bool:
        """Whether every simulation taking out ``candidates`` opens two new NodeClaims or leaves a
        moved pod without a place."""
        if self._negative or any_negative(p for c in candidates for p in c.pods):
            return False
        seen: list[Pod] = []
        for c in candidates:
            for pod in self._of(c):
                if any(conflicts(w, u) for other in seen for w in pod.host_ports for u in other.host_ports):
                    return True
                seen.append(pod)
        return False
