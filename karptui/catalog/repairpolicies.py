"""The cloud provider's repair policies: which node conditions make a node unhealthy, and for how long
Karpenter tolerates each before node repair acts.

Karpenter asks its cloud provider (``CloudProvider.RepairPolicies()``); the instance catalog is
karptui's cloud provider, so a catalog file may list its own (``repairPolicies:``,
docs/catalog-files.md), and the bundled EC2 catalog answers with AWS's. AWS's list is the same at
aws/karpenter-provider-aws v1.9.2, v1.14.1 and ``main`` (2026-08-20), in
``pkg/cloudprovider/cloudprovider.go``: the kubelet's ``Ready`` condition False or Unknown, and the
EKS node monitoring agent's ``AcceleratedHardwareReady`` (10 minutes), ``StorageReady``,
``NetworkingReady``, ``KernelReady`` and ``ContainerRuntimeReady`` False (30 minutes otherwise).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..model.errors import ModelError
from ..model.fields import as_list, as_map, as_str, parse_duration

CONDITION_STATUSES = ("True", "False", "Unknown")


@dataclass(frozen=True, slots=True)
class RepairPolicy:
    """A node whose ``condition_type`` condition has been ``condition_status`` for ``toleration_seconds``
    is unhealthy enough to repair."""

    condition_type: str
    condition_status: str
    toleration_seconds: float

    def to_dict(self) -> dict:
        return {"conditionType": self.condition_type, "conditionStatus": self.condition_status,
                "tolerationSeconds": self.toleration_seconds}


_MINUTE = 60.0
AWS_REPAIR_POLICIES: tuple[RepairPolicy, ...] = (
    RepairPolicy("Ready", "False", 30 * _MINUTE),
    RepairPolicy("Ready", "Unknown", 30 * _MINUTE),
    RepairPolicy("AcceleratedHardwareReady", "False", 10 * _MINUTE),
    RepairPolicy("StorageReady", "False", 30 * _MINUTE),
    RepairPolicy("NetworkingReady", "False", 30 * _MINUTE),
    RepairPolicy("KernelReady", "False", 30 * _MINUTE),
    RepairPolicy("ContainerRuntimeReady", "False", 30 * _MINUTE),
)


def parse_repair_policies(raw: object, where: str = "repairPolicies") -> tuple[RepairPolicy, ...]:
    """A catalog file's ``repairPolicies:`` list; :class:`ModelError` naming the field otherwise."""
    out = []
    for i, item in enumerate(as_list(raw, where)):
        at = f"{where}[{i}]"
        data: Mapping = as_map(item, at)
        unknown = set(data) - {"conditionType", "conditionStatus", "tolerationDuration"}
        if unknown:
            raise ModelError(f"{at}: unknown keys {sorted(unknown)} (known: conditionType, conditionStatus, "
                             "tolerationDuration)")
        kind = as_str(data.get("conditionType"), f"{at}.conditionType").strip()
        if not kind:
            raise ModelError(f"{at}.conditionType: missing")
        status = as_str(data.get("conditionStatus"), f"{at}.conditionStatus")
        if status not in CONDITION_STATUSES:
            raise ModelError(f"{at}.conditionStatus: {status!r} is not one of {', '.join(CONDITION_STATUSES)}")
        toleration = data.get("tolerationDuration")
        if toleration is None:
            raise ModelError(f"{at}.tolerationDuration: missing (a duration, e.g. 30m)")
        seconds = parse_duration(toleration, f"{at}.tolerationDuration")
        if seconds is None:
            raise ModelError(f"{at}.tolerationDuration: {toleration!r} is not a duration")
        out.append(RepairPolicy(kind, status, float(seconds)))
    return tuple(out)
