"""Node edits: cordon and uncordon, and nodes added as Karpenter (or a node group) would launch them.

``kubectl cordon`` sets ``spec.unschedulable``, and the node lifecycle controller adds the
``node.kubernetes.io/unschedulable:NoSchedule`` taint: nothing is evicted, running pods stay.
Added nodes are made from the instance catalog (:func:`karptui.catalog.node_manifest`) with the
NodePool's template labels and taints; they take new pods only (the DaemonSets' pods for them,
and whatever is pending): nothing running moves to them.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ...model import labels as L
from ...model.node import Node
from ...sim.karpenter.claimlabels import nodeclaim_labels
from ...sim.karpenter.requirements import Reqs
from ..edits import AddNodes, Cordon, Target
from ..patch import merge_patch
from .common import BUILD_ERRORS, EditError, build, swap
from .templates import NO_SCHEDULE, UNSCHEDULABLE

if TYPE_CHECKING:
    from ..apply import Run


def cordoned(node: Node, cordon: bool) -> Node:
    """``node`` cordoned (or uncordoned): ``spec.unschedulable`` and the lifecycle controller's taint."""
    raw = node.raw
    spec = raw.get("spec") or {}
    taints = [t for t in spec.get("taints") or []
              if not (isinstance(t, Mapping) and t.get("key") == UNSCHEDULABLE and t.get("effect") == NO_SCHEDULE)]
    if cordon:
        patch = {"spec": {"unschedulable": True, "taints": taints + [{"key": UNSCHEDULABLE, "effect": NO_SCHEDULE}]}}
    else:
        patch = {"spec": {"unschedulable": None, "taints": taints or None}}
    return build(merge_patch(raw, patch), Target("Node", node.name))


def cordon(run: Run, edit: Cordon) -> None:
    field, node = run.find(edit.target)
    if edit.cordon == node.unschedulable:
        run.notes.append(f"{edit.target} was already {'cordoned' if edit.cordon else 'schedulable'}")
    run.snapshot = swap(run.snapshot, field, node, cordoned(node, edit.cordon))
    if edit.cordon != node.unschedulable:
        running = sum(1 for p in run.snapshot.pods if p.node_name == node.name and not p.is_terminal)
        if edit.cordon:
            run.notes.append(f"{edit.target} cordoned: new pods stay off it; its {running} running pod(s) stay")
        else:
            run.notes.append(f"{edit.target} uncordoned")


def add_nodes(run: Run, edit: AddNodes) -> None:
    from ...catalog import bundled_catalog, node_manifest, region_of_zone, snapshot_region
    from .daemon import pods_for_new_nodes

    snap = run.snapshot
    region = edit.region or region_of_zone(edit.zone)
    if run.catalog is not None:
        catalog = run.catalog
    else:
        home, zones = snapshot_region(snap)
        region = region or home
        zones = sorted({z for z in zones if region_of_zone(z) in ("", region)} | {edit.zone})
        catalog = bundled_catalog(region, zones)
    kind = catalog.get(edit.instance_type)
    if kind is None:
        close = difflib.get_close_matches(edit.instance_type, list(catalog.names), n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
        raise EditError(f"addNodes: unknown instance type {edit.instance_type!r}{hint}")
    if kind.offering(edit.zone, edit.capacity_type) is None:
        raise EditError(f"addNodes: {edit.instance_type} is not offered as {edit.capacity_type} in {edit.zone}")
    run.check_totals(len(snap.pods), len(snap.nodes) + edit.count)
    run.check_made(edit.count, f"{edit.count:,} nodes")
    if edit.zone not in snap.zones:
        run.notes.append(f"addNodes: no node of the snapshot is in {edit.zone} yet")
    pool = None
    if edit.nodepool:
        pool = next((p for p in snap.nodepools if p.name == edit.nodepool), None)
        if pool is None:
            names = ", ".join(p.name for p in snap.nodepools) or "none"
            raise EditError(f"addNodes: no NodePool named {edit.nodepool!r} in the snapshot (NodePools: {names})")
    labels, taints, nodepool, nodeclass = _pool_facts(pool, catalog)
    labels.update(edit.labels)
    taints = _merge_taints(taints, edit.taints)
    taken = {n.name for n in snap.nodes}
    nodes: list[Node] = []
    n = 0
    while len(nodes) < edit.count:
        n += 1
        name = edit.names[n - 1] if edit.names else f"{edit.prefix}-{n}"
        if name in taken:
            if edit.names:
                raise EditError(f"addNodes: a node named {name} is already in the snapshot")
            continue
        raw = node_manifest(kind, edit.zone, edit.capacity_type, name, nodepool=nodepool,
                            region=region or None, extra_labels=labels, taints=taints,
                            created=run.created, nodeclass=nodeclass)
        nodes.append(build(raw, Target("Node", name)))
    if pool is not None:
        unmet = [str(r) for r in pool.requirements if not r.matches(nodes[0].labels)]
        if unmet:
            run.notes.append(f"addNodes: the new nodes do not meet {pool.ref}'s requirements: {'; '.join(unmet)}")
    run.snapshot = replace(snap, nodes=snap.nodes + tuple(nodes))
    try:
        daemon_pods = pods_for_new_nodes(run, nodes)
    except EditError as exc:
        raise EditError(f"addNodes: {exc}") from None
    except BUILD_ERRORS as exc:
        raise EditError(f"addNodes: DaemonSet pods cannot be made: {exc}") from None
    run.replace_pods((), daemon_pods)
    run.notes.append(f"{edit.describe()}: {', '.join(n.name for n in nodes)}; "
                     f"{len(daemon_pods)} DaemonSet pod(s) pending on them; running pods stay where they are")


def _pool_facts(pool: Any, catalog: Any) -> tuple[dict, list, str | None, str | None]:
    """Labels, taints, nodepool and node class name a node of ``pool`` carries: the labels Karpenter
    gives its NodeClaims (a value for every requirement on a key no instance type decides, its
    template labels; sim.karpenter.claimlabels)."""
    if pool is None:
        return {}, [], None, None
    reqs = Reqs.from_model(pool.requirements).plus(Reqs.from_labels(pool.template_labels).values())
    labels = nodeclaim_labels(reqs, catalog.well_known)
    taints = [t.to_dict() for t in pool.taints]
    if pool.kind == "Provisioner":
        labels.update({L.PROVISIONER_NAME: pool.name, L.NODE_INITIALIZED: "true"})
        return labels, taints, None, None
    ref = pool.node_class_ref
    nodeclass = ref.name if ref and ref.kind == "EC2NodeClass" and pool.api_version.endswith("/v1") else None
    return labels, taints, pool.name, nodeclass


def _merge_taints(base: list, extra: Iterable[Mapping]) -> list:
    out = {(t.get("key"), t.get("effect")): dict(t) for t in base}
    for taint in extra:
        out[(taint.get("key"), taint.get("effect"))] = dict(taint)
    return list(out.values())
