"""Instance types and prices for the Karpenter simulation.

Either the bundled EC2 catalog (Karpenter's own labels, allocatable estimates
and static on-demand prices, offered in a region's zones) or a user's catalog
file. Imports neither textual nor kubernetes.
"""

from .bundled import (
    SPOT_RATIO, bundled_catalog, bundled_regions, catalog_from_snapshot_region, snapshot_region,
)
from .catalog import Catalog
from .file import load_catalog_file, parse_catalog
from .node import instance_id, node_labels, node_manifest
from .types import InstanceType, Offering
from .wellknown import ON_DEMAND, RESERVED, SPOT, region_of_zone



def snapshot_catalog(snapshot, instance_types: str | None = None) -> Catalog:
    """The catalog a command simulates ``snapshot`` with: ``--instance-types FILE`` when given, else
    the bundled one offered in the snapshot's own region and zones."""
    return load_catalog_file(instance_types) if instance_types else catalog_from_snapshot_region(snapshot)


__all__ = [
    "Catalog", "InstanceType", "ON_DEMAND", "Offering", "RESERVED", "SPOT", "SPOT_RATIO",
    "bundled_catalog", "bundled_regions", "catalog_from_snapshot_region", "instance_id",
    "load_catalog_file", "node_labels", "node_manifest", "parse_catalog", "region_of_zone",
    "snapshot_catalog", "snapshot_region",
]
