"""Drift: replace nodes whose NodeClaim the snapshot shows as Drifted, one at a time.

Empty drifted nodes first, then the others, oldest drift first; a node goes
when the simulation finds a place for all its pods, with as many new
NodeClaims as that takes (Karpenter's ``drift.go``).
"""

from __future__ import annotations

from ..launch import choose
from .budgets import DRIFTED
from .candidates import Candidate
from .command import Command, Replacement
from .consolidation import no_room
from .emptiness import static
from .verdicts import SKIPPED, Why

NAME, REASON = "drift", DRIFTED
NOT_DRIFTED = Why(SKIPPED, "not-drifted", "", "not drifted: its NodeClaim has no Drifted condition that is True")


def should_disrupt(ctx, c: Candidate) -> Why | None:
    if c.pool.replicas is not None:
        return static(c)
    if c.claim is not None and c.claim.conditions.get("Drifted") == "True":
        return None
    return NOT_DRIFTED


def compute(ctx, candidates: list[Candidate], budgets: dict[str, int]) -> Command | None:
    ordered = [c for c in candidates if not c.pods] + [c for c in candidates if c.pods]
    for c in ordered:
        if budgets.get(c.pool.name, 0) == 0:
            ctx.block(c, ctx.budget_reason(c, REASON), NAME)
            continue
        simulation = ctx.simulate([c])
        if not simulation.all_scheduled:
            ctx.note(c, NAME, no_room(simulation))
            continue
        replacements = []
        for claim in simulation.claims:
            rows = claim.type_rows()
            reqs = claim.final_requirements()
            replacements.append(Replacement(claim, rows, reqs, choose(ctx.types, rows, reqs)))
        return Command(NAME, REASON, [c], replacements, simulation)
    return None
