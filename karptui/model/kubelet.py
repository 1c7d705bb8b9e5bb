"""Kubelet settings Karpenter passes to nodes it launches (they shape allocatable)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .fields import as_int, as_map, as_str_map
from .resources import EMPTY, Resources


@dataclass(frozen=True, slots=True)
class KubeletConfig:
    max_pods: int | None = None
    pods_per_core: int | None = None
    system_reserved: Resources = EMPTY
    kube_reserved: Resources = EMPTY
    eviction_hard: Mapping[str, str] | None = None


def parse_kubelet(raw: object, where: str) -> KubeletConfig | None:
    if raw is None:
        return None
    data = as_map(raw, where)
    return KubeletConfig(
        max_pods=as_int(data.get("maxPods"), f"{where}.maxPods"),
        pods_per_core=as_int(data.get("podsPerCore"), f"{where}.podsPerCore"),
        system_reserved=Resources.parse(data.get("systemReserved"), f"{where}.systemReserved"),
        kube_reserved=Resources.parse(data.get("kubeReserved"), f"{where}.kubeReserved"),
        eviction_hard=as_str_map(data.get("evictionHard"), f"{where}.evictionHard") or None,
    )
