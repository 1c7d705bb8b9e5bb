"""PodDisruptionBudget: what stops Karpenter (and kubectl drain) evicting pods."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .fields import as_int, as_map, as_str
from .meta import KubeObject, meta_fields
from .selectors import LabelSelector, parse_label_selector


@dataclass(frozen=True, slots=True, kw_only=True)
class PodDisruptionBudget(KubeObject):
    """``min_available`` / ``max_unavailable`` keep Kubernetes' int-or-percent text."""

    selector: LabelSelector | None
    min_available: str | None = None
    max_unavailable: str | None = None
    disruptions_allowed: int | None = None
    current_healthy: int | None = None
    desired_healthy: int | None = None
    expected_pods: int | None = None

    KIND = "PodDisruptionBudget"


def _int_or_percent(value: object, where: str) -> str | None:
    return None if value is None else as_str(value, where)


def build_pdb(obj: Mapping) -> PodDisruptionBudget:
    spec = as_map(obj.get("spec"), "spec")
    status = as_map(obj.get("status"), "status")
    return PodDisruptionBudget(
        **meta_fields(obj),
        selector=parse_label_selector(spec.get("selector"), "spec.selector"),
        min_available=_int_or_percent(spec.get("minAvailable"), "spec.minAvailable"),
        max_unavailable=_int_or_percent(spec.get("maxUnavailable"), "spec.maxUnavailable"),
        disruptions_allowed=as_int(status.get("disruptionsAllowed"), "status.disruptionsAllowed"),
        current_healthy=as_int(status.get("currentHealthy"), "status.currentHealthy"),
        desired_healthy=as_int(status.get("desiredHealthy"), "status.desiredHealthy"),
        expected_pods=as_int(status.get("expectedPods"), "status.expectedPods"),
    )
