"""TaintToleration: NoSchedule/NoExecute taints filter; PreferNoSchedule ones score."""

from __future__ import annotations

import numpy as np

from ...model.taints import PREFER_NO_SCHEDULE, first_untolerated, tolerated
from ..cycle import Failure, PodCycle
from ..status import UNRESOLVABLE

NAME = "TaintToleration"
WEIGHT = 3


def reason(taint, version: tuple[int, int]) -> str:
    """Upstream's wording by release: 1.24 reworded it, 1.35 dropped the taint itself."""
    if version < (1, 24):
        return f"node(s) had taint {taint}, that the pod didn't tolerate"
    if version >= (1, 35):
        return "node(s) had untolerated taint(s)"
    return f"node(s) had untolerated taint {taint}"


def _failures(ctx: PodCycle) -> list[Failure]:
    by_reason: dict[str, np.ndarray] = {}
    for i, node in enumerate(ctx.state.nodes):
        if node.taints:
            taint = first_untolerated(node.taints, ctx.pod.tolerations)
            if taint is not None:
                text = reason(taint, ctx.version)
                by_reason.setdefault(text, np.zeros(ctx.size, dtype=bool))[i] = True
    return [Failure(mask, text, UNRESOLVABLE) for text, mask in by_reason.items()]


def filter(ctx: PodCycle) -> list[Failure]:
    return ctx.static((NAME, ctx.pod.tolerations), lambda: _failures(ctx))


def _intolerable_counts(ctx: PodCycle) -> np.ndarray:
    soft = tuple(t for t in ctx.pod.tolerations if t.effect in ("", PREFER_NO_SCHEDULE))
    return np.array(
        [sum(1 for t in n.taints if t.effect == PREFER_NO_SCHEDULE and not tolerated(t, soft))
         for n in ctx.state.nodes],
        dtype=np.int64,
    )


def score(ctx: PodCycle, feasible: np.ndarray) -> np.ndarray | int:
    """Fewer untolerated PreferNoSchedule taints score higher (reverse-normalised); a plain 100
    when no feasible node has one (see framework.run_scores)."""
    every = ctx.static((NAME, "score", ctx.pod.tolerations), lambda: _intolerable_counts(ctx))
    if not ctx.static((NAME, "any", ctx.pod.tolerations), lambda: bool(every.any())):
        return 100  # no node has a taint it minds
    counts = every[feasible]
    top = counts.max() if counts.size else 0
    if top == 0:
        return 100
    return 100 - counts * 100 // top
