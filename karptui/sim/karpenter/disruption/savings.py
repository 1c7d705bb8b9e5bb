"""Karpenter's estimate of what a disruption command saves (its ``Command.EstimatedSavings``).

Karpenter does not know what a replacement will cost until it launches, so it estimates: the
command's candidates' prices, less, for each NodeClaim the command launches, the cheapest
offering of that NodeClaim's first instance type option (its options are sorted cheapest
first). A NodeClaim with no such offering adds nothing, so the estimate is then optimistic.
The figure matters twice: a Balanced NodePool scores a move by it (:mod:`.balanced`), and
Karpenter prints it in its disruption log lines and ConsolidationCandidate / Rejected events
(``(savings: $0.10)``), which is what an operator compares karptui's answer with.

Which offerings count changed between releases, so the rule asks :mod:`..versions`:

- before v1.14.0 every offering of the type counts, even one that cannot be bought now
  (``offerings.Cheapest()``, core ``pkg/controllers/disruption/types.go`` at v1.9.1);
- v1.14.0 counts only available offerings (``Available()``, added with Balanced scoring, #2962);
- from v1.14.1 only available offerings the NodeClaim's requirements allow
  (``Available().Compatible(nodeClaim.Requirements)``, #3217, cherry-picked into v1.14.1): an
  on-demand-only NodePool's spot price no longer leaks into the estimate, nor another zone's.

The estimate can differ from what the launch karptui predicts saves (``savings_per_hour``):
that one is the offering Karpenter would really launch.
"""

from __future__ import annotations

import math

from ....model import labels as L
from ..instancetypes import TypeSet
from ..versions import V1_14, V1_14_1, KarpenterVersion


def _counted(types: TypeSet, row: int, version: KarpenterVersion) -> list:
    """The offerings of type ``row`` a release before v1.14.1 prices a NodeClaim by (priced ones)."""
    offers = types.types[row].offerings
    return [o for o in offers if o.price is not None and (o.available or version < V1_14)]


def replacement_estimate(types: TypeSet, rows, reqs, version: KarpenterVersion) -> float:
    """What Karpenter takes one launched NodeClaim to cost: the cheapest counted offering of its
    first instance type option (``rows`` cheapest first), 0.0 when none is counted or priced."""
    if not len(rows):
        return 0.0
    first = int(rows[0])
    if version >= V1_14_1:
        price = types.cheapest_price(first, reqs)   # available and allowed by zone and capacity type
        return 0.0 if math.isinf(price) else price
    prices = [o.price for o in _counted(types, first, version)]
    return min(prices) if prices else 0.0


def estimated_savings(types: TypeSet, source_price: float, replacements, version: KarpenterVersion) -> float:
    """The command's estimated savings: ``source_price`` (its candidates' prices summed) less each
    replacement's estimate; ``replacements`` are (rows, requirements) pairs, none for a delete."""
    return source_price - sum(replacement_estimate(types, rows, reqs, version) for rows, reqs in replacements)


def leaked(types: TypeSet, rows, reqs, version: KarpenterVersion) -> str:
    """Why a release before v1.14.1 estimates a launched NodeClaim below what it may launch, in a few
    words ("a spot offering the NodeClaim cannot use"); "" when the estimate counts only what it may."""
    if version >= V1_14_1 or not len(rows):
        return ""
    if replacement_estimate(types, rows, reqs, version) >= replacement_estimate(types, rows, reqs, V1_14_1):
        return ""
    cheapest = min(_counted(types, int(rows[0]), version), key=lambda o: o.price)
    zone, kind = reqs.get(L.ZONE), reqs.get(L.CAPACITY_TYPE)
    if not cheapest.available:
        return f"a {cheapest.capacity_type} offering in {cheapest.zone} that cannot be bought now"
    if kind is not None and not kind.has(cheapest.capacity_type):
        return f"a {cheapest.capacity_type} offering the NodeClaim cannot use"
    if zone is not None and not zone.has(cheapest.zone):
        return f"an offering in {cheapest.zone}, a zone the NodeClaim cannot use"
    return "an offering the NodeClaim cannot use"
