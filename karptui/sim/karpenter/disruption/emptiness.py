"""Emptiness: delete the empty candidates, as many as the budgets allow, in one command."""

from __future__ import annotations

from functools import lru_cache

from .budgets import EMPTY
from .candidates import Candidate
from .command import Command
from .verdicts import SKIPPED, Why

NAME, REASON = "emptiness", EMPTY


def should_disrupt(ctx, c: Candidate) -> Why | None:
    if c.pool.replicas is not None:
        return static(c)
    if c.pool.consolidation_policy is None or c.pool.consolidate_after is None:
        return ctx.disabled(c)
    if c.name in ctx.buffer_nodes:   # the provisioner placed buffer capacity here on purpose
        return Why(SKIPPED, "buffer-pods", f'Node "{c.name}" has buffer pods',
                   f"{ctx.buffer_nodes_pods(c.name)} capacity-buffer virtual pod(s) fit on it this pass")
    if not c.empty:
        return not_empty(len(c.pods))
    return ctx.finder.consolidatable(c, ctx.state)


@lru_cache(maxsize=None)
def not_empty(pods: int) -> Why:
    """The verdict on a candidate holding ``pods`` pods, one (frozen) per count: every pass notes it for
    every node but the empty ones, 20,000 times a pass on a 20,000-node cluster."""
    return Why(SKIPPED, "not-empty", "", f"not empty: {pods} pod(s) would have to move", (("pods", pods),))


def static(c: Candidate) -> Why:
    return Why(SKIPPED, "static", "", f'its NodePool "{c.pool.name}" is static (spec.replicas: {c.pool.replicas}): '
               "only its replica count removes nodes")


def compute(ctx, candidates: list[Candidate], budgets: dict[str, int]) -> Command | None:
    chosen = []
    for c in sorted(candidates, key=lambda c: -c.savings_ratio):
        if budgets.get(c.pool.name, 0) == 0:
            ctx.block(c, ctx.budget_reason(c, REASON), NAME)
            continue
        chosen.append(c)
        budgets[c.pool.name] -= 1
    return Command(NAME, REASON, chosen) if chosen else None
