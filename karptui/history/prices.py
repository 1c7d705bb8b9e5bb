"""A launched NodeClaim's price: the catalog's offering for its type, zone and capacity type, after discounts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from ..catalog import Catalog, bundled_catalog, region_of_zone
from ..catalog.pricing import offering_of


def catalog_for(zones: Iterable[str], catalog: Catalog | None = None, discounts=None) -> Catalog:
    """The catalog to price launches with: the user's (``--instance-types``), else the bundled one
    offered in the region and zones the log launched into."""
    if catalog is None:
        zones = [z for z in zones if z]
        regions = Counter(region_of_zone(z) for z in zones if region_of_zone(z))
        if regions:
            region = regions.most_common(1)[0][0]
            catalog = bundled_catalog(region, tuple(sorted({z for z in zones if region_of_zone(z) == region})))
        else:
            catalog = bundled_catalog()
    return catalog.with_discounts(discounts)


def price(catalog: Catalog, instance_type: str, zone: str, capacity_type: str) -> tuple[float | None, bool, bool]:
    """(USD per hour after discount, estimated, discounted); None when the catalog does not know the type."""
    offering = offering_of(catalog, instance_type, zone, capacity_type)
    if offering is None or offering.price is None:
        return None, False, False
    estimated = bool(offering.price_estimated) or not zone   # no zone: the region was a guess
    discounts = catalog.discounts
    if discounts is not None and discounts.rate(instance_type):
        return round(discounts.apply(offering.price, instance_type), 6), estimated, True
    return offering.price, estimated, False
