"""Services, as kube-scheduler reads them: the pods their selector picks.

kube-scheduler's default pod topology spread (and Karpenter's from v1.15, which mirrors it) counts
a pod's siblings through a selector it works out per pod, and the Services that select the pod
are part of it (see :mod:`karptui.sim.default_selector`). Nothing else of a Service matters here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .errors import ModelError
from .meta import KubeObject, meta_fields
from .fields import as_map


@dataclass(frozen=True, slots=True, kw_only=True)
class Service(KubeObject):
    KIND = "Service"
    # spec.selector; None when the Service has none (it then selects no pod, not every pod)
    selector: tuple[tuple[str, str], ...] | None = None

    def selects(self, labels: Mapping[str, str]) -> bool:
        """An empty selector selects every pod; none selects no pod."""
        return self.selector is not None and all(labels.get(k) == v for k, v in self.selector)


def build_service(obj: Mapping) -> Service:
    spec = as_map(obj.get("spec"), "spec")
    raw = spec.get("selector")
    selector = None
    if raw is not None:
        selector = as_map(raw, "spec.selector")
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in selector.items()):
            raise ModelError("spec.selector: every key and value must be a string")
        selector = tuple(sorted(selector.items()))
    return Service(**meta_fields(obj), selector=selector)
