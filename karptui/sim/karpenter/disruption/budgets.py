"""Disruption budgets: how many of a NodePool's nodes one disruption pass may touch.

Per NodePool and reason (Empty, Drifted, Underutilized): the smallest of the
budgets that apply to the reason (a budget without reasons applies to all),
a percentage of the pool's initialized nodes rounded up, less the nodes
already being disrupted (not Ready, or being deleted), never below zero
(Karpenter's ``BuildDisruptionBudgetMapping``).
"""

from __future__ import annotations

import math

from ....model import NodePool
from ....model.nodepool import Budget
from ....model import labels as L
from ...state import ClusterState

EMPTY, DRIFTED, UNDERUTILIZED = "Empty", "Drifted", "Underutilized"
UNLIMITED = 1_000_000


def applying(pool: NodePool, reason: str) -> list[Budget]:
    """The pool's budgets that count for ``reason`` (a budget without reasons counts for all)."""
    return [b for b in pool.budgets if not b.reasons or reason.lower() in {r.lower() for r in b.reasons}]


def allowed(pool: NodePool, nodes: int, reason: str) -> int:
    limits = []
    for budget in applying(pool, reason):
        text = budget.nodes.strip()
        limits.append(math.ceil(int(text[:-1]) * nodes / 100) if text.endswith("%") else int(text))
    return min(limits) if limits else UNLIMITED


def budget_mapping(pools: dict[str, NodePool], state: ClusterState, reason: str) -> dict[str, int]:
    counts = {name: 0 for name in pools}
    disrupting = {name: 0 for name in pools}
    for i, node in enumerate(state.nodes):
        pool = node.nodepool
        if state.excluded[i] or pool not in pools or node.labels.get(L.NODE_INITIALIZED) != "true" and \
                pools[pool].kind != "Provisioner":
            continue
        counts[pool] += 1
        if not node.ready or node.deleted is not None:
            disrupting[pool] += 1
    return {name: max(0, allowed(pool, counts[name], reason) - disrupting[name]) for name, pool in pools.items()}


def blocked_by_budget(reason: str) -> str:
    return f"No allowed disruptions for disruption reason {reason} due to blocking budget"
