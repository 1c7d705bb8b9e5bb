"""Edit builders: one what-if edit from what the operator typed or picked, checked the way the
API server would check it (a bad value is a one-line ``ValueError`` the panel shows inline).

Each builder takes its target as a Target, a ``Kind/namespace/name`` string or a model object.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ..model.affinity import (
    DO_NOT_SCHEDULE,
    HONOR,
    IGNORE,
    SCHEDULE_ANYWAY,
    parse_spread_constraints,
)
from ..model.selectors import parse_requirements
from ..model.taints import parse_taints, parse_tolerations
from ..whatif import AddNodes, Cordon, Patch, RemoveNode, Scale, Target
from ..whatif.edits import CAPACITY_TYPES
from .whatif_syntax import (
    PREFERRED,
    REQUIRED,
    checked,
    parse_labels,
    parse_node_affinity_text,
    parse_pod_terms_text,
    parse_preferred_node_affinity_text,
    parse_preferred_pod_terms_text,
    parse_requirement_text,
    parse_taint_text,
    parse_toleration_text,
    quantity_or_none,
    split_items,
    whole_number,
)

WHEN_UNSATISFIABLE = (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY)
POLICIES = (HONOR, IGNORE)
ZONE_KEY = "topology.kubernetes.io/zone"


def target_of(obj: object) -> Target:
    """A Target from a Target, a ``Kind/ns/name`` string, or a model object (Workload, NodePool)."""
    if isinstance(obj, Target):
        return obj
    if isinstance(obj, str):
        return Target.parse(obj)
    return Target(getattr(obj, "kind", None) or type(obj).KIND, obj.name, getattr(obj, "namespace", ""))



def _template_patch(workload: object, spec: dict) -> Patch:
    return Patch(target_of(workload), {"spec": {"template": {"spec": spec}}})


def constraint_manifest(values: Mapping) -> dict:
    """One topologySpreadConstraint from form values (strings, or already typed)."""
    out: dict = {"maxSkew": whole_number(values.get("maxSkew", ""), "maxSkew", 1)}
    key = str(values.get("topologyKey") or "").strip()
    if not key:
        raise ValueError("topologyKey is required")
    out["topologyKey"] = key
    when = values.get("whenUnsatisfiable") or DO_NOT_SCHEDULE
    if when not in WHEN_UNSATISFIABLE:
        raise ValueError(f"whenUnsatisfiable must be DoNotSchedule or ScheduleAnyway, got {when!r}")
    out["whenUnsatisfiable"] = when
    if values.get("labelSelector") is not None:
        out["labelSelector"] = values["labelSelector"]
    if str(values.get("minDomains") or "").strip():
        if when != DO_NOT_SCHEDULE:
            raise ValueError("minDomains needs whenUnsatisfiable: DoNotSchedule")
        out["minDomains"] = whole_number(values["minDomains"], "minDomains", 1)
    for name, default in (("nodeAffinityPolicy", HONOR), ("nodeTaintsPolicy", IGNORE)):
        policy = values.get(name) or default
        if policy not in POLICIES:
            raise ValueError(f"{name} must be Honor or Ignore, got {policy!r}")
        if policy != default:
            out[name] = policy
    keys = values.get("matchLabelKeys") or []
    keys = split_items(keys) if isinstance(keys, str) else list(keys)
    if keys:
        out["matchLabelKeys"] = keys
    checked(parse_spread_constraints, [out], "topologySpreadConstraints")
    return out


def constraint_values(raw: Mapping) -> dict:
    """Form values (strings) of one topologySpreadConstraint manifest."""
    return {
        "maxSkew": str(raw.get("maxSkew", "")), "topologyKey": str(raw.get("topologyKey", "")),
        "whenUnsatisfiable": raw.get("whenUnsatisfiable") or DO_NOT_SCHEDULE,
        "minDomains": "" if raw.get("minDomains") is None else str(raw["minDomains"]),
        "nodeAffinityPolicy": raw.get("nodeAffinityPolicy") or HONOR,
        "nodeTaintsPolicy": raw.get("nodeTaintsPolicy") or IGNORE,
        "matchLabelKeys": ", ".join(raw.get("matchLabelKeys") or []),
        "labelSelector": raw.get("labelSelector"),
    }


def new_constraint(label_selector: Mapping | None = None) -> dict:
    return constraint_values({"maxSkew": 1, "topologyKey": ZONE_KEY, "labelSelector": label_selector})


def spread_edit(workload: object, constraints: Sequence[Mapping]) -> Patch:
    """Replace the pod template's topologySpreadConstraints with ``constraints`` (none: remove them)."""
    manifests = [constraint_manifest(c) for c in constraints]
    seen = Counter((m["topologyKey"], m["whenUnsatisfiable"]) for m in manifests)
    twice = [f"{k}/{w}" for (k, w), n in seen.items() if n > 1]
    if twice:
        raise ValueError(f"two constraints with the same topologyKey and whenUnsatisfiable: {twice[0]}")
    return _template_patch(workload, {"topologySpreadConstraints": [{"$patch": "replace"}, *manifests]
                                      if manifests else None})


def scale_edit(workload: object, replicas: object) -> Scale:
    return Scale(target_of(workload), whole_number(replicas, "replicas", 0))


def node_selector_edit(workload: object, selector: Mapping[str, str] | str) -> Patch:
    labels = parse_labels(selector) if isinstance(selector, str) else dict(selector)
    return _template_patch(workload, {"nodeSelector": {"$patch": "replace", **labels} if labels else None})


def tolerations_edit(workload: object, tolerations: Sequence[Mapping] | str) -> Patch:
    items = parse_toleration_text(tolerations) if isinstance(tolerations, str) else [dict(t) for t in tolerations]
    checked(parse_tolerations, items, "tolerations")
    return _template_patch(workload, {"tolerations": items or None})


def node_affinity_edit(workload: object, terms: Sequence[Mapping] | str) -> Patch:
    """Replace the required node affinity; preferred terms and pod affinity are left as they are."""
    items = parse_node_affinity_text(terms) if isinstance(terms, str) else [dict(t) for t in terms]
    return _template_patch(workload, {"affinity": {"nodeAffinity": {
        REQUIRED: {"nodeSelectorTerms": items} if items else None}}})


def preferred_node_affinity_edit(workload: object, terms: Sequence[Mapping] | str) -> Patch:
    """Replace the preferred node affinity terms; the required ones are kept."""
    items = parse_preferred_node_affinity_text(terms) if isinstance(terms, str) else [dict(t) for t in terms]
    return _template_patch(workload, {"affinity": {"nodeAffinity": {PREFERRED: items or None}}})


def pod_affinity_edit(workload: object, terms: Sequence[Mapping] | str, kind: str = "podAntiAffinity") -> Patch:
    """Replace the required terms of podAffinity or podAntiAffinity; preferred terms are kept."""
    items = parse_pod_terms_text(terms, kind) if isinstance(terms, str) else [dict(t) for t in terms]
    return _template_patch(workload, {"affinity": {kind: {REQUIRED: items or None}}})


def preferred_pod_affinity_edit(workload: object, terms: Sequence[Mapping] | str,
                                kind: str = "podAntiAffinity") -> Patch:
    """Replace the preferred (weighted) terms of podAffinity or podAntiAffinity; required ones are kept."""
    items = parse_preferred_pod_terms_text(terms, kind) if isinstance(terms, str) else [dict(t) for t in terms]
    return _template_patch(workload, {"affinity": {kind: {PREFERRED: items or None}}})


def requests_edit(workload: object, container: str, cpu: object, memory: object) -> Patch:
    """Set one container's cpu/memory requests; an empty value removes that request."""
    if not container:
        raise ValueError("container name missing")
    requests = {"cpu": quantity_or_none(cpu, "cpu"), "memory": quantity_or_none(memory, "memory")}
    return _template_patch(workload, {"containers": [{"name": container, "resources": {"requests": requests}}]})


# ------------------------------------------------------------------ NodePool edits

def _pool_patch(pool: object, field: str, value: Any) -> Patch:
    """Provisioner (v1alpha5) keeps all under ``spec``; NodePool its node template's under ``spec.template.spec``."""
    target = target_of(pool)
    if target.kind not in ("NodePool", "Provisioner"):
        raise ValueError(f"{target} is not a NodePool or Provisioner")
    if target.kind == "Provisioner" or field in ("weight", "limits"):
        return Patch(target, {"spec": {field: value}})
    return Patch(target, {"spec": {"template": {"spec": {field: value}}}})


def nodepool_limits_edit(pool: object, cpu: object, memory: object) -> Patch:
    """Limits on the pool's total cpu/memory; an empty value removes that limit."""
    limits = {"cpu": quantity_or_none(cpu, "limits cpu"), "memory": quantity_or_none(memory, "limits memory")}
    target = target_of(pool)
    if target.kind == "Provisioner":
        return Patch(target, {"spec": {"limits": {"resources": limits}}})
    return _pool_patch(target, "limits", limits)


def nodepool_requirements_edit(pool: object, requirements: Sequence[Mapping] | str) -> Patch:
    items = parse_requirement_text(requirements) if isinstance(requirements, str) else [dict(r) for r in requirements]
    checked(parse_requirements, items, "requirements")
    return _pool_patch(pool, "requirements", items or None)


def nodepool_weight_edit(pool: object, weight: object) -> Patch:
    value = whole_number(weight if str(weight).strip() else 0, "weight", 0)
    if value > 100:
        raise ValueError(f"weight must be between 0 and 100, got {value}")
    return _pool_patch(pool, "weight", value or None)


def nodepool_taints_edit(pool: object, taints: Sequence[Mapping] | str) -> Patch:
    items = parse_taint_text(taints) if isinstance(taints, str) else [dict(t) for t in taints]
    checked(parse_taints, items, "taints")
    return _pool_patch(pool, "taints", items or None)


# ------------------------------------------------------------------ node edits

def cordon_edit(node: str, cordon: bool = True) -> Cordon:
    return Cordon(node, cordon)


def remove_node_edit(node: str) -> RemoveNode:
    return RemoveNode(node)


def add_nodes_edit(instance_type: str, zone: str, count: object = 1, capacity_type: str = "on-demand",
                   nodepool: str = "") -> AddNodes:
    if capacity_type not in CAPACITY_TYPES:
        raise ValueError(f"capacityType must be one of {', '.join(CAPACITY_TYPES)}, got {capacity_type!r}")
    return AddNodes(str(instance_type or "").strip(), str(zone or "").strip(), whole_number(count, "count", 1),
                    capacity_type, nodepool or "")
