"""Karpenter's requirement algebra: sets of allowed label values that can be intersected.

A requirement is a set of values, or the complement of one (NotIn, Exists),
optionally bounded (Gt/Lt). NodeClaims start from their NodePool's
requirements and are narrowed by every pod packed into them; instance types
and offerings must stay compatible with what is left.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ...model.selectors import DOES_NOT_EXIST, EXISTS, GT, IN, LT, NOT_IN, Requirement

# Labels Karpenter knows the values of even when no requirement names them
# (scheduling.WellKnownLabels + the AWS provider's).
WELL_KNOWN = frozenset({
    "topology.kubernetes.io/zone", "topology.kubernetes.io/region", "node.kubernetes.io/instance-type",
    "kubernetes.io/arch", "kubernetes.io/os", "karpenter.sh/capacity-type", "karpenter.sh/nodepool",
    "node.kubernetes.io/windows-build", "topology.k8s.aws/zone-id",
})
WELL_KNOWN_PREFIXES = ("karpenter.k8s.aws/",)


def well_known(key: str) -> bool:
    return key in WELL_KNOWN or key.startswith(WELL_KNOWN_PREFIXES)


@dataclass(frozen=True)
class Req:
    """Allowed values for one key: ``values`` or, if ``complement``, anything but them."""

    key: str
    complement: bool
    values: frozenset[str] = frozenset()
    greater_than: int | None = None
    less_than: int | None = None
    min_values: int | None = None

    @classmethod
    def of(cls, r: Requirement) -> Req:
        op, values = r.operator, frozenset(r.values)
        if op == IN:
            return cls(r.key, False, values, min_values=r.min_values)
        if op == NOT_IN:
            return cls(r.key, True, values, min_values=r.min_values)
        if op == EXISTS:
            return cls(r.key, True, min_values=r.min_values)
        if op == DOES_NOT_EXIST:
            return cls(r.key, False)
        bound = int(r.values[0])
        return cls(r.key, True, greater_than=bound if op == GT else None, less_than=bound if op == LT else None)

    def _in_bounds(self, value: str) -> bool:
        if self.greater_than is None and self.less_than is None:
            return True
        try:
            number = int(value)
        except ValueError:
            return False
        return (self.greater_than is None or number > self.greater_than) and \
            (self.less_than is None or number < self.less_than)

    def has(self, value: str) -> bool:
        inside = value not in self.values if self.complement else value in self.values
        return inside and self._in_bounds(value)

    def intersect(self, other: Req) -> Req:
        gt = max((b for b in (self.greater_than, other.greater_than) if b is not None), default=None)
        lt = min((b for b in (self.less_than, other.less_than) if b is not None), default=None)
        mins = max((m for m in (self.min_values, other.min_values) if m is not None), default=None)
        if self.complement and other.complement:
            return Req(self.key, True, self.values | other.values, gt, lt, mins)
        if self.complement:
            values = frozenset(v for v in other.values if self.has(v))
        elif other.complement:
            values = frozenset(v for v in self.values if other.has(v))
        else:
            values = self.values & other.values
        bounded = Req(self.key, False, values, gt, lt)
        return Req(self.key, False, frozenset(v for v in values if bounded._in_bounds(v)), None, None, mins)

    @property
    def empty(self) -> bool:
        return not self.complement and not self.values

    def __str__(self) -> str:
        if self.complement:
            if self.greater_than is not None:
                return f"{self.key} Gt {self.greater_than}"
            if self.less_than is not None:
                return f"{self.key} Lt {self.less_than}"
            if not self.values:
                return f"{self.key} Exists"
            return f"{self.key} NotIn [{_listed(self.values)}]"
        if not self.values:
            return f"{self.key} DoesNotExist"
        return f"{self.key} In [{_listed(self.values)}]"


def _listed(values) -> str:
    """Karpenter prints at most five values, then "and N others"."""
    ordered = sorted(values)
    text = " ".join(ordered[:5])
    return text + (f" and {len(ordered) - 5} others" if len(ordered) > 5 else "")


class Reqs(Mapping[str, Req]):
    """A requirement per key; adding one for a key already present intersects them."""

    __slots__ = ("_reqs",)

    def __init__(self, reqs: Iterable[Req] = ()) -> None:
        self._reqs: dict[str, Req] = {}
        for req in reqs:
            self._add(req)

    @classmethod
    def from_model(cls, requirements: Iterable[Requirement]) -> Reqs:
        return cls(Req.of(r) for r in requirements)

    @classmethod
    def from_labels(cls, labels: Mapping[str, str]) -> Reqs:
        return cls(Req(k, False, frozenset((v,))) for k, v in labels.items())

    def _add(self, req: Req) -> None:
        present = self._reqs.get(req.key)
        self._reqs[req.key] = present.intersect(req) if present else req

    def plus(self, other: Iterable[Req]) -> Reqs:
        merged = Reqs(self._reqs.values())
        for req in other:
            merged._add(req)
        return merged

    def __getitem__(self, key: str) -> Req:
        return self._reqs[key]

    def get(self, key: str, default=None):  # the Mapping mixin's try/except is slow on this hot path
        return self._reqs.get(key, default)

    def __iter__(self):
        return iter(self._reqs)

    def __len__(self) -> int:
        return len(self._reqs)

    def compatible_error(self, pod: Reqs, why: bool = True) -> str | None:
        """Karpenter's Compatible: None, or why a pod's requirements cannot hold on this NodeClaim
        (with ``why`` False, just the key: formatting the values is the slow part)."""
        for key, wanted in pod._reqs.items():
            mine = self._reqs.get(key)
            if mine is None:
                if not wanted.complement and wanted.values and not well_known(key):
                    return f"label {key!r} does not have known values"
                continue
            if mine.intersect(wanted).empty and not (wanted.empty and mine.empty):
                return f"incompatible requirements, key {key}, {wanted} not in {mine}" if why else key
        return None

    def labels(self) -> dict[str, str]:
        """Labels a node launched from these requirements carries: every single-valued In."""
        return {k: next(iter(r.values)) for k, r in self._reqs.items() if not r.complement and len(r.values) == 1}

    def __str__(self) -> str:
        return ", ".join(str(self._reqs[k]) for k in sorted(self._reqs))
