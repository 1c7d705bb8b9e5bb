"""Which instance Karpenter would launch for a NodeClaim, and what it would cost.

Karpenter hands the cloud provider the NodeClaim's remaining instance types
(the cheapest 60); on AWS the fleet request takes a spot offering whenever the
requirements allow spot, else on-demand, at the lowest price among the
compatible offerings. Unknown prices sort last.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...catalog import InstanceType
from .nodeclaim import MAX_INSTANCE_TYPES, NewClaim
from .templates import offering_ok

PREFERENCE = {"reserved": 0, "spot": 1, "on-demand": 2}


@dataclass(frozen=True)
class Launch:
    instance_type: str
    zone: str
    capacity_type: str
    price: float | None
    price_estimated: bool = False

    def to_dict(self) -> dict:
        out = {"instance_type": self.instance_type, "zone": self.zone,
               "capacity_type": self.capacity_type, "price": self.price}
        if self.price_estimated:
            out["price_estimated"] = True
        return out


def _price_key(price: float | None) -> tuple:
    return (price is None, price or 0.0)


def ranked_types(claim: NewClaim) -> list[InstanceType]:
    """The NodeClaim's instance types, cheapest compatible offering first, at most 60."""
    def cheapest(t: InstanceType) -> tuple:
        prices = [o.price for o in t.offerings if offering_ok(o, claim.reqs)]
        return min((_price_key(p) for p in prices), default=(True, 0.0)) + (t.name,)

    return sorted(claim.types, key=cheapest)[:MAX_INSTANCE_TYPES]


def choose(claim: NewClaim) -> Launch | None:
    offers = [(t, o) for t in ranked_types(claim) for o in t.offerings if offering_ok(o, claim.reqs)]
    if not offers:
        return None
    best_kind = min(PREFERENCE.get(o.capacity_type, 3) for _, o in offers)
    offers = [(t, o) for t, o in offers if PREFERENCE.get(o.capacity_type, 3) == best_kind]
    t, o = min(offers, key=lambda pair: _price_key(pair[1].price) + (pair[0].name, pair[1].zone))
    return Launch(t.name, o.zone, o.capacity_type, o.price, o.price_estimated)
