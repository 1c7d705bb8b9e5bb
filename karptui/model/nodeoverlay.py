"""Karpenter's NodeOverlay (``karpenter.sh/v1alpha1``): a price or capacity change for some instance types.

An overlay selects instance types (and their offerings) by requirements on
well-known labels — instance type, zone, capacity type, the NodePool and its
template labels — and then sets a ``price``, adjusts it (``priceAdjustment``:
``+0.1``, ``-0.05``, ``+10%``, ``-15%``), or adds extended resources to their
capacity (``capacity``; cpu, memory, ephemeral-storage and pods are refused).
Higher ``weight`` wins; equal weights go in reverse name order. The API server
validates these fields with CEL; a snapshot may carry what it refused, so the
same rules are checked here and a bad overlay is skipped with one warning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import ModelError
from .fields import as_int, as_map, as_str
from .meta import KubeObject, meta_fields
from .resources import EMPTY, Resources
from .selectors import Requirement, parse_requirements

# the CRD's patterns, word for word in meaning
MAX_PRICE = 1e9  # dollars an hour, or percent: far beyond any offering, well within a float
_PRICE = re.compile(r"\d+(\.\d+)?")
_ADJUSTMENT = re.compile(r"[+-]\d*\.?\d+|\+\d*\.?\d+%|-\d{1,2}(\.\d+)?%|-100%")
STANDARD_RESOURCES = frozenset({"cpu", "memory", "ephemeral-storage", "pods"})


@dataclass(frozen=True, slots=True, kw_only=True)
class NodeOverlay(KubeObject):
    requirements: tuple[Requirement, ...] = ()
    price: str = ""                 # the CRD's string: an absolute hourly price
    price_adjustment: str = ""      # "+0.5", "-10%": relative to the offering's price
    capacity: Resources = EMPTY     # extended resources added to matching types
    weight: int = 0

    @property
    def price_change(self) -> str:
        """What Karpenter applies to a matching offering's price ("" when the overlay sets none)."""
        return self.price or self.price_adjustment


def adjusted_price(price: float, change: str) -> float:
    """An offering's price after an overlay (Karpenter's AdjustedPrice): a bare number replaces it,
    ``+x``/``-x`` adds, ``+x%``/``-x%`` scales."""
    if not change:
        return price
    if change[0] not in "+-":
        return float(change)
    if change.endswith("%"):
        return price * (1 + float(change[:-1]) / 100)
    return price + float(change)


def build_nodeoverlay(obj, api_version: str, kind: str) -> NodeOverlay:
    spec = as_map(obj.get("spec"), "spec")
    price = as_str(spec.get("price"), "spec.price")
    adjustment = as_str(spec.get("priceAdjustment"), "spec.priceAdjustment")
    if price and _PRICE.fullmatch(price) is None:
        raise ModelError(f"spec.price: {price!r} is not a non-negative decimal price")
    if adjustment and _ADJUSTMENT.fullmatch(adjustment) is None:
        raise ModelError(f"spec.priceAdjustment: {adjustment!r} is not +x, -x, +x% or -x% (at most -100%)")
    if price and adjustment:
        raise ModelError("spec: cannot set both 'price' and 'priceAdjustment'")
    for field, text in (("spec.price", price), ("spec.priceAdjustment", adjustment)):
        # 400 digits parse as infinity, and simulate -o json then printed Infinity (not JSON)
        if text and not abs(float(text.rstrip("%"))) < MAX_PRICE:
            raise ModelError(f"{field}: {text[:40]!r}{'…' if len(text) > 40 else ''} is beyond any price "
                             f"(at most {MAX_PRICE:g})")
    capacity = Resources.parse(spec.get("capacity"), "spec.capacity")
    standard = sorted(STANDARD_RESOURCES & set(capacity))
    if standard:
        raise ModelError(f"spec.capacity: {standard[0]} is restricted (an overlay only adds extended resources)")
    weight = as_int(spec.get("weight"), "spec.weight", 0)
    if weight and not 1 <= weight <= 10000:
        raise ModelError(f"spec.weight: {weight} is outside 1..10000")
    return NodeOverlay(
        **meta_fields(obj),
        requirements=parse_requirements(spec.get("requirements"), "spec.requirements"),
        price=price, price_adjustment=adjustment, capacity=capacity, weight=weight or 0,
    )


def by_weight(overlays) -> list[NodeOverlay]:
    """Karpenter's OrderByWeight: heaviest first, equal weights by name, later names first."""
    return sorted(sorted(overlays, key=lambda o: o.name, reverse=True), key=lambda o: -o.weight)
