"""Kubernetes' workload controllers, as far as a what-if needs them: what an edit does to pods.

One module per controller, as kubernetes/kubernetes ``pkg/controller/`` has them:
:mod:`.replicaset` (scale: add from the template, delete the ranked first), :mod:`.deployment`
(scale through its ReplicaSet; a template change rolls out by its strategy, with a peak),
:mod:`.statefulset` (ordinals), :mod:`.daemon` (a pod per admitted node), :mod:`.job`
(parallelism), :mod:`.drain` (a node's removal, honouring PDBs) and :mod:`.nodes` (cordon, added
nodes). :mod:`.ranking` is the one owner of "which pods a controller deletes first";
:mod:`.templates` makes every new pod as admission would.

The rule they all keep: a controller never moves a running pod. Scaling up adds pending pods;
scaling down deletes pods; a rollout deletes and creates; only a pod that is deleted can land
somewhere else, as a new pod.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ... import limits
from ...model.fields import as_int
from ...model.workloads import Workload
from ..edits import SCALABLE, Target
from . import daemon, deployment, job, statefulset
from .common import BUILD_ERRORS, EditError, build, owner_ref
from .replicaset import scale, scale_words
from .templates import PodTemplate, fresh_names

if TYPE_CHECKING:
    from ..apply import Run


def reconcile(run: Run, old: Workload, raw: Mapping, target: Target) -> None:
    """The edited workload ``raw`` (was ``old``) carried out by its controller."""
    new = build(raw, target)
    if new.template is None:
        raise EditError(f"{target}: no pod template (spec.template), so no pods to make")
    changed = ((old.raw or {}).get("spec") or {}).get("template") != (raw.get("spec") or {}).get("template")
    count = desired(new, raw, target)
    snap = run.snapshot
    if new.kind == "DaemonSet":
        run.check_made(len(snap.nodes), f"a pod per node for {target}")
    else:
        current = sum(1 for p in snap.pods_of(old) if not p.is_terminal)
        run.check_totals(len(snap.pods) - current + count, len(snap.nodes))
        run.check_made(max(count - current, 0) + (count if changed else 0), f"{count:,} for {target}")
    try:
        if new.kind == "Deployment":
            deployment.reconcile(run, old, new, raw, count, target, changed)
        elif new.kind == "StatefulSet":
            statefulset.reconcile(run, old, new, raw, count, target, changed)
        elif new.kind == "DaemonSet":
            daemon.reconcile(run, old, new, raw, target, changed)
        elif new.kind == "Job":
            job.reconcile(run, old, new, raw, count, target, changed)
        else:
            _replicaset(run, old, new, raw, count, target, changed)
    except EditError:
        raise
    except BUILD_ERRORS as exc:
        raise EditError(f"{target}: its pods cannot be made from the template: {exc}") from None


def _replicaset(run: Run, old: Workload, new: Workload, raw: Mapping, count: int, target: Target,
                changed: bool) -> None:
    """A ReplicaSet no Deployment owns: scale; a template change touches no running pod (the
    ReplicaSet controller makes new pods from the new template only as it replaces old ones)."""
    snap = run.snapshot
    pods = snap.pods_of(old)
    template = PodTemplate(run, new, raw, target, old=old, running=pods)
    owner = owner_ref(raw, new)
    scaled = scale(pods, count, related=pods, now=run.now,
                   make=lambda n: [template.pod(name, owner) for name in fresh_names(run, new, n)])
    run.replace_pods(scaled.deleted, scaled.added, [new if w is old else w for w in snap.workloads])
    run.notes.append(scale_words(new.ref, len(scaled.kept) + len(scaled.deleted), count, scaled))
    if changed:
        run.notes.append(f"{new.ref}: a ReplicaSet's template change replaces no running pod; only new pods use it")


def desired(workload: Workload, raw: Mapping, target: Target) -> int:
    """How many pods the controller wants: replicas; a Job's parallelism capped by completions
    (none while suspended); a DaemonSet has no count (one per admitted node)."""
    spec = raw.get("spec") or {}
    if workload.kind == "DaemonSet":
        return 0
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
