"""Karpenter's requirement algebra: the values a label key may take, as a set to intersect.

A requirement is a set of values, or the complement of one (``NotIn``;
``Exists`` is the complement of nothing), optionally bounded: ``Gt``/``Lt``
become inclusive bounds (``Gt 3`` is ``>= 4``), ``Gte``/``Lte`` (NodePools
only) are bounds as written, and a bounded set admits only integers.
NodeClaims start from their NodePool's requirements and are narrowed by every
pod packed into them; instance types and offerings must stay compatible with
what is left. Keys are normalised first (``beta.kubernetes.io/arch`` is
``kubernetes.io/arch``), so aliases compare equal.

The rules follow Karpenter's ``pkg/scheduling`` (requirement.go, requirements.go);
the error texts keep its wording, which operators see in its logs.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import compress
from operator import ne

from ...model import labels as L
from ...model.selectors import DOES_NOT_EXIST, EXISTS, GT, GTE, IN, LT, LTE, NOT_IN, Requirement


@dataclass(frozen=True, slots=True)
class Req:
    """Allowed values for one key: ``values``, or if ``complement`` anything but them."""

    key: str
    complement: bool
    values: frozenset[str] = frozenset()
    gte: int | None = None
    lte: int | None = None
    min_values: int | None = None

    @classmethod
    def of(cls, r: Requirement) -> Req:
        return cls.make(r.key, r.operator, r.values, r.min_values)

    @classmethod
    def make(cls, key: str, operator: str, values: Iterable[str] = (), min_values: int | None = None) -> Req:
        key = L.NORMALIZED.get(key, key)
        values = tuple(values)
        if operator == IN:
            return cls(key, False, frozenset(values), min_values=min_values)
        if operator == NOT_IN:
            return cls(key, True, frozenset(values), min_values=min_values)
        if operator == EXISTS:
            return cls(key, True, min_values=min_values)
        if operator == DOES_NOT_EXIST:
            return cls(key, False, min_values=min_values)
        bound = int(values[0])
        if operator == GT:
            return cls(key, True, gte=bound + 1, min_values=min_values)
        if operator == LT:
            return cls(key, True, lte=bound - 1, min_values=min_values)
        if operator == GTE:
            return cls(key, True, gte=bound, min_values=min_values)
        if operator == LTE:
            return cls(key, True, lte=bound, min_values=min_values)
        raise ValueError(f"unknown operator {operator!r}")

    @classmethod
    def one(cls, key: str, value: str) -> Req:
        return cls(key, False, frozenset((value,)))

    @property
    def operator(self) -> str:
        if self.complement:
            return NOT_IN if self.values else EXISTS
        return IN if self.values else DOES_NOT_EXIST

    def has(self, value: str) -> bool:
        inside = (value not in self.values) if self.complement else (value in self.values)
        return inside and _within(value, self.gte, self.lte)

    def intersection(self, other: Req) -> Req:
        if self.gte is None and self.lte is None and other.gte is None and other.lte is None:
            mins = other.min_values if self.min_values is None else \
                self.min_values if other.min_values is None else max(self.min_values, other.min_values)
            if self.complement and other.complement:
                values = self.values | other.values
                complement = True
            elif self.complement:
                values, complement = other.values - self.values, False
            elif other.complement:
                values, complement = self.values - other.values, False
            else:
                values, complement = self.values & other.values, False
            # a side the other leaves as it was is the answer (a node's label against a pod's wider
            # requirement, nearly always): no new requirement to build on the scheduler's hot path
            if complement == self.complement and mins == self.min_values and len(values) == len(self.values):
                return self
            if complement == other.complement and mins == other.min_values and len(values) == len(other.values):
                return other
            return Req(self.key, complement, values, min_values=mins)
        gte = _max(self.gte, other.gte)
        lte = _min(self.lte, other.lte)
        mins = _max(self.min_values, other.min_values)
        if gte is not None and lte is not None and gte > lte:
            return Req(self.key, False, min_values=mins)
        complement = self.complement and other.complement
        if complement:
            values = self.values | other.values
        elif self.complement:
            values = other.values - self.values
        elif other.complement:
            values = self.values - other.values
        else:
            values = self.values & other.values
        if gte is not None or lte is not None:
            values = frozenset(v for v in values if _within(v, gte, lte))
        if not complement:
            gte = lte = None
        return Req(self.key, complement, values, gte, lte, mins)

    def has_intersection(self, other: Req) -> bool:
        if self.gte is None and self.lte is None and other.gte is None and other.lte is None:
            # no bounds (nearly always): set operations do it in C
            if self.complement:
                return True if other.complement else not other.values <= self.values
            if other.complement:
                return not self.values <= other.values
            return not self.values.isdisjoint(other.values)
        gte = _max(self.gte, other.gte)
        lte = _min(self.lte, other.lte)
        if gte is not None and lte is not None and gte > lte:
            return False
        if self.complement and other.complement:
            return True
        if self.complement:
            return any(v not in self.values and _within(v, gte, lte) for v in other.values)
        if other.complement:
            return any(v not in other.values and _within(v, gte, lte) for v in self.values)
        return any(v in other.values and _within(v, gte, lte) for v in self.values)

    @property
    def single(self) -> str | None:
        """The one value a concrete requirement allows, or None."""
        if self.complement or len(self.values) != 1:
            return None
        return next(iter(self.values))

    def __str__(self) -> str:
        op = self.operator
        if op in (EXISTS, DOES_NOT_EXIST):
            text = f"{self.key} {op}"
        else:
            ordered = sorted(self.values)
            if len(ordered) > 5:
                ordered = ordered[:5] + [f"and {len(self.values) - 5} others"]
            text = f"{self.key} {op} [{' '.join(ordered)}]"
        if self.gte is not None:
            text += f" >={self.gte}"
        if self.lte is not None:
            text += f" <={self.lte}"
        if self.min_values is not None:
            text += f" minValues {self.min_values}"
        return text


def _within(value: str, gte: int | None, lte: int | None) -> bool:
    if gte is None and lte is None:
        return True
    try:
        number = int(value)
    except ValueError:
        return False  # a bounded requirement admits integers only
    return (gte is None or number >= gte) and (lte is None or number <= lte)


def _max(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else max(a, b)


def _min(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else min(a, b)


# (label key, value) -> its requirement, as Reqs.from_labels makes it (Req is immutable); bounded, as
# every node's hostname is a label of its own
# a node kind (its label keys in order, and the values of the keys that have aliases) -> the labels and
# requirements of the first node of the kind seen (Reqs.from_node_labels)
_NODE_KINDS: dict[tuple, tuple[Mapping[str, str], Reqs]] = {}
_NODE_KINDS_KEPT = 1 << 14
# the label keys from_labels merges in pairs (beta.kubernetes.io/arch, kubernetes.io/arch, ...)
_ALIASED = tuple(sorted(set(L.NORMALIZED) | set(L.NORMALIZED.values())))
_LABEL_REQS: dict[tuple[str, str], Req] = {}
_LABEL_REQS_KEPT = 1 << 18


def _spellings() -> dict[str, tuple[str, ...]]:
    """Key -> the label keys read as it: itself, then its aliases (L.NORMALIZED)."""
    found: dict[str, tuple[str, ...]] = {}
    for alias, key in L.NORMALIZED.items():
        found[key] = found.get(key, (key,)) + (alias,)
    return found


_SPELLINGS = _spellings()


def label_keys(keys: Iterable[str]) -> tuple[str, ...]:
    """The label keys whose values requirements on ``keys`` read: each key and the aliases
    :meth:`Req.make` reads as it. Requirements from labels restricted to these answer a question about
    ``keys`` as requirements from every label do (see NodeMasks.admitted)."""
    return tuple(spelling for key in keys for spelling in _SPELLINGS.get(key, (key,)))


class Reqs(Mapping[str, Req]):
    """A requirement per key; adding one for a key already present intersects them.

    Immutable: ``plus`` returns a new set, so a NodeClaim can try a pod and keep
    its old requirements when the pod does not fit.
    """

    __slots__ = ("_reqs", "_hash")

    def __init__(self, reqs: Iterable[Req] = ()) -> None:
        self._reqs: dict[str, Req] = {}
        self._hash: int | None = None
        for req in reqs:
            present = self._reqs.get(req.key)
            self._reqs[req.key] = req.intersection(present) if present is not None else req

    @classmethod
    def from_model(cls, requirements: Iterable[Requirement]) -> Reqs:
        return cls(Req.of(r) for r in requirements)

    @classmethod
    def from_labels(cls, labels: Mapping[str, str]) -> Reqs:
        """Each label as a one-value ``In``; the Req of a label seen before is the same object
        (a cluster's nodes repeat the same few zones, types and pools: 5,000 nodes' 140,000
        labels built 140,000 requirements, 3 s of a 5,000-node simulation's setup)."""
        made = Reqs.__new__(Reqs)
        made._hash = None
        reqs = made._reqs = {}
        known = _LABEL_REQS.get
        for label in labels.items():
            req = known(label)
            if req is None:
                req = Req.make(label[0], IN, (label[1],))
                if len(_LABEL_REQS) < _LABEL_REQS_KEPT:
                    _LABEL_REQS[label] = req
            key = req.key
            if key in reqs:  # an alias of a key already read (beta.kubernetes.io/arch, kubernetes.io/arch)
                reqs[key] = req.intersection(reqs[key])
            else:
                reqs[key] = req
        return made

    @classmethod
    def from_node_labels(cls, labels: Mapping[str, str]) -> Reqs:
        """:meth:`from_labels` for a node, from the first node of its kind.

        Nodes of one NodePool, instance type and zone carry the same label keys, and the same values
        but for a few that are each node's own (its hostname, the network-node-layer labels of EC2's
        topology): their requirements differ in those keys alone. Reading every label of every node
        (aliases intersected) was a third of setting up Karpenter's view of 5,000 nodes; a node of a
        kind seen before copies that kind's requirements (key for key, in the same order) and puts
        its own value in for each label whose value differs. The keys that have an alias are part of
        the kind (their requirement is two labels' intersection): only plain labels are put in."""
        kind = (tuple(labels), tuple(map(labels.get, _ALIASED)))
        found = _NODE_KINDS.get(kind)
        if found is None:
            made = cls.from_labels(labels)
            if len(_NODE_KINDS) < _NODE_KINDS_KEPT:
                _NODE_KINDS[kind] = (labels, made)
            return made
        first, reqs = found
        made = Reqs.__new__(Reqs)
        made._hash = None
        own = made._reqs = dict(reqs._reqs)
        # the same keys in the same order (they are the kind): the values compared pair by pair, and
        # each that differs put in as Req.make would (a plain key is its own normalised key)
        for key in compress(first, map(ne, labels.values(), first.values())):
            own[key] = Req(key, False, frozenset((labels[key],)))
        return made

    def plus(self, other: Iterable[Req]) -> Reqs:
        merged = Reqs.__new__(Reqs)
        merged._reqs = dict(self._reqs)
        merged._hash = None
        for req in other:
            present = merged._reqs.get(req.key)
            merged._reqs[req.key] = req.intersection(present) if present is not None else req
        return merged

    def replacing(self, req: Req) -> Reqs:
        """These requirements with ``req`` in place of the one on its key (not intersected; the key
        keeps its place, or is added last)."""
        made = Reqs.__new__(Reqs)
        made._reqs = dict(self._reqs)
        made._reqs[req.key] = req
        made._hash = None
        return made

    def without(self, key: str) -> Reqs:
        return Reqs(r for k, r in self._reqs.items() if k != key)

    def __getitem__(self, key: str) -> Req:
        return self._reqs[key]

    def get(self, key: str, default=None):  # the Mapping mixin's try/except is slow on this hot path
        return self._reqs.get(key, default)

    def get_or_exists(self, key: str) -> Req:
        """Karpenter's Get: an undefined key allows any value."""
        found = self._reqs.get(key)
        return found if found is not None else Req(key, True)

    def __iter__(self) -> Iterator[str]:
        return iter(self._reqs)

    def __len__(self) -> int:
        return len(self._reqs)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Reqs) and self._reqs == other._reqs

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self._reqs.values()))
        return self._hash

    def values(self):
        return self._reqs.values()

    def items(self):  # the Mapping mixin's view looks every key up again, on the scheduler's hot path
        return self._reqs.items()

    def compatible(self, other: Reqs, allow_undefined: frozenset[str] | set[str] = frozenset(),
                   why: bool = True) -> str | None:
        """Karpenter's Compatible: None, or why ``other`` (a pod's) cannot hold here.

        A key these requirements do not define fails unless ``other`` only excludes
        values (NotIn, DoesNotExist) or the key is in ``allow_undefined`` (the
        well-known labels instance types and offerings decide); every shared key
        must intersect. With ``why`` False the text is not built (the hot path).
        """
        for key, wanted in other._reqs.items():
            if key in allow_undefined or key in self._reqs:
                continue
            if wanted.operator in (NOT_IN, DOES_NOT_EXIST):
                continue
            return f'label "{key}" does not have known values' if why else key
        return self.intersects(other, why)

    def intersects(self, other: Reqs, why: bool = True) -> str | None:
        """None when every key both define can take a common value (undefined keys pass)."""
        small, large = (self._reqs, other._reqs) if len(self._reqs) <= len(other._reqs) else \
            (other._reqs, self._reqs)
        for key in small:
            if key not in large:
                continue
            existing, incoming = self._reqs[key], other._reqs[key]
            if existing.has_intersection(incoming):
                continue
            if incoming.operator in (NOT_IN, DOES_NOT_EXIST) and existing.operator in (NOT_IN, DOES_NOT_EXIST):
                continue
            return f"key {key}, {incoming} not in {existing}" if why else key
        return None

    def labels(self) -> dict[str, str]:
        """Labels a node launched from these requirements carries: every single-valued In."""
        return {k: r.single for k, r in self._reqs.items() if r.single is not None}

    def __str__(self) -> str:
        return ", ".join(sorted(str(r) for k, r in self._reqs.items() if k not in L.RESTRICTED))

    def __repr__(self) -> str:
        return f"Reqs({self})"
