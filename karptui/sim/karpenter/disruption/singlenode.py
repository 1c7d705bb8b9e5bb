"""Single-node consolidation: the first candidate, best savings-per-cost first, that can go alone.

Candidates are taken round-robin across NodePools; a NodePool whose budget
allows nothing is skipped; in a Balanced NodePool a move must also pass its
score (:mod:`.balanced`) (Karpenter's ``singlenodeconsolidation.go``).
"""

from __future__ import annotations

from ....model.nodepool import BALANCED, WHEN_EMPTY_OR_UNDERUTILIZED
from ....model import labels as L
from .balanced import best_case, policy_known, score_command, unknown_words
from .budgets import UNDERUTILIZED
from .candidates import Candidate
from .command import Command
from .consolidation import consolidate
from .emptiness import static
from .verdicts import KEPT, SKIPPED, Why

NAME, REASON = "single", UNDERUTILIZED
# Karpenter's words when the simulation fails; karptui knows it before simulating (Disruptor.hopeless)
HOPELESS = ("not all pods would schedule (their requests exceed the room left on the other nodes "
            "and on any cheaper node)")


def should_disrupt(ctx, c: Candidate) -> Why | None:
    """Consolidation's candidate filter (ShouldDisrupt): None, or why the node is left alone."""
    if c.pool.replicas is not None:
        return static(c)
    if c.instance_type is None:
        return Why(SKIPPED, "unknown-type", f'Instance Type "{c.node.instance_type}" not found',
                   "the instance catalog does not know it, so neither its price nor a cheaper one")
    for key in (L.CAPACITY_TYPE, L.ZONE):
        if key not in c.node.labels:
            return Why(SKIPPED, "unlabelled", f'Node does not have label "{key}"', "", (("label", key),))
    if c.pool.consolidation_policy is None or c.pool.consolidate_after is None:
        return ctx.disabled(c)
    if c.empty:
        return Why(SKIPPED, "empty", "", "empty: emptiness deletes it, not consolidation")
    balanced = c.pool.consolidation_policy == BALANCED
    if c.pool.consolidation_policy != WHEN_EMPTY_OR_UNDERUTILIZED and not (balanced and policy_known(ctx.snapshot)):
        owner = "Provisioner" if c.legacy else "NodePool"
        detail = f"consolidationPolicy is {c.pool.consolidation_policy} and the node holds {len(c.pods)} pod(s)"
        if balanced:
            detail = f"{unknown_words(c.pool.name)}; the node holds {len(c.pods)} pod(s)"
        return Why(SKIPPED, "when-empty", f'{owner} "{c.pool.name}" has non-empty consolidation disabled', detail,
                   (("consolidation_policy", c.pool.consolidation_policy),))
    return ctx.finder.consolidatable(c, ctx.state)


def compute(ctx, candidates: list[Candidate], budgets: dict[str, int]) -> Command | None:
    ordered = sorted(candidates, key=lambda c: -c.savings_ratio)
    by_pool: dict[str, list[Candidate]] = {}
    for c in ordered:
        by_pool.setdefault(c.pool.name, []).append(c)
    longest = max((len(v) for v in by_pool.values()), default=0)
    ordered = [by_pool[p][i] for i in range(longest) for p in by_pool if i < len(by_pool[p])]
    for k, c in enumerate(ordered):
        if ctx.out_of_time(NAME):
            return abandoned(ctx, ordered[k:], k)
        if budgets.get(c.pool.name, 0) == 0:
            ctx.block(c, ctx.budget_reason(c, REASON), NAME)
            continue
        best = best_case(ctx, c)
        if best is not None and not best.approved:  # even deleting it would not pay for its disruption
            ctx.scored(best)
            ctx.unconsolidatable_because(c, balanced_why("deleting it would not be", best))
            continue
        if ctx.hopeless([c]):
            ctx.unconsolidatable_because(c, Why(KEPT, "no-room", HOPELESS, "", (("simulated", False),)))
            continue
        command, why = consolidate(ctx, NAME, [c])
        if command is not None:
            scores = score_command(ctx, command)
            for score in scores:
                ctx.scored(score)
            rejected = [s for s in scores if not s.approved]
            if not rejected:
                return command
            ctx.unconsolidatable_because(c, balanced_why(f"{command.decision} not", rejected[0]))
            continue
        if why:
            ctx.unconsolidatable_because(c, why)
    return None


def abandoned(ctx, left: list[Candidate], evaluated: int) -> None:
    """Karpenter abandons single-node consolidation at its timeout, with no command, whatever the
    candidates not yet evaluated would have given; the nodes left say so."""
    bound = ctx.bound(NAME)
    ctx.timed_out(f"abandoning single-node consolidation due to timeout (candidates_evaluated={evaluated}): "
                  f"karptui's bound is {bound} per decision, as Karpenter's is 3 minutes")
    why = Why(KEPT, "timeout", "abandoning single-node consolidation due to timeout",
              f"it stops after {bound} per decision (Karpenter after 3 minutes), "
              f"{evaluated} candidates evaluated before this one",
              (("simulations", ctx.simulations[NAME]), ("evaluated", evaluated)))
    for c in left:
        ctx.note(c, NAME, why)
    return None


def balanced_why(move: str, score) -> Why:
    """A Balanced NodePool's score said no: the move saves too little for what it disrupts."""
    text = f"{move} worth its disruption: {score.text()}"
    return Why(KEPT, "balanced-score", text, "", (("score", score.score), ("threshold", score.threshold)))
