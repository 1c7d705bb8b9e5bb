"""Which of a list of nodes a pod's tolerations tolerate, and which nodes' labels its requirements
admit: the two per-node questions Karpenter's scheduler and topology ask again and again.

Answered once per distinct set of tolerations or requirements and kept, looked up by the set
object first: a workload's replicas share their parsed tolerations and a pod keeps its
requirements from simulation to simulation, so hashing and comparing them again, pod after pod,
would cost more than the answers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from ...model.taints import Taint, Toleration, tolerates_all
from .requirements import Reqs, label_keys


class NodeMasks:
    """Bool vectors over ``len(taints)`` nodes; ``reqs_of(k)`` gives node k's label requirements.

    ``labels``, where given, holds for each node labels whose ``Reqs.from_labels`` are its
    requirements (None for a node whose are not: ``reqs_of`` answers for it): a pod's requirements
    then read only the labels on their own keys, and nodes alike there share one answer, so no
    node's requirements need building to know which nodes admit a pod (Karpenter's view of a
    node is built only for the nodes that could take one; see ``existingnode.ExistingNodes``).
    Without them each key's answer is asked once per distinct requirement object the nodes hold
    (:meth:`_admit`)."""

    __slots__ = ("_taints", "_reqs_of", "_labels", "_tolerated", "_admitted", "_by_id", "_keys")

    def __init__(self, taints: Sequence[Sequence[Taint]], reqs_of: Callable[[int], Reqs],
                 labels: Sequence[Mapping[str, str] | None] | None = None) -> None:
        self._taints, self._reqs_of, self._labels = taints, reqs_of, labels
        self._tolerated: dict[tuple[Toleration, ...], np.ndarray] = {}
        self._admitted: dict[Reqs, np.ndarray] = {}
        self._by_id: dict[int, tuple[object, np.ndarray]] = {}
        self._keys: dict[str, tuple[np.ndarray, list]] = {}   # see _on_key

    def tolerated(self, tolerations: tuple[Toleration, ...]) -> np.ndarray:
        """Nodes whose taints ``tolerations`` tolerate."""
        return self._mask(self._tolerated, tolerations,
                          lambda: np.array([tolerates_all(t, tolerations) for t in self._taints], dtype=bool))

    def admitted(self, reqs: Reqs) -> np.ndarray:
        """Nodes whose labels are compatible with ``reqs`` (a pod's, or a spread filter's)."""
        if self._labels is None:
            return self._mask(self._admitted, reqs, lambda: self._admit(reqs))
        return self._mask(self._admitted, reqs, lambda: self._admitted_by_labels(reqs))

    def _admitted_by_labels(self, reqs: Reqs) -> np.ndarray:
        """:meth:`admitted` from the nodes' labels on ``reqs``' keys alone: Compatible reads a node's
        requirements only on the keys the pod's define, so labels restricted to those (and their
        aliases) give the same answer, once per distinct set of values."""
        keys = label_keys(reqs)
        answers: dict[tuple, bool] = {}
        out = []
        for k, labels in enumerate(self._labels):
            if labels is None:
                out.append(self._reqs_of(k).compatible(reqs, why=False) is None)
                continue
            values = tuple(map(labels.get, keys))
            found = answers.get(values)
            if found is None:
                own = Reqs.from_labels({key: value for key, value in zip(keys, values) if value is not None})
                found = answers[values] = own.compatible(reqs, why=False) is None
            out.append(found)
        return np.array(out, dtype=bool)

    def _admit(self, reqs: Reqs) -> np.ndarray:
        """:meth:`admitted` one key at a time. Compatible holds when it holds on each key ``reqs``
        names, and on one key it reads nothing but the node's requirement there (or that it has
        none); nodes of one pool, zone and type share those requirement objects
        (Reqs.from_node_labels). So each key's answer is worked out once per distinct object the
        nodes hold on it (by asking Compatible itself, on that key alone) and the nodes take their
        object's answer: a few dozen questions for 5,000 nodes, not one per node and set."""
        out = np.ones(len(self._taints), dtype=bool)
        for key, wanted in reqs.items():
            held, objects = self._on_key(key)
            asked = Reqs((wanted,))
            answers = np.array([(Reqs((own,)) if own is not None else Reqs()).compatible(asked, why=False) is None
                                for own in objects], dtype=bool)
            out &= answers[held]
        return out

    def _on_key(self, key: str) -> tuple[np.ndarray, list]:
        """Per node, which of the distinct requirement objects the nodes hold on ``key`` (None: no
        requirement) it holds, and those objects (kept: an object's id stays its own while held)."""
        found = self._keys.get(key)
        if found is None:
            reqs_of = self._reqs_of
            seen: dict[int, int] = {}
            objects: list = []
            held = np.empty(len(self._taints), dtype=np.intp)
            for k in range(len(held)):
                own = reqs_of(k).get(key)
                j = seen.get(id(own))
                if j is None:
                    j = seen[id(own)] = len(objects)
                    objects.append(own)
                held[k] = j
            found = self._keys[key] = (held, objects)
        return found

    def _mask(self, masks: dict, key, build: Callable[[], np.ndarray]) -> np.ndarray:
        found = self._by_id.get(id(key))
        if found is not None and found[0] is key:
            return found[1]
        mask = masks.get(key)
        if mask is None:
            mask = masks[key] = build()
        self._by_id[id(key)] = (key, mask)  # the key kept alive with it: its id is not reused
        return mask
