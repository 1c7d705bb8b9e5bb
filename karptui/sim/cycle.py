"""What plugins see while one pod is tried: the pod, the cluster, and a scratchpad.

``cycle`` plays the part of kube-scheduler's CycleState (PreFilter results read
by Filter and Score); ``cache`` lives for the whole simulation and holds what
pods of one template share (node masks that cannot change while it runs).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ..model import Pod
from .state import ClusterState
from .status import Code


class Failure(NamedTuple):
    """Nodes (a boolean vector over all nodes) that fail with one reason."""

    nodes: np.ndarray
    reason: str
    code: Code


class Undecided:
    """The nodes a filter has not ruled out yet, as it tries its checks in turn (each check
    rules out only among these). No vector is made until a check rules some node out: most
    pods pass most checks everywhere, and each vector is a pass over the cluster."""

    __slots__ = ("nodes",)

    def __init__(self) -> None:
        self.nodes: np.ndarray | None = None   # None: every node

    def rule_out(self, nodes: np.ndarray) -> np.ndarray:
        """Rules out ``nodes`` where still undecided; returns the nodes this check decided."""
        hit = nodes if self.nodes is None else self.nodes & nodes
        self.nodes = ~hit if self.nodes is None else self.nodes & ~hit
        return hit


def either(a: np.ndarray | None, b: np.ndarray) -> np.ndarray:
    """``a | b``, where ``a`` None means no node yet."""
    return b if a is None else a | b


@dataclass(frozen=True)
class Rejection:
    """A PreFilter verdict that rules the pod out before any node is tried."""

    plugin: str
    message: str
    code: Code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE


@dataclass
class PodCycle:
    pod: Pod
    state: ClusterState
    version: tuple[int, int]
    cache: dict
    cycle: dict = field(default_factory=dict)

    @property
    def size(self) -> int:
        return len(self.state.nodes)

    def static(self, key: tuple, compute):
        """A per-template value that cannot change during the simulation (node masks)."""
        found = self.cache.get(key)
        if found is None:
            found = self.cache[key] = compute()
        return found
