"""The what-if panel's view model: form values in, edits out, and the run a worker calls.

Pure (no textual). The TUI shows what these functions return and hands back
what the operator typed, as strings. Every edit builder checks its input the
way the API server would and raises ``ValueError`` with one line the screen
shows inline; :func:`run_whatif` never raises for bad input -- its summary
carries ``error`` instead.

Text syntax of the free-form fields (the same as kubectl's where it has one):

* labels / nodeSelector: ``key=value, key2=value2``
* tolerations: ``key=value:Effect``, ``key:Effect`` or ``key`` (Exists), ``*``
  (tolerate everything), separated by commas
* taints: ``key=value:Effect`` or ``key:Effect``, separated by commas
* requirements: ``key In a,b; key2 Exists; key3 Gt 4``, separated by ``;``
* required node affinity: requirements as above, terms (ORed) separated by ``|``; a
  ``field:`` prefix makes a requirement a matchFields one (``field:metadata.name In n1``)
* required pod (anti-)affinity: ``app=web, tier In (a b) @ topologyKey``, terms separated by ``|``
* preferred terms: the same, each led by its weight: ``50: key In a,b`` or ``50: app=web @ key``
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InputError
from ..model.affinity import (DO_NOT_SCHEDULE, HONOR, IGNORE, SCHEDULE_ANYWAY, parse_affinity,
                              parse_spread_constraints)
from ..model.quantity import parse_quantity
from ..model.selectors import parse_requirements
from ..model.snapshot import NO_ZONE, Snapshot
from ..model.taints import parse_taints, parse_tolerations
from ..sim import simulate
from ..sim.state import ClusterState
from ..whatif import AddNodes, Cordon, Patch, RemoveNode, Scale, Target, WhatIf, apply_patch, apply_whatif
from ..whatif.diff import diff, prepare_baseline
from ..whatif.edits import CAPACITY_TYPES, SCALABLE, Edit
from .cost import cost_after, cost_now

WHEN_UNSATISFIABLE = (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY)
POLICIES = (HONOR, IGNORE)
ZONE_KEY = "topology.kubernetes.io/zone"
DEFAULT_NAME = "tui-whatif"
_EFFECT = re.compile(r"^(NoSchedule|PreferNoSchedule|NoExecute)$")


# ------------------------------------------------------------------ targets

@dataclass(frozen=True)
class TargetRow:
    """One line of the target list: ``ref`` is the edit target (a Target string)."""

    ref: str
    group: str   # "workload" | "nodepool" | "node"
    label: str


def target_rows(snapshot: Snapshot) -> list[TargetRow]:
    """Workloads the snapshot keeps whole, then NodePools/Provisioners, then nodes."""
    rows = [TargetRow(str(Target(w.kind, w.name, w.namespace)), "workload",
                      f"{w.kind} {w.namespace}/{w.name}" + (f" ×{w.replicas}" if w.replicas is not None else ""))
            for w in snapshot.workloads if w.raw is not None]
    rows += [TargetRow(f"{p.kind}/{p.name}", "nodepool", f"{p.kind} {p.name}") for p in snapshot.nodepools]
    rows += [TargetRow(f"Node/{n.name}", "node", f"Node {n.name.split('.')[0]} ({n.zone or NO_ZONE} "
                                                  f"{n.instance_type or '?'})") for n in snapshot.nodes]
    return rows


def target_of(obj: object) -> Target:
    """A Target from a Target, a ``Kind/ns/name`` string, or a model object (Workload, NodePool)."""
    if isinstance(obj, Target):
        return obj
    if isinstance(obj, str):
        return Target.parse(obj)
    return Target(getattr(obj, "kind", None) or type(obj).KIND, obj.name, getattr(obj, "namespace", ""))


def current_raw(snapshot: Snapshot, edits: Iterable[Edit], ref: str) -> dict:
    """The object's manifest once the stack's patches and scales of it have landed."""
    target = target_of(ref)
    found = next((o for o in (*snapshot.workloads, *snapshot.nodepools, *snapshot.nodes)
                  if target_of(o) == target and o.raw is not None), None)
    if found is None:
        raise ValueError(f"{target} not found in the snapshot")
    raw: Any = found.raw
    for edit in edits:
        if getattr(edit, "target", None) != target:
            continue
        if isinstance(edit, Patch):
            raw = apply_patch(raw, edit.patch, edit.patch_type)
        elif isinstance(edit, Scale):
            raw = apply_patch(raw, {"spec": {SCALABLE[target.kind]: edit.replicas}}, "merge")
    return dict(raw)


# ------------------------------------------------------------------ text fields

def _split(text: str, sep: str = ",") -> list[str]:
    return [part.strip() for part in (text or "").split(sep) if part.strip()]


def parse_labels(text: str) -> dict[str, str]:
    out = {}
    for item in _split(text):
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or " " in key.strip():
            raise ValueError(f"{item!r} is not key=value")
        out[key.strip()] = value.strip()
    return out


def format_labels(labels: Mapping[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in labels.items())


def parse_taint_text(text: str) -> list[dict]:
    """``key=value:Effect`` items, as ``kubectl taint`` writes them."""
    out = []
    for item in _split(text):
        head, sep, effect = item.rpartition(":")
        if not sep or not _EFFECT.match(effect):
            raise ValueError(f"taint {item!r} is not key=value:Effect (NoSchedule, PreferNoSchedule, NoExecute)")
        key, _, value = head.partition("=")
        out.append({"key": key, "effect": effect, **({"value": value} if value else {})})
    _check(parse_taints, out, "taints")
    return out


def format_taints(taints: Sequence[Mapping]) -> str:
    return ", ".join(f"{t.get('key', '')}{'=' + t['value'] if t.get('value') else ''}:{t.get('effect', '')}"
                     for t in taints)


def parse_toleration_text(text: str) -> list[dict]:
    out = []
    for item in _split(text):
        head, effect = item, ""
        if ":" in item:
            head, _, effect = item.rpartition(":")
            if not _EFFECT.match(effect):
                raise ValueError(f"toleration {item!r}: {effect!r} is not NoSchedule, PreferNoSchedule or NoExecute")
        key, sep, value = head.partition("=")
        tol: dict = {"operator": "Equal" if sep else "Exists"}
        if key and key != "*":
            tol["key"] = key
        if sep:
            tol["value"] = value
        if effect:
            tol["effect"] = effect
        out.append(tol)
    _check(parse_tolerations, out, "tolerations")
    return out


def format_tolerations(tolerations: Sequence[Mapping]) -> str:
    parts = []
    for t in tolerations:
        text = t.get("key") or "*"
        if t.get("operator", "Equal") == "Equal":
            text += f"={t.get('value', '')}"
        parts.append(text + (f":{t['effect']}" if t.get("effect") else ""))
    return ", ".join(parts)


def parse_requirement_text(text: str) -> list[dict]:
    out = []
    for item in _split(text, ";"):
        words = item.split(None, 2)
        if len(words) < 2:
            raise ValueError(f"requirement {item!r} is not 'key Operator [v1,v2]'")
        req: dict = {"key": words[0], "operator": words[1]}
        if len(words) == 3:
            req["values"] = _split(words[2])
        out.append(req)
    _check(parse_requirements, out, "requirements")
    return out


def format_requirements(requirements: Sequence[Mapping]) -> str:
    return "; ".join(" ".join([r.get("key", ""), r.get("operator", ""), ",".join(r.get("values") or [])]).strip()
                     for r in requirements)


REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"
_SELECTOR_ITEM = re.compile(r"\s*([^,()]+(?:\([^)]*\))?)\s*(?:,|$)")


FIELD_PREFIX = "field:"


def _node_term(text: str) -> dict:
    """One nodeSelectorTerm: label requirements (matchExpressions) and ``field:`` ones (matchFields)."""
    expressions, fields = [], []
    for part in _split(text, ";"):
        if part.startswith(FIELD_PREFIX):
            fields += parse_requirement_text(part[len(FIELD_PREFIX):])
        else:
            expressions += parse_requirement_text(part)
    term: dict = {}
    if expressions:
        term["matchExpressions"] = expressions
    if fields:
        term["matchFields"] = fields
    return term


def _format_node_term(term: Mapping) -> str:
    parts = [format_requirements(term.get("matchExpressions") or [])]
    parts += [FIELD_PREFIX + format_requirements([f]) for f in term.get("matchFields") or []]
    return "; ".join(p for p in parts if p)


def _weighted(item: str, kind: str) -> tuple[int, str]:
    """``50: rest`` -> (50, rest): a preferred term's weight, 1-100 as the API server wants."""
    weight, colon, rest = item.partition(":")
    if not colon or not weight.strip().isdigit():
        raise ValueError(f"preferred {kind} term {item!r} does not start with a weight ('50: ...')")
    if not 1 <= int(weight) <= 100:
        raise ValueError(f"preferred {kind} term {item!r}: weight must be 1-100")
    return int(weight), rest.strip()


def parse_node_affinity_text(text: str) -> list[dict]:
    """Required node affinity: nodeSelectorTerms, ORed by ``|``; each term's requirements ANDed by ``;``."""
    terms = [_node_term(term) for term in _split(text, "|")]
    if terms:
        _check(parse_affinity, {"nodeAffinity": {REQUIRED: {"nodeSelectorTerms": terms}}}, "affinity")
    return terms


def format_node_affinity(terms: Sequence[Mapping]) -> str:
    return " | ".join(_format_node_term(t) for t in terms)


def parse_preferred_node_affinity_text(text: str) -> list[dict]:
    """Preferred node affinity: ``weight: requirements`` terms separated by ``|``."""
    terms = []
    for item in _split(text, "|"):
        weight, rest = _weighted(item, "node affinity")
        terms.append({"weight": weight, "preference": _node_term(rest)})
    if terms:
        _check(parse_affinity, {"nodeAffinity": {PREFERRED: terms}}, "affinity")
    return terms


def format_preferred_node_affinity(terms: Sequence[Mapping]) -> str:
    return " | ".join(f"{t.get('weight', '')}: {_format_node_term(t.get('preference') or {})}" for t in terms)


def _parse_selector_text(text: str) -> dict:
    """``app=web, tier In (a b), !legacy, canary`` -> a labelSelector (matchLabels + matchExpressions)."""
    labels: dict[str, str] = {}
    expressions: list[dict] = []
    for item in (m.group(1).strip() for m in _SELECTOR_ITEM.finditer(text) if m.group(1).strip()):
        if "(" in item:
            key, operator, rest = (item.split(None, 2) + ["", ""])[:3]
            expressions.append({"key": key, "operator": operator, "values": rest.strip("() ").split()})
        elif "=" in item:
            key, _, value = item.partition("=")
            labels[key.strip()] = value.strip()
        elif item.startswith("!"):
            expressions.append({"key": item[1:].strip(), "operator": "DoesNotExist"})
        else:
            expressions.append({"key": item, "operator": "Exists"})
    selector: dict = {}
    if labels:
        selector["matchLabels"] = labels
    if expressions:
        selector["matchExpressions"] = expressions
    return selector


def _format_selector(selector: Mapping) -> str:
    parts = [f"{k}={v}" for k, v in (selector.get("matchLabels") or {}).items()]
    for e in selector.get("matchExpressions") or []:
        op = e.get("operator", "")
        parts.append(f"!{e.get('key')}" if op == "DoesNotExist" else e.get("key", "") if op == "Exists"
                     else f"{e.get('key')} {op} ({' '.join(e.get('values') or [])})")
    return ", ".join(parts)


def _pod_term(item: str, kind: str) -> dict:
    selector, at, key = item.rpartition("@")
    if not at or not key.strip():
        raise ValueError(f"{kind} term {item!r} is not 'key=value, ... @ topologyKey'")
    return {"labelSelector": _parse_selector_text(selector), "topologyKey": key.strip()}


def parse_pod_terms_text(text: str, kind: str = "podAntiAffinity") -> list[dict]:
    """Required pod (anti-)affinity terms: ``selector @ topologyKey``, separated by ``|``."""
    terms = [_pod_term(item, kind) for item in _split(text, "|")]
    if terms:
        _check(parse_affinity, {kind: {REQUIRED: terms}}, "affinity")
    return terms


def _format_pod_term(term: Mapping) -> str:
    return f"{_format_selector(term.get('labelSelector') or {})} @ {term.get('topologyKey', '')}"


def format_pod_terms(terms: Sequence[Mapping]) -> str:
    return " | ".join(_format_pod_term(t) for t in terms)


def parse_preferred_pod_terms_text(text: str, kind: str = "podAntiAffinity") -> list[dict]:
    """Preferred pod (anti-)affinity: ``weight: selector @ topologyKey`` terms separated by ``|``."""
    terms = []
    for item in _split(text, "|"):
        weight, rest = _weighted(item, kind)
        terms.append({"weight": weight, "podAffinityTerm": _pod_term(rest, kind)})
    if terms:
        _check(parse_affinity, {kind: {PREFERRED: terms}}, "affinity")
    return terms


def format_preferred_pod_terms(terms: Sequence[Mapping]) -> str:
    return " | ".join(f"{t.get('weight', '')}: {_format_pod_term(t.get('podAffinityTerm') or {})}" for t in terms)


def _check(parser: Callable, raw: object, where: str) -> None:
    try:
        parser(raw, where)
    except ValueError as exc:  # ModelError is a ValueError
        raise ValueError(str(exc)) from None


def _whole(value: object, name: str, minimum: int) -> int:
    text = str(value).strip()
    if not re.fullmatch(r"[+-]?\d+", text) or int(text) < minimum:
        raise ValueError(f"{name} must be a whole number >= {minimum}, got {text!r}")
    return int(text)


def _quantity(value: object, name: str) -> str | None:
    """A quantity string, or None (delete the key) when left empty."""
    text = str(value or "").strip()
    if not text:
        return None
    try:
        if parse_quantity(text) < 0:
            raise ValueError
    except ValueError:
        raise ValueError(f"{name}: {text!r} is not a quantity such as 500m, 2 or 1Gi") from None
    return text


# ------------------------------------------------------------------ workload edits

def _template_patch(workload: object, spec: dict) -> Patch:
    return Patch(target_of(workload), {"spec": {"template": {"spec": spec}}})


def constraint_manifest(values: Mapping) -> dict:
    """One topologySpreadConstraint from form values (strings, or already typed)."""
    out: dict = {"maxSkew": _whole(values.get("maxSkew", ""), "maxSkew", 1)}
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
        out["minDomains"] = _whole(values["minDomains"], "minDomains", 1)
    for name, default in (("nodeAffinityPolicy", HONOR), ("nodeTaintsPolicy", IGNORE)):
        policy = values.get(name) or default
        if policy not in POLICIES:
            raise ValueError(f"{name} must be Honor or Ignore, got {policy!r}")
        if policy != default:
            out[name] = policy
    keys = values.get("matchLabelKeys") or []
    keys = _split(keys) if isinstance(keys, str) else list(keys)
    if keys:
        out["matchLabelKeys"] = keys
    _check(parse_spread_constraints, [out], "topologySpreadConstraints")
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
    return Scale(target_of(workload), _whole(replicas, "replicas", 0))


def node_selector_edit(workload: object, selector: Mapping[str, str] | str) -> Patch:
    labels = parse_labels(selector) if isinstance(selector, str) else dict(selector)
    return _template_patch(workload, {"nodeSelector": {"$patch": "replace", **labels} if labels else None})


def tolerations_edit(workload: object, tolerations: Sequence[Mapping] | str) -> Patch:
    items = parse_toleration_text(tolerations) if isinstance(tolerations, str) else [dict(t) for t in tolerations]
    _check(parse_tolerations, items, "tolerations")
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
    requests = {"cpu": _quantity(cpu, "cpu"), "memory": _quantity(memory, "memory")}
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
    limits = {"cpu": _quantity(cpu, "limits cpu"), "memory": _quantity(memory, "limits memory")}
    target = target_of(pool)
    if target.kind == "Provisioner":
        return Patch(target, {"spec": {"limits": {"resources": limits}}})
    return _pool_patch(target, "limits", limits)


def nodepool_requirements_edit(pool: object, requirements: Sequence[Mapping] | str) -> Patch:
    items = parse_requirement_text(requirements) if isinstance(requirements, str) else [dict(r) for r in requirements]
    _check(parse_requirements, items, "requirements")
    return _pool_patch(pool, "requirements", items or None)


def nodepool_weight_edit(pool: object, weight: object) -> Patch:
    value = _whole(weight if str(weight).strip() else 0, "weight", 0)
    if value > 100:
        raise ValueError(f"weight must be between 0 and 100, got {value}")
    return _pool_patch(pool, "weight", value or None)


def nodepool_taints_edit(pool: object, taints: Sequence[Mapping] | str) -> Patch:
    items = parse_taint_text(taints) if isinstance(taints, str) else [dict(t) for t in taints]
    _check(parse_taints, items, "taints")
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
    return AddNodes(str(instance_type or "").strip(), str(zone or "").strip(), _whole(count, "count", 1),
                    capacity_type, nodepool or "")


# ------------------------------------------------------------------ forms: current values, and what changed

def workload_form(snapshot: Snapshot, edits: Iterable[Edit], ref: str) -> dict:
    raw = current_raw(snapshot, edits, ref)
    target = target_of(ref)
    spec = raw.get("spec") or {}
    template = spec.get("template") or {}
    tspec = template.get("spec") or {}
    selector = spec.get("selector") or {"matchLabels": dict((template.get("metadata") or {}).get("labels") or {})}
    affinity = tspec.get("affinity") or {}
    return {
        "constraints": [constraint_values(c) for c in tspec.get("topologySpreadConstraints") or []],
        **({"replicas": str(spec.get(SCALABLE[target.kind], 1))} if target.kind in SCALABLE else {}),
        "node_selector": format_labels(tspec.get("nodeSelector") or {}),
        "tolerations": format_tolerations(tspec.get("tolerations") or []),
        "node_affinity": format_node_affinity(
            ((affinity.get("nodeAffinity") or {}).get(REQUIRED) or {}).get("nodeSelectorTerms") or []),
        "node_affinity_preferred": format_preferred_node_affinity(
            (affinity.get("nodeAffinity") or {}).get(PREFERRED) or []),
        "pod_affinity": format_pod_terms((affinity.get("podAffinity") or {}).get(REQUIRED) or []),
        "pod_affinity_preferred": format_preferred_pod_terms((affinity.get("podAffinity") or {}).get(PREFERRED) or []),
        "pod_anti_affinity": format_pod_terms((affinity.get("podAntiAffinity") or {}).get(REQUIRED) or []),
        "pod_anti_affinity_preferred": format_preferred_pod_terms(
            (affinity.get("podAntiAffinity") or {}).get(PREFERRED) or []),
        "containers": [{"name": c.get("name", ""), "cpu": str(((c.get("resources") or {}).get("requests") or {})
                                                              .get("cpu", "")),
                        "memory": str(((c.get("resources") or {}).get("requests") or {}).get("memory", ""))}
                       for c in tspec.get("containers") or []],
        "selector": {k: v for k, v in selector.items() if k in ("matchLabels", "matchExpressions")},
    }


def workload_edits(ref: str, before: Mapping, after: Mapping) -> list[Edit]:
    """The edits that turn the ``before`` form into the ``after`` one (only what changed)."""
    edits: list[Edit] = []
    if list(before["constraints"]) != list(after["constraints"]):
        edits.append(spread_edit(ref, after["constraints"]))
    if "replicas" in after and after["replicas"].strip() != before.get("replicas"):
        edits.append(scale_edit(ref, after["replicas"]))
    if parse_labels(after["node_selector"]) != parse_labels(before["node_selector"]):
        edits.append(node_selector_edit(ref, after["node_selector"]))
    if parse_toleration_text(after["tolerations"]) != parse_toleration_text(before["tolerations"]):
        edits.append(tolerations_edit(ref, after["tolerations"]))
    if after["node_affinity"].strip() != before["node_affinity"]:
        edits.append(node_affinity_edit(ref, after["node_affinity"]))
    if after.get("node_affinity_preferred", "").strip() != before.get("node_affinity_preferred", ""):
        edits.append(preferred_node_affinity_edit(ref, after["node_affinity_preferred"]))
    for key, kind in (("pod_affinity", "podAffinity"), ("pod_anti_affinity", "podAntiAffinity")):
        if after[key].strip() != before[key]:
            edits.append(pod_affinity_edit(ref, after[key], kind))
        if after.get(f"{key}_preferred", "").strip() != before.get(f"{key}_preferred", ""):
            edits.append(preferred_pod_affinity_edit(ref, after[f"{key}_preferred"], kind))
    for old, new in zip(before["containers"], after["containers"]):
        if (old["cpu"], old["memory"]) != (new["cpu"].strip(), new["memory"].strip()):
            edits.append(requests_edit(ref, new["name"], new["cpu"], new["memory"]))
    return edits


def nodepool_form(snapshot: Snapshot, edits: Iterable[Edit], ref: str) -> dict:
    raw = current_raw(snapshot, edits, ref)
    spec = raw.get("spec") or {}
    provisioner = target_of(ref).kind == "Provisioner"
    where = spec if provisioner else ((spec.get("template") or {}).get("spec") or {})
    limits = ((spec.get("limits") or {}).get("resources") if provisioner else spec.get("limits")) or {}
    return {"requirements": format_requirements(where.get("requirements") or []),
            "taints": format_taints(where.get("taints") or []),
            "cpu": str(limits.get("cpu", "")), "memory": str(limits.get("memory", "")),
            "weight": str(spec.get("weight", ""))}


def nodepool_edits(ref: str, before: Mapping, after: Mapping) -> list[Edit]:
    edits: list[Edit] = []
    if parse_requirement_text(after["requirements"]) != parse_requirement_text(before["requirements"]):
        edits.append(nodepool_requirements_edit(ref, after["requirements"]))
    if parse_taint_text(after["taints"]) != parse_taint_text(before["taints"]):
        edits.append(nodepool_taints_edit(ref, after["taints"]))
    if (after["cpu"].strip(), after["memory"].strip()) != (before["cpu"], before["memory"]):
        edits.append(nodepool_limits_edit(ref, after["cpu"], after["memory"]))
    if after["weight"].strip() != before["weight"]:
        edits.append(nodepool_weight_edit(ref, after["weight"]))
    return edits


def _node_name(ref: str) -> str:
    """``Node/<name>`` or a bare node name."""
    return target_of(ref).name if "/" in ref else ref


def node_form(snapshot: Snapshot, edits: Iterable[Edit], ref: str) -> dict:
    name = _node_name(ref)
    node = next((n for n in snapshot.nodes if n.name == name), None)
    if node is None:
        raise ValueError(f"Node/{name} not found in the snapshot")
    cordoned, removed = node.unschedulable, False
    for edit in edits:
        if isinstance(edit, Cordon) and edit.node == name:
            cordoned = edit.cordon
        elif isinstance(edit, RemoveNode) and edit.node == name:
            removed = True
    return {"cordoned": cordoned, "removed": removed}


def node_edits(ref: str, before: Mapping, after: Mapping) -> list[Edit]:
    name = _node_name(ref)
    if before["removed"] and not after["removed"]:
        raise ValueError(f"{name} is removed by an edit: undo that edit (u) to bring it back")
    edits: list[Edit] = []
    if after["cordoned"] != before["cordoned"] and not after["removed"]:
        edits.append(cordon_edit(name, after["cordoned"]))
    if after["removed"] and not before["removed"]:
        edits.append(remove_node_edit(name))
    return edits


def add_nodes_choices(snapshot: Snapshot) -> dict[str, list[str]]:
    """What the add-nodes form offers, by field: zones, capacity types, NodePools ("" = none)."""
    return {"zone": sorted({n.zone for n in snapshot.nodes if n.zone}) or [""],
            "capacity_type": list(CAPACITY_TYPES), "nodepool": ["", *(p.name for p in snapshot.nodepools)]}


def add_nodes_form(snapshot: Snapshot, edits: Iterable[Edit] = (), ref: str = "") -> dict:
    """The add-nodes form's starting values (same signature as the other forms)."""
    return {"instance_type": "", "zone": add_nodes_choices(snapshot)["zone"][0], "count": "1",
            "capacity_type": "on-demand", "nodepool": ""}


def add_nodes_edits(ref: str, before: Mapping, after: Mapping) -> list[Edit]:
    return [add_nodes_edit(**after)]


def describe_edit(edit: Edit) -> str:
    """One short line for the edits list: the object's name and the fields a patch sets."""
    if isinstance(edit, Scale):
        return f"{edit.target.name}: replicas={edit.replicas}"
    if isinstance(edit, (Cordon, RemoveNode)):
        return edit.describe().replace("Node/", "").split(".")[0]
    if not isinstance(edit, Patch) or not isinstance(edit.patch, Mapping):
        return edit.describe()
    body: Any = edit.patch
    while isinstance(body, Mapping) and len(body) == 1 and next(iter(body)) in ("spec", "template"):
        body = next(iter(body.values()))
    fields = []
    for key, value in body.items():
        if value is None:
            fields.append(f"{key} removed")
        elif isinstance(value, list):
            fields.append(f"{key}[{sum(1 for v in value if not (isinstance(v, Mapping) and '$patch' in v))}]")
        elif isinstance(value, Mapping):
            fields.append(key)
        else:
            fields.append(f"{key}={value}")
    return f"{edit.target.name}: {', '.join(fields)}"


# ------------------------------------------------------------------ the edit stack

class EditStack:
    """The edits so far, with undo and redo; pushing after an undo forgets the redo list."""

    def __init__(self, edits: Iterable[Edit] = ()) -> None:
        self._done: list[Edit] = list(edits)
        self._undone: list[Edit] = []

    @property
    def edits(self) -> tuple[Edit, ...]:
        return tuple(self._done)

    def __len__(self) -> int:
        return len(self._done)

    def push(self, *edits: Edit) -> None:
        self._done.extend(edits)
        if edits:
            self._undone.clear()

    def undo(self) -> Edit | None:
        if not self._done:
            return None
        self._undone.append(self._done.pop())
        return self._undone[-1]

    def redo(self) -> Edit | None:
        if not self._undone:
            return None
        self._done.append(self._undone.pop())
        return self._done[-1]

    def replace(self, edits: Iterable[Edit]) -> None:
        """A loaded what-if: its edits, no redo list."""
        self._done, self._undone = list(edits), []

    def as_whatif(self, name: str = DEFAULT_NAME, description: str = "") -> WhatIf:
        return WhatIf(name or DEFAULT_NAME, tuple(self._done), description)


# ------------------------------------------------------------------ the run

@dataclass(frozen=True)
class Baseline:
    """The unedited cluster's simulation, and its cluster before any placement (warmed with the
    counters the run used): each what-if starts from a copy instead of accounting every pod."""

    result: Any
    start: ClusterState
    nodes_cost: float | None = None   # the snapshot's nodes per hour (None without a catalog)
    cost: float | None = None         # and after the simulated launches and consolidation


def simulate_baseline(snapshot: Snapshot, catalog: Any, consolidate: bool = True,
                      progress: Callable[[str, int, int], None] | None = None) -> Baseline:
    """The same for every run, so a caller may keep it. ``progress`` as :func:`karptui.sim.simulate`'s."""
    start = ClusterState(snapshot)
    used = start.copy()
    result = simulate(snapshot, catalog=catalog, consolidate=consolidate and catalog is not None, state=used,
                      progress=progress)
    start.warm_like(used)
    prepare_baseline(result)
    if catalog is None:
        return Baseline(result, start)
    nodes_cost = cost_now(snapshot.nodes, catalog).hourly
    return Baseline(result, start, nodes_cost, cost_after(result, catalog, nodes_cost))


def run_whatif(snapshot: Snapshot, catalog: Any, whatif: WhatIf, *, consolidate: bool = True,
               cancelled: Callable[[], bool] = lambda: False, baseline: Any = None,
               progress: Callable[[str, int, int], None] | None = None) -> dict:
    """Baseline and what-if simulated, compared; blocking, so the TUI calls it from a thread.

    ``baseline`` is a kept :func:`simulate_baseline` result (simulated here when None).
    Returns a summary dict; a bad edit gives ``{"error": "...", ...}``, and a
    run stopped through ``cancelled`` gives ``{"cancelled": True, ...}``. ``progress(phase, done,
    total)`` hears from both simulations, the phase saying which (``baseline, kube-scheduler``).
    """
    out: dict = {"name": whatif.name, "error": None, "cancelled": False}
    try:
        applied = apply_whatif(snapshot, whatif, catalog=catalog)
    except (InputError, ValueError) as exc:
        return {**out, "error": str(exc)}
    def told(run: str) -> Callable[[str, int, int], None] | None:
        return None if progress is None else (lambda phase, done, total: progress(f"{run}, {phase}", done, total))

    kept = baseline if baseline is not None else simulate_baseline(snapshot, catalog, consolidate, told("baseline"))
    baseline = kept.result
    if cancelled():
        return {**out, "cancelled": True}
    result = simulate(applied.snapshot, catalog=catalog, consolidate=consolidate and catalog is not None,
                      state=kept.start.rebound(applied.snapshot), progress=told("what-if"))
    changes = diff(baseline, result)
    counts = changes.counts
    out.update({key: counts[key] for key in ("scheduled_before", "pending_before", "scheduled_after",
                                             "pending_after", "newly_scheduled", "newly_pending", "moved")})
    for when, run in (("before", baseline), ("after", result)):  # where the scheduled ones went
        out[f"on_new_nodes_{when}"] = sum(1 for a in run.attempts if a.scheduled and a.new_node)
        out[f"on_existing_{when}"] = out[f"scheduled_{when}"] - out[f"on_new_nodes_{when}"]
    out["notes"] = list(applied.notes) + list(result.notes)
    out["workloads"] = [
        {"workload": w.workload, "zones_before": w.zones_before, "zones_after": w.zones_after,
         **_split_zones("before", w.nodes_before, baseline), **_split_zones("after", w.nodes_after, result)}
        for w in changes.workloads if w.changed or w.workload in applied.resimulated
    ]
    out["nodeclaims"] = [{"nodepool": c.nodepool, **{k: (c.launch or {}).get(k) for k in
                                                     ("instance_type", "zone", "capacity_type", "price")},
                          "pods": len(c.pods)} for c in result.nodeclaims]
    out["nodeclaims_added"] = changes.nodeclaims.get("added", [])
    out["nodeclaims_removed"] = changes.nodeclaims.get("removed", [])
    out["consolidation"] = [
        {"action": d.action, "reason": d.reason, "nodes": list(d.nodes), "savings": d.savings,
         "replacement": (f"{d.replacement.instance_type} {d.replacement.capacity_type} in {d.replacement.zone}"
                         if d.replacement else "")}
        for d in result.disruptions
    ]
    out["blocked"] = [{"node": b.node, "reason": b.reason} for b in result.blocked]
    out["pending"] = [{"pod": a.pod.key, "reason": a.reason or ""} for a in result.attempts if not a.scheduled]
    if catalog is not None:
        same_nodes = applied.snapshot.nodes is snapshot.nodes
        out["cost_before"] = kept.cost if kept.cost is not None else cost_after(baseline, catalog)
        out["cost_after"] = cost_after(result, catalog, kept.nodes_cost if same_nodes else None)
        out["cost_change"] = round(out["cost_after"] - out["cost_before"], 6)
    else:
        out["cost_before"] = out["cost_after"] = out["cost_change"] = None
    return out


def _split_zones(when: str, nodes: Mapping[str, int], result: Any) -> dict:
    """Per-zone counts on nodes that exist (or a what-if added) vs. on NodeClaims Karpenter would launch."""
    zone_of = {n.name: n.zone or NO_ZONE for n in result.snapshot.nodes}
    claim_zone = {c.name: (c.launch or {}).get("zone") or NO_ZONE for c in result.nodeclaims}
    existing: Counter = Counter()
    launched: Counter = Counter()
    for node, count in nodes.items():
        if node in zone_of:
            existing[zone_of[node]] += count
        else:
            launched[claim_zone.get(node, NO_ZONE)] += count
    return {f"existing_{when}": dict(sorted(existing.items())), f"launched_{when}": dict(sorted(launched.items()))}


# ------------------------------------------------------------------ the summary as text and table rows

def summary_lines(s: Mapping) -> list[str]:
    """The run's headline numbers, launches and consolidation changes, pending reasons, notes."""
    if s.get("error") or s.get("cancelled") or "scheduled_after" not in s:
        return []
    lines = [f"scheduled {s['scheduled_before']} → {s['scheduled_after']} · "
             f"pending {s['pending_before']} → {s['pending_after']}",
             f"on existing nodes {s['on_existing_before']} → {s['on_existing_after']} · "
             f"on new NodeClaims {s['on_new_nodes_before']} → {s['on_new_nodes_after']}",
             f"{s['newly_scheduled']} newly scheduled · {s['newly_pending']} newly pending · {s['moved']} moved"]
    if s["cost_before"] is not None:
        lines.append(f"hourly cost ${s['cost_before']:.4f} → ${s['cost_after']:.4f} ({s['cost_change']:+.4f})")
    lines += [f"+ launch {x}" for x in s["nodeclaims_added"]] + [f"- launch {x}" for x in s["nodeclaims_removed"]]
    lines += [f"pending {p['pod']}: {p['reason']}" for p in s["pending"][:5]]
    return lines + [f"note: {n}" for n in s["notes"]]


def _zone_count(w: Mapping, when: str, zone: str) -> str:
    """Pods on nodes that exist, ``+N new`` on NodeClaims Karpenter would launch."""
    existing, launched = w[f"existing_{when}"].get(zone, 0), w[f"launched_{when}"].get(zone, 0)
    return f"{existing}" + (f" +{launched} new" if launched else "")


def result_rows(s: Mapping) -> dict[str, list[tuple[str, ...]]]:
    """Rows of the results tables: ``zones`` (workload, then each zone before/after), ``claims``
    (the launches of the what-if run), ``actions`` (consolidation, and nodes it cannot touch)."""
    zones: list[tuple[str, ...]] = []
    for w in s.get("workloads", []):
        zones.append((w["workload"], "", ""))
        zones += [(f"· {z}", _zone_count(w, "before", z), _zone_count(w, "after", z))
                  for z in sorted({*w["zones_before"], *w["zones_after"]})]
    claims = [(c["nodepool"], c["instance_type"] or "?", c["zone"] or "?", c["capacity_type"] or "?",
               f"{c['price'] or 0:.4f}", str(c["pods"])) for c in s.get("nodeclaims", [])]
    actions = [(d["action"], ", ".join(d["nodes"]), d["replacement"] or "-", f"{d['savings']:.4f}")
               for d in s.get("consolidation", [])]
    actions += [("blocked", b["node"], b["reason"], "") for b in s.get("blocked", [])]
    return {"zones": zones, "claims": claims, "actions": actions}
