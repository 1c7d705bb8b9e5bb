"""The bundled EC2 catalog (Karpenter's own figures) offered in one region's zones.

Prices. On-demand prices come from Karpenter's static table for the region; a
region the table lacks (us-west-2, eu-west-1, ap-northeast-2, ...) uses the
us-east-1 price, as Karpenter itself does until it reaches the Pricing API, and
such prices are marked ``price_estimated``. Types with no price at all stay
usable with ``price=None``.

Spot prices are not in the data (they move per zone and hour). Karpenter seeds
them with the on-demand price; karptui instead estimates spot as on-demand times
a long-run ratio per instance category, so spot-versus-on-demand decisions
(launch choice, consolidation savings) have a realistic direction. The ratios
below are rough typical discounts, not quotes, and every spot price is marked
``price_estimated``. ``spot_ratio=1.0`` reproduces Karpenter's seeding.

Capacity. ``cpu`` is the vCPU count; ``memory`` is Karpenter's estimate of what
the kubelet will report: the instance's memory less a 7.5% VM overhead share
(Karpenter's default ``vmMemoryOverheadPercent``), rounded as Karpenter rounds.
The raw size stays in the ``karpenter.k8s.aws/instance-memory`` label.

Offerings. Every type is offered in every given zone, on-demand and spot,
except the HPC category, which EC2 sells on-demand only.
"""

from __future__ import annotations

import gzip
import json
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING

from ..model import labels as L
from ..model.resources import CPU, MEMORY, Resources
from .catalog import Catalog
from .types import InstanceType, Offering
from .wellknown import INSTANCE_CATEGORY, ON_DEMAND, SPOT, region_of_zone

if TYPE_CHECKING:
    from ..model.snapshot import Snapshot

DATA_FILE = "ec2-instance-types.json.gz"
FALLBACK_REGION = "us-east-1"
DEFAULT_ZONE_SUFFIXES = ("a", "b", "c")

# Spot price as a fraction of on-demand, by karpenter.k8s.aws/instance-category.
SPOT_RATIO: Mapping[str, float] = {
    **dict.fromkeys(("m", "t", "a"), 0.36),                             # general purpose
    "c": 0.38,                                                          # compute optimised
    **dict.fromkeys(("r", "x", "z", "u"), 0.34),                        # memory optimised
    **dict.fromkeys(("i", "im", "is", "d", "h"), 0.32),                 # storage optimised
    **dict.fromkeys(("g", "gr", "p", "inf", "trn", "dl", "f", "vt"), 0.45),  # accelerated
}
DEFAULT_SPOT_RATIO = 0.40
NO_SPOT_CATEGORIES = frozenset({"hpc"})
VM_MEMORY_OVERHEAD = 0.075


def _memory_capacity(mib: int) -> int:
    """Bytes the node is expected to report for an instance with ``mib`` MiB."""
    return (mib - math.ceil(mib * VM_MEMORY_OVERHEAD)) * 2**20


@lru_cache(maxsize=1)
def _rows() -> tuple[tuple[InstanceType, Mapping[str, float]], ...]:
    """Each bundled type (without offerings) and its on-demand prices by region."""
    raw = resources.files(__package__).joinpath("data", DATA_FILE).read_bytes()
    document = json.loads(gzip.decompress(raw))
    rows = []
    for entry in document["types"]:
        allocatable = Resources.parse(entry["resources"], entry["name"])
        size = entry["capacity"]
        capacity = Resources({**allocatable, CPU: size["cpu"] * 1000, MEMORY: _memory_capacity(size["memoryMiB"])})
        labels = entry["labels"]
        kind = InstanceType(
            name=entry["name"], labels=labels, capacity=capacity, allocatable=allocatable,
            arch=labels.get(L.ARCH, "amd64"), os=(labels.get(L.OS, "linux"),),
        )
        rows.append((kind, entry["onDemandPrice"]))
    return tuple(rows)


def bundled_regions() -> tuple[str, ...]:
    """Regions Karpenter's static table prices directly."""
    return tuple(sorted({r for _, prices in _rows() for r in prices}))


def default_zones(region: str) -> tuple[str, ...]:
    return tuple(region + s for s in DEFAULT_ZONE_SUFFIXES)


def bundled_catalog(region: str = FALLBACK_REGION, zones: Sequence[str] = (),
                    spot_ratio: float | None = None) -> Catalog:
    """Every bundled type, offered on-demand and spot in each zone (``region`` a/b/c by default)."""
    return _bundled(region, tuple(zones) or default_zones(region), spot_ratio)


@lru_cache(maxsize=16)
def _bundled(region: str, zones: tuple[str, ...], spot_ratio: float | None) -> Catalog:
    types = []
    for kind, prices in _rows():
        price, estimated = prices.get(region), False
        if price is None and prices.get(FALLBACK_REGION) is not None:
            price, estimated = prices[FALLBACK_REGION], True
        category = kind.labels.get(INSTANCE_CATEGORY, "")
        ratio = spot_ratio if spot_ratio is not None else SPOT_RATIO.get(category, DEFAULT_SPOT_RATIO)
        spot = round(price * ratio, 4) if price is not None else None
        offerings = []
        for zone in zones:
            offerings.append(Offering(zone, ON_DEMAND, price, price_estimated=estimated))
            if category not in NO_SPOT_CATEGORIES:
                offerings.append(Offering(zone, SPOT, spot, price_estimated=spot is not None))
        types.append(InstanceType(kind.name, kind.labels, kind.capacity, kind.allocatable,
                                  tuple(offerings), kind.arch, kind.os))
    return Catalog(tuple(types), region=region, source="bundled")


def snapshot_region(snapshot: Snapshot) -> tuple[str, tuple[str, ...]]:
    """The cluster's region and zones, from node labels and NodePool zone requirements.

    A snapshot with no zone facts gets us-east-1 with zones a, b and c.
    """
    zones = {n.zone for n in snapshot.nodes if n.zone}
    regions = Counter(n.region or region_of_zone(n.zone) for n in snapshot.nodes)
    regions.pop("", None)
    region = regions.most_common(1)[0][0] if regions else ""
    for pool in snapshot.nodepools:
        for req in pool.requirements:
            if req.key == L.ZONE and req.operator == "In":
                zones.update(req.values)
    if not region:
        found = Counter(region_of_zone(z) for z in zones if region_of_zone(z))
        region = found.most_common(1)[0][0] if found else FALLBACK_REGION
    zones = {z for z in zones if region_of_zone(z) in ("", region)}
    return region, tuple(sorted(zones)) or default_zones(region)


def catalog_from_snapshot_region(snapshot: Snapshot, spot_ratio: float | None = None) -> Catalog:
    """The bundled catalog offered in the snapshot's own region and zones."""
    region, zones = snapshot_region(snapshot)
    return bundled_catalog(region, zones, spot_ratio)
