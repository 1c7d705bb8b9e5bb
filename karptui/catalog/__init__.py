"""Instance types and prices for the Karpenter simulation.

Either the bundled EC2 catalog (Karpenter's own labels, allocatable estimates
and static on-demand prices, offered in a region's zones) or a user's catalog
file. Imports neither textual nor kubernetes.
"""

from .bundled import (
    SPOT_RATIO, bundled_catalog, bundled_regions, catalog_from_snapshot_region, snapshot_region,
)
from .catalog import Catalog
from .node import instance_id, node_labels, node_manifest
from .types import InstanceType, Offering
from .wellknown import ON_DEMAND, RESERVED, SPOT, region_of_zone

# a catalog file's reader (and the YAML parser it needs) is loaded when first asked for: the bundled
# catalog, what ``simulate`` runs with unless told otherwise, needs neither
_FROM_FILE = ("load_catalog_file", "parse_catalog")


def __getattr__(name: str):
    if name in _FROM_FILE:
        from . import file

        return getattr(file, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def snapshot_catalog(snapshot, instance_types: str | None = None) -> Catalog:
    """The catalog a command simulates ``snapshot`` with: ``--instance-types FILE`` when given, else
    the bundled one offered in the snapshot's own region and zones."""
    if instance_types:
        from .file import load_catalog_file

        return load_catalog_file(instance_types)
    return catalog_from_snapshot_region(snapshot)


__all__ = [
    "Catalog", "InstanceType", "ON_DEMAND", "Offering", "RESERVED", "SPOT", "SPOT_RATIO",
    "bundled_catalog", "bundled_regions", "catalog_from_snapshot_region", "instance_id",
    "load_catalog_file", "node_labels", "node_manifest", "parse_catalog", "region_of_zone",
    "snapshot_catalog", "snapshot_region",
]
