"""Replacing a node of a static NodePool (``spec.replicas``): replace first while ``limits.nodes`` leaves
room, else, from v1.15, terminate first.

A static NodePool takes no part in provisioning, so a replacement is not found by simulating the pods
away: Karpenter launches one NodeClaim from the NodePool's template and the evicted pods find their
own way (core ``pkg/controllers/disruption/staticdrift.go`` at v1.14.1, unchanged on ``main``). Per
NodePool it takes, in one pass, at most as many of its drifted candidates (cheapest to disrupt
first) as the budgets allow, and only as many as ``limits.nodes`` has room for above the nodes it
already has, deleting and already reserved included (``NodePoolState.ReserveNodeCount``); none while
the NodePool has more nodes than replicas (it is still scaling down).

With no room left, v1.14 does nothing: drift stalls (aws/karpenter-provider-aws#8873). v1.15 is
**terminate-first** (RFC ``designs/terminate-first-disruption.md``, kubernetes-sigs/karpenter#3203;
the drift change #3312 and the repair change #3342 were open on the newest ``main`` karptui could read,
2026-08-20, and are in v1.15.0's release notes): a delete-only command, as many as the budgets allow,
and the static NodePool's own controller refills it to its replicas once the node is gone.
A node holding an instance of a full capacity reservation takes the same path (:mod:`.terminatefirst`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..launch import choose
from ..nodeclaim import Template, build_template
from .candidates import Candidate
from .command import Command, Replacement
from .terminatefirst import applies as terminate_first
from .verdicts import BLOCKED, WAITING, Why

NODES = "nodes"


@dataclass
class StaticClaim:
    """The NodeClaim a static NodePool's template makes: no pods are placed on it by the decision."""

    template: Template
    pods: list = field(default_factory=list)


def node_limit(pool) -> int | None:
    return pool.limits.get(NODES) if NODES in pool.limits else None


def pool_nodes(ctx, pool) -> tuple[int, int]:
    """(its nodes now: running, deleting and NodeClaims without a Node yet; those being deleted)."""
    active = deleting = 0
    for i, node in enumerate(ctx.state.nodes):
        if ctx.state.excluded[i] or node.nodepool != pool.name:
            continue
        if node.deleted is not None:
            deleting += 1
        else:
            active += 1
    inflight = sum(1 for c in ctx.snapshot.nodeclaims if c.nodepool == pool.name and not c.node_name
                   and c.deleted is None)
    return active + inflight, deleting


def room(ctx, pool) -> int | None:
    """How many more nodes ``limits.nodes`` allows now (None: no node limit)."""
    limit = node_limit(pool)
    if limit is None:
        return None
    active, deleting = pool_nodes(ctx, pool)
    return max(0, limit - active - deleting - ctx.static_reserved.get(pool.name, 0))


def command(ctx, method: str, reason: str, c: Candidate) -> tuple[Command | None, Why | None]:
    """The command for ``c``, a candidate of a static NodePool: replace it by a NodeClaim from the
    template, delete it first (v1.15, no room), or nothing and why."""
    pool = c.pool
    active, _ = pool_nodes(ctx, pool)
    if active > (pool.replicas or 0):
        return None, Why(WAITING, "scaling-down", "",
                         f'NodePool "{pool.name}" has {active} nodes for {pool.replicas} replicas: Karpenter '
                         "replaces none of them until it has scaled down", (("nodes", active), ("replicas", pool.replicas)))
    left = room(ctx, pool)
    if left is None or left > 0:
        template = build_template(pool, ctx.types, ctx.prepared.daemons, ctx.prepared.settings.relax_min_values)
        if not isinstance(template, Template):
            return None, Why(BLOCKED, "no-template", "", f'NodePool "{pool.name}": {template}')
        rows = [int(r) for r in template.rows]
        ctx.static_reserved[pool.name] = ctx.static_reserved.get(pool.name, 0) + 1
        return Command(method, reason, [c], [Replacement(StaticClaim(template), rows, template.reqs,
                                                         choose(ctx.types, rows, template.reqs))]), None
    limit = node_limit(pool)
    if terminate_first(ctx):
        return Command(method, reason, [c], [], None, terminate_first=True), None
    return None, Why(BLOCKED, "node-limit", "",
                     f'NodePool "{pool.name}" is at its node limit (limits.nodes {limit}): no room to launch a '
                     "replacement first, and Karpenter before v1.15 never deletes first",
                     (("limit_nodes", limit), ("nodes", active)))
