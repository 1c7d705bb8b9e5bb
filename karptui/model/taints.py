"""Taints and tolerations with the matching rule of kube-scheduler."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .errors import ModelError
from .fields import as_int, as_list, as_map, as_str

NO_SCHEDULE, PREFER_NO_SCHEDULE, NO_EXECUTE = "NoSchedule", "PreferNoSchedule", "NoExecute"
EFFECTS = frozenset({NO_SCHEDULE, PREFER_NO_SCHEDULE, NO_EXECUTE})
BLOCKING_EFFECTS = frozenset({NO_SCHEDULE, NO_EXECUTE})
UNSCHEDULABLE_TAINT_KEY = "node.kubernetes.io/unschedulable"


@dataclass(frozen=True, slots=True)
class Taint:
    key: str
    value: str
    effect: str

    def __str__(self) -> str:
        # kube-scheduler's own rendering, e.g. {eks.amazonaws.com/compute-type: fargate}
        return f"{{{self.key}: {self.value}}}"

    def to_dict(self) -> dict:
        out = {"key": self.key, "effect": self.effect}
        if self.value:
            out["value"] = self.value
        return out


@dataclass(frozen=True, slots=True)
class Toleration:
    key: str = ""
    operator: str = "Equal"
    value: str = ""
    effect: str = ""
    toleration_seconds: int | None = None

    def tolerates(self, taint: Taint) -> bool:
        """v1.Toleration.ToleratesTaint."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if self.operator == "Exists":
            return True
        return self.value == taint.value  # Equal; an empty key needs Exists (validated upstream)

    def to_dict(self) -> dict:
        out: dict = {"operator": self.operator}
        for name, value in (("key", self.key), ("value", self.value), ("effect", self.effect)):
            if value:
                out[name] = value
        if self.toleration_seconds is not None:
            out["tolerationSeconds"] = self.toleration_seconds
        return out


def parse_taint(raw: object, where: str) -> Taint:
    data = as_map(raw, where)
    key = as_str(data.get("key"), f"{where}.key")
    effect = as_str(data.get("effect"), f"{where}.effect")
    if not key:
        raise ModelError(f"{where}.key: missing")
    if effect not in EFFECTS:
        raise ModelError(f"{where}.effect: {effect!r} is not NoSchedule, PreferNoSchedule or NoExecute")
    return Taint(key, as_str(data.get("value"), f"{where}.value"), effect)


def parse_taints(raw: object, where: str) -> tuple[Taint, ...]:
    return tuple(parse_taint(t, f"{where}[{i}]") for i, t in enumerate(as_list(raw, where)))


def parse_toleration(raw: object, where: str) -> Toleration:
    data = as_map(raw, where)
    operator = as_str(data.get("operator"), f"{where}.operator", "Equal") or "Equal"
    if operator not in ("Equal", "Exists"):
        raise ModelError(f"{where}.operator: {operator!r} is not Equal or Exists")
    return Toleration(
        key=as_str(data.get("key"), f"{where}.key"),
        operator=operator,
        value=as_str(data.get("value"), f"{where}.value"),
        effect=as_str(data.get("effect"), f"{where}.effect"),
        toleration_seconds=as_int(data.get("tolerationSeconds"), f"{where}.tolerationSeconds"),
    )


def parse_tolerations(raw: object, where: str) -> tuple[Toleration, ...]:
    return tuple(parse_toleration(t, f"{where}[{i}]") for i, t in enumerate(as_list(raw, where)))


def tolerated(taint: Taint, tolerations: Iterable[Toleration]) -> bool:
    return any(t.tolerates(taint) for t in tolerations)


def tolerates_all(taints: Iterable[Taint], tolerations: Iterable[Toleration]) -> bool:
    """Karpenter's Taints.Tolerates: every taint, whatever its effect, needs a toleration
    (kube-scheduler's filter looks only at NoSchedule and NoExecute)."""
    return first_untolerated(taints, tolerations, EFFECTS) is None


def first_untolerated(
    taints: Iterable[Taint], tolerations: Iterable[Toleration], effects: frozenset[str] = BLOCKING_EFFECTS
) -> Taint | None:
    """The first taint with one of ``effects`` that no toleration covers."""
    tolerations = tuple(tolerations)
    for taint in taints:
        if taint.effect in effects and not tolerated(taint, tolerations):
            return taint
    return None
