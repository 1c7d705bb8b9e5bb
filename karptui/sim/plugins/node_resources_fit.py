"""NodeResourcesFit: requests against allocatable minus what bound pods request.

Filter: "Too many pods" and "Insufficient <resource>" (several per node when
several resources are short). Score: LeastAllocated over cpu and memory,
weight 1 each, using the non-zero requests (100m / 200Mi for pods that ask
for nothing) as kube-scheduler does.
"""

from __future__ import annotations

import numpy as np

from ...model.resources import CPU, EPHEMERAL_STORAGE, MEMORY, PODS
from ..cycle import Failure, PodCycle
from ..state import non_zero
from ..status import UNRESOLVABLE, UNSCHEDULABLE

NAME = "NodeResourcesFit"
WEIGHT = 1
TOO_MANY_PODS = "Too many pods"


def insufficient(resource: str) -> str:
    return f"Insufficient {resource}"


def filter(ctx: PodCycle, nodes: np.ndarray | None = None) -> list[Failure]:
    """Since 1.34 a node too small even when empty is unresolvable (preemption cannot help).

    ``nodes`` (indices) asks about those nodes only, the masks then being over them: a node's
    verdict depends on that node alone, so a pod like an earlier one re-checks just the nodes
    touched since (see :mod:`..equivalence`)."""
    state, requests = ctx.state, ctx.pod.requests
    at = slice(None) if nodes is None else nodes
    failures = [
        Failure(state.requested[PODS][at] + 1 > state.allocatable[PODS][at], TOO_MANY_PODS, UNSCHEDULABLE)
    ]
    hopeless = None   # asked only when some node is short (most pods fit most nodes)
    for resource, amount in requests.items():
        if amount <= 0 or resource == PODS:
            continue
        if resource in (CPU, MEMORY, EPHEMERAL_STORAGE):
            allocatable, requested = state.allocatable[resource], state.requested[resource]
        else:
            allocatable, requested = state.extended(resource)
        short = amount > allocatable[at] - requested[at]
        if short.any():
            if hopeless is None and ctx.version >= (1, 34):
                hopeless = unresolvable(ctx, at)
            if hopeless is not None and (short & hopeless).any():
                failures.append(Failure(short & hopeless, insufficient(resource), UNRESOLVABLE))
                short = short & ~hopeless
            failures.append(Failure(short, insufficient(resource), UNSCHEDULABLE))
    return [f for f in failures if f.nodes.any()]


def wanted(pod) -> dict[str, int]:
    """What Filter compares with a node's free room: one pod's place, and each positive request
    (but ``pods``). A node fits when its room in every one of them is at least this much."""
    out = {PODS: 1}
    for resource, amount in pod.requests.items():
        if amount > 0 and resource != PODS:
            out[resource] = amount
    return out


def unresolvable(ctx: PodCycle, at=slice(None)) -> np.ndarray:
    """Nodes whose whole allocatable is too small: no eviction can make room there (of the
    nodes ``at`` picks, every node unless told; read only). A node's allocatable never changes
    in a simulation, so the answer over every node is kept per distinct set of requests."""
    return ctx.static((NAME, "too small", ctx.pod.requests), lambda: _too_small(ctx))[at]


def _too_small(ctx: PodCycle) -> np.ndarray:
    state, mask = ctx.state, None
    for resource, amount in ctx.pod.requests.items():
        if amount > 0 and resource != PODS:
            allocatable = state.allocatable[resource] if resource in state.allocatable else state.extended(resource)[0]
            short = amount > allocatable
            mask = short if mask is None else mask | short
    return mask if mask is not None else np.zeros(ctx.size, dtype=bool)


def score(ctx: PodCycle, feasible: np.ndarray) -> np.ndarray:
    state = ctx.state
    cpu, memory = non_zero(ctx.pod)
    total = np.zeros(int(feasible.size), dtype=np.int64)
    for allocatable, used, want in (
        (state.allocatable[CPU][feasible], state.non_zero_cpu[feasible], cpu),
        (state.allocatable[MEMORY][feasible], state.non_zero_memory[feasible], memory),
    ):
        after = used + want
        ok = (allocatable > 0) & (after <= allocatable)
        total += np.where(ok, (allocatable - after) * 100 // np.maximum(allocatable, 1), 0)
    return total // 2

