"""Karpenter's ``--feature-gates`` (``FEATURE_GATES``), with the defaults v1.14 ships.

A run's gates are the caller's (``--feature-gates``), else those of the controller's Deployment in the
snapshot (:func:`karptui.sim.karpenter.settings.controller_gates`), else these defaults.

One frozen value the simulator reads instead of loose booleans, so a what-if
(``featureGates:``) and the CLI (``--feature-gates A=true,B=false``, Karpenter's
own syntax) set the same thing. What each gate changes in the simulation:

- ``SpotToSpotConsolidation``: consolidation may replace spot nodes with spot.
- ``ReservedCapacity`` (on by default since v1.3): ``reserved`` offerings exist;
  off, the catalog's reserved offerings are not offered.
- ``NodeOverlay``: NodeOverlays change instance prices and capacity; off (the
  default), Karpenter does not run the overlay controller and ignores them.
- ``StaticCapacity``: the static NodePool controllers run. Static NodePools take
  no part in dynamic provisioning or consolidation either way.
- ``NodeRepair``: node repair runs (:mod:`.repair`): the forceful controller before v1.15 (and with
  ``--legacy-node-repair``), the voluntary repair method from v1.15.
- ``CapacityBuffer``: the snapshot's CapacityBuffers make virtual pods the provisioner schedules and
  consolidation keeps room for (:mod:`.buffers`); off (the default), they are ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace


@dataclass(frozen=True, slots=True)
class FeatureGates:
    NodeRepair: bool = False
    ReservedCapacity: bool = True
    SpotToSpotConsolidation: bool = False
    NodeOverlay: bool = False
    StaticCapacity: bool = False
    CapacityBuffer: bool = False

    def with_(self, changes: Mapping[str, bool]) -> FeatureGates:
        """These gates with some set (names already checked by :func:`gate_values`)."""
        return replace(self, **dict(changes)) if changes else self

    def to_dict(self) -> dict[str, bool]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


GATE_NAMES: tuple[str, ...] = tuple(f.name for f in fields(FeatureGates))
DEFAULT_GATES = FeatureGates()


def gate_values(changes: Mapping[object, object]) -> dict[str, bool]:
    """Checked gate settings (known names, booleans); ``ValueError`` with one line otherwise."""
    out = {}
    for name, value in changes.items():
        if name not in GATE_NAMES:
            raise ValueError(f"unknown Karpenter feature gate {name!r} (known: {', '.join(GATE_NAMES)})")
        if not isinstance(value, bool):
            raise ValueError(f"feature gate {name} must be true or false, got {value!r}")
        out[name] = value
    return out


def parse_feature_gates(text: str | None, base: FeatureGates = DEFAULT_GATES) -> FeatureGates:
    """``A=true,B=false`` as Karpenter's flag reads it (Go's ParseBool spellings); unset gates keep ``base``."""
    changes: dict[str, object] = {}
    for item in filter(None, (part.strip() for part in (text or "").split(","))):
        name, sep, value = item.partition("=")
        parsed = _GO_BOOLS.get(value.strip()) if sep else None
        if parsed is None:
            raise ValueError(f"{item!r} is not NAME=true|false")
        changes[name.strip()] = parsed
    return base.with_(gate_values(changes))


# strconv.ParseBool, which Kubernetes' MapStringBool uses
_GO_BOOLS = {v: True for v in ("1", "t", "T", "TRUE", "true", "True")} | {
    v: False for v in ("0", "f", "F", "FALSE", "false", "False")}
