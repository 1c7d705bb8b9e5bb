"""The catalog Karpenter's scheduler sees: feature gates and NodeOverlays applied, in one place.

Karpenter hands its scheduler instance types after two changes the cloud
provider's list does not carry:

- with the ``ReservedCapacity`` gate off, no ``reserved`` offering is used; before v1.15 a
  reserved offering whose reservation has no instance left is unavailable (.reservations);
- every offering in a zone the snapshot's events show under an ARC zonal shift is
  unavailable (.zonalshift);
- from v1.15 with the AWS gate ``NodeClassCEL``, the EC2NodeClass's kubelet CEL expressions set
  each type's pods and reservations (.nodeclass_cel);
- with the ``NodeOverlay`` gate on, each NodeOverlay (heaviest first, equal
  weights later names first) changes the offerings and capacity of the types it
  selects: an overlay's requirements are matched against the type's labels, the
  NodePool's name (``karpenter.sh/nodepool``) and its template labels, then its
  price or priceAdjustment goes to each offering whose zone and capacity type it
  allows, and its capacity adds extended resources. An offering or resource an
  earlier (heavier) overlay already set keeps that value; two overlays of equal
  weight that touch the same offering or resource conflict, and the later one is
  not applied (Karpenter marks it ``ValidationSucceeded=False``, reason Conflict).

Karpenter keeps one overlaid list per NodePool; karptui prices one catalog for
every NodePool, so an overlay that would change types for some NodePools and not
others is not applied, and a note says so.
"""

from __future__ import annotations

from dataclasses import replace

from ...catalog import Catalog
from ...catalog.types import Offering
from ...model import NodePool, Snapshot
from ...model import labels as L
from ...model.nodeoverlay import NodeOverlay, adjusted_price, by_weight
from .featuregates import FeatureGates
from .instancetypes import type_set
from .reservations import full_is_unavailable, tracked
from .requirements import Req, Reqs
from .versions import karpenter_version
from .zonalshift import shifted_zones
from .nodeclass_cel import with_expressions
from .settings import karpenter_settings

RESERVED = "reserved"


def karpenter_catalog(snapshot: Snapshot, catalog: Catalog, gates: FeatureGates) -> tuple[Catalog, list[str]]:
    """The catalog the simulator uses, and notes on what changed it or was left out."""
    notes: list[str] = []
    if not gates.ReservedCapacity and any(o.capacity_type == RESERVED for t in catalog for o in t.offerings):
        catalog = replace(catalog, types=tuple(
            replace(t, offerings=tuple(o for o in t.offerings if o.capacity_type != RESERVED)) for t in catalog))
        notes.append("ReservedCapacity feature gate is off: reserved offerings are not used")
    elif full_is_unavailable(karpenter_version(snapshot)) and any(
            tracked(o) and o.available and o.reservation_capacity == 0 for t in catalog for o in t.offerings):
        catalog = replace(catalog, types=tuple(
            replace(t, offerings=tuple(replace(o, available=False) if tracked(o) and o.reservation_capacity == 0
                                       else o for o in t.offerings)) for t in catalog))
    shifted = shifted_zones(snapshot)
    if shifted:
        catalog = replace(catalog, types=tuple(
            replace(t, offerings=tuple(replace(o, available=False) if o.zone in shifted else o for o in t.offerings))
            for t in catalog))
        notes += [f"zonal shift: no launch in {zone} ({why})" for zone, why in shifted.items()]
    pools = [p for p in snapshot.nodepools if p.deleted is None]
    catalog, told = with_expressions(snapshot, catalog, pools, karpenter_settings(snapshot).node_class_cel)
    notes += told
    if not snapshot.nodeoverlays:
        return catalog, notes
    if not gates.NodeOverlay:
        notes.append(f"{len(snapshot.nodeoverlays)} NodeOverlay(s) ignored: the NodeOverlay feature gate is off "
                     "(Karpenter's default; --feature-gates NodeOverlay=true applies them)")
        return catalog, notes
    return _overlaid(snapshot, catalog, notes), notes


def _overlaid(snapshot: Snapshot, catalog: Catalog, notes: list[str]) -> Catalog:
    types = type_set(catalog)
    pools = [p for p in snapshot.nodepools if p.deleted is None] or [None]
    prices: dict[tuple[int, int], tuple[str, int]] = {}      # (type row, offering) -> (change, weight)
    capacity: dict[tuple[int, str], tuple[int, int]] = {}   # (type row, resource) -> (amount, weight)
    for overlay in by_weight(snapshot.nodeoverlays):
        wanted = Reqs.from_model(overlay.requirements)
        footprints = _footprints(types, pools, wanted)
        if len(footprints) > 1:
            notes.append(f"NodeOverlay {overlay.name} not applied: it changes instance types for some NodePools "
                         "and not others (karptui prices one catalog for all NodePools)")
            continue
        selected = footprints.pop()
        if _conflicts(overlay, selected, prices, capacity):
            notes.append(f"NodeOverlay {overlay.name} not applied: conflict with another overlay of weight "
                         f"{overlay.weight}")
            continue
        for row, offerings in selected:
            if overlay.price_change:
                for k in offerings:
                    prices.setdefault((row, k), (overlay.price_change, overlay.weight))
            for name, amount in overlay.capacity.items():
                capacity.setdefault((row, name), (amount, overlay.weight))
    if not prices and not capacity:
        return catalog
    changed = []
    for row, t in enumerate(types.types):
        offerings = tuple(_priced(o, prices.get((row, k))) for k, o in enumerate(t.offerings))
        extra = {name: amount for (r, name), (amount, _) in capacity.items() if r == row}
        if extra:
            t = replace(t, capacity=t.capacity.override(extra), allocatable=t.allocatable.override(extra))
        changed.append(replace(t, offerings=offerings) if offerings != t.offerings else t)
    notes.append(f"NodeOverlays applied: {len(prices)} offering price(s), {len(capacity)} capacity override(s)")
    return replace(catalog, types=tuple(changed))


def _footprints(types, pools: list[NodePool | None], wanted: Reqs) -> set[frozenset[tuple[int, tuple[int, ...]]]]:
    """The distinct footprints (:func:`_footprint`) an overlay has over the NodePools.

    Whether requirements are compatible with ``wanted`` depends only on the keys ``wanted``
    names, so a NodePool's name and template labels count only where the overlay asks about
    them: NodePools that agree on those share one footprint (most overlays ask about no
    NodePool key, and have one footprint for all)."""
    keys = frozenset(wanted)
    by_extra: dict[tuple[Req, ...], None] = {}
    for pool in pools:
        extra = [Req.one(L.NODEPOOL, pool.name)] + [Req.one(k, v) for k, v in pool.template_labels.items()] \
            if pool is not None else []
        by_extra[tuple(r for r in extra if r.key in keys)] = None
    return {_footprint(types, extra, wanted, keys) for extra in by_extra}


def _footprint(types, extra: tuple[Req, ...], wanted: Reqs,
               keys: frozenset[str]) -> frozenset[tuple[int, tuple[int, ...]]]:
    """The types (rows) an overlay selects, with ``extra`` (a NodePool's requirements on the keys it
    asks about) added to each type's, each with the offerings it prices.

    Each type's requirements are cut to those keys first, and the answer found once per distinct
    cut (300 overlays over 800 types and 3 NodePools were 1.2 million full checks); an offering's
    answer is found once per zone and capacity type."""
    verdicts: dict[tuple, bool] = {}
    offered: dict[tuple[str, str], bool] = {}
    out = []
    columns = [[reqs.get(k) for reqs in types.reqs] for k in keys]
    for row, (t, cut) in enumerate(zip(types.types, zip(*columns) if columns else [()] * len(types.types))):
        fits = verdicts.get(cut)
        if fits is None:
            own = Reqs(r for r in cut if r is not None)
            fits = verdicts[cut] = (own.plus(extra) if extra else own).compatible(wanted, why=False) is None
        if not fits:
            continue
        offerings = []
        for k, o in enumerate(t.offerings):
            where = (o.zone, o.capacity_type)
            ok = offered.get(where)
            if ok is None:
                ok = offered[where] = Reqs.from_labels({L.ZONE: o.zone, L.CAPACITY_TYPE: o.capacity_type}) \
                    .intersects(wanted, why=False) is None
            if ok:
                offerings.append(k)
        if offerings:
            out.append((row, tuple(offerings)))
    return frozenset(out)


def _conflicts(overlay: NodeOverlay, selected, prices: dict, capacity: dict) -> bool:
    for row, offerings in selected:
        if overlay.price_change and any(prices.get((row, k), ("", None))[1] == overlay.weight for k in offerings):
            return True
        if any(capacity.get((row, name), (0, None))[1] == overlay.weight for name in overlay.capacity):
            return True
    return False


def _priced(offering: Offering, change: tuple[str, int] | None) -> Offering:
    if change is None:
        return offering
    if offering.price is None and change[0][0] in "+-":
        return offering  # nothing to adjust
    return replace(offering, price=adjusted_price(offering.price or 0.0, change[0]), price_estimated=False)
