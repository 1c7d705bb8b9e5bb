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
    instance_type = catalog.get(node.instance_type) if node.instance_type else None
    if instance_type is None:
        return None
    capacity_type = node.capacity_type or ON_DEMAND
    return instance_type.offering(node.zone, capacity_type) or next(
        (o for o in instance_type.offerings if o.capacity_type == capacity_type), None)


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
