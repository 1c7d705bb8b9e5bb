"""The instance catalog as Karpenter's scheduler sees it: requirements per type, and arrays.

Each type carries a requirement on every key the catalog knows: its name,
architecture, operating systems (all of them: a type that runs several OSes
allows each), the zones and capacity types of its available offerings, and
every label key any type of the catalog has — ``In [its value]``, or
``DoesNotExist`` when this type lacks the label (a GPU name on a CPU type).
Those keys are the cloud provider's well-known labels: a pod may require them
though no NodePool mentions them. Offerings carry their own (zone, capacity
type) requirement; a type is offered under some requirements when one of its
available offerings is compatible with them.

"An instance type meets these requirements" lives here and only here
(:meth:`TypeSet.compatible_mask`, :meth:`TypeSet.offered_mask`); the scheduler
filters thousands of types per pod, so the answers are numpy masks cached per
requirement.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from ...catalog import Catalog, InstanceType
from ...model import labels as L
from ...model.resources import PODS, Resources
from ...model.selectors import DOES_NOT_EXIST, NOT_IN
from .requirements import Req, Reqs
from .volumeusage import limit_error

CAPACITY_TYPE_ORDER = ("reserved", "spot", "on-demand")  # how Karpenter prices a launch: reserved, then spot
NEVER = float("inf")
SMALL = 2**62 - 1      # amounts within ±this add pairwise in int64 exactly (quantities saturate at 2**63-1)
VECTORS_KEPT = 4096    # resource lists remembered per TypeSet before starting over


@dataclass(frozen=True, slots=True)
class Vector:
    """Resource amounts as a row over a TypeSet's columns; ``unknown`` names a requested
    resource no type has (then nothing fits)."""

    values: np.ndarray
    unknown: str | None = None
    small: bool = True   # every amount within ±SMALL: two such rows add without overflow or saturation


class TypeSet:
    """One catalog's types, in catalog order, with requirement masks and resource arrays."""

    def __init__(self, catalog: Catalog) -> None:
        self.types: tuple[InstanceType, ...] = tuple(catalog)
        self.index = {t.name: i for i, t in enumerate(self.types)}
        self.label_keys = catalog.label_keys
        self.well_known = catalog.well_known
        interned: dict = {}
        self.reqs = tuple(self._type_reqs(t, interned) for t in self.types)
        self.keys = frozenset(k for r in self.reqs for k in r)
        columns = sorted({name for t in self.types for name in (*t.allocatable, *t.capacity)} | {PODS}
                         | {name for t in self.types for o in t.offerings if o.capacity_override
                            for name in o.capacity_override})
        self.columns = {name: i for i, name in enumerate(columns)}
        self.allocatable = np.array([[t.allocatable.get(c, 0) for c in columns] for t in self.types],
                                    dtype=np.int64).reshape(len(self.types), len(columns))
        self.capacity = np.array([[t.capacity.get(c, 0) for c in columns] for t in self.types],
                                 dtype=np.int64).reshape(len(self.types), len(columns))
        # types with offerings that override their capacity or overhead (Karpenter's AllocatableOfferingsList):
        # row -> ((allocatable row, its available offerings), ...); ``allocatable_max`` bounds every group's
        # room (the same array as ``allocatable`` when no type has such offerings)
        self.groups: dict[int, tuple[tuple[np.ndarray, tuple], ...]] = {
            i: tuple((np.array([alloc.get(c, 0) for c in columns], dtype=np.int64), offers)
                     for alloc, offers in t.allocatable_groups)
            for i, t in enumerate(self.types) if t.has_overrides}
        self.allocatable_max = self.allocatable
        if self.groups:
            self.allocatable_max = self.allocatable.copy()
            for i, groups in self.groups.items():
                self.allocatable_max[i] = np.max([g[0] for g in groups] + [self.allocatable[i]], axis=0)
        # the types' declared volume limits (v1.15 counts them on new NodeClaims: .volumeusage)
        self.volume_limits = tuple(t.volume_limits for t in self.types)
        self.has_volume_limits = any(self.volume_limits)
        self._masks: dict[Req, np.ndarray] = {}
        self._offered: dict[tuple, np.ndarray] = {}
        self._offering_table: tuple | None = None   # see _offerings
        self._vectors: dict[Resources, Vector] = {}
        self._prices: dict[tuple, dict[int, float]] = {}
        self._kinds: dict[tuple, frozenset[str]] = {}   # see capacity_types
        # launch.choose's answers per (rows, zone, capacity type, reservations held): the NodeClaims of
        # one workload end with the same options, and each walked every offering of hundreds of types
        self.launches: dict[tuple, object] = {}

    def _type_reqs(self, t: InstanceType, interned: dict) -> Reqs:
        """``interned``: one Req per (key, value) across the catalog — types share most label values
        (and every absent label), and a frozen dataclass is slow to build 37,000 times."""
        labels = {k: v for k, v in t.labels.items() if k != L.HOSTNAME}
        reqs = [interned.get((k, v)) or interned.setdefault((k, v), Req.one(k, v))
                for k, v in labels.items() if k != L.OS]
        reqs += [interned.get(k) or interned.setdefault(k, Req(k, False)) for k in self.label_keys - labels.keys()]
        available = [o for o in t.offerings if o.available]
        regions = {o.region for o in available} - {""}   # the region label its offerings give
        for key, values in ((L.OS, t.os or (labels.get(L.OS, "linux"),)), (L.INSTANCE_TYPE, (t.name,)),
                            (L.ARCH, (t.arch,)), (L.ZONE, {o.zone for o in available}),
                            (L.CAPACITY_TYPE, {o.capacity_type for o in available}),
                            (L.REGION, regions if regions and L.REGION not in labels else None)):
            if values is None:
                continue
            values = frozenset(values)   # the same few zone, capacity-type and OS sets across the catalog
            req = interned.get((key, values))
            if req is None:
                req = interned[(key, values)] = Req(key, False, values)
            reqs.append(req)
        return Reqs(reqs)

    def volumes_fit(self, rows: np.ndarray, volumes) -> np.ndarray:
        """Over ``rows`` (TypeSet rows): the type can attach ``volumes`` (driver -> claims); a driver
        a type declares no limit for is not limited (filterInstanceTypesByVolumeLimits)."""
        limits = self.volume_limits
        return np.array([all(len(keys) <= limits[r].get(driver, len(keys)) for driver, keys in volumes.items())
                         for r in rows.tolist()], dtype=bool)

    def volume_limit_error(self, rows: np.ndarray, volumes) -> str:
        """Why no type of ``rows`` can take ``volumes``, naming a driver every type limits below them."""
        text = "would exceed volume limit for all instance type options"
        for driver, keys in sorted(volumes.items()):
            found = [self.volume_limits[r].get(driver) for r in rows.tolist()]
            if found and all(limit is not None and len(keys) > limit for limit in found):
                return limit_error(text, driver, len(keys), max(found))
        return text

    # ---- requirements ------------------------------------------------------------------
    def mask(self, req: Req) -> np.ndarray:
        """Types whose requirement on ``req.key`` intersects ``req`` (Karpenter's Intersects)."""
        found = self._masks.get(req)
        if found is None:
            loose = req.operator in (NOT_IN, DOES_NOT_EXIST)
            out = np.ones(len(self.types), dtype=bool)
            for i, reqs in enumerate(self.reqs):
                mine = reqs.get(req.key)
                if mine is None or mine.has_intersection(req):
                    continue
                if loose and mine.operator in (NOT_IN, DOES_NOT_EXIST):
                    continue
                out[i] = False
            found = self._masks[req] = out
        return found

    def compatible_mask(self, reqs: Reqs, keys: Iterable[str] | None = None) -> np.ndarray:
        """Types compatible with ``reqs`` (only ``keys`` of them, if given)."""
        out = np.ones(len(self.types), dtype=bool)
        for key in reqs if keys is None else keys:
            if key in self.keys:
                out &= self.mask(reqs[key])
        return out

    def offered_mask(self, reqs: Reqs) -> np.ndarray:
        """Types with an available offering whose zone and capacity type ``reqs`` allow."""
        zone, kind = reqs.get(L.ZONE), reqs.get(L.CAPACITY_TYPE)
        found = self._offered.get((zone, kind))
        if found is None:
            # each distinct zone and capacity type asked once, then every available offering at once:
            # an offering_allowed call per offering was 13,000 calls per NodePool over 1,363 types
            rows, zones, kinds, zone_names, kind_names = self._offerings()
            zone_ok = np.array([_allows(zone, z) for z in zone_names], dtype=bool)
            kind_ok = np.array([_allows(kind, c) for c in kind_names], dtype=bool)
            allowed = zone_ok[zones] & kind_ok[kinds]
            found = self._offered[(zone, kind)] = np.bincount(rows[allowed], minlength=len(self.types)) > 0
        return found

    def _offerings(self) -> tuple:
        """Every available offering (offering_allowed's first condition) as (type row, zone number,
        capacity-type number), with the zones' and capacity types' names: made on first use."""
        if self._offering_table is None:
            rows, zones, kinds = [], [], []
            zone_of: dict[str, int] = {}
            kind_of: dict[str, int] = {}
            for i, t in enumerate(self.types):
                for o in t.offerings:
                    if o.available:
                        rows.append(i)
                        zones.append(zone_of.setdefault(o.zone, len(zone_of)))
                        kinds.append(kind_of.setdefault(o.capacity_type, len(kind_of)))
            self._offering_table = (np.array(rows, dtype=np.intp), np.array(zones, dtype=np.intp),
                                    np.array(kinds, dtype=np.intp), list(zone_of), list(kind_of))
        return self._offering_table

    # ---- resources ---------------------------------------------------------------------------
    def group_fits(self, type_rows: np.ndarray, fits: np.ndarray, need: np.ndarray, reqs: Reqs) -> np.ndarray:
        """``fits`` (the type's own allocatable against ``need``, one row per type row or one for all)
        decided again for types whose offerings override their allocatable: such a type fits when one of
        its groups has room and an offering ``reqs`` allow (Karpenter's ``fits``: resources and offering
        together, group by group)."""
        if not self.groups:
            return fits
        zone, kind = reqs.get(L.ZONE), reqs.get(L.CAPACITY_TYPE)
        out = fits
        for k, i in enumerate(type_rows.tolist()):
            groups = self.groups.get(i)
            if groups is None:
                continue
            if out is fits:
                out = fits.copy()
            row = need[k] if need.ndim == 2 else need
            out[k] = any(bool((alloc >= row).all()) and any(offering_allowed(o, zone, kind) for o in offers)
                         for alloc, offers in groups)
        return out

    def vector(self, amounts: Mapping[str, int], remember: bool = False) -> Vector:
        """``amounts`` as a row (read-only). ``remember``: keep it per resource list — pods repeat a
        few sizes, and the same row object lets a NodeClaim keep its answer per size."""
        key = amounts if remember and isinstance(amounts, Resources) else None
        found = self._vectors.get(key) if key is not None else None
        if found is not None:
            return found
        row = np.zeros(len(self.columns), dtype=np.int64)
        unknown = None
        small = True
        for name, amount in amounts.items():
            if not -SMALL <= amount <= SMALL:
                small = False
            column = self.columns.get(name)
            if column is None:
                if amount > 0:
                    unknown = name
                continue
            row[column] = amount
        row.setflags(write=False)
        found = Vector(row, unknown, small)
        if key is not None:
            if len(self._vectors) >= VECTORS_KEPT:
                self._vectors.clear()
            self._vectors[key] = found
        return found

    # ---- prices ------------------------------------------------------------------------------
    def cheapest_price(self, i: int, reqs: Reqs) -> float:
        """The cheapest available offering of type ``i`` under ``reqs`` (unknown prices last)."""
        return self._cheapest(reqs)(i)

    def _cheapest(self, reqs: Reqs) -> Callable[[int], float]:
        """Type row -> its cheapest allowed price under ``reqs``' zone and capacity type, kept per
        pair of them: only those two keys matter, and every NodeClaim of every run sorted its
        types again (24,000 offering checks in a +1 replica what-if at 5,000 nodes)."""
        zone, kind = reqs.get(L.ZONE), reqs.get(L.CAPACITY_TYPE)
        known = self._prices.get((zone, kind))
        if known is None:
            if len(self._prices) >= VECTORS_KEPT:
                self._prices.clear()
            known = self._prices[(zone, kind)] = {}

        def price(i: int) -> float:
            found = known.get(i)
            if found is None:
                prices = [o.price for o in self.types[i].offerings
                          if offering_allowed(o, zone, kind) and o.price is not None]
                found = known[i] = min(prices) if prices else NEVER
            return found

        return price

    def worst_launch_price(self, i: int, reqs: Reqs) -> float:
        """What launching type ``i`` may cost at most: the dearest compatible offering of the
        first capacity type (reserved, spot, on-demand) that has one (Karpenter's WorstLaunchPrice)."""
        zone, kind = reqs.get(L.ZONE), reqs.get(L.CAPACITY_TYPE)
        offers = [o for o in self.types[i].offerings if offering_allowed(o, zone, kind)]
        for capacity_type in CAPACITY_TYPE_ORDER:
            prices = [o.price for o in offers if o.capacity_type == capacity_type]
            if prices:
                return NEVER if any(p is None for p in prices) else max(prices)
        return NEVER

    def by_price(self, rows: Iterable[int], reqs: Reqs) -> list[int]:
        """Karpenter's OrderByPrice: cheapest compatible offering first (stable on ties)."""
        return sorted(rows, key=self._cheapest(reqs))

    def capacity_types(self, rows: list[int], zone: Req | None, kind: Req | None,
                       reserved: frozenset[str]) -> frozenset[str]:
        """The capacity types of the available offerings of ``rows`` that ``zone`` and ``kind`` allow; a
        counted reservation only when it is one of ``reserved`` (it is launched into only by the
        NodeClaim holding it, .reservations). Kept per question: NodeClaims alike ask alike."""
        key = (tuple(rows), zone, kind, reserved)
        found = self._kinds.get(key)
        if found is None:
            from .reservations import tracked  # (reservations builds on this module)

            if len(self._kinds) >= VECTORS_KEPT:
                self._kinds.clear()
            found = self._kinds[key] = frozenset(
                o.capacity_type for i in rows for o in self.types[i].offerings
                if offering_allowed(o, zone, kind) and not (tracked(o) and o.reservation_id not in reserved))
        return found

    def min_values_shortfall(self, rows: Iterable[int], reqs: Reqs) -> dict[str, int]:
        """Keys whose ``minValues`` the types in ``rows`` cannot meet -> how many values they have."""
        wanted = {k: r.min_values for k, r in reqs.items() if r.min_values is not None}
        if not wanted:
            return {}
        seen: dict[str, set[str]] = {k: set() for k in wanted}
        for i in rows:
            for key in wanted:
                mine = self.reqs[i].get(key)
                if mine is not None:
                    seen[key] |= mine.values
        return {k: len(seen[k]) for k, n in wanted.items() if len(seen[k]) < n}


def offering_allowed(offering, zone: Req | None, kind: Req | None) -> bool:
    """An available offering in a zone and of a capacity type the requirements allow (None: any);
    ``TypeSet.offered_mask`` asks the same of every offering at once."""
    return offering.available and _allows(zone, offering.zone) and _allows(kind, offering.capacity_type)


def _allows(req: Req | None, value: str) -> bool:
    return req is None or req.has(value)


_sets: dict[int, TypeSet] = {}


def type_set(catalog: Catalog) -> TypeSet:
    """The TypeSet of a catalog, built once per catalog object (by identity: hashing a
    catalog walks every type)."""
    key = id(catalog)
    found = _sets.get(key)
    if found is None:
        found = _sets[key] = TypeSet(catalog)
        weakref.finalize(catalog, _sets.pop, key, None)
    return found


def resources_text(resources: Mapping[str, int]) -> str:
    """Karpenter's rendering of a resource list: compact JSON, keys sorted."""
    import json

    return json.dumps(dict(sorted(Resources(resources).to_quantities().items())), separators=(",", ":"))
