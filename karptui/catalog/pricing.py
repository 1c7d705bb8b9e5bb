"""What the nodes of a cluster cost per hour, from a catalog's offerings."""

from __future__ import annotations

from collections.abc import Iterable

from ..model import Node
from .catalog import Catalog
from .types import Offering
from .wellknown import ON_DEMAND


def node_offering(node: Node, catalog: Catalog) -> Offering | None:
    """The offering the node is billed as (its type, zone and capacity type); None if unknown.

    Managed node groups report ON_DEMAND/SPOT (normalised by the model); nodes
    with no capacity-type label are priced as on-demand, as EC2 bills them. The
    offering says whether its price is an estimate (``price_estimated``).
    """
    return offering_of(catalog, node.instance_type, node.zone, node.capacity_type)


def offering_of(catalog: Catalog, instance_type: str | None, zone: str | None,
                capacity_type: str | None) -> Offering | None:
    """The offering a (type, zone, capacity type) is billed as -- a node's, or a launch Karpenter
    logged; no capacity type is on-demand, and a zone the catalog does not offer takes the type's
    price for that capacity type elsewhere. None if the catalog does not know the type."""
    found = catalog.get(instance_type) if instance_type else None
    if found is None:
        return None
    capacity_type = capacity_type or ON_DEMAND
    return found.offering(zone or "", capacity_type) or next(
        (o for o in found.offerings if o.capacity_type == capacity_type), None)


def node_price(node: Node, catalog: Catalog) -> float | None:
    """The node's offering price; None if unknown."""
    offering = node_offering(node, catalog)
    return offering.price if offering is not None else None


def hourly_cost(nodes: Iterable[Node], catalog: Catalog) -> tuple[float, int]:
    """Total hourly price of the nodes, and how many could not be priced (Fargate, unknown types)."""
    total, unpriced = 0.0, 0
    for node in nodes:
        price = node_price(node, catalog)
        if price is None:
            unpriced += 1
        else:
            total += price
    return round(total, 6), unpriced
