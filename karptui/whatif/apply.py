"""A what-if applied to a Snapshot: the cluster as it would stand once the edits landed.

The result is a new :class:`Snapshot` made with ``dataclasses.replace``:
objects no edit touched are the very same objects, shared, never copied; the
input snapshot is never changed. Edited objects are rebuilt from their
patched raw dicts by the model's own builders, so a patch the model would
reject is rejected here too.

What each edit means, as an operator expects it:

* A patch or ``scale`` of a workload re-creates its pods from scratch, as a
  rollout would: every current pod goes, and pending pods are made from the
  (patched) template and go through ``build_pod`` -- ``spec.replicas`` of
  them (a Job: ``parallelism``, capped by ``completions``; a DaemonSet: one
  per node its selector, affinity and tolerations admit, pinned by the
  ``metadata.name`` node-affinity term its controller writes, with the
  controller's default tolerations). Admission is applied as the API server
  would: the Priority plugin turns ``priorityClassName`` (or the global
  default class) into ``priority``; DefaultTolerationSeconds adds the
  not-ready / unreachable tolerations. Pods keep the old pod names where
  they can (sorted; a DaemonSet's per node) so a diff compares like with
  like; the others are ``<workload>-whatif-<n>`` (StatefulSet:
  ``<name>-<ordinal>``). A Deployment's pods belong to its newest ReplicaSet
  (keeping its ``pod-template-hash``), which takes the new count and
  template; older ReplicaSets drop to zero.
* A patch of a NodePool, node class, PDB, Node or any other kept object
  rebuilds just that object.
* ``cordon`` sets ``spec.unschedulable`` and the
  ``node.kubernetes.io/unschedulable:NoSchedule`` taint the node lifecycle
  controller adds; uncordon removes both.
* ``remove`` of a node drops it and its NodeClaim, as a drain and a
  termination would: DaemonSet, static and finished pods go with it, pods
  without a controller are lost (nothing re-creates them), and every other
  pod is pending again, waiting for the scheduler.
* ``remove`` of a PDB drops it; of a workload, drops it with its pods.
* ``addNodes`` makes Nodes from the instance catalog (bundled, or the one
  passed in) through ``karptui.catalog.node_manifest``, with the NodePool's
  template labels and taints, and pending DaemonSet pods pinned to each.
"""

from __future__ import annotations

import difflib
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any

from .. import limits
from ..errors import InputError
from ..model import labels as L
from ..model.build import KINDS, api_group
from ..model.errors import ModelError
from ..model.fields import as_int
from ..model.meta import KubeObject
from ..model.node import Node
from ..model.pod import PENDING, Pod, build_pod
from ..model.snapshot import Snapshot
from ..model.taints import first_untolerated, parse_tolerations
from ..model.workloads import Workload
from .edits import (AddNodes, Cordon, Edit, Patch, Remove, RemoveNode, Scale, SCALABLE, SetFeatureGates, Target,
                    WhatIf)
from .patch import PatchError, apply_patch, merge_patch

NOT_READY = "node.kubernetes.io/not-ready"
UNREACHABLE = "node.kubernetes.io/unreachable"
UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
NO_SCHEDULE, NO_EXECUTE = "NoSchedule", "NoExecute"
DEFAULT_TOLERATION_SECONDS = 300
# What the DaemonSet controller adds to every daemon pod (network-unavailable
# only with hostNetwork), in its order.
DAEMON_TOLERATIONS = (
    (NOT_READY, NO_EXECUTE), (UNREACHABLE, NO_EXECUTE),
    ("node.kubernetes.io/disk-pressure", NO_SCHEDULE), ("node.kubernetes.io/memory-pressure", NO_SCHEDULE),
    ("node.kubernetes.io/pid-pressure", NO_SCHEDULE), (UNSCHEDULABLE, NO_SCHEDULE),
)
NETWORK_UNAVAILABLE = ("node.kubernetes.io/network-unavailable", NO_SCHEDULE)
ADMISSION_KEYS = frozenset(key for key, _ in DAEMON_TOLERATIONS + (NETWORK_UNAVAILABLE,))
# Classes every cluster has even when a dump leaves them out.
BUILTIN_PRIORITY = {"system-node-critical": 2000001000, "system-cluster-critical": 2000000000}
REVISION = "deployment.kubernetes.io/revision"
STS_POD_NAME = "statefulset.kubernetes.io/pod-name"
# Labels a controller gives each pod its own value of: never carried over.
PER_POD_LABELS = frozenset({STS_POD_NAME, "apps.kubernetes.io/pod-index", "batch.kubernetes.io/job-completion-index"})
_UID_SPACE = uuid.UUID("6c1f4b8e-2f4a-5a57-9d0e-6b61727074a1")

FIELD_OF_KIND = {kind: name for (_, kind), (name, _) in KINDS.items()}


@dataclass(frozen=True)
class Applied:
    """The edited snapshot, the workloads whose pods were re-created, and what happened."""

    snapshot: Snapshot
    resimulated: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


class EditError(ValueError):
    """An edit that does not fit the snapshot; becomes ``InputError("edit N: ...")``."""


def apply_whatif(snapshot: Snapshot, whatif: WhatIf, *, now: datetime | None = None,
                 catalog: Any = None) -> Applied:
    """Apply every edit in order, each to the result of the ones before.

    ``now`` stamps new pods and nodes (default: the snapshot's capture time,
    else the current time); ``catalog`` (a ``karptui.catalog.Catalog``)
    replaces the bundled instance types for ``addNodes``.
    """
    run = _Run(snapshot, _timestamp(snapshot, now), catalog)
    source = whatif.source or whatif.name or "what-if"
    for number, edit in enumerate(whatif.edits, 1):
        try:
            run.apply(edit)
            run.check_totals(len(run.snapshot.pods), len(run.snapshot.nodes))
        except (EditError, PatchError) as exc:
            raise InputError(source, f"edit {number}: {exc}") from None
    return Applied(run.snapshot, tuple(dict.fromkeys(run.resimulated)), tuple(run.notes))


def _timestamp(snapshot: Snapshot, now: datetime | None) -> str:
    when = now or snapshot.as_of or datetime.now(timezone.utc)
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return when.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _kind(obj: object) -> str:
    return getattr(obj, "kind", None) or obj.KIND  # type: ignore[attr-defined]


class _Run:
    """One application: the current snapshot, replaced edit by edit."""

    def __init__(self, snapshot: Snapshot, created: str, catalog: Any) -> None:
        self.snapshot = snapshot
        self.created = created
        self.catalog = catalog
        self.resimulated: list[str] = []
        self.notes: list[str] = []
        # a dump bigger than the caps may still be edited, as long as it does not grow
        self.max_pods = max(limits.MAX_WHATIF_PODS, len(snapshot.pods))
        self.max_nodes = max(limits.MAX_WHATIF_NODES, len(snapshot.nodes))
        self.made = 0  # pods and nodes made by the edits so far: the work, however many are kept

    def check_made(self, count: int, what: str) -> None:
        """A file of a thousand ``scale: 200000`` edits keeps one workload's pods but makes
        200 million: the making is bounded too, by the same cap."""
        self.made += count
        if self.made > self.max_pods:
            raise EditError(f"the edits so far make {self.made:,} pods and nodes, over karptui's cap of "
                            f"{self.max_pods:,} made by one what-if ({what})")

    def check_totals(self, pods: int, nodes: int) -> None:
        """The cluster an edit leaves stays within :mod:`karptui.limits`' what-if caps."""
        if nodes > self.max_nodes:
            raise EditError(f"the cluster would have {nodes:,} nodes, over karptui's cap of "
                            f"{self.max_nodes:,} for a what-if")
        if pods > self.max_pods:
            raise EditError(f"the cluster would have {pods:,} pods, over karptui's cap of "
                            f"{self.max_pods:,} for a what-if")

    def apply(self, edit: Edit) -> None:
        handlers = {Patch: self._patch, Scale: self._scale, Cordon: self._cordon,
                    RemoveNode: self._remove_node, Remove: self._remove, AddNodes: self._add_nodes,
                    SetFeatureGates: self._feature_gates}
        handler = handlers.get(type(edit))
        if handler is None:
            raise EditError(f"not an edit: {edit!r}")
        handler(edit)

    # ---------------------------------------------------------------- lookup

    def _find(self, target: Target) -> tuple[str, Any]:
        field = FIELD_OF_KIND[target.kind]
        candidates = [o for o in getattr(self.snapshot, field) if _kind(o) == target.kind]
        for obj in candidates:
            if obj.name == target.name and obj.namespace == target.namespace:
                return field, obj
        known = [o.name for o in candidates if o.namespace == target.namespace]
        close = difflib.get_close_matches(target.name, known, n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
        other = next((o for o in getattr(self.snapshot, field)
                      if o.name == target.name and o.namespace == target.namespace), None)
        if other is not None:  # right name, wrong kind: a Provisioner called NodePool, say
            hint = f"; did you mean {Target(_kind(other), other.name, other.namespace)}?"
        where = f" in namespace {target.namespace}" if target.namespace else ""
        raise EditError(f"{target} not found in the snapshot ({len(known)} {target.kind}(s){where}{hint})")

    def _raw(self, obj: KubeObject, target: Target) -> Mapping:
        owner = self.snapshot.owner_of(obj) if isinstance(obj, Workload) else None
        if target.kind == "ReplicaSet" and owner is not None:
            raise EditError(f"{target} is managed by {owner.ref}: edit that instead")
        if obj.raw is not None:
            return obj.raw
        if isinstance(obj, Pod):
            top = self.snapshot.top_owner(obj)
            if top is not None:
                raise EditError(f"pods are not kept whole in a snapshot: edit {top.ref} instead")
            raise EditError(f"{target} has no controller, and pods are not kept whole in a snapshot")
        raise EditError(f"the snapshot keeps no manifest for {target.kind} objects, so {target} cannot be edited")

    # ---------------------------------------------------------------- patch, scale

    def _patch(self, edit: Patch) -> None:
        field, obj = self._find(edit.target)
        raw = self._raw(obj, edit.target)
        try:
            patched = apply_patch(raw, edit.patch, edit.patch_type)
        except PatchError as exc:
            raise EditError(f"{edit.target}: {exc}") from None
        self._replace_raw(field, obj, raw, patched, edit.target)

    def _scale(self, edit: Scale) -> None:
        field, obj = self._find(edit.target)
        raw = self._raw(obj, edit.target)
        patched = merge_patch(raw, {"spec": {SCALABLE[edit.target.kind]: edit.replicas}})
        self._replace_raw(field, obj, raw, patched, edit.target)

    def _replace_raw(self, field: str, obj: Any, raw: Mapping, patched: Any, target: Target) -> None:
        _check_identity(raw, patched, target)
        if field == "workloads":
            self._resimulate(obj, patched, target)
            return
        rebuilt = _build(patched, target)
        self.snapshot = _swap(self.snapshot, field, obj, rebuilt)

    def _resimulate(self, old: Workload, raw: Mapping, target: Target) -> None:
        snap = self.snapshot
        new = _build(raw, target)
        if new.template is None:
            raise EditError(f"{target}: no pod template (spec.template), so no pods to make")
        old_pods = snap.pods_of(old)
        workloads = [new if w is old else w for w in snap.workloads]
        template = raw["spec"]["template"]
        meta = template.get("metadata") or {}
        labels, annotations = dict(meta.get("labels") or {}), dict(meta.get("annotations") or {})
        count = _desired(new, raw, target)
        if new.kind != "DaemonSet":  # a DaemonSet makes a pod per node, and nodes are capped
            self.check_totals(len(snap.pods) - len(old_pods) + count, len(snap.nodes))
            self.check_made(count, f"{count:,} for {target}")
        else:
            self.check_made(len(snap.nodes), f"a pod per node for {target}")
        owner = _owner_ref(raw, new)
        try:
            spec = self._admit(template.get("spec") or {}, snap.pods, target, daemon=new.kind == "DaemonSet")
            spec, labels, annotations = self._carry_over(spec, labels, annotations, old, old_pods, target)
            if new.kind == "DaemonSet":
                pods = self._daemon_pods(new, owner, labels, annotations, spec, snap.nodes, old_pods)
            else:
                if new.kind == "Deployment":
                    owner, labels, workloads = self._rollout(old, new, count, labels, workloads)
                pods = self._replica_pods(new, raw, owner, labels, annotations, spec, count, old_pods)
        except EditError:
            raise
        except (ModelError, TypeError, ValueError, AttributeError, KeyError, IndexError) as exc:
            raise EditError(f"{target}: its pods cannot be made from the template: {exc}") from None
        gone = {id(p) for p in old_pods}
        self.snapshot = replace(
            snap,
            pods=tuple(p for p in snap.pods if id(p) not in gone) + tuple(pods),
            workloads=tuple(workloads),
        )
        self.resimulated.append(new.ref)
        self.notes.append(f"{new.ref}: {len(old_pods)} pod(s) replaced by {len(pods)} pending pod(s) "
                          "made from its template")

    def _rollout(self, old: Workload, new: Workload, count: int, labels: dict,
                 workloads: list) -> tuple[dict, dict, list]:
        """The Deployment's newest ReplicaSet owns the new pods, with its template hash."""
        snap = self.snapshot
        owned = [w for w in snap.workloads if w.kind == "ReplicaSet" and snap.owner_of(w) is old]
        if not owned:
            return _owner_ref({"apiVersion": "apps/v1"}, new), labels, workloads
        newest = max(owned, key=_revision)
        template_hash = newest.labels.get(L.POD_TEMPLATE_HASH)
        if template_hash:
            labels = {**labels, L.POD_TEMPLATE_HASH: template_hash}
        rs_template = replace(new.template, name=newest.name, labels=labels)
        updated = {id(newest): replace(newest, replicas=count, ready_replicas=0, template=rs_template)}
        for rs in owned:
            if rs is not newest:
                updated[id(rs)] = replace(rs, replicas=0, ready_replicas=0)
        owner = _owner_ref({"apiVersion": "apps/v1"}, newest)
        return owner, labels, [updated.get(id(w), w) for w in workloads]

    def _replica_pods(self, workload: Workload, raw: Mapping, owner: dict, labels: dict, annotations: dict,
                      spec: dict, count: int, old_pods: list[Pod]) -> list[Pod]:
        ns = workload.namespace
        if workload.kind == "StatefulSet":
            claims = _claim_templates(raw)
            pods = []
            for ordinal in range(count):
                name = f"{workload.name}-{ordinal}"
                pod_spec = _with_claims(spec, claims, name)
                pods.append(self._pod(name, ns, {**labels, STS_POD_NAME: name}, annotations, owner, pod_spec))
            return pods
        names = sorted(p.name for p in old_pods)[:count]
        names += self._fresh_names(workload, count - len(names), ns, {p.name for p in old_pods})
        return [self._pod(name, ns, labels, annotations, owner, spec) for name in names]

    def _daemon_pods(self, ds: Workload, owner: dict, labels: dict, annotations: dict, spec: dict,
                     nodes: Iterable[Node], old_pods: Sequence[Pod]) -> list[Pod]:
        """One pod per node the DaemonSet admits, pinned to it."""
        probe = build_pod({"metadata": {"name": ds.name, "namespace": ds.namespace}, "spec": spec})
        eligible = [n for n in nodes if _should_run(probe, n)]
        by_node: dict[str, str] = {}
        for pod in sorted(old_pods, key=lambda p: p.name):
            by_node.setdefault(_pinned_node(pod), pod.name)
        fresh = iter(self._fresh_names(ds, sum(1 for n in eligible if n.name not in by_node), ds.namespace,
                                       {p.name for p in old_pods}))
        pods = []
        for node in eligible:
            name = by_node.get(node.name) or next(fresh)
            pods.append(self._pod(name, ds.namespace, labels, annotations, owner, _pinned(spec, node.name)))
        return pods

    def _fresh_names(self, workload: Workload, count: int, namespace: str, reusable: set[str]) -> list[str]:
        taken = {p.name for p in self.snapshot.pods if p.namespace == namespace} - reusable
        names: list[str] = []
        n = 0
        while len(names) < count:
            n += 1
            name = f"{workload.name}-whatif-{n}"
            if name not in taken:
                names.append(name)
        return names

    def _pod(self, name: str, namespace: str, labels: dict, annotations: dict, owner: dict, spec: dict) -> Pod:
        meta: dict = {"name": name, "namespace": namespace, "uid": str(uuid.uuid5(_UID_SPACE, f"{namespace}/{name}")),
                      "labels": labels, "ownerReferences": [owner], "creationTimestamp": self.created}
        if annotations:
            meta["annotations"] = annotations
        return build_pod({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec,
                          "status": {"phase": PENDING}})

    def _admit(self, template_spec: Mapping, all_pods: Iterable[Pod], target: Target,
               daemon: bool = False) -> dict:
        """The template spec as admission leaves it: daemon and default tolerations, priority."""
        spec = dict(template_spec)
        _check_constraints(spec, target)
        tolerations = spec.get("tolerations") or []
        if not isinstance(tolerations, list):
            raise EditError(f"{target}: spec.template.spec.tolerations must be a list")
        if daemon:
            tolerations = _with_daemon_tolerations(tolerations, spec.get("hostNetwork") is True)
        tolerations = _with_default_toleration_seconds(tolerations)
        if tolerations:
            spec["tolerations"] = tolerations
        if spec.get("priority") is None:
            value, class_name, policy = self._priority(spec.get("priorityClassName"), all_pods, target)
            spec["priority"] = value
            if class_name:
                spec["priorityClassName"] = class_name
            if policy and "preemptionPolicy" not in spec:
                spec["preemptionPolicy"] = policy
        return spec

    def _carry_over(self, spec: dict, labels: dict, annotations: dict, old: Workload, old_pods: Sequence[Pod],
                    target: Target) -> tuple[dict, dict, dict]:
        """What mutating admission gave the running pods, given to the new ones too.

        Webhooks (EKS Fargate's sets ``schedulerName: fargate-scheduler`` and a
        toleration) and controllers (``controller-revision-hash``) add fields
        no template shows. Whatever every current pod has that the old
        template lacked is kept, unless the edited template now sets it.
        """
        pods = [p for p in old_pods if not p.is_terminal]
        if not pods or old.template is None:
            return spec, labels, annotations
        before = old.template
        labels = {**_common([p.labels for p in pods], skip=before.labels, per_pod=PER_POD_LABELS), **labels}
        annotations = {**_common([p.annotations for p in pods], skip=before.annotations), **annotations}
        carried = []
        selector = _common([p.node_selector for p in pods], skip=before.node_selector)
        template_selector = spec.get("nodeSelector") if isinstance(spec.get("nodeSelector"), Mapping) else {}
        selector = {k: v for k, v in selector.items() if k not in template_selector}
        if selector:
            spec = {**spec, "nodeSelector": {**template_selector, **selector}}
            carried.append(f"nodeSelector {', '.join(f'{k}={v}' for k, v in selector.items())}")
        present = {repr(t.to_dict()) for t in parse_tolerations(spec.get("tolerations"), "tolerations")}
        extra = [t.to_dict() for t in pods[0].tolerations
                 if all(t in p.tolerations for p in pods[1:]) and t not in before.tolerations
                 and t.key not in ADMISSION_KEYS and repr(t.to_dict()) not in present]
        if extra:
            spec = {**spec, "tolerations": list(spec.get("tolerations") or []) + extra}
            carried.append(f"{len(extra)} toleration(s)")
        names = {p.scheduler_name for p in pods}
        template_scheduler = spec.get("schedulerName") or "default-scheduler"
        if len(names) == 1 and template_scheduler == before.scheduler_name and names != {before.scheduler_name}:
            spec = {**spec, "schedulerName": names.pop()}
            carried.append(f"schedulerName {spec['schedulerName']}")
        if carried:
            self.notes.append(f"{target}: kept what admission gave its pods: {'; '.join(carried)}")
        return spec, labels, annotations

    def _priority(self, name: object, all_pods: Iterable[Pod], target: Target) -> tuple[int, str, str]:
        """What the Priority admission plugin resolves: (value, class name, preemption policy)."""
        classes = {c.name: c for c in self.snapshot.priority_classes}
        if name:
            name = str(name)
            if name in classes:
                return classes[name].value, name, classes[name].preemption_policy
            if name in BUILTIN_PRIORITY:
                return BUILTIN_PRIORITY[name], name, "PreemptLowerPriority"
            admitted = next((p for p in all_pods if p.priority_class_name == name), None)
            if admitted is not None:  # the dump left the class out; its pods say what it was
                return admitted.priority, name, ""
            self.notes.append(f"{target}: PriorityClass {name} is not in the snapshot; priority 0 assumed")
            return 0, name, ""
        default = next((c for c in classes.values() if c.global_default), None)
        if default is not None:
            return default.value, default.name, default.preemption_policy
        return 0, "", ""

    # ---------------------------------------------------------------- nodes

    def _cordon(self, edit: Cordon) -> None:
        field, node = self._find(edit.target)
        raw = node.raw
        spec = raw.get("spec") or {}
        taints = [t for t in spec.get("taints") or []
                  if not (isinstance(t, Mapping) and t.get("key") == UNSCHEDULABLE and t.get("effect") == NO_SCHEDULE)]
        if edit.cordon == node.unschedulable:
            self.notes.append(f"{edit.target} was already {'cordoned' if edit.cordon else 'schedulable'}")
        if edit.cordon:
            cordoned = taints + [{"key": UNSCHEDULABLE, "effect": NO_SCHEDULE}]
            patch = {"spec": {"unschedulable": True, "taints": cordoned}}
        else:
            patch = {"spec": {"unschedulable": None, "taints": taints or None}}
        self.snapshot = _swap(self.snapshot, field, node, _build(merge_patch(raw, patch), edit.target))
        if edit.cordon != node.unschedulable:
            self.notes.append(f"{edit.target} {'cordoned' if edit.cordon else 'uncordoned'}")

    def _remove_node(self, edit: RemoveNode) -> None:
        snap = self.snapshot
        _, node = self._find(edit.target)
        claim = snap.nodeclaim_by_node.get(node.name)
        pods: list[Pod] = []
        moved = daemons = unmanaged = 0
        for pod in snap.pods:
            if pod.node_name != node.name:
                if pod.is_daemonset_pod and _pinned_node(pod) == node.name:
                    daemons += 1  # a pending daemon pod for this node: its controller deletes it
                elif pod.nominated_node == node.name:
                    pods.append(replace(pod, nominated_node=""))
                else:
                    pods.append(pod)
            elif pod.is_daemonset_pod:
                daemons += 1
            elif pod.is_terminal or pod.is_mirror:
                pass
            elif pod.controller is None:
                unmanaged += 1
            else:
                moved += 1
                pods.append(replace(pod, node_name="", phase=PENDING, scheduled_reason="",
                                    scheduled_message="", nominated_node=""))
        self.snapshot = replace(
            snap,
            nodes=tuple(n for n in snap.nodes if n is not node),
            nodeclaims=tuple(c for c in snap.nodeclaims if c is not claim),
            pods=tuple(pods),
        )
        note = f"{edit.target} removed: {moved} pod(s) pending again, {daemons} DaemonSet pod(s) gone with it"
        if unmanaged:
            note += f", {unmanaged} pod(s) without a controller lost"
        self.notes.append(note)

    def _add_nodes(self, edit: AddNodes) -> None:
        from ..catalog import bundled_catalog, node_manifest, region_of_zone, snapshot_region

        snap = self.snapshot
        region = edit.region or region_of_zone(edit.zone)
        if self.catalog is not None:
            catalog = self.catalog
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
            raise EditError(f"addNodes: {edit.instance_type} is not offered as {edit.capacity_type} "
                            f"in {edit.zone}")
        self.check_totals(len(snap.pods), len(snap.nodes) + edit.count)
        self.check_made(edit.count, f"{edit.count:,} nodes")
        if edit.zone not in snap.zones:
            self.notes.append(f"addNodes: no node of the snapshot is in {edit.zone} yet")
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
            name = f"{edit.prefix}-{n}"
            if name in taken:
                continue
            raw = node_manifest(kind, edit.zone, edit.capacity_type, name, nodepool=nodepool,
                                region=region or None, extra_labels=labels, taints=taints,
                                created=self.created, nodeclass=nodeclass)
            nodes.append(_build(raw, Target("Node", name)))
        if pool is not None:
            unmet = [str(r) for r in pool.requirements if not r.matches(nodes[0].labels)]
            if unmet:
                self.notes.append(f"addNodes: the new nodes do not meet {pool.ref}'s requirements: {'; '.join(unmet)}")
        self.snapshot = replace(snap, nodes=snap.nodes + tuple(nodes))
        daemon_pods: list[Pod] = []
        for ds in (w for w in snap.workloads if w.kind == "DaemonSet" and w.raw is not None):
            template = (ds.raw.get("spec") or {}).get("template") or {}
            meta = template.get("metadata") or {}
            target = Target("DaemonSet", ds.name, ds.namespace)
            try:
                spec = self._admit(template.get("spec") or {}, snap.pods, target, daemon=True)
                running = [p for p in snap.pods if snap.owner_of(p) is ds]
                spec, labels, annotations = self._carry_over(
                    spec, dict(meta.get("labels") or {}), dict(meta.get("annotations") or {}), ds, running, target)
                daemon_pods += self._daemon_pods(ds, _owner_ref(ds.raw, ds), labels, annotations, spec, nodes, ())
            except (ModelError, TypeError, ValueError, AttributeError, KeyError, IndexError) as exc:
                raise EditError(f"addNodes: pods of {ds.ref} cannot be made: {exc}") from None
        self.snapshot = replace(self.snapshot, pods=snap.pods + tuple(daemon_pods))
        self.notes.append(f"{edit.describe()}: {', '.join(n.name for n in nodes)}; "
                          f"{len(daemon_pods)} DaemonSet pod(s) pending on them")

    # ---------------------------------------------------------------- remove

    def _feature_gates(self, edit: SetFeatureGates) -> None:
        self.snapshot = replace(self.snapshot, feature_gates={**self.snapshot.feature_gates, **edit.gates})
        self.notes.append(edit.describe())

    def _remove(self, edit: Remove) -> None:
        snap = self.snapshot
        field, obj = self._find(edit.target)
        if field == "pdbs":
            self.snapshot = replace(snap, pdbs=tuple(p for p in snap.pdbs if p is not obj))
            self.notes.append(f"{edit.target} removed")
            return
        owner = snap.owner_of(obj)
        if edit.target.kind == "ReplicaSet" and owner is not None:
            raise EditError(f"{edit.target} is managed by {owner.ref}: remove that instead")
        gone = {id(obj)} | {id(w) for w in snap.workloads if any(o is obj for o in snap.owner_chain(w))}
        pods = [p for p in snap.pods if not any(id(w) in gone for w in snap.owner_chain(p))]
        self.snapshot = replace(
            snap, workloads=tuple(w for w in snap.workloads if id(w) not in gone), pods=tuple(pods),
        )
        self.notes.append(f"{edit.target} removed with {len(snap.pods) - len(pods)} pod(s)")


# -------------------------------------------------------------------- helpers

def _build(raw: Mapping, target: Target) -> Any:
    """The model object for a raw dict, through the same builder the loader uses."""
    api_version = raw.get("apiVersion") if isinstance(raw.get("apiVersion"), str) else ""
    kind = raw.get("kind") if isinstance(raw.get("kind"), str) else target.kind
    entry = KINDS.get((api_group(api_version), kind))
    if entry is None:
        entry = next(v for (_, k), v in KINDS.items() if k == target.kind)
    try:
        return entry[1](raw, api_version, kind)
    except (ModelError, TypeError, ValueError, AttributeError, KeyError, IndexError) as exc:
        raise EditError(f"{target}: the edited object is not valid: {exc}") from None


def _swap(snapshot: Snapshot, field: str, old: object, new: object) -> Snapshot:
    return replace(snapshot, **{field: tuple(new if o is old else o for o in getattr(snapshot, field))})


def _check_identity(raw: Mapping, patched: Any, target: Target) -> None:
    if not isinstance(patched, Mapping):
        raise EditError(f"{target}: the patch leaves no object")
    before, after = raw.get("metadata") or {}, patched.get("metadata")
    if not isinstance(after, Mapping):
        raise EditError(f"{target}: the patch removes metadata")
    for name, old, new in (("kind", raw.get("kind"), patched.get("kind")),
                           ("metadata.name", before.get("name"), after.get("name")),
                           ("metadata.namespace", before.get("namespace"), after.get("namespace"))):
        if old != new:
            raise EditError(f"{target}: a patch cannot change {name} (a what-if edits objects in place)")


def _desired(workload: Workload, raw: Mapping, target: Target) -> int:
    spec = raw.get("spec") or {}
    if workload.kind == "Job":
        if spec.get("suspend") is True:
            return 0
        count = workload.replicas if workload.replicas is not None else 1
        completions = as_int(spec.get("completions"), "spec.completions")
        if completions is not None:
            count = min(count, completions)
    else:
        count = workload.replicas or 0
    if count < 0:
        raise EditError(f"{target}: {SCALABLE.get(workload.kind, 'replicas')} must be >= 0, got {count}")
    if count > limits.MAX_WHATIF_REPLICAS:
        raise EditError(f"{target}: {SCALABLE.get(workload.kind, 'replicas')} {count} is over karptui's cap of "
                        f"{limits.MAX_WHATIF_REPLICAS:,} pods for one workload "
                        "(the largest real clusters run ~150,000 pods in all)")
    return count


_AFFINITY_LISTS = (
    ("nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"),
    ("nodeAffinity", "preferredDuringSchedulingIgnoredDuringExecution", None),
    ("podAffinity", "requiredDuringSchedulingIgnoredDuringExecution", None),
    ("podAffinity", "preferredDuringSchedulingIgnoredDuringExecution", None),
    ("podAntiAffinity", "requiredDuringSchedulingIgnoredDuringExecution", None),
    ("podAntiAffinity", "preferredDuringSchedulingIgnoredDuringExecution", None),
)


def _check_constraints(spec: Mapping, target: Target) -> None:
    """No pod template with more spread constraints or affinity terms than etcd could store."""
    spread = spec.get("topologySpreadConstraints")
    if isinstance(spread, list) and len(spread) > limits.MAX_SPREAD_CONSTRAINTS:
        raise EditError(f"{target}: {len(spread):,} topologySpreadConstraints, over karptui's cap of "
                        f"{limits.MAX_SPREAD_CONSTRAINTS:,} (more than a pod the API server can store)")
    affinity = spec.get("affinity")
    terms = 0
    for kind, rule, inner in _AFFINITY_LISTS if isinstance(affinity, Mapping) else ():
        found = affinity.get(kind)
        found = found.get(rule) if isinstance(found, Mapping) else None
        if inner is not None:
            found = found.get(inner) if isinstance(found, Mapping) else None
        terms += len(found) if isinstance(found, list) else 0
    if terms > limits.MAX_AFFINITY_TERMS:
        raise EditError(f"{target}: {terms:,} affinity terms, over karptui's cap of "
                        f"{limits.MAX_AFFINITY_TERMS:,} (more than a pod the API server can store)")


def _owner_ref(raw: Mapping, owner: KubeObject) -> dict:
    ref = {"apiVersion": raw.get("apiVersion") or "apps/v1", "kind": _kind(owner), "name": owner.name,
           "controller": True, "blockOwnerDeletion": True}
    if owner.uid:
        ref["uid"] = owner.uid
    return ref


def _revision(rs: Workload) -> tuple:
    revision = rs.annotations.get(REVISION, "")
    created = rs.created.timestamp() if rs.created else 0.0
    return (int(revision) if revision.isdigit() else -1, created, rs.name)


def _claim_templates(raw: Mapping) -> list[str]:
    out = []
    for claim in (raw.get("spec") or {}).get("volumeClaimTemplates") or []:
        name = ((claim or {}).get("metadata") or {}).get("name")
        if isinstance(name, str) and name:
            out.append(name)
    return out


def _with_claims(spec: dict, claims: list[str], pod: str) -> dict:
    """The StatefulSet controller's volumes: claim ``<template>-<pod>`` per claim template."""
    if not claims:
        return spec
    volumes = [v for v in spec.get("volumes") or [] if not (isinstance(v, Mapping) and v.get("name") in claims)]
    volumes += [{"name": c, "persistentVolumeClaim": {"claimName": f"{c}-{pod}"}} for c in claims]
    return {**spec, "volumes": volumes}


def _common(maps: Iterable[Mapping[str, str]], skip: Mapping[str, str],
            per_pod: frozenset[str] = frozenset()) -> dict[str, str]:
    """Entries every map has, with the same value, that ``skip`` does not have."""
    maps = list(maps)
    return {k: v for k, v in maps[0].items()
            if k not in skip and k not in per_pod and all(m.get(k) == v for m in maps[1:])}


def _pinned(spec: dict, node: str) -> dict:
    """The DaemonSet controller's pin: required node affinity replaced by the node's name."""
    affinity = dict(spec.get("affinity") or {})
    node_affinity = dict(affinity.get("nodeAffinity") or {})
    node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {
        "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}],
    }
    affinity["nodeAffinity"] = node_affinity
    return {**spec, "affinity": affinity}


def _pinned_node(pod: Pod) -> str:
    """The node a pod is on, or the one its ``metadata.name`` affinity pins it to."""
    if pod.node_name:
        return pod.node_name
    required = pod.affinity.node_required
    for term in required.terms if required else ():
        for field in term.match_fields:
            if field.key == "metadata.name" and field.operator == "In" and len(field.values) == 1:
                return field.values[0]
    return ""


def _should_run(probe: Pod, node: Node) -> bool:
    """The DaemonSet controller's test: node selector, required affinity, untolerated taints."""
    if any(node.labels.get(k) != v for k, v in probe.node_selector.items()):
        return False
    required = probe.affinity.node_required
    if required is not None and not required.matches(node.labels, node.name):
        return False
    return first_untolerated(node.taints, probe.tolerations) is None


def _with_daemon_tolerations(tolerations: list, host_network: bool) -> list:
    out = list(tolerations)
    wanted = DAEMON_TOLERATIONS + ((NETWORK_UNAVAILABLE,) if host_network else ())
    for key, effect in wanted:
        toleration = {"key": key, "operator": "Exists", "effect": effect}
        same = next((i for i, t in enumerate(out) if isinstance(t, Mapping) and t.get("key") == key
                     and t.get("effect") == effect and t.get("operator") == "Exists"), None)
        if same is None:
            out.append(toleration)
        else:
            out[same] = toleration
    return out


def _with_default_toleration_seconds(tolerations: list) -> list:
    """DefaultTolerationSeconds: 300 s on not-ready and unreachable unless already tolerated."""
    out = list(tolerations)
    for key in (NOT_READY, UNREACHABLE):
        covered = any(
            isinstance(t, Mapping) and (t.get("key") or "") in (key, "") and (t.get("effect") or "") in (NO_EXECUTE, "")
            for t in tolerations
        )
        if not covered:
            out.append({"key": key, "operator": "Exists", "effect": NO_EXECUTE,
                        "tolerationSeconds": DEFAULT_TOLERATION_SECONDS})
    return out


def _pool_facts(pool: Any, catalog: Any) -> tuple[dict, list, str | None, str | None]:
    """Labels, taints, nodepool and node class name a node of ``pool`` carries: its single-valued
    requirements on keys no instance type decides, its template labels."""
    if pool is None:
        return {}, [], None, None
    labels = {r.key: r.values[0] for r in pool.requirements
              if r.operator == "In" and len(r.values) == 1 and r.key not in catalog.well_known}
    labels.update(pool.template_labels)
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
