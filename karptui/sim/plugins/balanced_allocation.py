"""NodeResourcesBalancedAllocation: prefer nodes whose cpu and memory use stay even."""

from __future__ import annotations

import numpy as np

from ...model.resources import CPU, MEMORY
from ..cycle import PodCycle

NAME = "NodeResourcesBalancedAllocation"
WEIGHT = 1


def score(ctx: PodCycle, feasible: np.ndarray) -> np.ndarray:
    """(1 - standard deviation of the requested fractions) x 100; for two resources std = |a - b| / 2.

    Unlike LeastAllocated this uses the actual requests, without the 100m/200Mi defaults.
    """
    state, requests = ctx.state, ctx.pod.requests
    fractions = []
    for allocatable, used, want in (
        (state.allocatable[CPU][feasible], state.requested[CPU][feasible], requests.get(CPU, 0)),
        (state.allocatable[MEMORY][feasible], state.requested[MEMORY][feasible], requests.get(MEMORY, 0)),
    ):
        fractions.append(np.minimum((used + want) / np.maximum(allocatable, 1), 1.0))
    std = np.abs(fractions[0] - fractions[1]) / 2
    return ((1 - std) * 100).astype(np.int64)
