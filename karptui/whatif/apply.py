"""A what-if applied to a Snapshot: the cluster as it would stand once the edits landed.

The result is a new :class:`Snapshot` made with ``dataclasses.replace``:
objects no edit touched are the very same objects, shared, never copied; the
input snapshot is never changed. Edited objects are rebuilt from their
patched raw dicts by the model's own builders, so a patch the model would
reject is rejected here too.

This module only finds each edit's object and hands it to the controller that owns what
happens next (:mod:`karptui.whatif.controllers`, one module per Kubernetes controller):

* a workload's edit goes to its controller: a replicas change (``scale``, or a patch that
  leaves the pod template alone) adds pending pods from the template or deletes the pods the
  controller ranks first -- no running pod moves; a template change rolls out by the
  workload's strategy (a Deployment's RollingUpdate with its surge and the peak it reaches,
  Recreate, a StatefulSet by ordinal, a DaemonSet node by node, OnDelete not at all);
* a patch of a NodePool, node class, PDB, Node or any other kept object rebuilds just that
  object;
* ``cordon`` marks the node unschedulable and evicts nothing;
* ``remove`` of a node drains it through the eviction API (PDBs honoured: a blocked
  eviction keeps the node, cordoned, and is said) and deletes it with its NodeClaim;
* ``remove`` of a PDB drops it; of a workload, drops it with its pods;
* ``addNodes`` makes Nodes from the instance catalog with the NodePool's template labels and
  taints, and the DaemonSets' pending pods pinned to each; nothing running moves to them.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any

from .. import limits
from ..errors import InputError
from ..model.meta import KubeObject
from ..model.pod import Pod
from ..model.snapshot import Snapshot
from ..model.workloads import Workload
from . import controllers
from .controllers.common import FIELD_OF_KIND, EditError, build, kind_of, swap
from .controllers.deployment import Rollout
from .controllers.drain import Drain, drain
from .controllers.nodes import add_nodes, cordon
from .edits import (AddNodes, Cordon, Create, Edit, Patch, Remove, RemoveNode, Scale, SCALABLE, SetFeatureGates,
                    SetKarpenterVersion, Target,
                    WhatIf)
from .patch import PatchError, apply_patch, merge_patch

__all__ = ["Applied", "EditError", "Run", "apply_whatif"]


@dataclass(frozen=True)
class Applied:
    """The edited snapshot and what the edits did.

    ``resimulated``: the workloads whose pods the edits changed; ``added`` / ``deleted``: the
    keys of the pods the controllers created and deleted (a key in both: deleted and made again
    under its name, as a StatefulSet's ordinal; an evicted pod is in neither: it is the same pod,
    pending again); ``rollouts`` and ``drains``: each template change's rollout and each
    node's drain, with what an operator asks of them (the peak, the blocked evictions).
    """

    snapshot: Snapshot
    resimulated: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    added: frozenset[str] = frozenset()
    deleted: frozenset[str] = frozenset()
    rollouts: tuple[Rollout, ...] = ()
    drains: tuple[Drain, ...] = ()


def apply_whatif(snapshot: Snapshot, whatif: WhatIf, *, now: datetime | None = None,
                 catalog: Any = None) -> Applied:
    """Apply every edit in order, each to the result of the ones before.

    ``now`` stamps new pods and nodes (default: the snapshot's capture time,
    else the current time); ``catalog`` (a ``karptui.catalog.Catalog``)
    replaces the bundled instance types for ``addNodes``.
    """
    run = Run(snapshot, now, catalog)
    source = whatif.source or whatif.name or "what-if"
    for number, edit in enumerate(whatif.edits, 1):
        try:
            run.apply(edit)
            run.check_totals(len(run.snapshot.pods), len(run.snapshot.nodes))
        except (EditError, PatchError) as exc:
            raise InputError(source, f"edit {number}: {exc}") from None
    return Applied(run.snapshot, tuple(dict.fromkeys(run.resimulated)), tuple(run.notes), frozenset(run.added),
                   frozenset(run.deleted), tuple(run.rollouts), tuple(run.drains))


class Run:
    """One application: the current snapshot, replaced edit by edit, and what happened so far.

    The controllers (:mod:`karptui.whatif.controllers`) change ``snapshot`` through
    :meth:`replace_pods` and say what they did in ``notes``.
    """

    def __init__(self, snapshot: Snapshot, now: datetime | None, catalog: Any) -> None:
        when = now or snapshot.as_of or datetime.now(timezone.utc)
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        self.now = when.astimezone(timezone.utc)
        self.created = self.now.strftime("%Y-%m-%dT%H:%M:%SZ")
        self.snapshot = snapshot
        self.catalog = catalog
        self.resimulated: list[str] = []
        self.notes: list[str] = []
        self.added: set[str] = set()
        self.deleted: set[str] = set()
        self.rollouts: list[Rollout] = []
        self.drains: list[Drain] = []
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

    def replace_pods(self, deleted: Iterable[Pod], added: Sequence[Pod],
                     workloads: Iterable[Workload] | None = None) -> None:
        """The snapshot less ``deleted``, plus ``added`` (and with ``workloads``, if given)."""
        gone = {id(p) for p in deleted}
        self.deleted.update(p.key for p in deleted)
        self.added.update(p.key for p in added)
        changes: dict[str, Any] = {"pods": tuple(p for p in self.snapshot.pods if id(p) not in gone) + tuple(added)}
        if workloads is not None:
            changes["workloads"] = tuple(workloads)
        self.snapshot = replace(self.snapshot, **changes)

    def apply(self, edit: Edit) -> None:
        handlers = {Patch: self._patch, Scale: self._scale, Cordon: lambda e: cordon(self, e),
                    RemoveNode: lambda e: drain(self, e), Remove: self._remove,
                    AddNodes: lambda e: add_nodes(self, e), SetFeatureGates: self._feature_gates,
                    SetKarpenterVersion: self._karpenter_version, Create: self._create}
        handler = handlers.get(type(edit))
        if handler is None:
            raise EditError(f"not an edit: {edit!r}")
        handler(edit)

    # ---------------------------------------------------------------- lookup

    def find(self, target: Target) -> tuple[str, Any]:
        field = FIELD_OF_KIND[target.kind]
        candidates = [o for o in getattr(self.snapshot, field) if kind_of(o) == target.kind]
        for obj in candidates:
            if obj.name == target.name and obj.namespace == target.namespace:
                return field, obj
        known = [o.name for o in candidates if o.namespace == target.namespace]
        close = difflib.get_close_matches(target.name, known, n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
        other = next((o for o in getattr(self.snapshot, field)
                      if o.name == target.name and o.namespace == target.namespace), None)
        if other is not None:  # right name, wrong kind: a Provisioner called NodePool, say
            hint = f"; did you mean {Target(kind_of(other), other.name, other.namespace)}?"
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
        field, obj = self.find(edit.target)
        raw = self._raw(obj, edit.target)
        try:
            patched = apply_patch(raw, edit.patch, edit.patch_type)
        except PatchError as exc:
            raise EditError(f"{edit.target}: {exc}") from None
        self._replace_raw(field, obj, raw, patched, edit.target)

    def _scale(self, edit: Scale) -> None:
        field, obj = self.find(edit.target)
        raw = self._raw(obj, edit.target)
        patched = merge_patch(raw, {"spec": {SCALABLE[edit.target.kind]: edit.replicas}})
        self._replace_raw(field, obj, raw, patched, edit.target)

    def _replace_raw(self, field: str, obj: Any, raw: Mapping, patched: Any, target: Target) -> None:
        _check_identity(raw, patched, target)
        if field == "workloads":
            controllers.reconcile(self, obj, patched, target)
            self.resimulated.append(f"{obj.kind}/{obj.key}")
            return
        self.snapshot = swap(self.snapshot, field, obj, build(patched, target))

    # ---------------------------------------------------------------- create

    def _create(self, edit: Create) -> None:
        """A new object: built by the model's builder; a workload then goes to its controller as a
        scale from no pods (its pods are made from the template, pending), as the real one would."""
        target = edit.target
        field = FIELD_OF_KIND[target.kind]
        if any(kind_of(o) == target.kind and o.name == target.name and o.namespace == target.namespace
               for o in getattr(self.snapshot, field)):
            raise EditError(f"{target} already exists in the snapshot (patch it instead)")
        raw = edit.manifest
        obj = build(raw, target)
        self.snapshot = replace(self.snapshot, **{field: getattr(self.snapshot, field) + (obj,)})
        if field == "workloads":  # the same template: no rollout, a scale from its 0 pods
            controllers.reconcile(self, obj, raw, target)
            self.resimulated.append(f"{obj.kind}/{obj.key}")
        self.notes.append(f"{target} created")

    # ---------------------------------------------------------------- remove, gates

    def _feature_gates(self, edit: SetFeatureGates) -> None:
        self.snapshot = replace(self.snapshot, feature_gates={**self.snapshot.feature_gates, **edit.gates})
        self.notes.append(edit.describe())

    def _karpenter_version(self, edit: SetKarpenterVersion) -> None:
        self.snapshot = replace(self.snapshot, karpenter_version=edit.version, karpenter_version_set_by="what-if")
        self.notes.append(edit.describe())

    def _remove(self, edit: Remove) -> None:
        snap = self.snapshot
        field, obj = self.find(edit.target)
        if field == "pdbs":
            self.snapshot = replace(snap, pdbs=tuple(p for p in snap.pdbs if p is not obj))
            self.notes.append(f"{edit.target} removed")
            return
        owner = snap.owner_of(obj)
        if edit.target.kind == "ReplicaSet" and owner is not None:
            raise EditError(f"{edit.target} is managed by {owner.ref}: remove that instead")
        gone = {id(obj)} | {id(w) for w in snap.workloads if any(o is obj for o in snap.owner_chain(w))}
        doomed = [p for p in snap.pods if any(id(w) in gone for w in snap.owner_chain(p))]
        self.replace_pods(doomed, (), (w for w in snap.workloads if id(w) not in gone))
        self.notes.append(f"{edit.target} removed with {len(doomed)} pod(s)")


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
