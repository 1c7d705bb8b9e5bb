"""The ReplicaSet controller: a scale adds pods from the template or deletes the ranked first.

pkg/controller/replicaset/replica_set.go ``manageReplicas``: with fewer active pods than
``spec.replicas`` it creates the difference from the template (no running pod is touched);
with more, it deletes the difference, picked by ``getPodsToDelete`` (see :mod:`.ranking`).
Nothing is ever moved: a pod stays on its node until it is deleted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ...model.pod import Pod
from .ranking import deletion_order, is_active


@dataclass(frozen=True)
class Scaled:
    """What one scale did to one set of pods: ``kept`` (untouched, the same objects),
    ``deleted`` (in the order the controller deletes them) and ``added`` (new pending pods)."""

    kept: tuple[Pod, ...]
    deleted: tuple[Pod, ...]
    added: tuple[Pod, ...]


def scale(pods: Sequence[Pod], count: int, *, related: Iterable[Pod], now,
          make: Callable[[int], list[Pod]], job: bool = False) -> Scaled:
    """``pods`` (one ReplicaSet's) scaled to ``count``.

    ``related``: the family's pods (for the doubled-up rank); ``make(n)``: ``n`` new pods; ``job``:
    the Job controller's plainer ranking.
    Finished and terminating pods are not counted and stay as they are.
    """
    active = [p for p in pods if is_active(p)]
    others = tuple(p for p in pods if not is_active(p))
    if count >= len(active):
        return Scaled(others + tuple(active), (), tuple(make(count - len(active))))
    doomed = deletion_order(active, related, now, job=job)[:len(active) - count]
    gone = {id(p) for p in doomed}
    return Scaled(others + tuple(p for p in active if id(p) not in gone), tuple(doomed), ())


def scale_words(ref: str, before: int, count: int, scaled: Scaled) -> str:
    """``Deployment/default/web: 20 -> 21: 1 pod added (pending); running pods stay where they are``."""
    if scaled.added:
        what = f"{len(scaled.added)} pod(s) added from the template (pending)"
    elif scaled.deleted:
        shown = ", ".join(p.name for p in scaled.deleted[:5]) + (", ..." if len(scaled.deleted) > 5 else "")
        what = f"{len(scaled.deleted)} pod(s) deleted, as the controller ranks them: {shown}"
    else:
        what = "no pod added or deleted"
    return f"{ref}: {before} -> {count}: {what}; running pods stay where they are"
