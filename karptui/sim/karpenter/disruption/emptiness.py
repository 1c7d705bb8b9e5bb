"""Emptiness: delete the empty candidates, as many as the budgets allow, in one command."""

from __future__ import annotations

from .budgets import EMPTY
from .candidates import Candidate
from .command import Command

NAME, REASON = "emptiness", EMPTY


def should_disrupt(ctx, c: Candidate) -> str | None:
    if c.pool.replicas is not None:
        return "static"
    if c.pool.consolidation_policy is None or c.pool.consolidate_after is None:
        return ctx.disabled(c)
    if not c.empty:
        return "not empty"
    return ctx.finder.consolidatable(c, ctx.state)


def compute(ctx, candidates: list[Candidate], budgets: dict[str, int]) -> Command | None:
    chosen = []
    for c in sorted(candidates, key=lambda c: -c.savings_ratio):
        if budgets.get(c.pool.name, 0) == 0:
            ctx.block(c, ctx.budget_reason(REASON))
            continue
        chosen.append(c)
        budgets[c.pool.name] -= 1
    return Command(NAME, REASON, chosen) if chosen else None
