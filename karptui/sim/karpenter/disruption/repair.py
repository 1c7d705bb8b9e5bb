"""Repair: replace unhealthy nodes (v1.15's voluntary method), or delete them forcefully (the legacy
controller of v1.9 and v1.14, and v1.15 with ``--legacy-node-repair``).

Which nodes are unhealthy, since when, the 20% guard and which release does what live in
:mod:`karptui.sim.karpenter.repair`; this module is the method the disruption controller asks.

* Voluntary (:func:`should_disrupt`, :func:`compute`): a candidate whose unhealthy condition has
  outlasted its toleration, not vetoed (``karpenter.sh/do-not-repair`` on the node, or more than 20%
  of its NodePool unhealthy), goes first of all methods, oldest past its toleration first (upstream
  orders by rank + age/τ − backoff; every policy karptui knows has the same rank and no NodePool has
  failed launches, so age alone decides, ties by disruption cost then name), one per command, under
  the budgets for reason ``Unhealthy``. Its replacement is found as drift finds one (the simulation
  places its pods, new NodeClaims as needed); when the pods find no place, nothing is done, unless
  the replacement fits in the capacity reservation instance the node frees (terminate-first,
  :mod:`.terminatefirst`).
* Legacy (:func:`forceful`): not a disruption method at all. The ``node.health`` controller deletes
  every unhealthy node past its toleration whose NodePool is within the 20% guard, ignoring budgets,
  ``do-not-disrupt`` and PDBs; nothing replaces it first, its pods go pending for provisioning.
"""

from __future__ import annotations

from ....catalog.pricing import node_price
from ...state import ClusterState
from .. import repair as R
from ..deleting import marked_for_deletion
from ..launch import choose
from . import static, terminatefirst
from .budgets import UNHEALTHY
from .candidates import Candidate, reschedulable
from .command import Command, Replacement
from .consolidation import no_room
from .verdicts import BLOCKED, DELETE, SKIPPED, WAITING, Why, span

NAME, REASON = "repair", UNHEALTHY
HEALTHY = Why(SKIPPED, "healthy", "", "healthy: no node condition matches the cloud provider's repair policies")
NODEPOOL_BLOCKED = "more than {percent}% nodes are unhealthy in the nodepool"   # NodeRepairBlocked's event text
CLUSTER_BLOCKED = "more then {percent}% nodes are unhealthy in the cluster"     # (sic: Karpenter's spelling)


def eligible(ctx, node) -> tuple[R.Unhealthy | None, Why | None]:
    """The node's unhealthy condition when repair may act on it now, else None and why not: healthy,
    within its toleration, or its NodePool (the cluster) over the unhealthy threshold."""
    found = R.unhealthy(node, ctx.catalog.repair_policies)
    if found is None:
        return None, HEALTHY
    left = found.remaining(ctx.now)
    if left > 0:
        return None, Why(WAITING, "toleration", "",
                         f"unhealthy ({found.words}) for less than its repair policy's toleration of "
                         f"{span(found.toleration_seconds)}: {span(left)} to go", found.facts(ctx.now))
    guard = ctx.node_health().get(R.scope_of(node))
    if guard is not None and guard.over:
        words = (NODEPOOL_BLOCKED if guard.scope else CLUSTER_BLOCKED).format(percent=R.UNHEALTHY_THRESHOLD_PERCENT)
        return None, Why(BLOCKED, "unhealthy-threshold", words, f"{found.words}, but {guard.words}: repair waits",
                         found.facts(ctx.now) + guard.facts())
    return found, None


# ---- v1.15: a voluntary disruption method ------------------------------------------------------------
def should_disrupt(ctx, c: Candidate) -> Why | None:
    found, why = eligible(ctx, c.node)
    if why is not None:
        return why
    if c.node.annotations.get(R.DO_NOT_REPAIR) == "true":
        return Why(BLOCKED, "do-not-repair", f'repair is vetoed through the "{R.DO_NOT_REPAIR}" annotation',
                   f"unhealthy ({found.words}), but the node carries {R.DO_NOT_REPAIR}: \"true\"",
                   (("annotation", R.DO_NOT_REPAIR), ("value", "true")))
    return None


def order(ctx, candidates: list[Candidate]) -> list[Candidate]:
    """Longest past its toleration first, then the cheaper to disrupt, then by name."""
    def key(c: Candidate):
        found = R.unhealthy(c.node, ctx.catalog.repair_policies)
        return (-found.past(ctx.now) if found is not None else 0.0, c.disruption_cost, c.name)
    return sorted(candidates, key=key)


def compute(ctx, candidates: list[Candidate], budgets: dict[str, int]) -> Command | None:
    for c in order(ctx, candidates):
        if budgets.get(c.pool.name, 0) == 0:
            ctx.block(c, ctx.budget_reason(c, REASON), NAME)
            continue
        if c.pool.replicas is not None:  # a static NodePool: its template, or terminate-first (v1.15)
            command, why = static.command(ctx, NAME, REASON, c)
            if command is not None:
                return command
            ctx.note(c, NAME, why)
            continue
        simulation = ctx.simulate([c], planned=False)
        if not simulation.all_scheduled:
            command = terminatefirst.for_reservation(ctx, NAME, REASON, c, consolidating=True)
            if command is not None:
                return command
            ctx.note(c, NAME, no_room(simulation))
            continue
        replacements = [Replacement(claim, claim.type_rows(), claim.final_requirements(),
                                    choose(ctx.types, claim.type_rows(), claim.final_requirements()))
                        for claim in simulation.claims]
        return Command(NAME, REASON, [c], replacements, simulation)
    return None


# ---- v1.9 / v1.14 (and --legacy-node-repair): the node.health controller --------------------------------
def forceful(ctx, state: ClusterState) -> Command | None:
    """Every Karpenter node the legacy controller deletes now, as one command without replacement
    (``forceful``); every other Karpenter node gets its repair verdict noted."""
    claims = ctx.snapshot.nodeclaim_by_node
    taken = []
    for i, node in enumerate(state.nodes):
        if state.excluded[i] or node.name in ctx.launched:
            continue
        claim = claims.get(node.name)
        pool = ctx.pools.get(node.nodepool)
        if claim is None or pool is None:
            continue
        if marked_for_deletion(node, claim):  # already going: the controller leaves a deleting NodeClaim be
            continue
        found, why = eligible(ctx, node)
        if why is not None:
            ctx.ledger.note(node.name, pool.name, NAME, why)
            continue
        price = node_price(node, ctx.catalog) if ctx.catalog.get(node.instance_type) is not None else None
        taken.append(Candidate(i, node, claim, pool, ctx.catalog.get(node.instance_type),
                               price if price is not None and price == price else 0.0, reschedulable(state.pods[i])))
    return Command(NAME, REASON, taken, [], None, forceful=True) if taken else None


def forceful_verdict(ctx, c: Candidate) -> Why:
    found = R.unhealthy(c.node, ctx.catalog.repair_policies)
    return Why(DELETE, "repair-forceful", "deleting unhealthy node",
               "its NodeClaim is deleted at once, outside the NodePool's disruption budgets and whatever "
               "do-not-disrupt or PDBs say; no replacement is launched first"
               + (f"; its {len(c.pods)} pod(s) go pending for provisioning" if c.pods else ""),
               (("forceful", True), ("pods", len(c.pods))) + (found.facts(ctx.now) if found else ()))
