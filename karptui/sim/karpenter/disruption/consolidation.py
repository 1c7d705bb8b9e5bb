"""The consolidation decision for a set of candidates, shared by multi- and single-node consolidation.

After simulating the candidates away (:mod:`.simulation`): if a pod they held
found no place, nothing; if their pods fit on the other nodes, delete them;
if they need exactly one new NodeClaim, replace them with it — but only with
instance types whose worst launch price is below what the candidates cost
together, and with a capacity type pinned to spot when both spot and
on-demand are allowed. Spot candidates are replaced by spot only with the
SpotToSpotConsolidation gate, and a single spot node only when at least 15
cheaper spot types exist (the launch then offers the 15 cheapest, more if
minValues needs them). More than one new NodeClaim: nothing (Karpenter's
``computeConsolidation``).
"""

from __future__ import annotations

from ....model import labels as L
from ..launch import choose
from ..requirements import Req
from .candidates import Candidate
from .command import Command, Replacement
from .verdicts import KEPT, Why

MIN_SPOT_TO_SPOT_TYPES = 15
SHOWN_NODES = 5  # nodes named with their filter reasons when a pod finds no place
NEW_NODES_KEPT = 64  # NodeClaim sets whose "new nodes" words are kept (see new_nodes)


def consolidate(ctx, method: str, candidates: list[Candidate], why: bool = True) -> tuple[Command | None, Why | None]:
    """A command, or None and why not (Karpenter's Unconsolidatable event text, then the pod that
    found no place, or both prices). ``why`` False: the caller keeps no reason where there is no
    command (multi-node consolidation's search), so the simulation may stop as soon as two new
    NodeClaims make one impossible, and the reason is then None."""
    simulation = ctx.simulate(candidates, most_claims=None if why else 1)
    if simulation.cut:
        return None, None
    if not simulation.all_scheduled:
        return None, no_room(simulation)
    claims = simulation.claims
    if not claims:
        return Command(method, "Underutilized", candidates, [], simulation), None
    if len(claims) > 1:
        return None, new_nodes(ctx, claims)
    claim = claims[0]
    types = ctx.types
    reqs = claim.scheduled_requirements()  # the scheduling result's (minValues kept; reserved where it holds some)
    rows = claim.type_rows()
    price = sum(c.price for c in candidates)
    all_spot = all(c.capacity_type == "spot" for c in candidates)
    kind = reqs.get_or_exists(L.CAPACITY_TYPE)
    if all_spot and kind.has("spot"):
        if not ctx.spot_to_spot:
            return None, Why(KEPT, "spot-to-spot",
                             "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node",
                             "a spot node is only deleted, never replaced, unless the feature gate is on",
                             (("feature_gate", "SpotToSpotConsolidation"), ("enabled", False)))
        reqs = reqs.plus((Req.one(L.CAPACITY_TYPE, "spot"),))
        rows = [i for i in rows if types.compatible_mask(reqs, (L.CAPACITY_TYPE,))[i] and types.offered_mask(reqs)[i]]
    options = rows
    rows = [i for i in rows if types.worst_launch_price(i, reqs) < price]
    if rows and types.min_values_shortfall(rows, reqs):
        return None, Why(KEPT, "min-values", "Filtering by price: minValues requirement is not met",
                         "the cheaper types are too few for the NodePool's minValues")
    if not rows:
        return None, _not_cheaper(types, options, reqs, price)
    if all_spot and kind.has("spot"):
        if len(candidates) == 1:
            if len(rows) < MIN_SPOT_TO_SPOT_TYPES:
                return None, Why(KEPT, "spot-to-spot-options",
                                 f"SpotToSpotConsolidation requires {MIN_SPOT_TO_SPOT_TYPES} cheaper instance type "
                                 f"options than the current candidate to consolidate, got {len(rows)}",
                                 "so that a spot replacement is not interrupted as soon as it launches",
                                 (("cheaper_types", len(rows)), ("needed", MIN_SPOT_TO_SPOT_TYPES)))
            rows = rows[:max(MIN_SPOT_TO_SPOT_TYPES, _min_types(types, rows, reqs))]
    else:
        kind = reqs.get_or_exists(L.CAPACITY_TYPE)
        if kind.has("spot") and kind.has("on-demand"):
            reqs = reqs.plus((Req.one(L.CAPACITY_TYPE, "spot"),))
    replacement = Replacement(claim, rows, reqs, choose(types, rows, reqs))
    return Command(method, "Underutilized", candidates, [replacement], simulation), None


def new_nodes(ctx, claims) -> Why:
    """More than one new NodeClaim: Karpenter's words, then whose pods need them. The cluster's
    pending pods are scheduled with the candidates' (SimulateScheduling), so the NodeClaims they
    need count too: consolidation waits while pending pods need more than one new node. A finished
    run's NodeClaims take no more pods, so the same NodeClaims holding as many pods as when last
    asked get the answer given then, which the disruption controller keeps for the last few sets
    (``ctx.new_nodes_said``: simulations that take the pending pods' shared run, or its run with the
    limits their candidates leave, are given the very same NodeClaims; single-node consolidation's
    candidates, most of them left for these words, come in no order of those runs)."""
    said = ctx.new_nodes_said
    key = tuple(map(id, claims))
    now = tuple(len(c.pods) for c in claims)
    found = said.get(key)
    if found is not None and found[1] == now and all(a is b for a, b in zip(found[0], claims)):
        return found[2]
    why = _new_nodes(claims)
    if len(said) >= NEW_NODES_KEPT:
        del said[next(iter(said))]   # the oldest set
    said[key] = (tuple(claims), now, why)   # the NodeClaims kept: their ids stay theirs
    return why


def _new_nodes(claims) -> Why:
    pending = sorted(p.key for c in claims for p in c.pods if not p.node_name)
    moved = sum(1 for c in claims for p in c.pods if p.node_name)
    if pending and moved:
        whose = f"its pods and {len(pending)} pending pod(s) would need {len(claims)} new nodes"
    elif pending:
        whose = f"{len(pending)} pending pod(s) would need {len(claims)} new nodes"
    else:
        whose = f"its pods would need {len(claims)} new nodes"
    return Why(KEPT, "new-nodes", f"Can't remove without creating {len(claims)} candidates",
               f"{whose}, and a command launches at most one",
               (("new_nodeclaims", len(claims)), ("pending_pods", pending[:5]), ("pending_count", len(pending))))


def no_room(simulation) -> Why:
    """Karpenter's "not all pods would schedule" (five pods at most), then the first pod that found no
    place: what kube-scheduler says of it on the nodes left, node by node, and Karpenter's reason."""
    items = list(simulation.errors.items())
    pod, error = items[0]
    more = f" (and {len(items) - 1} more pod{'s' if len(items) > 2 else ''})" if len(items) > 1 else ""
    fit, nodes = simulation.fit_errors.get(pod, ("", {}))
    failed = "; ".join(f"{node}: {', '.join(reasons)}" for node, reasons in list(nodes.items())[:SHOWN_NODES])
    if len(nodes) > SHOWN_NODES:
        failed += f"; and {len(nodes) - SHOWN_NODES} more nodes"
    where = f"kube-scheduler: {fit} ({failed}); " if fit and failed else (f"kube-scheduler: {fit}; " if fit else "")
    return Why(KEPT, "no-room", "not all pods would schedule, " + " ".join(f"{k} => {v}" for k, v in items[:5]),
               f"pod {pod} would find no place{more}: {where}Karpenter: {error}",
               (("pods", dict(items)), ("pod", pod), ("kube_scheduler", fit or None),
                ("nodes", {n: list(r) for n, r in nodes.items()})))


def _not_cheaper(types, rows: list[int], reqs, price: float) -> Why:
    """Both prices: the candidates' and the cheapest replacement's (its dearest offering, the price
    Karpenter compares, as it cannot tell which offering a launch gets)."""
    cheapest = min((types.worst_launch_price(i, reqs) for i in rows), default=float("inf"))
    facts: list[tuple[str, object]] = [("price_per_hour", round(price, 6))]
    if cheapest == float("inf"):
        detail = f"it costs ${price:.4f}/h and no instance type could hold its pods"
        facts.append(("cheapest_replacement_per_hour", None))
    else:
        name = types.types[min(rows, key=lambda i: types.worst_launch_price(i, reqs))].name
        detail = f"it costs ${price:.4f}/h; the cheapest replacement, {name}, ${cheapest:.4f}/h"
        facts += [("cheapest_replacement_per_hour", round(cheapest, 6)), ("cheapest_replacement_type", name)]
    return Why(KEPT, "not-cheaper", "Can't replace with a cheaper node", detail, tuple(facts))


def _min_types(types, rows: list[int], reqs) -> int:
    """How many of the cheapest types minValues needs (SatisfiesMinValues' count)."""
    if not any(r.min_values is not None for r in reqs.values()):
        return 0
    for n in range(1, len(rows) + 1):
        if not types.min_values_shortfall(rows[:n], reqs):
            return n
    return len(rows)


def without_same_type(ctx, command: Command) -> Command | None:
    """Multi-node consolidation never replaces nodes with one of the same or a pricier type than the
    cheapest candidate whose type is among the options (filterOutSameInstanceType)."""
    replacement = command.replacements[0]
    types = ctx.types
    names = {types.types[i].name for i in replacement.rows}
    ceiling = float("inf")
    for c in command.candidates:
        if c.instance_type is not None and c.instance_type.name in names:
            ceiling = min(ceiling, c.price)
    rows = [i for i in replacement.rows if types.worst_launch_price(i, replacement.reqs) < ceiling]
    if not rows or types.min_values_shortfall(rows, replacement.reqs):
        return None
    replacement.rows = rows
    replacement.launch = choose(types, rows, replacement.reqs)
    return command
