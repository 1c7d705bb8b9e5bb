"""The Job controller: ``parallelism`` pods at a time, up to what ``completions`` still needs.

References (kubernetes/kubernetes pkg/controller/job/job_controller.go ``manageJob``): with
fewer active pods than wanted it creates the difference; with more it deletes the difference,
picked by ``controller.ActivePods`` (the ranking of :mod:`.ranking` without deletion cost or the
per-node count); a suspended Job wants none. A Job's pod template cannot be changed once made
(the API server refuses it), so a what-if that changes it is refused too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ...model.workloads import Workload
from ..edits import Target
from .common import EditError, owner_ref
from .replicaset import scale, scale_words
from .templates import PodTemplate, fresh_names

if TYPE_CHECKING:
    from ..apply import Run


def reconcile(run: Run, old: Workload, new: Workload, raw: Mapping, count: int, target: Target,
              template_changed: bool) -> None:
    if template_changed:
        raise EditError(f"{target}: a Job's pod template cannot be changed (spec.template is immutable); "
                        "remove the Job and add another")
    snap = run.snapshot
    pods = snap.pods_of(old)
    template = PodTemplate(run, new, raw, target, old=old, running=pods)
    owner = owner_ref(raw, new)
    scaled = scale(pods, count, related=(), now=None, job=True,
                   make=lambda n: [template.pod(name, owner) for name in fresh_names(run, new, n)])
    run.replace_pods(scaled.deleted, scaled.added, [new if w is old else w for w in snap.workloads])
    run.notes.append(scale_words(new.ref, len(scaled.kept) + len(scaled.deleted), count, scaled))
