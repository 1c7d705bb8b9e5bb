"""Label selectors and node selector terms, with Kubernetes' matching rules.

Rules that surprise people and that the simulator depends on:
``NotIn`` and ``DoesNotExist`` match when the key is absent; an empty
LabelSelector matches everything while an absent one matches nothing; an
empty NodeSelectorTerm matches nothing; terms are ORed, expressions ANDed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .errors import ModelError
from .fields import as_int, as_list, as_map, as_str, as_str_list, as_str_map

IN, NOT_IN, EXISTS, DOES_NOT_EXIST, GT, LT = "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"
GTE, LTE = "Gte", "Lte"  # Karpenter's own, in NodePool and NodeClaim requirements only
LABEL_OPERATORS = frozenset({IN, NOT_IN, EXISTS, DOES_NOT_EXIST})
NODE_OPERATORS = LABEL_OPERATORS | {GT, LT}
KARPENTER_OPERATORS = NODE_OPERATORS | {GTE, LTE}
BOUNDS = frozenset({GT, LT, GTE, LTE})


@dataclass(frozen=True, slots=True)
class Requirement:
    """One matchExpressions entry (label or node selector requirement).

    ``min_values`` is Karpenter's extension: how many distinct values
    (e.g. instance families) a NodeClaim must keep open.
    """

    key: str
    operator: str
    values: tuple[str, ...] = ()
    min_values: int | None = None

    def matches(self, labels: Mapping[str, str]) -> bool:
        value = labels.get(self.key)
        op = self.operator
        if op == IN:
            return value is not None and value in self.values
        if op == NOT_IN:
            return value is None or value not in self.values
        if op == EXISTS:
            return value is not None
        if op == DOES_NOT_EXIST:
            return value is None
        return value is not None and _compare(value, int(self.values[0]), op)

    def to_dict(self) -> dict:
        out: dict = {"key": self.key, "operator": self.operator}
        if self.values:
            out["values"] = list(self.values)
        if self.min_values is not None:
            out["minValues"] = self.min_values
        return out

    def __str__(self) -> str:
        if self.operator in (EXISTS, DOES_NOT_EXIST):
            return f"{self.key} {self.operator}"
        return f"{self.key} {self.operator} [{' '.join(self.values)}]"


def _compare(value: str, bound: int, op: str) -> bool:
    try:
        number = int(value)
    except ValueError:
        return False  # kube-scheduler: a non-integer label never satisfies Gt/Lt
    if op == GT:
        return number > bound
    if op == LT:
        return number < bound
    return number >= bound if op == GTE else number <= bound


def parse_requirement(raw: object, where: str, operators: frozenset[str]) -> Requirement:
    if type(raw) is dict:  # the common case read without spelling out the field paths an error would name
        key, op, values, min_values = raw.get("key"), raw.get("operator"), raw.get("values"), raw.get("minValues")
        if (type(key) is str and key and type(op) is str and op in operators and op not in BOUNDS
                and (min_values is None or type(min_values) is int)):
            if values is None and op not in (IN, NOT_IN):
                return Requirement(key, op, (), min_values)
            if type(values) is list and values and all(type(v) is str for v in values):
                return Requirement(key, op, tuple(values), min_values)
    data = as_map(raw, where)
    key = as_str(data.get("key"), f"{where}.key")
    op = as_str(data.get("operator"), f"{where}.operator")
    if not key:
        raise ModelError(f"{where}.key: missing")
    if op not in operators:
        raise ModelError(f"{where}.operator: {op!r} is not one of {', '.join(sorted(operators))}")
    values = as_str_list(data.get("values"), f"{where}.values")
    if op in (IN, NOT_IN) and not values:
        raise ModelError(f"{where}.values: {op} needs at least one value")
    if op in BOUNDS:
        if len(values) != 1 or not values[0].strip().lstrip("-").isdigit():
            raise ModelError(f"{where}.values: {op} needs exactly one integer value, got {list(values)}")
    min_values = as_int(data.get("minValues"), f"{where}.minValues")
    return Requirement(key, op, values, min_values)


@dataclass(frozen=True, slots=True)
class LabelSelector:
    """metav1.LabelSelector; all parts must hold."""

    match_labels: tuple[tuple[str, str], ...] = ()
    match_expressions: tuple[Requirement, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        for key, value in self.match_labels:
            if labels.get(key) != value:
                return False
        return all(req.matches(labels) for req in self.match_expressions)

    @property
    def is_empty(self) -> bool:
        return not self.match_labels and not self.match_expressions

    def to_dict(self) -> dict:
        out: dict = {}
        if self.match_labels:
            out["matchLabels"] = dict(self.match_labels)
        if self.match_expressions:
            out["matchExpressions"] = [r.to_dict() for r in self.match_expressions]
        return out

    def __str__(self) -> str:
        parts = [f"{k}={v}" for k, v in self.match_labels]
        parts += [str(r) for r in self.match_expressions]
        return ",".join(parts) or "<all>"


def selected_as(pod) -> tuple:
    """All a pod selector (a PDB's, an affinity term's, a spread constraint's, with its namespaces)
    reads of a pod: its namespace and labels. A workload's replicas share it, so an answer about
    one holds for all: callers keep answers under this key."""
    return pod.namespace, frozenset(pod.labels.items())


def parse_label_selector(raw: object, where: str) -> LabelSelector | None:
    """``None`` for an absent selector (matches nothing), else the selector."""
    if raw is None:
        return None
    data = as_map(raw, where)
    labels = as_str_map(data.get("matchLabels"), f"{where}.matchLabels")
    exprs = as_list(data.get("matchExpressions"), f"{where}.matchExpressions")
    return LabelSelector(
        tuple(sorted(labels.items())),
        tuple(
            parse_requirement(e, f"{where}.matchExpressions[{i}]", LABEL_OPERATORS)
            for i, e in enumerate(exprs)
        ),
    )


@dataclass(frozen=True, slots=True)
class NodeSelectorTerm:
    """One nodeSelectorTerms entry: expressions on labels, fields on the name."""

    match_expressions: tuple[Requirement, ...] = ()
    match_fields: tuple[Requirement, ...] = ()

    def matches(self, labels: Mapping[str, str], node_name: str) -> bool:
        if not self.match_expressions and not self.match_fields:
            return False
        if not all(req.matches(labels) for req in self.match_expressions):
            return False
        fields = {"metadata.name": node_name}
        return all(req.matches(fields) for req in self.match_fields)

    def to_dict(self) -> dict:
        out: dict = {}
        if self.match_expressions:
            out["matchExpressions"] = [r.to_dict() for r in self.match_expressions]
        if self.match_fields:
            out["matchFields"] = [r.to_dict() for r in self.match_fields]
        return out


def parse_node_selector_term(raw: object, where: str) -> NodeSelectorTerm:
    data = as_map(raw, where)
    exprs = as_list(data.get("matchExpressions"), f"{where}.matchExpressions")
    fields = as_list(data.get("matchFields"), f"{where}.matchFields")
    parsed_fields = tuple(
        parse_requirement(f, f"{where}.matchFields[{i}]", NODE_OPERATORS) for i, f in enumerate(fields)
    )
    for i, req in enumerate(parsed_fields):
        if req.key != "metadata.name" or req.operator not in (IN, NOT_IN):
            raise ModelError(f"{where}.matchFields[{i}]: only metadata.name with In/NotIn is supported")
    return NodeSelectorTerm(
        tuple(
            parse_requirement(e, f"{where}.matchExpressions[{i}]", NODE_OPERATORS)
            for i, e in enumerate(exprs)
        ),
        parsed_fields,
    )


@dataclass(frozen=True, slots=True)
class NodeSelector:
    """v1.NodeSelector: the terms are ORed; no terms match no node."""

    terms: tuple[NodeSelectorTerm, ...] = ()

    def matches(self, labels: Mapping[str, str], node_name: str) -> bool:
        return any(term.matches(labels, node_name) for term in self.terms)

    def to_dict(self) -> dict:
        return {"nodeSelectorTerms": [t.to_dict() for t in self.terms]}


def parse_node_selector(raw: object, where: str) -> NodeSelector | None:
    if raw is None:
        return None
    data = as_map(raw, where)
    terms = as_list(data.get("nodeSelectorTerms"), f"{where}.nodeSelectorTerms")
    return NodeSelector(
        tuple(parse_node_selector_term(t, f"{where}.nodeSelectorTerms[{i}]") for i, t in enumerate(terms))
    )


def parse_requirements(raw: object, where: str) -> tuple[Requirement, ...]:
    """A flat requirement list (Karpenter NodePool / NodeClaim requirements, Gte/Lte allowed)."""
    return tuple(
        parse_requirement(r, f"{where}[{i}]", KARPENTER_OPERATORS) for i, r in enumerate(as_list(raw, where))
    )
