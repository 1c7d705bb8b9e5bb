"""What the cluster costs: now, after Karpenter's launches, after its consolidation.

The one cost model of karptui: the TUI header, ``karptui simulate`` (table and
JSON) and the what-if panel all take their figures from here, so the same
cluster costs the same everywhere. Prices are the catalog's
(:mod:`karptui.catalog.pricing`), in USD per hour; a month is 730 hours (365 x
24 / 12, the month AWS prices its instances by).

A figure is *estimated* when a node in it has no price (Fargate, a type the
catalog does not know) or a price the catalog only estimates (a region it has
no price list for): such a figure is printed with a leading ``~`` wherever it
appears, and the JSON says ``"estimated": true``.

A figure is *discounted* when the catalog carries discounts (``--discounts``,
karptui.catalog.discounts): each node and launch is priced after its family's (or
the overall) discount, and the figure is printed with a trailing ``*``, explained
beside it; the JSON says ``"discounted": true``. Karpenter's own choices stay on list
prices (the simulator never reads the discount); the JSON keeps a launch's list
``price`` and adds ``price_after_discount``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..catalog.pricing import node_offering
from ..model import Node

HOURS_PER_MONTH = 730
ESTIMATED_MARK = "~"
DISCOUNT_MARK = "*"


@dataclass(frozen=True)
class Cost:
    """One figure: USD per hour, and whether any part of it is estimated."""

    hourly: float
    unpriced: int = 0          # nodes (or launches) with no price: counted as $0
    estimated_prices: int = 0  # prices the catalog estimates
    discounted: bool = False   # some price in it is after a discount (--discounts)

    @property
    def estimated(self) -> bool:
        return bool(self.unpriced or self.estimated_prices)

    @property
    def monthly(self) -> float:
        return self.hourly * HOURS_PER_MONTH

    def text(self) -> str:
        """``$2.320/h ($1,694/mo)``, with ``~`` before each amount when estimated, ``*`` after it
        when discounted."""
        mark = ESTIMATED_MARK if self.estimated else ""
        after = DISCOUNT_MARK if self.discounted else ""
        return f"{mark}${self.hourly:,.3f}/h{after} ({mark}${self.monthly:,.0f}/mo{after})"

    def rate_text(self, digits: int = 4) -> str:
        """``~$0.0960/h*``: the hourly figure alone, marked as :meth:`text` marks it."""
        if self.unpriced and not self.hourly:
            return "(unpriced)"
        mark = ESTIMATED_MARK if self.estimated else ""
        return f"{mark}${self.hourly:,.{digits}f}/h{DISCOUNT_MARK if self.discounted else ''}"

    def why_estimated(self) -> str:
        """``2 unpriced, 1 price estimated`` (empty when the figure is exact)."""
        parts = []
        if self.unpriced:
            parts.append(f"{self.unpriced} unpriced")
        if self.estimated_prices:
            parts.append(f"{self.estimated_prices} price{'s' if self.estimated_prices > 1 else ''} estimated")
        return ", ".join(parts)

    def to_dict(self) -> dict:
        out = {"hourly": round(self.hourly, 4), "monthly": round(self.monthly, 2), "estimated": self.estimated,
               "unpriced": self.unpriced, "estimated_prices": self.estimated_prices}
        if self.discounted:
            out["discounted"] = True
        return out

    @classmethod
    def from_dict(cls, doc: dict) -> Cost:
        """The figure back from :meth:`to_dict` (a JSON document's, as the CLI's table prints it)."""
        return cls(doc["hourly"], doc.get("unpriced", 0), doc.get("estimated_prices", 0), doc.get("discounted", False))

    def plus(self, hourly: float, unpriced: int = 0, estimated_prices: int = 0, discounted: bool = False) -> Cost:
        return Cost(round(self.hourly + hourly, 6), self.unpriced + unpriced, self.estimated_prices + estimated_prices,
                    self.discounted or discounted)


@dataclass(frozen=True)
class CostPath:
    """Now -> after provisioning -> after consolidation (a step is None when it was not simulated)."""

    now: Cost
    provisioned: Cost | None = None
    consolidated: Cost | None = None
    discount: str = ""   # what a discounted figure is after (Discounts.describe)

    @property
    def final(self) -> Cost:
        return self.consolidated or self.provisioned or self.now

    def steps(self) -> list[tuple[str, Cost]]:
        named = (("now", self.now), ("after provisioning", self.provisioned),
                 ("after consolidation", self.consolidated))
        return [(label, cost) for label, cost in named if cost is not None]

    def line(self, arrow: str = "->", changes_only: bool = False) -> str:
        """``now $2.320/h ($1,694/mo) -> after provisioning $2.771/h ($2,023/mo)``, and why a figure is
        estimated (``~: 2 unpriced``); ``changes_only`` leaves out a step that changes nothing (a header)."""
        steps, shown = self.steps(), []
        for i, (label, cost) in enumerate(steps):
            if not (changes_only and i and cost.hourly == steps[i - 1][1].hourly):
                shown.append(f"{label} {cost.text()}")
        why = self.final.why_estimated()
        text = f" {arrow} ".join(shown) + (f" ({ESTIMATED_MARK}: {why})" if why else "")
        return text + (f" ({DISCOUNT_MARK}: {discount_note(self.discount)})" if self.final.discounted else "")

    def to_dict(self) -> dict:
        return {"hours_per_month": HOURS_PER_MONTH, "now": self.now.to_dict(),
                **({"discount": self.discount} if self.discount else {}),
                "after_provisioning": self.provisioned.to_dict() if self.provisioned else None,
                "after_consolidation": self.consolidated.to_dict() if self.consolidated else None}


def signed(amount: float, places: int = 3) -> str:
    """``+$0.451``, ``-$1,200``: a change in dollars with its sign first."""
    return f"{'-' if amount < 0 else '+'}${abs(amount):,.{places}f}"


def discount_note(discount: str) -> str:
    """What the ``*`` mark means, for a legend: ``after discount (10% overall, m5 28%)``."""
    return f"after discount ({discount})" if discount else "after discount"


def price_cost(price: float | None, instance_type: str | None, catalog, estimated: bool = False) -> Cost:
    """A list price (of a node's offering, of a launch) as the user is shown it: after the catalog's
    discount for its instance family, if any (marked), unpriced when None."""
    if price is None:
        return Cost(0.0, unpriced=1)
    discounts = getattr(catalog, "discounts", None)
    if discounts is not None and discounts.rate(instance_type):
        return Cost(round(discounts.apply(price, instance_type), 6), estimated_prices=int(estimated), discounted=True)
    return Cost(price, estimated_prices=int(estimated))


def launch_cost(launch, catalog) -> Cost:
    """A simulated launch's price (a Launch or its ``to_dict()``), after discount."""
    if launch is None:
        return Cost(0.0, unpriced=1)
    get = launch.get if isinstance(launch, dict) else lambda key: getattr(launch, key, None)
    return price_cost(get("price"), get("instance_type"), catalog, bool(get("price_estimated")))


def discount_of(catalog) -> str:
    """The catalog's discounts as a CostPath says them ("" when none)."""
    discounts = getattr(catalog, "discounts", None)
    return discounts.describe() if discounts is not None else ""


def node_cost(node: Node, catalog) -> Cost:
    """One node's price per hour as a :class:`Cost` (unpriced, or an estimated price, is marked; a
    discounted one too)."""
    offering = node_offering(node, catalog)
    if offering is None or offering.price is None:
        return Cost(0.0, unpriced=1)
    return price_cost(offering.price, node.instance_type, catalog, bool(offering.price_estimated))


def cost_now(nodes: Iterable[Node], catalog) -> Cost:
    """What the nodes cost per hour as they are."""
    return node_costs_total(node_cost(node, catalog) for node in nodes)


def node_costs_total(costs: Iterable[Cost]) -> Cost:
    """The sum of several nodes' costs (a zone's, the cluster's)."""
    total, unpriced, estimated, discounted = 0.0, 0, 0, False
    for cost in costs:
        total += cost.hourly
        unpriced += cost.unpriced
        estimated += cost.estimated_prices
        discounted = discounted or cost.discounted
    return Cost(round(total, 6), unpriced, estimated, discounted)


def cost_path(result, catalog, now: Cost | None = None, consolidated: bool | None = None) -> CostPath:
    """The cluster's cost now, once Karpenter launches the simulated NodeClaims, and once it carries out
    the simulated disruptions (``consolidated``: whether consolidation was simulated; by default,
    whether it found anything). ``now``: the nodes' cost, when the caller already knows it. A
    cluster without NodePools or Provisioners has only ``now``."""
    now = now if now is not None else cost_now(result.snapshot.nodes, catalog)
    discount = discount_of(catalog)
    if not result.snapshot.nodepools:  # no Karpenter: nothing is provisioned or consolidated
        return CostPath(now, discount=discount)
    launches = node_costs_total(launch_cost(c.launch or {}, catalog) for c in result.nodeclaims)
    provisioned = now.plus(launches.hourly, launches.unpriced, launches.estimated_prices, launches.discounted)
    if consolidated is None:
        consolidated = bool(result.disruptions)
    after = None
    if consolidated:
        estimated = sum(1 for d in result.disruptions if d.replacement is not None and d.replacement.price_estimated)
        saved = [disruption_savings(d, result.snapshot, catalog) for d in result.disruptions]
        after = provisioned.plus(-sum(c.hourly for c in saved), 0, estimated, any(c.discounted for c in saved))
    return CostPath(now, provisioned, after, discount)


def disruption_savings(disruption, snapshot, catalog) -> Cost:
    """What a disruption saves per hour as the user is shown it: Karpenter's list-price savings, or
    with discounts the removed nodes' discounted prices less the replacement's."""
    if discount_of(catalog) == "":
        return Cost(disruption.savings)
    nodes = snapshot.node_by_name
    removed = node_costs_total(node_cost(nodes[name], catalog) for name in disruption.nodes if name in nodes)
    added = launch_cost(disruption.replacement, catalog) if disruption.replacement is not None else Cost(0.0)
    return Cost(round(removed.hourly - added.hourly, 6), discounted=removed.discounted or added.discounted)


def whatif_cost(baseline, result, catalog, consolidated: bool | None = None) -> dict:
    """A what-if's ``diff.hourly_cost``: the end of the path before and after the edits, as floats
    (``before``, ``after``) and as figures that say whether they are estimated (``cost_before``, ``cost_after``)."""
    before, after = (cost_path(run, catalog, consolidated=consolidated).final for run in (baseline, result))
    return {"before": round(before.hourly, 6), "after": round(after.hourly, 6),
            "cost_before": before.to_dict(), "cost_after": after.to_dict()}
