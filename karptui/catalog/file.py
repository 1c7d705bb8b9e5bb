"""User instance-type catalogs (``--instance-types FILE``, docs/catalog-files.md).

Sizes are capacities; ``overhead`` is subtracted to get allocatable (none: the
whole capacity is allocatable). ``ephemeralStorage`` defaults to 20Gi, the root
volume Karpenter gives AL2023 nodes, so pods asking for scratch space still fit;
``pods`` defaults to kubelet's 110. Well-known labels missing from ``labels`` are
derived from the name and size. Any mistake is one :class:`InputError` line
naming the file and the field, e.g. ``cat.yaml: instanceTypes[2] (m5.large).memory:
'8x' is not a quantity``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from ..errors import InputError
from ..model import labels as L
from ..model.errors import ModelError
from ..model.fields import as_bool_field, as_list, as_map, as_str, as_str_list, as_str_map
from ..model.quantity import to_millis, to_units
from ..model.resources import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, Resources
from ..sources.decode import read_text
from ..sources.json_stream import json_error
from ..sources.yaml_load import load
from .catalog import Catalog
from .repairpolicies import AWS_REPAIR_POLICIES, parse_repair_policies
from .types import InstanceType, Offering
from .wellknown import CAPACITY_TYPES, name_labels, region_of_zone, size_labels

DEFAULT_PODS = "110"
DEFAULT_EPHEMERAL_STORAGE = "20Gi"


def load_catalog_file(path: str | Path) -> Catalog:
    """The catalog in a YAML or JSON file (gzip allowed); :class:`InputError` if it is bad."""
    text = read_text(path, small=True)
    if text.lstrip()[:1] in ("{", "["):
        try:
            document = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise json_error(exc, text, str(path)) from None
    else:
        document = load(text, str(path))
    return parse_catalog(document, str(path))


def parse_catalog(document: object, source: str = "") -> Catalog:
    """A catalog from an already-parsed document; ``source`` names it in errors."""
    try:
        types = _types(document)
        policies = (parse_repair_policies(document["repairPolicies"]) if document.get("repairPolicies") is not None
                    else AWS_REPAIR_POLICIES)
    except ModelError as exc:
        raise InputError(source or None, " ".join(str(exc).split())) from None
    regions = {region_of_zone(o.zone) for t in types for o in t.offerings}
    return Catalog(tuple(types), region=regions.pop() if len(regions) == 1 else "", source=source,
                   repair_policies=policies)


def _types(document: object) -> list[InstanceType]:
    if not isinstance(document, Mapping) or not isinstance(document.get("instanceTypes"), list):
        raise ModelError("expected a map with an instanceTypes list")
    items = document["instanceTypes"]
    if not items:
        raise ModelError("instanceTypes: empty; list at least one instance type")
    types, seen = [], set()
    for i, raw in enumerate(items):
        kind = _instance_type(raw, f"instanceTypes[{i}]")
        if kind.name in seen:
            raise ModelError(f"instanceTypes[{i}]: duplicate name {kind.name!r}")
        seen.add(kind.name)
        types.append(kind)
    return types


def _instance_type(raw: object, where: str) -> InstanceType:
    data = as_map(raw, where)
    name = as_str(data.get("name"), f"{where}.name").strip()
    if not name:
        raise ModelError(f"{where}.name: missing")
    where = f"{where} ({name})"
    for key in (CPU, MEMORY):
        if data.get(key) in (None, ""):
            raise ModelError(f"{where}.{key}: missing")
    capacity = _amounts({
        CPU: data[CPU], MEMORY: data[MEMORY], PODS: data.get(PODS, DEFAULT_PODS),
        EPHEMERAL_STORAGE: data.get("ephemeralStorage", DEFAULT_EPHEMERAL_STORAGE),
    }, where, names={EPHEMERAL_STORAGE: "ephemeralStorage"})
    for key in (CPU, MEMORY):
        if capacity[key] == 0:
            raise ModelError(f"{where}.{key}: must be more than zero")
    capacity = capacity.override(_amounts(data.get("extendedResources"), f"{where}.extendedResources"))
    overhead = _amounts(data.get("overhead"), f"{where}.overhead")
    over = overhead.exceeding(capacity)
    if over:
        raise ModelError(f"{where}.overhead: {', '.join(over)} larger than the capacity")
    arch = as_str(data.get("arch"), f"{where}.arch", "amd64") or "amd64"
    os_raw = data.get("os")
    systems = (as_str(os_raw, f"{where}.os"),) if isinstance(os_raw, str) else as_str_list(os_raw, f"{where}.os")
    systems = systems or ("linux",)
    labels = {
        **name_labels(name), **size_labels(capacity[CPU], capacity[MEMORY]),
        L.ARCH: arch, L.OS: systems[0], L.INSTANCE_TYPE: name,
        **as_str_map(data.get("labels"), f"{where}.labels"),
    }
    offerings = _offerings(data.get("offerings"), f"{where}.offerings")
    return InstanceType(name, labels, capacity, capacity - overhead, offerings, labels[L.ARCH], systems,
                        _volume_limits(data.get("volumeLimits"), f"{where}.volumeLimits"))


def _volume_limits(raw: object, where: str) -> dict[str, int]:
    """CSI driver -> volume count, each a whole number not below zero."""
    limits = {}
    for driver, value in as_map(raw, where).items():
        if type(value) is not int or value < 0:
            raise ModelError(f"{where}.{driver}: {value!r} is not a whole number of volumes")
        limits[str(driver)] = value
    return limits


def _amounts(raw: object, where: str, names: Mapping[str, str] | None = None) -> Resources:
    """Non-negative quantities; an error names the field as the file spells it."""
    amounts = {}
    for key, value in as_map(raw, where).items():
        key = str(key)
        field = f"{where}.{(names or {}).get(key, key)}"
        try:
            amount = to_millis(value) if key == CPU else to_units(value)
        except ModelError as exc:
            raise ModelError(f"{field}: {exc}") from None
        if amount < 0:
            raise ModelError(f"{field}: {value!r} is negative")
        amounts[key] = amount
    return Resources(amounts)


def _offerings(raw: object, where: str) -> tuple[Offering, ...]:
    items = as_list(raw, where)
    if not items:
        raise ModelError(f"{where}: missing; list at least one {{zone, capacityType}}")
    out, seen = [], set()
    for i, item in enumerate(items):
        at = f"{where}[{i}]"
        data = as_map(item, at)
        zone = as_str(data.get("zone"), f"{at}.zone").strip()
        capacity_type = as_str(data.get("capacityType"), f"{at}.capacityType").strip()
        if not zone:
            raise ModelError(f"{at}.zone: missing")
        if capacity_type not in CAPACITY_TYPES:
            raise ModelError(f"{at}.capacityType: {capacity_type!r} is not one of {', '.join(CAPACITY_TYPES)}")
        reservation_id, reservation_capacity = _reservation(data, capacity_type, at)
        # an offering may add resources to the type's capacity or overhead (Karpenter's CapacityOverride /
        # OverheadOverride): the same zone and capacity type then appear once per override
        capacity_override = (_amounts(data["capacityOverride"], f"{at}.capacityOverride")
                             if data.get("capacityOverride") is not None else None)
        overhead_override = (_amounts(data["overheadOverride"], f"{at}.overheadOverride")
                             if data.get("overheadOverride") is not None else None)
        key = (zone, capacity_type, reservation_id, capacity_override, overhead_override)
        if key in seen:
            raise ModelError(f"{at}: duplicate offering {zone} {capacity_type}"
                             + (f" {reservation_id}" if reservation_id else "")
                             + (" with the same overrides" if capacity_override or overhead_override else ""))
        seen.add(key)
        available = as_bool_field(data.get("available"), f"{at}.available", True)
        out.append(Offering(zone, capacity_type, _price(data.get("price"), f"{at}.price"), available,
                            reservation_id=reservation_id, reservation_capacity=reservation_capacity,
                            capacity_override=capacity_override or None, overhead_override=overhead_override))
    return tuple(out)


def _reservation(data, capacity_type: str, at: str) -> tuple[str | None, int | None]:
    """``reservationId`` and ``reservationCapacity`` of a reserved offering (both or neither)."""
    raw_id, raw_capacity = data.get("reservationId"), data.get("reservationCapacity")
    if raw_id is None and raw_capacity is None:
        return None, None
    if capacity_type != "reserved":
        raise ModelError(f"{at}: reservationId/reservationCapacity belong to a reserved offering, "
                         f"not {capacity_type}")
    reservation_id = as_str(raw_id, f"{at}.reservationId").strip()
    if not reservation_id:
        raise ModelError(f"{at}.reservationId: missing (a reserved offering with reservationCapacity names its reservation)")
    if raw_capacity is None:
        raise ModelError(f"{at}.reservationCapacity: missing (how many instances reservation {reservation_id} can still take)")
    if isinstance(raw_capacity, bool) or not isinstance(raw_capacity, int) or raw_capacity < 0:
        raise ModelError(f"{at}.reservationCapacity: {raw_capacity!r} is not a whole number of instances (0 or more)")
    return reservation_id, raw_capacity


def _price(raw: object, where: str) -> float | None:
    if raw is None:
        return None
    try:
        if isinstance(raw, bool):
            raise ValueError
        price = float(raw)
    except (TypeError, ValueError):
        raise ModelError(f"{where}: expected a number (USD per hour), got {raw!r}") from None
    if price != price or price in (float("inf"), float("-inf")):
        raise ModelError(f"{where}: expected a finite number, got {raw!r}")
    if price < 0:
        raise ModelError(f"{where}: {raw!r} is negative")
    return price
