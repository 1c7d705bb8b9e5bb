"""Topology domains: which value of a label key each node has, as integer ids.

Plugins count pods per domain with ``numpy.bincount`` over these ids, so a
topology key is interned once per simulation and every count is a vector op.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..model import Node

MISSING = -1


class Domains:
    """Node index -> domain id for one topology key (``MISSING`` where the label is absent)."""

    __slots__ = ("key", "ids", "values", "size", "one_per_node", "missing", "some_missing", "_index", "_read_off")

    # up to this many domains (zones, capacity types, pools), read-offs are kept per pattern of flags
    FEW = 64

    def __init__(self, key: str, nodes: Sequence[Node]) -> None:
        index: dict[str, int] = {}
        ids = np.full(len(nodes), MISSING, dtype=np.int32)
        for i, node in enumerate(nodes):
            value = node.labels.get(key)
            if value is not None:
                ids[i] = index.setdefault(value, len(index))
        self.key = key
        self.ids = ids
        self.values = list(index)
        self.size = len(index)
        # every node its own domain (kubernetes.io/hostname): domain id i is node i, nothing to sum
        self.one_per_node = self.size == len(nodes)
        self.missing = ids == MISSING  # the nodes without the label
        self.some_missing = bool(self.missing.any())
        self._index = index
        self._read_off: dict[bytes, np.ndarray] = {}

    def holding(self, values) -> np.ndarray:
        """Per node: is its domain one of ``values`` (a node without the key is in none); read only."""
        flags = np.zeros(self.size, dtype=bool)
        flags[[self._index[v] for v in values if v in self._index]] = True
        return self.on_nodes(flags)

    def read_off(self, per_domain: np.ndarray, missing=0) -> np.ndarray:
        """A per-domain vector read off per node; ``missing`` for the nodes without the key."""
        if self.one_per_node:  # domain id i is node i
            return per_domain
        return np.append(per_domain, np.array(missing, dtype=per_domain.dtype))[self.ids]  # id -1: the last entry

    def on_nodes(self, flags: np.ndarray) -> np.ndarray:
        """Per node, its domain's flag (False for a node without the key); read only.

        Reading a flag off per node is O(nodes) (a gather, the dearest vector step of a filter
        on a large cluster), and a workload's pods ask about the same few zones' flags pod
        after pod: with few domains each pattern is read off once."""
        if self.one_per_node or self.size > self.FEW:
            return self.read_off(flags, False)
        key = flags.tobytes()
        found = self._read_off.get(key)
        if found is None:
            found = self._read_off[key] = self.read_off(flags, False)
        return found

    def value_of(self, node_index: int) -> str | None:
        domain = self.ids[node_index]
        return None if domain == MISSING else self.values[domain]

    def per_domain(self, per_node: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """Sum a per-node vector into per-domain totals (optionally over ``mask``ed nodes only)."""
        if self.one_per_node:
            return per_node.astype(np.int64) if mask is None else np.where(mask, per_node, 0).astype(np.int64)
        keep = self.ids != MISSING if mask is None else mask & (self.ids != MISSING)
        return np.bincount(self.ids[keep], weights=per_node[keep], minlength=self.size).astype(np.int64)

    def present(self, mask: np.ndarray) -> np.ndarray:
        """Per-domain flags: does any ``mask``ed node lie in the domain."""
        if self.one_per_node:
            return mask.copy()
        keep = mask & (self.ids != MISSING)
        return np.bincount(self.ids[keep], minlength=self.size) > 0
