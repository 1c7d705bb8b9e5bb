"""The what-if panel's forms: a target's current values (the snapshot with the edit stack applied)
as strings, and the edits that turn the values before into the values the operator left.

A form is a plain dict of strings (and booleans for switches); ``*_form`` makes one, ``*_edits``
compares two. Pure: the TUI shows the values and hands back what was typed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..model.affinity import SCHEDULE_ANYWAY
from ..model.snapshot import NO_ZONE, Snapshot
from ..whatif import Cordon, Patch, RemoveNode, Scale, Target, apply_patch
from ..whatif.edits import CAPACITY_TYPES, SCALABLE, Edit
from .whatif_builders import (
    add_nodes_edit,
    constraint_values,
    cordon_edit,
    node_affinity_edit,
    node_selector_edit,
    nodepool_limits_edit,
    nodepool_requirements_edit,
    nodepool_taints_edit,
    nodepool_weight_edit,
    pod_affinity_edit,
    preferred_node_affinity_edit,
    preferred_pod_affinity_edit,
    remove_node_edit,
    requests_edit,
    scale_edit,
    spread_edit,
    target_of,
    tolerations_edit,
)
from .whatif_syntax import (
    PREFERRED,
    REQUIRED,
    format_labels,
    format_node_affinity,
    format_pod_terms,
    format_preferred_node_affinity,
    format_preferred_pod_terms,
    format_requirements,
    format_taints,
    format_tolerations,
    parse_labels,
    parse_requirement_text,
    parse_taint_text,
    parse_toleration_text,
)

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
        elif key in ("containers", "initContainers") and isinstance(value, list) and _resource_changes(value):
            fields.extend(_resource_changes(value))
        elif isinstance(value, list):
            fields.append(f"{key}[{sum(1 for v in value if not (isinstance(v, Mapping) and '$patch' in v))}]")
        elif isinstance(value, Mapping):
            fields.append(key)
        else:
            fields.append(f"{key}={value}")
    return f"{edit.target.name}: {', '.join(fields)}"


def _resource_changes(containers: list) -> list[str]:
    """``requests cpu=500m`` (``web requests cpu=500m`` when it names several containers) for each
    container a patch sets requests or limits of, as the form's cpu and memory fields make them;
    empty when the patch is about anything else."""
    out = []
    for c in containers:
        if not isinstance(c, Mapping) or set(c) - {"name", "resources"} or not isinstance(c.get("resources"), Mapping):
            return []
        for kind, amounts in c["resources"].items():
            if not isinstance(amounts, Mapping):
                return []
            said = ", ".join(f"{k}={'removed' if v is None else v}" for k, v in amounts.items())
            out.append(f"{c.get('name', '?')} {kind} {said}" if len(containers) > 1 else f"{kind} {said}")
    return out


# ------------------------------------------------------------------ one-key actions and what is not applied yet

def step_replicas(form: Mapping, step: int) -> dict:
    """The workload form with ``step`` more (or fewer) replicas, never below 0."""
    if "replicas" not in form:
        raise ValueError("this workload has no replica count (a DaemonSet runs one pod per eligible node)")
    text = str(form["replicas"]).strip()
    current = int(text) if text.lstrip("+-").isdigit() else 0
    return {**form, "replicas": str(max(0, current + step))}


def drop_constraint(form: Mapping, index: int | None = None) -> dict:
    """The workload form without topologySpreadConstraint ``index`` (default: the first)."""
    constraints = list(form.get("constraints") or [])
    if not constraints:
        raise ValueError("no topologySpreadConstraint to drop")
    del constraints[index if index is not None and 0 <= index < len(constraints) else 0]
    return {**form, "constraints": constraints}


def relax_constraint(form: Mapping, index: int | None = None) -> dict:
    """The workload form with constraint ``index`` (default: the first DoNotSchedule one) made
    ``whenUnsatisfiable: ScheduleAnyway`` -- a preference the scheduler scores instead of a filter.
    ``minDomains`` goes with it (the API server allows it only with DoNotSchedule)."""
    constraints = [dict(c) for c in form.get("constraints") or []]
    if not constraints:
        raise ValueError("no topologySpreadConstraint to relax")
    if index is None or not 0 <= index < len(constraints):
        index = next((k for k, c in enumerate(constraints) if c.get("whenUnsatisfiable") != SCHEDULE_ANYWAY), 0)
    constraints[index].update(whenUnsatisfiable=SCHEDULE_ANYWAY, minDomains="")
    return {**form, "constraints": constraints}


FORM_EDITS = {"workload": workload_edits, "nodepool": nodepool_edits, "node": node_edits, "add": add_nodes_edits}


def unapplied(group: str, ref: str, before: Mapping, shown: Mapping) -> tuple[int, str]:
    """How many edits the form as shown would add to the stack, and why it cannot when it cannot
    (``(1, "maxSkew must be ...")``): the panel says so, so a change is never silently dropped.
    The add-nodes form counts only once something was typed into it."""
    if group == "add" and before == shown:
        return 0, ""
    try:
        return len(FORM_EDITS[group](ref, before, shown)), ""
    except ValueError as exc:
        return 1, str(exc)
