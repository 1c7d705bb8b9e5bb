"""Which of a list of nodes a pod's tolerations tolerate, and which nodes' labels its requirements
admit: the two per-node questions Karpenter's scheduler and topology ask again and again.

Answered once per distinct set of tolerations or requirements and kept, looked up by the set
object first: a workload's replicas share their parsed tolerations and a pod keeps its
requirements from simulation to simulation, so hashing and comparing them again, pod after pod,
would cost more than the answers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ...model.taints import Taint, Toleration, tolerates_all
from .requirements import Reqs


class NodeMasks:
    """Bool vectors over ``len(taints)`` nodes; ``reqs_of(k)`` gives node k's label requirements."""

    __slots__ = ("_taints", "_reqs_of", "_tolerated", "_admitted", "_by_id")

    def __init__(self, taints: Sequence[Sequence[Taint]], reqs_of: Callable[[int], Reqs]) -> None:
        self._taints, self._reqs_of = taints, reqs_of
        self._tolerated: dict[tuple[Toleration, ...], np.ndarray] = {}
        self._admitted: dict[Reqs, np.ndarray] = {}
        self._by_id: dict[int, tuple[object, np.ndarray]] = {}

    def tolerated(self, tolerations: tuple[Toleration, ...]) -> np.ndarray:
        """Nodes whose taints ``tolerations`` tolerate."""
        return self._mask(self._tolerated, tolerations,
                          lambda: np.array([tolerates_all(t, tolerations) for t in self._taints], dtype=bool))

    def admitted(self, reqs: Reqs) -> np.ndarray:
        """Nodes whose labels are compatible with ``reqs`` (a pod's, or a spread filter's)."""
        return self._mask(self._admitted, reqs, lambda: self._admit(reqs))

    def _admit(self, reqs: Reqs) -> np.ndarray:
        """:meth:`admitted` worked out once per kind of node. Compatible reads a node's requirement
        on each key ``reqs`` names (and whether it has one) and nothing else, and nodes of one pool,
        zone and type share those objects (Reqs.from_node_labels): a node whose requirements on
        those keys are the very objects of one already asked gets that node's answer (5,000 nodes
        come to a few dozen kinds; a key every node has its own value of, the hostname, makes each
        its own kind, as before)."""
        keys = tuple(reqs)
        reqs_of = self._reqs_of
        # kind -> (answer, the first node of the kind: kept alive, so no id of its objects is reused)
        kinds: dict[tuple, tuple[bool, Reqs]] = {}
        out = np.empty(len(self._taints), dtype=bool)
        for k in range(len(out)):
            node = reqs_of(k)
            get = node.get
            kind = tuple([id(get(key)) for key in keys])
            found = kinds.get(kind)
            if found is None:
                found = kinds[kind] = (node.compatible(reqs, why=False) is None, node)
            out[k] = found[0]
        return out

    def _mask(self, masks: dict, key, build: Callable[[], np.ndarray]) -> np.ndarray:
        found = self._by_id.get(id(key))
        if found is not None and found[0] is key:
            return found[1]
        mask = masks.get(key)
        if mask is None:
            mask = masks[key] = build()
        self._by_id[id(key)] = (key, mask)  # the key kept alive with it: its id is not reused
        return mask
