"""A set of instance types: the bundled EC2 data for one region, or a user's file."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

from ..model import labels as L
from .repairpolicies import AWS_REPAIR_POLICIES
from .types import InstanceType
from .wellknown import region_of_zone


@dataclass(frozen=True)
class Catalog:
    """Immutable instance types in name order; ``source`` names where they came from.

    ``region`` is the region the offerings were built for, ``""`` when a file
    mixes regions or never says. ``discounts`` (``--discounts``, :mod:`.discounts`): what the cost
    model takes off the prices it shows; the simulated Karpenter never reads it.
    """

    types: tuple[InstanceType, ...] = ()
    region: str = ""
    source: str = ""
    discounts: object = field(default=None, compare=False)  # discounts.Discounts | None
    # the cloud provider's node repair policies (.repairpolicies): a file's ``repairPolicies:``, else AWS's
    repair_policies: tuple = field(default=AWS_REPAIR_POLICIES, compare=False)
    _by_name: dict[str, InstanceType] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_name", {t.name: t for t in self.types})

    def with_discounts(self, discounts) -> Catalog:
        """The same types and prices, with ``discounts`` for the cost model (None: none)."""
        return self if discounts is None else replace(self, discounts=discounts)

    def __len__(self) -> int:
        return len(self.types)

    def __iter__(self) -> Iterator[InstanceType]:
        return iter(self.types)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def get(self, name: str) -> InstanceType | None:
        return self._by_name.get(name)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.types)

    @cached_property
    def label_keys(self) -> frozenset[str]:
        """Every label key some type carries: the cloud provider's own well-known labels (a type
        lacking one of them has it as DoesNotExist)."""
        return frozenset(k for t in self.types for k in t.labels) - {L.HOSTNAME}

    @cached_property
    def well_known(self) -> frozenset[str]:
        """Keys Karpenter knows the values of without a NodePool naming them: its own set and the
        provider's (this catalog's label keys). The one answer every caller uses."""
        return L.WELL_KNOWN | self.label_keys

    @cached_property
    def zones(self) -> tuple[str, ...]:
        """Every zone some type is available in, sorted."""
        return tuple(sorted({z for t in self.types for z in t.zones}))

    def select(self, names: Iterable[str]) -> Catalog:
        """Only the named types (unknown names are skipped), order kept."""
        wanted = set(names)
        return replace(self, types=tuple(t for t in self.types if t.name in wanted))

    def for_region(self, region: str, zones: Sequence[str] | None = None) -> Catalog:
        """Offerings narrowed to ``zones``, or to the zones of ``region`` when none are given.

        Types keep their place with no offerings left, so ``get`` still finds
        a node's type even where it cannot be launched.
        """
        keep = set(zones) if zones else None

        def wanted(zone: str) -> bool:
            return zone in keep if keep is not None else region_of_zone(zone) == region

        types = tuple(replace(t, offerings=tuple(o for o in t.offerings if wanted(o.zone))) for t in self.types)
        return replace(self, types=types, region=region)


def zone_warnings(snapshot, catalog: Catalog) -> list[str]:
    """Zones the snapshot uses (its nodes, its NodePools' zone requirements) that no instance
    type of ``catalog`` is offered in: Karpenter could never launch there, so say so."""
    offered = set(catalog.zones)
    if not offered:
        return []
    where: dict[str, list[str]] = {}
    for node in snapshot.nodes:
        if node.zone and node.zone not in offered:
            where.setdefault(node.zone, []).append(f"Node {node.name}")
    for pool in snapshot.nodepools:
        for req in pool.requirements:
            if req.key in (L.ZONE, L.ZONE_BETA) and req.operator == "In":
                for zone in req.values:
                    if zone not in offered:
                        where.setdefault(zone, []).append(pool.ref)
    notes = []
    for zone, users in sorted(where.items()):
        more = f" and {len(users) - 3} more" if len(users) > 3 else ""
        source = f" {catalog.source}" if catalog.source else ""
        notes.append(f"zone {zone} ({', '.join(users[:3])}{more}): no instance type of the catalog{source} "
                     "is offered there")
    return notes
