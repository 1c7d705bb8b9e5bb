"""Kubelet settings Karpenter passes to nodes it launches (they shape allocatable).

From v1.15 the AWS provider's EC2NodeClass lets ``maxPods`` be a string and a ``kubeReserved`` /
``systemReserved`` value be a non-quantity: a CEL expression evaluated per instance type
(aws#9326, behind ``NodeClassCEL``). The model keeps such values as text, apart from the static
ones; evaluating them is the simulator's (``karptui.sim.karpenter.nodeclass_cel``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .errors import ModelError
from .fields import as_int, as_map, as_str_map
from .quantity import to_millis, to_units
from .resources import CPU, EMPTY, Resources


@dataclass(frozen=True, slots=True)
class KubeletConfig:
    max_pods: int | None = None
    pods_per_core: int | None = None
    system_reserved: Resources = EMPTY
    kube_reserved: Resources = EMPTY
    eviction_hard: Mapping[str, str] | None = None
    max_pods_expression: str | None = None
    # resource -> CEL expression, for the entries that are not quantities
    kube_reserved_expressions: Mapping[str, str] = field(default_factory=dict)
    system_reserved_expressions: Mapping[str, str] = field(default_factory=dict)

    @property
    def has_expressions(self) -> bool:
        return bool(self.max_pods_expression or self.kube_reserved_expressions or self.system_reserved_expressions)


def _reserved(raw: object, where: str) -> tuple[Resources, dict[str, str]]:
    """Quantities, and the entries that are no quantity (CEL expressions, as the AWS provider reads them)."""
    static: dict[str, int] = {}
    expressions: dict[str, str] = {}
    for name, value in as_map(raw, where).items() if raw is not None else ():
        name = str(name)
        try:
            static[name] = to_millis(value) if name == CPU else to_units(value)
        except ModelError:
            if not isinstance(value, str) or not value.strip():
                raise ModelError(f"{where}.{name}: {value!r} is neither a quantity nor an expression") from None
            expressions[name] = value.strip()
    return (Resources(static) if static else EMPTY), expressions


def parse_kubelet(raw: object, where: str) -> KubeletConfig | None:
    if raw is None:
        return None
    data = as_map(raw, where)
    max_pods, expression = data.get("maxPods"), None
    if isinstance(max_pods, str) and not max_pods.strip().lstrip("+-").isdigit():
        if not max_pods.strip():
            raise ModelError(f"{where}.maxPods: empty")
        max_pods, expression = None, max_pods.strip()   # IntOrString: a string is an expression
    system_reserved, system_expressions = _reserved(data.get("systemReserved"), f"{where}.systemReserved")
    kube_reserved, kube_expressions = _reserved(data.get("kubeReserved"), f"{where}.kubeReserved")
    return KubeletConfig(
        max_pods=as_int(max_pods, f"{where}.maxPods"),
        pods_per_core=as_int(data.get("podsPerCore"), f"{where}.podsPerCore"),
        system_reserved=system_reserved,
        kube_reserved=kube_reserved,
        eviction_hard=as_str_map(data.get("evictionHard"), f"{where}.evictionHard") or None,
        max_pods_expression=expression,
        kube_reserved_expressions=kube_expressions,
        system_reserved_expressions=system_expressions,
    )
