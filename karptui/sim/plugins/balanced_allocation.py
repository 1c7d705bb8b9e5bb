"""NodeResourcesBalancedAllocation: prefer nodes whose cpu and memory use stay even."""

from __future__ import annotations

import numpy as np

from ...model.resources import CPU, MEMORY
from ..cycle import PodCycle
from ..state import non_zero

NAME = "NodeResourcesBalancedAllocation"
WEIGHT = 1


def score(ctx: PodCycle, feasible: np.ndarray) -> np.ndarray:
    """(1 - standard deviation of the requested fractions) x 100; for two resources std = |a - b| / 2."""
    state = ctx.state
    cpu, memory = non_zero(ctx.pod)
    fractions = []
    for allocatable, used, want in (
        (state.allocatable[CPU][feasible], state.non_zero_cpu[feasible], cpu),
        (state.allocatable[MEMORY][feasible], state.non_zero_memory[feasible], memory),
    ):
        fractions.append(np.minimum((used + want) / np.maximum(allocatable, 1), 1.0))
    std = np.abs(fractions[0] - fractions[1]) / 2
    return ((1 - std) * 100).astype(np.int64)
