"""Disruption budgets: how many of a NodePool's nodes one disruption pass may touch, and when.

Per NodePool and reason (Empty, Drifted, Underutilized): the smallest of the
budgets that apply to the reason (a budget without reasons applies to all) and
are active at the time asked, a percentage of the pool's initialized nodes
rounded up, less the nodes already being disrupted (not Ready, or being
deleted), never below zero (Karpenter's ``BuildDisruptionBudgetMapping`` and
``GetAllowedDisruptionsByReason``). A budget with a ``schedule`` is active for
``duration`` after each time its cron schedule (UTC) fires, from the hit itself
up to but not including hit + duration (Karpenter's ``Budget.IsActive``); an
inactive budget limits nothing. Without a time to ask at (a snapshot that
records none), every budget counts as active: the stricter answer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np

from ....model import NodePool
from ....model import labels as L
from ....model.cron import parse_cron, utc
from ....model.nodepool import Budget
from ...state import ClusterState
from ..deleting import marked_for_deletion

EMPTY, DRIFTED, UNDERUTILIZED = "Empty", "Drifted", "Underutilized"
REASONS = (EMPTY, DRIFTED, UNDERUTILIZED)
# v1.15's node repair method (kubernetes-sigs/karpenter#3311): budgets may name it; a NotReady node does
# not use up its budget (unhealthy nodes are what it repairs), only a node being deleted does
UNHEALTHY = "Unhealthy"
UNLIMITED = 1_000_000


def applies(budget: Budget, reason: str) -> bool:
    return not budget.reasons or reason.lower() in {r.lower() for r in budget.reasons}


def active(budget: Budget, at: datetime | None) -> bool:
    """Whether ``budget`` limits disruption at ``at``: always without a schedule; else when its
    schedule fired in the last ``duration`` (the hit itself counts, hit + duration does not)."""
    if (not budget.schedule and budget.duration is None) or at is None:
        return True
    at = utc(at)
    hit = parse_cron(budget.schedule).next_after(at - timedelta(seconds=budget.duration or 0))
    return hit is not None and hit <= at


def changes(budget: Budget, start: datetime, end: datetime) -> list[datetime]:
    """The times in (start, end] at which ``budget`` turns active or inactive: it can only do so
    where a run of its windows (hit, hit + duration) begins or ends (Cron.windows, which walks
    runs, not hits: a long duration on a frequent schedule is one run), so those are checked."""
    if not budget.schedule or start is None:
        return []
    start, end = utc(start), utc(end)
    length = timedelta(seconds=budget.duration or 0)
    moments = parse_cron(budget.schedule).windows(length, start, end)
    out, was = [], active(budget, start)
    for moment in moments:
        now = active(budget, moment)
        if now != was:
            out.append(moment)
            was = now
    return out


def limit(budget: Budget, nodes: int) -> int:
    """The budget's ``nodes`` for a pool of ``nodes``: a count, or a percentage rounded up
    (as Kubernetes rounds a PDB's maxUnavailable: 5% of 10 nodes allows 1)."""
    text = budget.nodes.strip()
    return math.ceil(int(text[:-1]) * nodes / 100) if text.endswith("%") else int(text)


def applying(pool: NodePool, reason: str, at: datetime | None = None) -> list[Budget]:
    """The pool's budgets that count for ``reason`` and are active at ``at`` (a budget without reasons
    counts for all; without a time every budget counts, the stricter answer)."""
    return [b for b in pool.budgets if applies(b, reason) and active(b, at)]


def allowed(pool: NodePool, nodes: int, reason: str, at: datetime | None = None) -> int:
    """How many of ``nodes`` the budgets for ``reason`` active at ``at`` allow (before subtracting
    nodes already disrupting); :data:`UNLIMITED` when none applies."""
    limits = [limit(b, nodes) for b in applying(pool, reason, at)]
    return min(limits) if limits else UNLIMITED


@dataclass(frozen=True, slots=True)
class PoolCount:
    """The nodes a NodePool's budgets count: initialized ones, and of those the ones already disrupting."""

    nodes: int
    disrupting: int


@dataclass(frozen=True)
class _NodeTable:
    """What budgets read of each node of one cluster state, as arrays over its nodes: its NodePool
    (an index into ``pools``), whether it is initialized, marked for deletion, not Ready. A state's
    nodes never change (a disruption pass that carries out a command makes a new state), only which
    are taken out; consolidation asks per method and pass, and a walk over every node each time
    was a share of a 2,000-node cluster's pass."""

    pools: tuple[str, ...]
    pool: np.ndarray
    initialized: np.ndarray
    marked: np.ndarray
    unready: np.ndarray

    @staticmethod
    def of(state: ClusterState) -> _NodeTable:
        claims = state.snapshot.nodeclaim_by_node
        names: dict[str, int] = {}
        pool = [names.setdefault(node.nodepool, len(names)) for node in state.nodes]
        return _NodeTable(tuple(names), np.array(pool, dtype=np.intp),
                          np.array([n.labels.get(L.NODE_INITIALIZED) == "true" for n in state.nodes], dtype=bool),
                          np.array([marked_for_deletion(n, claims.get(n.name)) for n in state.nodes], dtype=bool),
                          np.array([not n.ready for n in state.nodes], dtype=bool))


def pool_counts(pools: dict[str, NodePool], state: ClusterState, reason: str = "") -> dict[str, PoolCount]:
    """Per NodePool, its nodes the budgets count (initialized ones, any of a v1alpha5 Provisioner's),
    none taken out, and of those the ones already disrupting (marked for deletion, or not Ready but
    where the reason is node repair's own)."""
    table = state.shared("karpenter-budget-nodes", lambda: _NodeTable.of(state))
    if not len(table.pool):
        return {name: PoolCount(0, 0) for name in pools}
    known = np.array([name in pools for name in table.pools], dtype=bool)
    provisioner = np.array([name in pools and pools[name].kind == "Provisioner" for name in table.pools], dtype=bool)
    counted = ~state.excluded & known[table.pool] & (table.initialized | provisioner[table.pool])
    disrupting = counted & (table.marked if reason == UNHEALTHY else table.marked | table.unready)
    size = len(table.pools)
    nodes = np.bincount(table.pool[counted], minlength=size)
    busy = np.bincount(table.pool[disrupting], minlength=size)
    at = {name: k for k, name in enumerate(table.pools)}
    return {name: PoolCount(int(nodes[at[name]]), int(busy[at[name]])) if name in at else PoolCount(0, 0)
            for name in pools}


def allowed_disruptions(pool: NodePool, count: PoolCount, reason: str, at: datetime | None = None) -> int:
    """What one disruption pass may still take from ``pool`` for ``reason`` at ``at``: the budgets'
    allowance less the nodes already disrupting, never below zero."""
    return max(0, allowed(pool, count.nodes, reason, at) - count.disrupting)


def budget_mapping(pools: dict[str, NodePool], state: ClusterState, reason: str,
                   at: datetime | None = None) -> dict[str, int]:
    counts = pool_counts(pools, state, reason)
    return {name: allowed_disruptions(pool, counts[name], reason, at) for name, pool in pools.items()}


def blocked_by_budget(reason: str) -> str:
    return f"No allowed disruptions for disruption reason {reason} due to blocking budget"
