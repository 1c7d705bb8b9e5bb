"""Which feasible nodes kube-scheduler scores: it stops looking once it has found enough.

kube-scheduler does not score every feasible node of a large cluster. It walks its node
list from where the previous pod's search stopped and stops at the ``numFeasibleNodesToFind``-th
feasible node: every node below 100 nodes, else ``50 - nodes/125`` percent of them (at least 5%,
and at least 100 nodes); a profile's ``percentageOfNodesToScore`` replaces the adaptive
percentage. The next pod's search starts after the last node this one looked at
(``nextStartNodeIndex``), so every node gets its turn. The node list is the scheduler cache's
node tree: zone by zone in turn (round-robin), each zone's nodes in the order they came.

So on 5,000 nodes a pod is scored against 500 feasible nodes, on 20,000 against 1,000; where
fewer nodes are feasible the walk goes round the whole list, and a pod that fits nowhere was
looked at on every node (its FailedScheduling message counts them all).

The simulation reproduces the walk from the snapshot's node order (the cache's order of
arrival is not in a snapshot), and breaks score ties by node name among the nodes found.
"""

from __future__ import annotations

import numpy as np

from ..model import labels as L
from .state import ClusterState

MIN_FEASIBLE_NODES = 100          # minFeasibleNodesToFind
MIN_FEASIBLE_PERCENTAGE = 5       # minFeasibleNodesPercentageToFind
BASE_PERCENTAGE = 50              # the adaptive percentage at 0 nodes, less one per 125 nodes


def nodes_to_find(nodes: int, percentage: int = 0) -> int:
    """numFeasibleNodesToFind: how many feasible nodes end the search (``percentage`` 0: adaptive)."""
    if nodes < MIN_FEASIBLE_NODES or percentage >= 100:
        return nodes
    if percentage <= 0:
        percentage = max(BASE_PERCENTAGE - nodes // 125, MIN_FEASIBLE_PERCENTAGE)
    return max(nodes * percentage // 100, MIN_FEASIBLE_NODES)


def zone_key(labels) -> str:
    """The node tree's zone of a node (GetZoneKey): region and zone, the beta labels first."""
    zone = labels.get(L.ZONE_BETA, labels.get(L.ZONE, ""))
    region = labels.get(L.REGION_BETA, labels.get(L.REGION, ""))
    return "" if not zone and not region else f"{region}:\x00:{zone}"


def node_tree_order(state: ClusterState) -> np.ndarray:
    """The nodes not taken out, as the scheduler cache lists them: one from each zone in turn."""
    zones: dict[str, list[int]] = {}
    for i, node in enumerate(state.nodes):
        if not state.excluded[i]:
            zones.setdefault(zone_key(node.labels), []).append(i)
    order: list[int] = []
    lists = list(zones.values())
    for k in range(max((len(z) for z in lists), default=0)):
        order.extend(z[k] for z in lists if k < len(z))
    return np.array(order, dtype=np.intp)


class NodeSearch:
    """kube-scheduler's walk over its node list across one simulation's pods."""

    def __init__(self, percentage: int = 0) -> None:
        self.percentage = percentage
        self.start = 0                      # nextStartNodeIndex
        self._order: tuple[ClusterState, int, np.ndarray] | None = None
        self._place: np.ndarray | None = None   # see _places

    def _list(self, state: ClusterState) -> np.ndarray:
        taken_out = state.taken_out()
        if self._order is None or self._order[0] is not state or self._order[1] != taken_out:
            self._order = (state, taken_out, node_tree_order(state))
            self._place = None
        return self._order[2]

    def _places(self, order: np.ndarray, size: int) -> np.ndarray:
        """Per node, its place in the list ``order`` (nodes not in it: never feasible, never read)."""
        if self._place is None:
            place = np.zeros(size, dtype=np.intp)
            place[order] = np.arange(len(order), dtype=np.intp)
            self._place = place
        return self._place

    def found(self, state: ClusterState, feasible: np.ndarray) -> np.ndarray:
        """The feasible nodes (indices, in the order found) the search finds for one pod, given every
        node's Filter verdict (False wherever a node is taken out, as the Filter phase gives it);
        moves the next search's start past the nodes it looked at.

        The list is read a stretch at a time, doubling, from the start: on a large cluster where
        most nodes are feasible the search ends within its first stretch, and the cost of a pod
        does not grow with the cluster."""
        order = self._list(state)
        total = len(order)
        wanted = nodes_to_find(total, self.percentage)
        if wanted >= total:  # a small cluster: every node, and the start stays where it is
            return np.flatnonzero(feasible)
        if np.count_nonzero(feasible) <= wanted:
            # too few feasible nodes to end the search: it goes round the whole list, so it finds
            # every one, in the order met from the start, and the next search starts where this
            # one did. Most pods that reach a large cluster's search fit on few nodes or none;
            # reading the list a stretch at a time went round it in three gathers.
            nodes = np.flatnonzero(feasible)
            if nodes.size > 1:
                met = (self._places(order, feasible.size)[nodes] - self.start) % total
                nodes = nodes[np.argsort(met, kind="stable")]
            return nodes
        parts = []
        count = looked = 0
        at, stretch = self.start, max(2 * wanted, 1024)
        while looked < total:
            stop = min(at + stretch, total, at + total - looked)
            seen = order[at:stop]
            hits = np.flatnonzero(feasible[seen])
            if count + len(hits) > wanted:
                # it stops on meeting one feasible node more than it needs, which it does not
                # count: what it looked at ends just before that one
                need = wanted - count
                parts.append(seen[hits[:need]])
                looked += int(hits[need])
                break
            parts.append(seen[hits])
            count += len(hits)
            looked += len(seen)
            at = stop % total
            stretch *= 2
        self.start = (self.start + looked) % total
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.intp)
