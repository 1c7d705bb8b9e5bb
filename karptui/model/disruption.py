"""PodDisruptionBudget: what stops Karpenter (and kubectl drain) evicting pods."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .errors import ModelError
from .fields import INT32_MAX, as_int, as_map, as_str
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
    # spec.unhealthyPodEvictionPolicy: IfHealthyBudget (the API's default) or AlwaysAllow
    unhealthy_pod_eviction_policy: str = "IfHealthyBudget"

    KIND = "PodDisruptionBudget"

    def evicts_regardless(self, pod) -> bool:
        """Whether the eviction API lets ``pod`` go whatever this PDB allows: its policy is AlwaysAllow
        and the pod's Ready condition is False (Karpenter's pdb.Limits reads it so before counting
        disruptions, kubernetes/kubernetes eviction.go likewise)."""
        return self.unhealthy_pod_eviction_policy == "AlwaysAllow" and pod.unready

    def selects(self, pod) -> bool:
        """Whether this PDB guards ``pod`` for the eviction API (and so for Karpenter): same
        namespace and the selector matches; policy/v1 reads an empty selector as every pod of the
        namespace, an absent one as none."""
        return self.selector is not None and pod.namespace == self.namespace and self.selector.matches(pod.labels)

    def selects_for_preemption(self, pod) -> bool:
        """kube-scheduler's preemption reads an empty selector as matching nothing."""
        return self.selector is not None and not self.selector.is_empty and self.selects(pod)

    def allowed(self, pods: Iterable) -> int:
        """disruptionsAllowed, worked out from the spec and the pods now bound (so a what-if on the
        PDB or its workload counts); the status is read only when the spec says neither.

        Every bound pod the PDB selects that is not finished counts as healthy: a simulation binds
        what it places, and a snapshot says nothing more about readiness than the phase.
        """
        return self.allowed_with(sum(1 for p in pods if self.healthy(p) and self.selects(p)))

    @staticmethod
    def healthy(pod) -> bool:
        """Whether a pod the PDB selects counts as healthy (bound and not finished)."""
        return bool(pod.node_name) and not pod.is_terminal

    def allowed_with(self, healthy: int) -> int:
        """disruptionsAllowed when ``healthy`` of the pods it selects are healthy (see :meth:`allowed`:
        a cluster-wide count can group pods by their labels and ask each PDB once per group)."""

        def scaled(value: str, up: bool) -> int:
            if value.endswith("%"):
                share = int(value[:-1]) * healthy / 100
                return math.ceil(share) if up else math.floor(share)
            return int(value)

        if self.min_available is not None:
            return max(0, healthy - scaled(self.min_available, True))
        if self.max_unavailable is not None:
            return max(0, healthy - (healthy - scaled(self.max_unavailable, True)))
        return self.disruptions_allowed if self.disruptions_allowed is not None else 1


def _int_or_percent(value: object, where: str) -> str | None:
    """Kubernetes' IntOrString for minAvailable / maxUnavailable: a non-negative int32 or a
    percentage up to 100% (what the API accepts); a digit string is taken as the count."""
    if value is None:
        return None
    text = as_str(value, where)
    if text.endswith("%"):
        ok = text[:-1].isascii() and text[:-1].isdigit() and int(text[:-1]) <= 100
    else:
        ok = text.isascii() and text.isdigit() and int(text) <= INT32_MAX
    if not ok:
        raise ModelError(f"{where}: {text!r} is not a count or a percentage up to 100% (the API refuses it)")
    return text


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
        unhealthy_pod_eviction_policy=as_str(spec.get("unhealthyPodEvictionPolicy"), "spec.unhealthyPodEvictionPolicy",
                                             "IfHealthyBudget") or "IfHealthyBudget",
    )
