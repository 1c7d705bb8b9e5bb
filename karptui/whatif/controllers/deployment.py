"""The Deployment controller: a scale resizes the current ReplicaSet; a template change rolls out.

References (kubernetes/kubernetes):

* pkg/controller/deployment/sync.go ``scale``: a replicas change (template unchanged) goes to
  the active ReplicaSet, which adds or deletes pods as :mod:`.replicaset` says; no pod moves.
* pkg/controller/deployment/util/deployment_util.go ``ResolveFenceposts``: ``maxSurge`` of the
  replicas rounds up, ``maxUnavailable`` rounds down, and when both come to 0 one pod may be
  unavailable; defaults 25% and 25%.
* pkg/controller/deployment/rolling.go: each sync first scales the new ReplicaSet up to at most
  ``replicas + maxSurge`` pods in all (``NewRSNewReplicas``), then scales old ReplicaSets down
  while at least ``replicas - maxUnavailable`` pods stay available, not counting new pods that
  are not available yet (``reconcileOldReplicaSets``).
* pkg/controller/deployment/recreate.go: every old pod is deleted, and gone, before the new
  ReplicaSet is scaled up.

A what-if answers a rollout twice: the end state (every old pod gone, ``replicas`` new pods from
the new ReplicaSet, placed afresh by the simulator) and the peak, the step at which most pods
exist at once, with the old pods the controller has not yet deleted still holding their room
(:class:`Rollout` ``.peak``, simulated by the what-if session).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ...model import labels as L
from ...model.meta import OwnerReference
from ...model.snapshot import Snapshot
from ...model.workloads import Workload
from ..edits import Target
from .common import EditError, owner_ref
from .ranking import deletion_order, is_active
from .replicaset import scale, scale_words
from .templates import PodTemplate, fresh_names

if TYPE_CHECKING:
    from ..apply import Run

REVISION = L.DEPLOYMENT_REVISION
ROLLING, RECREATE = "RollingUpdate", "Recreate"
DEFAULT_SURGE = DEFAULT_UNAVAILABLE = "25%"
_SAFE = "bcdfghjklmnpqrstvwxz2456789"   # the alphabet of pod-template-hash values


@dataclass(frozen=True)
class Rollout:
    """A workload's rollout as its controller would run it, step by step.

    ``steps``: (old pods, new pods) after each controller sync, assuming every new pod becomes
    available as soon as it exists (the simulation of ``peak`` says whether it can be placed).
    ``peak``: the cluster at the step with the most pods (then the most old ones), old pods
    still bound and that step's new pods pending, all placed at once; None when old and new never
    overlap. Old pods cut in a sync are taken as gone by then (their graceful termination is not
    modelled), so ``most_pods`` can exceed the pods in ``peak``.
    """

    workload: str
    strategy: str
    replicas: int
    max_surge: int = 0
    max_unavailable: int = 0
    steps: tuple[tuple[int, int], ...] = ()
    peak_step: int = 0          # index into steps
    peak: Snapshot | None = None
    min_ready_seconds: int = 0
    most_pods: int = 0          # the most pods at once, inside a sync before old ones are cut

    @property
    def overlap_steps(self) -> int:
        """Steps after which old and new pods both exist."""
        return sum(1 for old, new in self.steps if old and new)

    @property
    def peak_pods(self) -> int:
        return sum(self.steps[self.peak_step]) if self.steps else 0

    def to_dict(self) -> dict:
        old, new = self.steps[self.peak_step] if self.steps else (0, 0)
        return {"workload": self.workload, "strategy": self.strategy, "replicas": self.replicas,
                "max_surge": self.max_surge, "max_unavailable": self.max_unavailable,
                "steps": [list(s) for s in self.steps], "overlap_steps": self.overlap_steps,
                "min_ready_seconds": self.min_ready_seconds, "most_pods": self.most_pods or old + new,
                "peak": {"step": self.peak_step + 1, "old_pods": old, "new_pods": new, "pods": old + new}}


def fenceposts(max_surge: object, max_unavailable: object, replicas: int) -> tuple[int, int]:
    """(surge, unavailable) in pods, as ``ResolveFenceposts`` works them out."""
    surge = _scaled(max_surge, DEFAULT_SURGE, replicas, up=True, what="maxSurge")
    unavailable = _scaled(max_unavailable, DEFAULT_UNAVAILABLE, replicas, up=False, what="maxUnavailable")
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


@dataclass(frozen=True)
class Steps:
    """A RollingUpdate's course: (old, new) after each sync, the most pods that exist at once
    (inside a sync, after the new side grows and before the old side is cut), and whether it
    stalls (new pods that never become available hold it at the last step)."""

    steps: tuple[tuple[int, int], ...]
    peak_total: int
    stalled: bool = False


def rolling_steps(replicas: int, surge: int, unavailable: int, old: int, old_available: int | None = None,
                  new_available: bool = True) -> Steps:
    """The syncs of a RollingUpdate from ``old`` pods (``old_available`` of them available; default
    all) to ``replicas`` new ones, as ``rolloutRolling`` runs them.

    The first sync creates the new ReplicaSet at ``NewRSNewReplicas`` (its pods not available yet)
    and may cut the old ones in the same pass. Every later sync either scales the new ReplicaSet
    up towards ``replicas + surge`` pods in all, and ends there, or else cuts old ReplicaSets:
    unavailable old pods first, as far as ``old + new - (replicas - unavailable) - new pods not
    yet available`` allows (``cleanupUnhealthyReplicas``), then available ones while more than
    ``replicas - unavailable`` pods are available. A pod created in a sync is available from the
    next one (``new_available``; False: never, and the rollout stalls).
    """
    steps: list[tuple[int, int]] = []
    healthy = old if old_available is None else min(old_available, old)
    min_available = replicas - unavailable
    new = min(max(replicas + surge - old, 0), replicas)
    peak, ready_new, first = old + new, 0, True
    while len(steps) < 4 * replicas + 4:
        if not first:
            target = min(max(replicas + surge - old - new, 0) + new, replicas)
            if target > new:
                new = target
                peak = max(peak, old + new)
                steps.append((old, new))
                ready_new = new if new_available else 0
                continue
        room = old + new - min_available - (new - ready_new)
        cut = 0
        if room > 0:
            cut = min(room, old - healthy)
            old -= cut
            available = healthy + ready_new
            if available > min_available:
                down = min(available - min_available, healthy)
                old, healthy, cut = old - down, healthy - down, cut + down
        if not first and not cut:
            return Steps(tuple(steps), peak, (old, new) != (0, replicas))
        first = False
        steps.append((old, new))
        ready_new = new if new_available else 0
        if (old, new) == (0, replicas):
            break
    return Steps(tuple(steps), peak)


def reconcile(run: Run, old: Workload, new: Workload, raw: Mapping, count: int, target: Target,
              template_changed: bool) -> None:
    """Carry out an edited Deployment: a scale, or a rollout by its strategy."""
    snap = run.snapshot
    family = snap.pods_of(old)
    sets = [w for w in snap.workloads if w.kind == "ReplicaSet" and snap.owner_of(w) is old]
    template = PodTemplate(run, new, raw, target, old=old, running=family)
    if not template_changed:
        _scale(run, old, new, count, template, family, sets, target)
    else:
        _rollout(run, old, new, raw, count, template, family, sets, target)


def _scale(run: Run, old: Workload, new: Workload, count: int, template: PodTemplate, family: list,
           sets: list[Workload], target: Target) -> None:
    snap = run.snapshot
    current = max(sets, key=revision) if sets else None
    owner = owner_ref({"apiVersion": "apps/v1"}, current or new)
    labels = template.labels
    if current is not None and current.labels.get(L.POD_TEMPLATE_HASH):
        labels = {**labels, L.POD_TEMPLATE_HASH: current.labels[L.POD_TEMPLATE_HASH]}
    mine = [p for p in family if current is None or snap.owner_of(p) is current]
    others = [p for p in family if is_active(p) and current is not None and snap.owner_of(p) is not current]
    if others:
        run.notes.append(f"{target}: {len(others)} pod(s) of older ReplicaSets are still running (a rollout under "
                         "way); the scale goes to the newest ReplicaSet only")
    scaled = scale(mine, count, related=family, now=run.now,
                   make=lambda n: [template.pod(name, owner, labels=labels)
                                   for name in fresh_names(run, current or new, n)])
    workloads = [new if w is old else w for w in snap.workloads]
    if current is not None:
        workloads = [replace(w, replicas=count) if w is current else w for w in workloads]
    run.replace_pods(scaled.deleted, scaled.added, workloads)
    run.notes.append(scale_words(new.ref, sum(1 for p in mine if is_active(p)), count, scaled))


def _rollout(run: Run, old: Workload, new: Workload, raw: Mapping, count: int, template: PodTemplate,
             family: list, sets: list[Workload], target: Target) -> None:
    snap = run.snapshot
    spec = raw.get("spec") or {}
    strategy = spec.get("strategy") if isinstance(spec.get("strategy"), Mapping) else {}
    kind = strategy.get("type") or ROLLING
    if kind not in (ROLLING, RECREATE):
        raise EditError(f"{target}: spec.strategy.type must be RollingUpdate or Recreate, got {kind!r}")
    template_hash = pod_template_hash(raw["spec"]["template"])
    rs_name = f"{new.name}-{template_hash}"
    labels = {**template.labels, L.POD_TEMPLATE_HASH: template_hash}
    top = max((revision(w)[0] for w in sets), default=0)
    rs = replace(new, kind="ReplicaSet", name=rs_name, uid=f"whatif-{new.namespace}-{rs_name}", raw=None,
                 labels=labels, annotations={REVISION: str(max(top, 0) + 1)}, replicas=count, ready_replicas=0,
                 owners=(_owner(new),), template=replace(new.template, name=rs_name, labels=labels))
    owner = owner_ref({"apiVersion": "apps/v1"}, rs)
    active = [p for p in family if is_active(p)]
    names = fresh_names(run, rs, count)
    made = [template.pod(name, owner, labels=labels) for name in names]
    retired = {id(w) for w in sets}
    workloads = [new if w is old else (replace(w, replicas=0, ready_replicas=0) if id(w) in retired else w)
                 for w in snap.workloads] + [rs]
    before = run.snapshot
    run.replace_pods(active, made, workloads)
    ready = spec.get("minReadySeconds")
    min_ready = ready if isinstance(ready, int) and not isinstance(ready, bool) else 0
    if kind == RECREATE:
        steps = ((0, 0), (0, count)) if active else ((0, count),)
        rollout = Rollout(new.ref, RECREATE, count, steps=steps, peak_step=len(steps) - 1,
                          min_ready_seconds=min_ready)
    else:
        params = strategy.get("rollingUpdate") if isinstance(strategy.get("rollingUpdate"), Mapping) else {}
        surge, unavailable = fenceposts(params.get("maxSurge"), params.get("maxUnavailable"), count)
        course = rolling_steps(count, surge, unavailable, len(active),
                               sum(1 for p in active if p.node_name and p.ready))
        steps = course.steps
        peak_step = max(range(len(steps)), key=lambda i: (sum(steps[i]), steps[i][0], -i)) if steps else 0
        old_left, new_made = steps[peak_step] if steps else (0, 0)
        peak = None
        if old_left and new_made:
            doomed = deletion_order(active, family, run.now)[:len(active) - old_left]
            peak = _with_pods(before, doomed, made[:new_made], workloads)
        rollout = Rollout(new.ref, ROLLING, count, surge, unavailable, steps, peak_step, peak, min_ready,
                          course.peak_total)
    run.rollouts.append(rollout)
    run.notes.append(f"{new.ref}: rollout ({rollout.strategy}): {len(active)} pod(s) replaced by {count} pending "
                     f"pod(s) of ReplicaSet {rs_name}; {_steps_words(rollout)}")


def _steps_words(rollout: Rollout) -> str:
    if rollout.strategy == RECREATE:
        return "every old pod goes before the first new one is made"
    old, new = rollout.steps[rollout.peak_step] if rollout.steps else (0, 0)
    return (f"maxSurge {rollout.max_surge}, maxUnavailable {rollout.max_unavailable}: {len(rollout.steps)} step(s), "
            f"old and new overlap in {rollout.overlap_steps}; at most {old + new} pods ({old} old, {new} new)")


def _with_pods(snapshot: Snapshot, deleted, added, workloads) -> Snapshot:
    gone = {id(p) for p in deleted}
    return replace(snapshot, pods=tuple(p for p in snapshot.pods if id(p) not in gone) + tuple(added),
                   workloads=tuple(workloads))


def _owner(deployment: Workload) -> OwnerReference:
    return OwnerReference(kind="Deployment", name=deployment.name, uid=deployment.uid, controller=True,
                    api_version="apps/v1")


def revision(rs: Workload) -> tuple:
    """A ReplicaSet's place in its Deployment's history: revision, then creation, then name."""
    value = rs.annotations.get(REVISION, "")
    created = rs.created.timestamp() if rs.created else 0.0
    return (int(value) if value.isdigit() else -1, created, rs.name)


def pod_template_hash(template: Mapping) -> str:
    """A ``pod-template-hash`` for a template: FNV-1a of the template, spelled in the controller's
    safe alphabet as ``rand.SafeEncodeString`` spells the decimal hash (the value differs from the
    cluster's, which hashes Go's printing of the object; it only has to be stable and plausible)."""
    data = json.dumps(template, sort_keys=True, default=str).encode()
    value = 0x811C9DC5
    for byte in data:
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return "".join(_SAFE[ord(c) % len(_SAFE)] for c in str(value))


def _scaled(value: object, default: str, replicas: int, *, up: bool, what: str) -> int:
    value = default if value is None else value
    if isinstance(value, bool):
        raise EditError(f"{what} must be a number or a percentage, got {value!r}")
    if isinstance(value, int):
        if value < 0:
            raise EditError(f"{what} must not be negative, got {value}")
        return value
    if isinstance(value, str) and value.endswith("%") and value[:-1].isdigit():
        share = int(value[:-1]) * replicas
        return -(-share // 100) if up else share // 100
    raise EditError(f"{what} must be a number or a percentage, got {value!r}")
