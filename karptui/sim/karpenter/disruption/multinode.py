"""Multi-node consolidation: the largest prefix of candidates that can go at once.

Candidates best savings-per-cost first, within the budgets, at most 100; a
binary search over the prefix length keeps the longest that deletes, or is
replaced by one cheaper node of a type none of them is, and that every
Balanced NodePool among them approves (Karpenter's ``multinodeconsolidation.go``).
A prefix whose simulation is known to give no command (:meth:`Disruptor.hopeless`, and
two pods that need a NodeClaim each and can never share one, :mod:`.newclaims`) is not simulated.
"""

from __future__ import annotations

from .balanced import score_command
from .budgets import UNDERUTILIZED
from .candidates import Candidate
from .command import DELETE, REPLACE, Command
from .consolidation import consolidate, without_same_type
from .verdicts import KEPT, Why
from .singlenode import should_disrupt  # noqa: F401  (the same candidates as single-node consolidation)

NAME, REASON = "multi", UNDERUTILIZED
MAX_PARALLEL = 100


def compute(ctx, candidates: list[Candidate], budgets: dict[str, int]) -> Command | None:
    chosen = []
    for c in sorted(candidates, key=lambda c: -c.savings_ratio):
        if budgets.get(c.pool.name, 0) == 0:
            ctx.note(c, NAME, ctx.budget_reason(c, REASON))
            continue
        chosen.append(c)
        budgets[c.pool.name] -= 1
    for c in chosen[MAX_PARALLEL:]:
        ctx.note(c, NAME, Why(KEPT, "too-many", "", f"it tries the best {MAX_PARALLEL} candidates at once"))
    chosen = chosen[:MAX_PARALLEL]
    if len(chosen) < 2:
        for c in chosen:
            ctx.note(c, NAME, Why(KEPT, "alone", "", "the only candidate (within the budgets): it needs two or more"))
        return None
    low, high, best = 1, len(chosen) - 1, None
    while low <= high:
        if ctx.out_of_time(NAME):  # Karpenter's timeout: the last valid command, if any
            timed_out(ctx, chosen, best)
            break
        mid = (low + high) // 2
        prefix = chosen[: mid + 1]
        command = None if ctx.hopeless(prefix) or ctx.needs_two_claims(prefix) \
            else consolidate(ctx, NAME, prefix, why=False)[0]
        valid = command is not None and (command.decision == DELETE or (
            command.decision == REPLACE and without_same_type(ctx, command) is not None))
        if valid:  # a Balanced NodePool may still reject the move
            scores = score_command(ctx, command)
            for score in scores:
                ctx.scored(score)
            valid = all(s.approved for s in scores)
        if valid:
            best, low = command, mid + 1
        else:
            high = mid - 1
    if best is None:
        for c in chosen:
            ctx.note(c, NAME, Why(KEPT, "no-multi-command", "",
                                  f"no two or more of its {len(chosen)} candidates, taken best savings first, "
                                  "can go together (their pods would not fit, or no one cheaper node holds them)"))
    else:
        taken = {c.name for c in best.candidates}
        for c in chosen:
            if c.name not in taken:
                ctx.note(c, NAME, Why(KEPT, "not-in-prefix", "", f"the command takes the {len(taken)} candidates "
                                      "with better savings per disruption; adding this one would not consolidate"))
    return best


def timed_out(ctx, chosen: list[Candidate], best: Command | None) -> None:
    bound = ctx.bound(NAME)
    last = f"returning the {len(best.candidates)}-node command found" if best else "no command found"
    ctx.timed_out(f"stopping multi-node consolidation after timeout, {last}: karptui's bound is {bound} "
                  "per decision, as Karpenter's is 1 minute")
    taken = {c.name for c in best.candidates} if best else set()
    why = Why(KEPT, "timeout", "stopping multi-node consolidation after timeout" if best
              else "failed to find a multi-node consolidation after timeout",
              f"its binary search stops after {bound} per decision (Karpenter after 1 minute)",
              (("simulations", ctx.simulations[NAME]),))
    for c in chosen:
        if c.name not in taken:
            ctx.note(c, NAME, why)
