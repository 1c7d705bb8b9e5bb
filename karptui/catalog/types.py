"""Instance types and their offerings, as a catalog holds them.

An *offering* is one (zone, capacity type) where a type can be launched, with
its hourly price. As in Karpenter, a type's zones and capacity types are those
of its available offerings. Whether a type meets a set of requirements is the
Karpenter simulation's question (``karptui.sim.karpenter.instancetypes``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ..model import labels as L
from ..model.resources import Resources
from .wellknown import region_of_zone


@dataclass(frozen=True, slots=True)
class Offering:
    """Where and how a type can be bought; ``price`` is USD per hour, ``None`` when unknown.

    A ``reserved`` offering may name its capacity reservation (``reservation_id``) and how many
    instances that reservation can still take (``reservation_capacity``): Karpenter's offering
    ``ReservationID`` / ``ReservationCapacity``, by which its scheduler stops packing NodeClaims into
    a reservation that is used up (``karptui.sim.karpenter.reservations``). Without an id the
    offering is not counted against anything.
    """

    zone: str
    capacity_type: str
    price: float | None
    available: bool = True
    price_estimated: bool = False
    reservation_id: str | None = None
    reservation_capacity: int | None = None
    # Karpenter's Offering CapacityOverride / OverheadOverride (core cloudprovider/types.go, from v1.14.0):
    # amounts added to the type's capacity and to its overhead when launched through this offering
    # (resources.Merge sums them), so the offering has its own allocatable (InstanceType.allocatable_groups)
    capacity_override: Resources | None = None
    overhead_override: Resources | None = None

    @property
    def overridden(self) -> bool:
        return bool(self.capacity_override) or self.overhead_override is not None

    @property
    def region(self) -> str:
        """The region its zone lies in ("" when the zone's name does not say)."""
        return region_of_zone(self.zone)

    @property
    def labels(self) -> dict[str, str]:
        """The node labels this offering decides."""
        out = {L.ZONE: self.zone, L.CAPACITY_TYPE: self.capacity_type}
        if self.reservation_id:
            out[L.CAPACITY_RESERVATION_ID] = self.reservation_id
        region = self.region
        if region:
            out[L.REGION] = region
        return out


@dataclass(frozen=True, slots=True)
class InstanceType:
    """One instance type: labels, raw size, Karpenter's allocatable estimate, offerings.

    ``capacity`` is what the node reports (for the bundled data, vCPUs and
    memory less the VM's share; resources the data gives no separate raw
    figure for, such as pods and devices, equal allocatable); ``allocatable`` is what pods may request once Karpenter's overhead
    (kube-reserved, system-reserved, eviction threshold, VM memory) is taken off.
    """

    name: str
    labels: Mapping[str, str]
    capacity: Resources
    allocatable: Resources
    offerings: tuple[Offering, ...] = ()
    arch: str = "amd64"
    os: tuple[str, ...] = ("linux",)
    # CSI driver -> the most volumes of it a node of this type attaches, where the catalog knows
    # (Karpenter v1.15's InstanceType.VolumeLimits); a driver not listed has no known limit
    volume_limits: Mapping[str, int] = field(default_factory=dict)

    def __hash__(self) -> int:  # labels is a plain dict; name and offerings identify a type
        return hash((self.name, self.offerings))

    def allocatable_with(self, offering: Offering) -> Resources:
        """What pods may request on a node launched through ``offering``: the type's allocatable, plus
        the offering's capacity override, less its overhead override."""
        if not offering.overridden:
            return self.allocatable
        return self.allocatable + (offering.capacity_override or Resources()) - (offering.overhead_override or Resources())

    @property
    def allocatable_groups(self) -> tuple[tuple[Resources, tuple[Offering, ...]], ...]:
        """The available offerings grouped by the allocatable they give, the type's own first (empty when
        every offering overrides it), as Karpenter's ``AllocatableOfferingsList``: an instance type fits
        a pod when one group both fits it and has an offering the requirements allow."""
        groups: dict[tuple, list] = {(None, None): [self.allocatable, []]}
        for offer in self.offerings:
            if not offer.available:
                continue
            key = (offer.capacity_override, offer.overhead_override) if offer.overridden else (None, None)
            groups.setdefault(key, [self.allocatable_with(offer), []])[1].append(offer)
        return tuple((alloc, tuple(offers)) for alloc, offers in groups.values())

    @property
    def has_overrides(self) -> bool:
        return any(o.overridden for o in self.offerings)

    @property
    def available_offerings(self) -> tuple[Offering, ...]:
        return tuple(o for o in self.offerings if o.available)

    @property
    def zones(self) -> frozenset[str]:
        return frozenset(o.zone for o in self.offerings if o.available)

    @property
    def capacity_types(self) -> frozenset[str]:
        return frozenset(o.capacity_type for o in self.offerings if o.available)

    @property
    def family(self) -> str:
        return self.labels.get(L.INSTANCE_FAMILY) or self.name.partition(".")[0]

    def offering(self, zone: str, capacity_type: str) -> Offering | None:
        """The available offering for a zone and capacity type, if any."""
        for offer in self.offerings:
            if offer.available and offer.zone == zone and offer.capacity_type == capacity_type:
                return offer
        return None
