"""NodeUnschedulable: cordoned nodes, unless the pod tolerates the unschedulable taint."""

from __future__ import annotations

import numpy as np

from ...model.taints import NO_SCHEDULE, UNSCHEDULABLE_TAINT_KEY, Taint, tolerated
from ..cycle import Failure, PodCycle
from ..status import UNRESOLVABLE

NAME = "NodeUnschedulable"
REASON = "node(s) were unschedulable"
_TAINT = Taint(UNSCHEDULABLE_TAINT_KEY, "", NO_SCHEDULE)


def filter(ctx: PodCycle) -> list[Failure]:
    if tolerated(_TAINT, ctx.pod.tolerations):
        return []
    return ctx.static((NAME,), lambda: _failures(ctx))  # the verdict, not only the mask: asked per dry run


def _failures(ctx: PodCycle) -> list[Failure]:
    mask = np.array([n.unschedulable for n in ctx.state.nodes], dtype=bool)
    return [Failure(mask, REASON, UNRESOLVABLE)] if mask.any() else []
