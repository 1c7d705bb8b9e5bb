"""Which instance Karpenter would launch for a NodeClaim, and what it would cost.

Karpenter hands the cloud provider the NodeClaim's instance types, cheapest
first; on AWS the fleet request takes a reserved offering when one is
allowed, else spot whenever the requirements allow spot, else on-demand, at
the lowest price among the compatible offerings. Unknown prices sort last.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...model import labels as L
from .instancetypes import TypeSet, offering_allowed
from .requirements import Reqs
from .reservations import tracked

PREFERENCE = {"reserved": 0, "spot": 1, "on-demand": 2}
LAUNCHES_KEPT = 4096   # answers kept per TypeSet before starting over
_UNKNOWN = object()


@dataclass(frozen=True)
class Launch:
    instance_type: str
    zone: str
    capacity_type: str
    price: float | None
    price_estimated: bool = False
    reservation_id: str | None = None

    def to_dict(self) -> dict:
        out = {"instance_type": self.instance_type, "zone": self.zone,
               "capacity_type": self.capacity_type, "price": self.price}
        if self.price_estimated:
            out["price_estimated"] = True
        if self.reservation_id:
            out["reservation_id"] = self.reservation_id
        return out


def _price_key(price: float | None) -> tuple:
    return (price is None, price or 0.0)


def choose(types: TypeSet, rows: list[int], reqs: Reqs) -> Launch | None:
    """The offering launched among ``rows`` (TypeSet rows) under ``reqs``, kept per question
    (``TypeSet.launches``: the NodeClaims of one workload ask the same one)."""
    zone, kind = reqs.get(L.ZONE), reqs.get(L.CAPACITY_TYPE)
    held = reqs.get(L.CAPACITY_RESERVATION_ID)  # a counted reservation only for the NodeClaim holding it
    key = (tuple(rows), zone, kind, held)
    known = types.launches
    found = known.get(key, _UNKNOWN)   # (None is an answer: nothing to launch)
    if found is _UNKNOWN:
        if len(known) >= LAUNCHES_KEPT:
            known.clear()
        found = known[key] = _choose(types, rows, zone, kind, held)
    return found


def _choose(types: TypeSet, rows: list[int], zone, kind, held) -> Launch | None:
    offers = [(types.types[i], o) for i in rows for o in types.types[i].offerings if offering_allowed(o, zone, kind)
              and (not tracked(o) or (held is not None and held.has(o.reservation_id)))]
    if not offers:
        return None
    best_kind = min(PREFERENCE.get(o.capacity_type, 3) for _, o in offers)
    offers = [(t, o) for t, o in offers if PREFERENCE.get(o.capacity_type, 3) == best_kind]
    t, o = min(offers, key=lambda pair: _price_key(pair[1].price) + (pair[0].name, pair[1].zone))
    return Launch(t.name, o.zone, o.capacity_type, o.price, o.price_estimated, o.reservation_id)
