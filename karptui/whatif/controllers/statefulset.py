"""The StatefulSet controller: pods by ordinal, and updates from the highest ordinal down.

References (kubernetes/kubernetes pkg/controller/statefulset/stateful_set_control.go):

* a scale creates the missing ordinals below ``replicas``, lowest first (OrderedReady waits for
  each to be Ready; Parallel makes them at once: the end state is the same), and deletes the
  ordinals at or above it, highest first; no other pod is touched;
* a template change with ``updateStrategy: RollingUpdate`` (the default) deletes and re-creates,
  one at a time from the highest ordinal down, every pod whose ordinal is at least
  ``rollingUpdate.partition`` (default 0); the new pod keeps the name and its volume claims, and
  is scheduled afresh; ``OnDelete`` replaces no pod until someone deletes it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from ...model.pod import Pod
from ...model.workloads import Workload
from ..edits import Target
from .common import owner_ref
from .ranking import is_active
from .templates import STS_POD_NAME, PodTemplate

if TYPE_CHECKING:
    from ..apply import Run

ROLLING = "RollingUpdate"   # the default; OnDelete (or any other) replaces no running pod


def reconcile(run: Run, old: Workload, new: Workload, raw: Mapping, count: int, target: Target,
              template_changed: bool) -> None:
    snap = run.snapshot
    pods = snap.pods_of(old)
    template = PodTemplate(run, new, raw, target, old=old, running=pods)
    owner = owner_ref(raw, new)
    claims = _claim_templates(raw)
    by_ordinal = {ordinal(p, new.name): p for p in pods if is_active(p)}
    by_ordinal.pop(None, None)
    gone = sorted((n for n in by_ordinal if n >= count), reverse=True)
    missing = [n for n in range(count) if n not in by_ordinal]
    deleted = [by_ordinal[n] for n in gone]
    added = [_pod(template, owner, claims, new.name, n) for n in missing]
    strategy = (raw.get("spec") or {}).get("updateStrategy")
    strategy = strategy if isinstance(strategy, Mapping) else {}
    kind = strategy.get("type") or ROLLING
    replaced: list[int] = []
    if template_changed and kind == ROLLING:
        partition = (strategy.get("rollingUpdate") or {}).get("partition") or 0
        partition = partition if isinstance(partition, int) and not isinstance(partition, bool) else 0
        replaced = sorted((n for n in by_ordinal if partition <= n < count), reverse=True)
        deleted += [by_ordinal[n] for n in replaced]
        added += [_pod(template, owner, claims, new.name, n) for n in replaced]
    workloads = [new if w is old else w for w in snap.workloads]
    run.replace_pods(deleted, added, workloads)
    if template_changed:
        if kind == ROLLING:
            run.notes.append(f"{new.ref}: rolling update from the highest ordinal down: "
                             f"{_ordinals(replaced)} re-created (same names, placed afresh), one at a time")
        else:
            run.notes.append(f"{new.ref}: updateStrategy {kind}: no running pod is replaced until it is deleted")
    if missing or gone:
        run.notes.append(f"{new.ref}: scaled to {count}: "
                         + "; ".join(part for part in (f"{_ordinals(missing)} created" if missing else "",
                                                       f"{_ordinals(gone)} deleted" if gone else "") if part))


def ordinal(pod: Pod, name: str) -> int | None:
    """The ordinal in ``<statefulset>-<n>``, or None for a pod not named so."""
    match = re.fullmatch(re.escape(name) + r"-(0|[1-9][0-9]*)", pod.name)
    return int(match.group(1)) if match else None


def _pod(template: PodTemplate, owner: dict, claims: list[str], sts: str, n: int) -> Pod:
    name = f"{sts}-{n}"
    return template.pod(name, owner, labels={**template.labels, STS_POD_NAME: name},
                        spec=_with_claims(template.spec, claims, name))


def _ordinals(numbers: list[int]) -> str:
    return "ordinal(s) " + ", ".join(map(str, numbers)) if numbers else "no pod"


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
